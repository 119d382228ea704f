//! Claude Code: hook payloads to neutral events, decisions to responses.
//!
//! Claude Code accepts an empty stdout with exit 0 as "no opinion" for every event, and that is
//! what tlc prints when no rail objected: it never grants a permission Claude Code would
//! otherwise ask the operator for.

use super::mapped::{agent_field, str_field, Action, Mapped, SpawnRequest, Subject};
use super::mask;
use super::provider::{Layout, ModelMask, Provider, ToolResult};
use super::wire::{self, given, owned, view, Named};
use crate::decision::{Decision, Permission};
use crate::gate::stop::StopFacts;
use crate::obs::redact::PayloadRedaction;
use crate::obs::{Event as NeutralEvent, Kind, Phase};
use crate::policy::floor::Act;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// Claude Code, as a provider.
pub(crate) struct Claude;

/// The one value of [`Claude`] (`hook::PROVIDERS` lists it).
pub(crate) const PROVIDER: &dyn Provider = &Claude;

/// The hook events Claude Code sends, as its payloads name them (`hook_event_name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
pub(crate) enum Event {
    SessionStart,
    UserPromptSubmit,
    PreToolUse,
    PostToolUse,
    PostToolUseFailure,
    PostToolBatch,
    PermissionRequest,
    PermissionDenied,
    Notification,
    MessageDisplay,
    Stop,
    StopFailure,
    SubagentStart,
    SubagentStop,
    PreCompact,
    SessionEnd,
    /// An event this tlc does not know (a newer Claude Code's), or none named: recorded as
    /// `Kind::Unknown`, answered neutrally.
    #[default]
    #[serde(other)]
    Unknown,
}

impl Event {
    /// A payload of this event with `fields` besides: what the other modules' tests send,
    /// so that no module but this one writes an event's name.
    #[cfg(test)]
    pub(crate) fn payload(self, mut fields: Value) -> Value {
        if let Some(m) = fields.as_object_mut() {
            m.insert("hook_event_name".into(), serde_json::to_value(self).unwrap_or_default());
        }
        fields
    }

    /// The event a rendered response is for, from the name its payload gave.
    pub(crate) fn of(name: &str) -> Event {
        Named::<Event>::parse(name)
    }
}

/// A Claude Code hook payload as tlc reads it: a view borrowed from the payload as parsed. Every
/// field is lenient (`wire`): one of another JSON type reads as absent. Fields tlc only passes
/// on (`tool_response`, the attributes `map` copies) are read from the payload as they are.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Payload<'v> {
    #[serde(borrow, deserialize_with = "wire::event")]
    pub hook_event_name: Named<'v, Event>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub tool_name: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::object")]
    pub tool_input: ToolInput<'v>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub session_id: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub prompt_id: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub cwd: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub transcript_path: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub agent_transcript_path: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub model: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub tool_use_id: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub agent_id: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub agent_type: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub permission_mode: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub last_assistant_message: Option<&'v str>,
    /// MessageDisplay's text block.
    #[serde(borrow, deserialize_with = "wire::text")]
    pub delta: Option<&'v str>,
    #[serde(deserialize_with = "wire::flag")]
    pub stop_hook_active: Option<bool>,
    #[serde(deserialize_with = "wire::int")]
    pub duration_ms: Option<i64>,
    /// A Stop's background tasks (Claude Code 2.1.332 and later).
    #[serde(borrow, deserialize_with = "wire::objects")]
    pub background_tasks: Vec<Task<'v>>,
    /// Claude Code never sends one; Cursor's payloads always do (see [`Provider::sent`]).
    #[serde(deserialize_with = "wire::present")]
    pub conversation_id: bool,
}

/// The event a payload names (`tlc demo` replays Claude Code payloads and tells them apart).
pub(crate) fn event_of(v: &Value) -> Event {
    view::<Payload>(v).event()
}

/// The event name a payload gives, as it gives it.
pub(crate) fn event_name(v: &Value) -> Option<&str> {
    view::<Payload>(v).hook_event_name.name
}

impl<'v> Payload<'v> {
    fn event(&self) -> Event {
        self.hook_event_name.event
    }

    /// The tool, when it names one.
    fn tool(&self) -> Option<&'v str> {
        given(self.tool_name)
    }
}

/// A tool call's input, as far as tlc reads it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ToolInput<'v> {
    #[serde(borrow, deserialize_with = "wire::text")]
    pub command: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub file_path: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub notebook_path: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub path: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub model: Option<&'v str>,
    /// A Bash call asking to run outside Claude Code's sandbox.
    #[serde(rename = "dangerouslyDisableSandbox", deserialize_with = "wire::flag")]
    pub dangerously_disable_sandbox: Option<bool>,
}

/// One of a Stop's `background_tasks`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Task<'v> {
    #[serde(rename = "type", borrow, deserialize_with = "wire::text")]
    pub kind: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub status: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub description: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub agent_type: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub id: Option<&'v str>,
}

/// The events tlc is wired to; docs/hook.md says why the other events Claude Code knows are not.
const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "PermissionRequest",
    "PermissionDenied",
    "Notification",
    "MessageDisplay",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];

impl Provider for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }
    fn product(&self) -> &'static str {
        "Claude Code"
    }
    fn config_dir_var(&self) -> &'static str {
        "CLAUDE_CONFIG_DIR"
    }
    fn config_dir_default(&self) -> &'static str {
        ".claude"
    }
    fn settings_file(&self) -> &'static str {
        "settings.json"
    }
    fn project_settings_files(&self) -> &'static [&'static str] {
        &[".claude/settings.json", ".claude/settings.local.json"]
    }
    fn events(&self) -> &'static [&'static str] {
        EVENTS
    }
    fn layout(&self) -> Layout {
        Layout::Grouped {
            matcher_events: &[
                "PreToolUse",
                "PostToolUse",
                "PostToolUseFailure",
                "PermissionRequest",
                "PermissionDenied",
            ],
        }
    }
    /// A hook answers in milliseconds; the margin covers a busy machine and a database locked by
    /// another writer. A stop runs the gates (lint, tests) and needs minutes.
    fn timeout(&self, event: &str) -> Option<u64> {
        Some(match Event::of(event) {
            Event::Stop | Event::SubagentStop => 600,
            _ => 30,
        })
    }
    /// Claude Code sets it to the project folder in every hook's environment; the hook's working
    /// directory (and the payload's `cwd`) follow the agent's shell instead.
    fn project_dir_var(&self) -> Option<&'static str> {
        Some("CLAUDE_PROJECT_DIR")
    }
    /// Claude Code's Bash sandbox (bubblewrap and seccomp on Linux): on, with no command allowed
    /// out of it and no start without it; the protected set in its `denyWrite` (absolute paths,
    /// the only form its user settings honour; a path that does not exist yet is kept from being
    /// created) and in `Edit(…)` deny rules, which its file tools obey in every permission mode;
    /// and every repository's `.tlc/` by pattern for the file tools.
    fn sandbox_wants(&self, protected: &[crate::policy::boundary::Protected]) -> Option<Vec<super::additions::Want>> {
        use super::additions::Want;
        let key = |pointer: &str, value: bool| Want::Key {
            pointer: pointer.to_string(),
            value: Value::Bool(value),
            keeps: if value {
                |v| *v == Value::Bool(true)
            } else {
                |v| *v == Value::Bool(false)
            },
        };
        let mut wants = vec![
            key("/sandbox/enabled", true),
            key("/sandbox/allowUnsandboxedCommands", false),
            key("/sandbox/failIfUnavailable", true),
        ];
        for p in protected {
            wants.push(Want::Item {
                pointer: "/sandbox/filesystem/denyWrite".into(),
                item: Value::String(p.path.display().to_string()),
            });
        }
        wants.push(Want::Item {
            pointer: "/permissions/deny".into(),
            item: Value::String("Edit(//**/.tlc/**)".into()),
        });
        for p in protected {
            let rule = if p.member.is_folder() {
                format!("Edit(/{}/**)", p.path.display())
            } else {
                format!("Edit(/{})", p.path.display())
            };
            wants.push(Want::Item {
                pointer: "/permissions/deny".into(),
                item: Value::String(rule),
            });
        }
        Some(wants)
    }
    fn sandbox_state(&self, value: &Value) -> Option<super::provider::SandboxState> {
        let sandbox = value.get("sandbox");
        let flag = |k: &str| sandbox.and_then(|s| s.get(k)).and_then(Value::as_bool);
        let strings = |v: Option<&Value>| -> Vec<String> {
            v.and_then(Value::as_array)
                .map(|l| l.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default()
        };
        let mut openings = Vec::new();
        for c in strings(sandbox.and_then(|s| s.get("excludedCommands"))) {
            let program = c.trim_start_matches("Bash(").split([' ', ':', ')', '*']).next().unwrap_or("");
            let program = program.rsplit('/').next().unwrap_or(program);
            if c.trim() == "*" || crate::policy::floor::runs_code_or_tlc(program) {
                openings.push(format!("sandbox.excludedCommands runs `{c}` outside the sandbox"));
            }
        }
        let network = sandbox.and_then(|s| s.get("network"));
        if network.and_then(|n| n.get("allowAllUnixSockets")).and_then(Value::as_bool) == Some(true) {
            openings
                .push("sandbox.network.allowAllUnixSockets lets commands reach any unix socket (a tmux or screen server outside)".into());
        }
        let sockets = strings(network.and_then(|n| n.get("allowUnixSockets")));
        if !sockets.is_empty() {
            openings.push(format!(
                "sandbox.network.allowUnixSockets lets commands reach {} (ignored on Linux, honoured on macOS)",
                sockets.join(", ")
            ));
        }
        if flag("enableWeakerNestedSandbox") == Some(true) || flag("allowNestedUserNamespaces") == Some(true) {
            openings.push("the sandbox lets commands make user namespaces of their own, which can take its read-only binds away".into());
        }
        if sandbox
            .and_then(|s| s.get("filesystem"))
            .and_then(|f| f.get("disabled"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            openings.push("sandbox.filesystem.disabled turns the sandbox's file-system rules off".into());
        }
        Some(super::provider::SandboxState {
            enabled: flag("enabled") == Some(true),
            no_escape: flag("allowUnsandboxedCommands") == Some(false),
            required: flag("failIfUnavailable") == Some(true),
            deny_write: strings(sandbox.and_then(|s| s.get("filesystem")).and_then(|f| f.get("denyWrite"))),
            openings,
        })
    }
    fn has_statusline(&self) -> bool {
        true
    }
    /// A payload naming an event, without Cursor's `conversation_id`.
    fn sent(&self, payload: &Value) -> bool {
        let p: Payload = view(payload);
        p.hook_event_name.name.is_some() && !p.conversation_id
    }
    fn map(&self, v: &Value, now: chrono::DateTime<chrono::Utc>) -> Mapped {
        map(v, now)
    }
    fn acts<'v>(&self, v: &'v Value) -> Vec<Act<'v>> {
        acts(v)
    }
    fn work_dir<'v>(&self, v: &'v Value) -> Option<&'v str> {
        given(view::<Payload>(v).cwd)
    }
    /// Only PreToolUse can ask; elsewhere Claude Code's answer is a block.
    fn can_ask(&self, v: &Value) -> bool {
        view::<Payload>(v).event() == Event::PreToolUse
    }
    /// `bypassPermissions` approves and `dontAsk` refuses by itself: nobody would see a question.
    fn unattended(&self, v: &Value) -> bool {
        matches!(given(view::<Payload>(v).permission_mode), Some("bypassPermissions" | "dontAsk"))
    }
    fn render(&self, hook_event: &str, decision: &Decision) -> String {
        render(hook_event, decision)
    }
    /// An empty stdout with exit 0 is "no opinion" for every event.
    fn neutral(&self) -> &'static str {
        ""
    }
    fn plan_mask(&self, redacted: &Value, redaction: &PayloadRedaction) -> Option<ModelMask> {
        plan_mask(redacted, redaction)
    }
    fn apply_mask(&self, hook_event: &str, out: &mut Map<String, Value>, m: ModelMask) -> bool {
        apply_mask(hook_event, out, m)
    }
    fn awaited_response(&self, v: &Value) -> Option<String> {
        awaited_response(v)
    }
    fn stop(&self, v: &Value) -> StopFacts {
        stop(v)
    }
    // No `response_text`: MessageDisplay may show a response in parts, so a claim is read from
    // the Stop's `last_assistant_message`, else from the transcript. No `edited_file` either:
    // Claude Code's edits are claimed from their PreToolUse (`acts`); it reports none after.
    /// A PostToolUse of an edit tool: the file it wrote (`notebook_path` for NotebookEdit).
    fn written_file<'v>(&self, v: &'v Value) -> Option<&'v str> {
        let input = view::<Payload>(v).tool_input;
        given(input.file_path).or_else(|| given(input.notebook_path))
    }
    fn untrusted_tools(&self) -> &'static [&'static str] {
        &["WebFetch", "WebSearch"]
    }
    fn tool_result<'v>(&self, v: &'v Value) -> Option<ToolResult<'v>> {
        tool_result(v)
    }
    /// PostToolUse renders `additionalContext` (`render`, `context_or_nothing`).
    fn carries_context(&self, hook_event: &str) -> bool {
        Event::of(hook_event) == Event::PostToolUse
    }
}

/// A PostToolUse's tool, the command a Bash call ran, and `tool_response`.
fn tool_result(v: &Value) -> Option<ToolResult<'_>> {
    let p: Payload = view(v);
    if p.event() != Event::PostToolUse {
        return None;
    }
    let tool = p.tool()?;
    Some(ToolResult {
        tool,
        command: (tool == "Bash").then(|| given(p.tool_input.command)).flatten(),
        output: v.get("tool_response"),
        mcp: tool.starts_with("mcp__"),
    })
}

/// Tools that only read: an integrity divergence never blocks them.
const READ_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch", "TodoRead"];
const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];
/// The tool that runs a subagent: `Agent` (Claude Code 2.x), `Task` before it.
const SUBAGENT_TOOLS: &[&str] = &["Agent", "Task"];

/// Tools whose `file_path` (or `notebook_path`) the floor judges as a read, a write or an edit.
const FLOOR_READ_TOOLS: &[&str] = &["Read", "Grep"];
const FLOOR_WRITE_TOOLS: &[&str] = &["Write"];
const FLOOR_EDIT_TOOLS: &[&str] = &["Edit", "MultiEdit", "NotebookEdit"];

/// A PreToolUse of Bash is a command, of `mcp__…` an MCP call, of a file tool a read, write or
/// edit of its path; a PermissionRequest (Claude Code 2.1.332 and later: its own permission
/// dialog is about to open) is the same act, asked again so that the floor refuses it there too;
/// nothing else acts.
fn acts(v: &Value) -> Vec<Act<'_>> {
    let p: Payload = view(v);
    if !matches!(p.event(), Event::PreToolUse | Event::PermissionRequest) {
        return Vec::new();
    }
    let tool = p.tool().unwrap_or("");
    let input = &p.tool_input;
    if tool == "Bash" && input.dangerously_disable_sandbox == Some(true) {
        // Judged first: whatever the command, it asks to leave the boundary.
        return [Some(Act::SandboxEscape), given(input.command).map(Act::Shell)]
            .into_iter()
            .flatten()
            .collect();
    }
    let act = if tool == "Bash" {
        given(input.command).map(Act::Shell)
    } else if tool.starts_with("mcp__") {
        Some(Act::Mcp {
            tool,
            input: v.get("tool_input"),
        })
    } else {
        let path = [input.file_path, input.notebook_path, input.path].into_iter().find_map(given);
        path.and_then(|p| {
            if FLOOR_READ_TOOLS.contains(&tool) {
                Some(Act::Read(p))
            } else if FLOOR_WRITE_TOOLS.contains(&tool) {
                Some(Act::Write(p))
            } else if FLOOR_EDIT_TOOLS.contains(&tool) {
                Some(Act::Edit(p))
            } else {
                None
            }
        })
    };
    act.into_iter().collect()
}

pub(crate) fn map(v: &Value, now: chrono::DateTime<chrono::Utc>) -> Mapped {
    let p: Payload = view(v);
    let event = p.event();
    let name = owned(p.hook_event_name.name).unwrap_or_default();
    let tool = owned(p.tool_name);
    let kind = match event {
        Event::SessionStart => Kind::SessionStart,
        Event::SessionEnd => Kind::SessionEnd,
        Event::UserPromptSubmit => Kind::PromptSubmit,
        Event::PreToolUse => match tool.as_deref() {
            Some("Bash") => Kind::ShellStart,
            Some(t) if t.starts_with("mcp__") => Kind::McpStart,
            Some("Read") => Kind::FileRead,
            _ => Kind::ToolStart,
        },
        Event::PostToolUse => match tool.as_deref() {
            Some("Bash") => Kind::ShellEnd,
            Some(t) if t.starts_with("mcp__") => Kind::McpEnd,
            Some(t) if EDIT_TOOLS.contains(&t) => Kind::FileEdit,
            _ => Kind::ToolEnd,
        },
        Event::PostToolUseFailure => Kind::ToolFail,
        Event::PostToolBatch => Kind::ToolBatch,
        Event::Stop => Kind::Stop,
        Event::StopFailure => Kind::StopFailure,
        Event::PermissionRequest => Kind::PermissionRequest,
        Event::PermissionDenied => Kind::PermissionDenied,
        Event::SubagentStart => Kind::SubagentStart,
        Event::SubagentStop => Kind::SubagentEnd,
        Event::PreCompact => Kind::Compact,
        Event::Notification => Kind::Notification,
        Event::MessageDisplay => Kind::AgentResponse,
        Event::Unknown => Kind::Unknown,
    };
    let mut ev = NeutralEvent::new(Claude.name(), kind, now);
    ev.session_id = owned(p.session_id);
    ev.trace_id = owned(p.prompt_id).or_else(|| ev.session_id.clone());
    ev.cwd = owned(p.cwd);
    ev.transcript_path = owned(p.transcript_path);
    ev.model = owned(p.model).or_else(|| owned(p.tool_input.model));
    ev.tool = tool.clone();
    if kind == Kind::SessionStart {
        ev.session_model = ev.model.clone();
    }
    let tool_use_id = owned(p.tool_use_id);
    match event {
        Event::PreToolUse => ev.phase = Some(Phase::Start),
        Event::PostToolUse => ev.phase = Some(Phase::End),
        Event::PostToolUseFailure => ev.phase = Some(Phase::Fail),
        _ => {}
    }
    if matches!(ev.phase, Some(Phase::End | Phase::Fail)) {
        // The tool's own time, as Claude Code measured it (hook-to-hook time would add the hooks').
        ev.duration_ms = p.duration_ms.filter(|d| *d >= 0);
    }
    if ev.phase.is_some() {
        ev.span_id = tool_use_id.clone();
        ev.pair_key = Some(tool_use_id.unwrap_or_else(|| format!("tool:{}", tool.as_deref().unwrap_or("?"))));
    }
    // A payload sent from inside a subagent names it: the subagent is the event's parent span
    // (its own start and stop are its span).
    if matches!(kind, Kind::SubagentStart | Kind::SubagentEnd) {
        ev.span_id = owned(p.agent_id);
    } else {
        ev.parent_span_id = owned(p.agent_id);
    }
    let mut attrs = Map::new();
    attrs.insert("event".into(), name.clone().into());
    // Copied as they came, whatever their JSON type.
    for key in [
        "source",
        "reason",
        "prompt",
        "message",
        "notification_type",
        "trigger",
        "status",
        "error",
        "error_details",
        "is_interrupt",
        "agent_id",
        "agent_type",
        "subagent_type",
        "text",
        "permission_mode",
        "stop_hook_active",
        "turn_id",
        // SessionStart (Claude Code 2.1.332 and later): the context a resumed session starts
        // with, and what its cache costs to write again.
        "context_tokens",
        "estimated_cache_write_usd",
        "prompt_cache_likely_expired",
        "seconds_since_last_response",
    ] {
        if let Some(val) = v.get(key).filter(|x| !x.is_null()) {
            attrs.insert(key.into(), val.clone());
        }
    }
    if let Some(pct) = v.get("context_usage_percent") {
        attrs.insert("context_usage_percent".into(), pct.clone());
    }
    let input = &p.tool_input;
    if let Some(cmd) = owned(input.command) {
        attrs.insert("command".into(), cmd.into());
    }
    if let Some(path) = owned(input.file_path) {
        attrs.insert("file_path".into(), path.into());
    }
    if kind == Kind::StopFailure {
        // The text Claude Code showed for the failure ("API Error: 400 …").
        if let Some(text) = owned(p.last_assistant_message) {
            attrs.insert("error_message".into(), text.into());
        }
    }
    if kind == Kind::AgentResponse {
        // MessageDisplay carries the shown text in `delta`, one call per text block.
        if let Some(text) = owned(p.delta) {
            attrs.insert("text".into(), text.into());
        }
    }
    if event == Event::PostToolUse && tool.as_deref().is_some_and(|t| SUBAGENT_TOOLS.contains(&t)) {
        subagent_result(v.get("tool_response"), &mut attrs);
    }
    ev.attrs = attrs;

    let dialog = event == Event::PermissionRequest;
    let action = (event == Event::PreToolUse || dialog).then(|| {
        let t = tool.clone().unwrap_or_default();
        let (subject, detail) = match t.as_str() {
            "Bash" => (Subject::Shell, owned(input.command).unwrap_or_default()),
            m if m.starts_with("mcp__") => (Subject::Mcp, t.clone()),
            "Read" => (Subject::FileRead, owned(input.file_path).unwrap_or_default()),
            _ if SUBAGENT_TOOLS.contains(&t.as_str()) => (Subject::Subagent, t.clone()),
            _ => (Subject::Tool, t.clone()),
        };
        Action {
            subject,
            detail,
            reads_only: READ_TOOLS.contains(&t.as_str()),
            dialog,
        }
    });
    let subagent_transcript = (kind == Kind::SubagentEnd).then(|| owned(p.agent_transcript_path)).flatten();
    let spawn = (event == Event::PreToolUse && tool.as_deref().is_some_and(|t| SUBAGENT_TOOLS.contains(&t))).then(|| {
        // What the agent wrote, whatever its JSON type (`agent_field`): read from the payload.
        let input = v.get("tool_input").unwrap_or(&Value::Null);
        SpawnRequest {
            model: agent_field(input, "model"),
            subagent_type: agent_field(input, "subagent_type"),
            effort: agent_field(input, "effort"),
            parent_model: None,
        }
    });
    Mapped {
        event: ev,
        hook_event: name,
        action,
        tool_payload: tool_payload(v),
        turn: None,
        subagent_transcript,
        awaited_response: None,
        spawn,
        agent_type: owned(p.agent_type),
        read: None,
        rules: None,
    }
}

/// `stop_hook_active` false is the turn's first stop; Claude Code sends no status (a Stop is a
/// completed response) and the response's text as `last_assistant_message`.
fn stop(v: &Value) -> StopFacts {
    let p: Payload = view(v);
    StopFacts {
        first_of_turn: p.stop_hook_active.map(|active| !active),
        completed: true,
        status: None,
        last_response: p.last_assistant_message.map(str::to_string),
        running_subagents: running_subagents(&p.background_tasks),
        deadline: None,
    }
}

/// The subagents a Stop's `background_tasks` lists as running (Claude Code 2.1.332 and later),
/// each as `<description> (<agent type>, <id>)`; at most 10 are named, any more counted.
fn running_subagents(tasks: &[Task<'_>]) -> Vec<String> {
    let running: Vec<&Task<'_>> = tasks
        .iter()
        .filter(|t| given(t.kind) == Some("subagent") && given(t.status) == Some("running"))
        .collect();
    let name = |t: &Task<'_>| {
        let short = |s: &str| s.chars().take(80).collect::<String>();
        format!(
            "{} ({}, {})",
            short(given(t.description).unwrap_or("subagent")),
            short(given(t.agent_type).unwrap_or("?")),
            short(given(t.id).unwrap_or("?"))
        )
    };
    let mut out: Vec<String> = running.iter().take(10).map(|t| name(t)).collect();
    if running.len() > 10 {
        out.push(format!("{} more", running.len() - 10));
    }
    out
}

/// The text of the response a Stop or SubagentStop is about (`last_assistant_message`), read
/// from the payload before redaction: it is only looked for in the transcript, never stored.
fn awaited_response(v: &Value) -> Option<String> {
    let p: Payload = view(v);
    matches!(p.event(), Event::Stop | Event::SubagentStop)
        .then(|| owned(p.last_assistant_message))
        .flatten()
}

/// The subagent's figures the `Agent` tool reports in its result: its id, model and the `usage`
/// Claude Code gives it — measured against a scripted API (tests/suite/e2e_claude.rs) to be the usage
/// of the subagent's *last* response, not a total (docs/cost.md).
fn subagent_result(response: Option<&Value>, attrs: &mut Map<String, Value>) {
    let Some(r) = response.filter(|r| r.is_object()) else { return };
    if let Some(id) = str_field(r, "agentId") {
        attrs.insert("subagent_id".into(), id.into());
    }
    if let Some(model) = str_field(r, "resolvedModel") {
        attrs.insert("subagent_model".into(), model.into());
    }
    if let Some(u) = r.get("usage").filter(|u| u.is_object()) {
        let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        attrs.insert(
            "subagent_usage".into(),
            json!({
                "input_tokens": n("input_tokens"),
                "output_tokens": n("output_tokens"),
                "cache_read_tokens": n("cache_read_input_tokens"),
                "cache_write_tokens": n("cache_creation_input_tokens"),
            }),
        );
    }
}

fn tool_payload(v: &Value) -> Map<String, Value> {
    let mut m = Map::new();
    for key in ["tool_input", "tool_response"] {
        if let Some(x) = v.get(key) {
            m.insert(key.into(), x.clone());
        }
    }
    m
}

/// The response Claude Code expects for `hook_event` under `decision`.
pub(crate) fn render(hook_event: &str, decision: &Decision) -> String {
    let reason = decision.reason.clone().unwrap_or_default();
    match Event::of(hook_event) {
        Event::PreToolUse => match decision.permission {
            Permission::Allow => context_or_nothing(hook_event, decision),
            p => {
                let mut out = json!({"hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": p.as_str(),
                    "permissionDecisionReason": reason,
                }});
                // The reason goes to the model; the note is the line the person watching sees.
                if let Some(note) = &decision.user_note {
                    out["systemMessage"] = note.clone().into();
                }
                out.to_string()
            }
        },
        // Only a refusal answers the dialog; anything else leaves it to the operator (tlc never
        // grants what Claude Code would ask about).
        Event::PermissionRequest => match decision.permission {
            Permission::Allow => String::new(),
            _ => {
                let mut out = json!({"hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "deny", "message": reason},
                }});
                if let Some(note) = &decision.user_note {
                    out["systemMessage"] = note.clone().into();
                }
                out.to_string()
            }
        },
        Event::UserPromptSubmit | Event::PostToolUse | Event::PostToolUseFailure => match decision.permission {
            Permission::Allow => context_or_nothing(hook_event, decision),
            // Claude Code cannot ask here: an ask is a block.
            _ => json!({"decision": "block", "reason": reason}).to_string(),
        },
        Event::Stop | Event::SubagentStop => match (&decision.follow_up, decision.permission) {
            (Some(f), _) => json!({"decision": "block", "reason": f}).to_string(),
            // Claude Code treats a Stop's additionalContext as a block, so advice that lets the
            // stop through is shown to the operator as a systemMessage instead.
            (None, Permission::Allow) => match &decision.context {
                Some(c) => json!({"systemMessage": c}).to_string(),
                None => String::new(),
            },
            (None, _) => json!({"decision": "block", "reason": reason}).to_string(),
        },
        Event::SessionStart => context_or_nothing(hook_event, decision),
        _ => String::new(),
    }
}

fn context_or_nothing(hook_event: &str, decision: &Decision) -> String {
    match &decision.context {
        Some(c) => json!({"hookSpecificOutput": {"hookEventName": hook_event, "additionalContext": c}}).to_string(),
        None => String::new(),
    }
}

/// Claude Code 2.1.121 and later replace any tool's output with `updatedToolOutput`, if it still
/// matches the tool's output shape; a renamed key would not, and the original would reach the
/// model, so a key that held a secret gets the notice instead.
fn plan_mask(payload: &Value, redaction: &PayloadRedaction) -> Option<ModelMask> {
    let p: Payload = view(payload);
    let tool = p.tool_name.unwrap_or("");
    match p.event() {
        Event::PostToolUse => {
            let r = mask::found(redaction, "tool_response")?;
            Some(match payload.get("tool_response") {
                Some(output) if r.keys == 0 => ModelMask::Replace {
                    output: output.clone(),
                    mcp: tool.starts_with("mcp__"),
                },
                _ => mask::notice(r),
            })
        }
        Event::PostToolUseFailure => mask::found(redaction, "error").map(mask::notice),
        _ => None,
    }
}

fn apply_mask(hook_event: &str, out: &mut Map<String, Value>, m: ModelMask) -> bool {
    let specific = out
        .entry("hookSpecificOutput")
        .or_insert_with(|| json!({ "hookEventName": hook_event }));
    let Some(specific) = specific.as_object_mut() else {
        return false;
    };
    match m {
        ModelMask::Replace { output, mcp } => {
            // Claude Code before 2.1.121 replaced only MCP output, under this name.
            if mcp {
                specific.insert("updatedMCPToolOutput".into(), output.clone());
            }
            specific.insert("updatedToolOutput".into(), output);
        }
        ModelMask::Notice(text) => mask::append_context(specific, "additionalContext", &text),
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// Payloads captured from the real Claude Code 2.1.197 (see the README beside them).
    fn real_payloads() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/providers/claude/real-2.1.197");
        let mut files = Vec::new();
        for dir in std::fs::read_dir(&root)
            .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
            .flatten()
        {
            if dir.path().is_dir() {
                for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
                    if f.path().extension().is_some_and(|x| x == "json") {
                        files.push(f.path());
                    }
                }
            }
        }
        files.sort();
        files
    }

    /// The kind a real payload must map to, from its file name (`NN-<event>[-<tool>].json`).
    fn expected_kind(file: &Path) -> &'static str {
        let name = file.file_stem().unwrap().to_str().unwrap();
        let (_, what) = name.split_once('-').unwrap();
        match what {
            "SessionStart" => "session.start",
            "SessionEnd" => "session.end",
            "UserPromptSubmit" => "prompt.submit",
            "MessageDisplay" => "agent.response",
            "PreToolUse-Bash" => "shell.start",
            "PreToolUse-Read" => "file.read",
            "PreToolUse-Write" | "PreToolUse-Edit" | "PreToolUse-Agent" => "tool.start",
            "PostToolUse-Bash" => "shell.end",
            "PostToolUse-Write" | "PostToolUse-Edit" => "file.edit",
            "PostToolUse-Read" | "PostToolUse-Agent" => "tool.end",
            "PostToolUseFailure-Bash" => "tool.fail",
            "PostToolBatch" => "tool.batch",
            "SubagentStart" => "subagent.start",
            "SubagentStop" => "subagent.end",
            "Stop" => "stop",
            "StopFailure" => "stop.failure",
            "PreCompact" => "compact",
            other => panic!("{}: no expected kind for {other}", file.display()),
        }
    }

    #[test]
    fn every_real_payload_maps_to_its_kind_and_keeps_what_it_says() {
        let now = chrono::Utc::now();
        let files = real_payloads();
        assert_eq!(files.len(), 129, "the real-2.1.197 payloads");
        for file in &files {
            let f = file.display();
            let v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            let m = map(&v, now);
            let ev = &m.event;
            assert_eq!(ev.kind.as_str(), expected_kind(file), "{f}");
            assert_eq!(m.hook_event, v["hook_event_name"].as_str().unwrap(), "{f}");
            // Every payload names its session, transcript and working folder.
            assert_eq!(ev.session_id.as_deref(), v["session_id"].as_str(), "{f}");
            assert!(ev.transcript_path.as_deref().is_some_and(|p| p.ends_with(".jsonl")), "{f}");
            assert_eq!(ev.cwd.as_deref(), v["cwd"].as_str(), "{f}");
            assert_eq!(ev.attrs["event"], v["hook_event_name"], "{f}");
            // Claude Code's neutral answer to every event: nothing.
            assert_eq!(render(&m.hook_event, &Decision::allow()), "", "{f}");
            assert_eq!(
                m.action.is_some(),
                m.hook_event == "PreToolUse" || m.hook_event == "PermissionRequest",
                "{f}"
            );
            match m.hook_event.as_str() {
                "PostToolUse" | "PostToolUseFailure" => {
                    assert_eq!(ev.duration_ms, v["duration_ms"].as_i64(), "{f}: the tool's own time");
                    assert_eq!(ev.span_id.as_deref(), v["tool_use_id"].as_str(), "{f}");
                }
                "SessionStart" => {
                    assert_eq!(ev.attrs["source"], v["source"], "{f}");
                    assert_eq!(
                        ev.session_model.as_deref(),
                        v["model"].as_str(),
                        "{f}: a model only after a compaction"
                    );
                }
                "MessageDisplay" => {
                    assert_eq!(ev.attrs["text"], v["delta"], "{f}");
                    assert_eq!(ev.attrs["turn_id"], v["turn_id"], "{f}");
                }
                "StopFailure" => {
                    assert_eq!(ev.attrs["error"], v["error"], "{f}");
                    assert_eq!(ev.attrs["error_message"], v["last_assistant_message"], "{f}");
                }
                "SubagentStop" => {
                    assert_eq!(m.subagent_transcript.as_deref(), v["agent_transcript_path"].as_str(), "{f}");
                    assert_eq!(awaited_response(&v).as_deref(), v["last_assistant_message"].as_str(), "{f}");
                }
                "Stop" => {
                    assert_eq!(awaited_response(&v).as_deref(), v["last_assistant_message"].as_str(), "{f}");
                    assert_eq!(ev.attrs["stop_hook_active"], false, "{f}");
                }
                _ => assert_eq!(awaited_response(&v), None, "{f}"),
            }
            if v["hook_event_name"] == "PostToolUseFailure" {
                assert_eq!(ev.attrs["error"], v["error"], "{f}");
                assert_eq!(ev.attrs["is_interrupt"], v["is_interrupt"], "{f}");
            }
            // Inside a subagent, a tool call is attributed to it; a subagent event is its span.
            if let Some(agent) = v["agent_id"].as_str() {
                let subagent_event = matches!(ev.kind, Kind::SubagentStart | Kind::SubagentEnd);
                let id = if subagent_event { &ev.span_id } else { &ev.parent_span_id };
                assert_eq!(id.as_deref(), Some(agent), "{f}");
                assert_eq!(ev.attrs["agent_type"], v["agent_type"], "{f}");
            }
            if v["tool_name"] == "Agent" && v["hook_event_name"] == "PostToolUse" {
                let u = &v["tool_response"]["usage"];
                assert_eq!(
                    ev.attrs["subagent_usage"],
                    json!({"input_tokens": u["input_tokens"], "output_tokens": u["output_tokens"],
                           "cache_read_tokens": u["cache_read_input_tokens"], "cache_write_tokens": u["cache_creation_input_tokens"]}),
                    "{f}"
                );
                assert_eq!(ev.attrs["subagent_id"], v["tool_response"]["agentId"], "{f}");
            }
        }
    }

    #[test]
    fn the_agent_tools_usage_is_kept_and_other_tools_have_none() {
        let now = chrono::Utc::now();
        let legacy = json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Task",
            "tool_response": {"agentId": "a1", "usage": {"input_tokens": 1, "output_tokens": 2}}});
        let m = map(&legacy, now);
        assert_eq!(
            m.event.attrs["subagent_usage"],
            json!({"input_tokens": 1, "output_tokens": 2, "cache_read_tokens": 0, "cache_write_tokens": 0})
        );
        let bash = json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash",
            "tool_response": {"usage": {"input_tokens": 1}}});
        assert!(!map(&bash, now).event.attrs.contains_key("subagent_usage"));
        let negative = json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash", "duration_ms": -5});
        assert_eq!(map(&negative, now).event.duration_ms, None);
    }

    #[test]
    fn every_wired_event_is_one_the_payload_type_knows() {
        for name in Claude.events() {
            assert_ne!(Event::of(name), Event::Unknown, "{name}");
            assert_eq!(serde_json::to_value(Event::of(name)).unwrap(), *name);
        }
        assert_eq!(Event::of("SomethingNew"), Event::Unknown);
    }

    #[test]
    fn a_field_of_the_wrong_type_reads_as_absent_and_the_rest_is_read() {
        let v = Event::PreToolUse.payload(json!({"tool_name": "Bash", "tool_input": 5, "session_id": 7, "cwd": ["/x"],
            "duration_ms": "1", "stop_hook_active": "yes", "background_tasks": {"a": 1}, "model": null, "unknown": {"deep": [1]}}));
        let p: Payload = view(&v);
        assert_eq!(p.event(), Event::PreToolUse);
        assert_eq!(p.tool(), Some("Bash"));
        assert!(p.tool_input.command.is_none() && p.session_id.is_none() && p.cwd.is_none() && p.model.is_none());
        assert!(p.duration_ms.is_none() && p.stop_hook_active.is_none() && p.background_tasks.is_empty());
        let m = map(&v, chrono::Utc::now());
        assert_eq!((m.event.kind, m.hook_event.as_str()), (Kind::ShellStart, "PreToolUse"));
        assert_eq!(m.action.map(|a| a.detail), Some(String::new()));

        let odd_event = json!({"hook_event_name": 17, "tool_input": {"command": "ls", "file_path": 3}});
        let p: Payload = view(&odd_event);
        assert_eq!((p.event(), p.hook_event_name.name), (Event::Unknown, None));
        assert_eq!((p.tool_input.command, p.tool_input.file_path), (Some("ls"), None));
        assert_eq!(map(&odd_event, chrono::Utc::now()).event.kind, Kind::Unknown);

        let tasks = Event::Stop.payload(json!({"background_tasks": [5, {"type": "subagent", "status": "running", "id": 9}, "x"]}));
        assert_eq!(stop(&tasks).running_subagents, vec!["subagent (?, ?)".to_string()]);
        assert!(Claude.sent(&tasks) && !Claude.sent(&json!({"conversation_id": "c", "hook_event_name": "Stop"})));
    }
}
