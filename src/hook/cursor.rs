//! Cursor: hook payloads to neutral events, decisions to responses.
//!
//! Cursor reads a JSON object on stdout; `{}` abstains. With no rail objecting tlc abstains, so
//! Cursor's own approval flow stays in charge. Where Cursor cannot ask, an ask becomes a deny.

use super::mapped::{agent_field, Action, Mapped, SpawnRequest, Subject};
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

/// Cursor, as a provider.
pub(crate) struct Cursor;

/// The one value of [`Cursor`] (`hook::PROVIDERS` lists it).
pub(crate) const PROVIDER: &dyn Provider = &Cursor;

/// The hook events Cursor sends, as its payloads name them (`hook_event_name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Event {
    SessionStart,
    SessionEnd,
    BeforeSubmitPrompt,
    BeforeShellExecution,
    AfterShellExecution,
    #[serde(rename = "beforeMCPExecution")]
    BeforeMcpExecution,
    #[serde(rename = "afterMCPExecution")]
    AfterMcpExecution,
    BeforeReadFile,
    AfterFileEdit,
    PreToolUse,
    PostToolUse,
    PostToolUseFailure,
    AfterAgentResponse,
    AfterAgentThought,
    PreCompact,
    SubagentStart,
    SubagentStop,
    Stop,
    /// An event this tlc does not know, or none named: recorded as `Kind::Unknown`, answered `{}`.
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

    /// Cursor can ask the operator here.
    fn can_ask(self) -> bool {
        matches!(self, Event::BeforeShellExecution | Event::BeforeMcpExecution)
    }

    /// The event asks permission for an act (a response may allow, ask or deny).
    fn acting(self) -> bool {
        matches!(
            self,
            Event::BeforeShellExecution | Event::BeforeMcpExecution | Event::BeforeReadFile | Event::PreToolUse | Event::SubagentStart
        )
    }
}

/// A Cursor hook payload as tlc reads it: a view borrowed from the payload as parsed. Every field
/// is lenient (`wire`): one of another JSON type reads as absent. Fields tlc only passes on
/// (`tool_output`, `result_json`, the attributes `map` copies) are read from the payload as
/// they are.
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
    pub conversation_id: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub generation_id: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::first_text")]
    pub workspace_roots: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub cwd: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub transcript_path: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub model: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub subagent_model: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub subagent_type: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub agent_type: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub command: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub file_path: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub tool_use_id: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub status: Option<&'v str>,
    /// afterAgentResponse's whole text.
    #[serde(borrow, deserialize_with = "wire::text")]
    pub text: Option<&'v str>,
    #[serde(deserialize_with = "wire::int")]
    pub duration_ms: Option<i64>,
}

/// A `preToolUse`'s input, as far as tlc reads it.
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
    pub target_file: Option<&'v str>,
    #[serde(borrow, deserialize_with = "wire::text")]
    pub target_notebook: Option<&'v str>,
}

impl Payload<'_> {
    fn event(&self) -> Event {
        self.hook_event_name.event
    }
}

/// Whether a payload carries `conversation_id` at all, whatever it holds.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Marked {
    #[serde(deserialize_with = "wire::present")]
    conversation_id: bool,
}

const EVENTS: &[&str] = &[
    "sessionStart",
    "beforeSubmitPrompt",
    "beforeShellExecution",
    "afterShellExecution",
    "beforeMCPExecution",
    "afterMCPExecution",
    "beforeReadFile",
    "afterFileEdit",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "afterAgentResponse",
    "afterAgentThought",
    "preCompact",
    "subagentStart",
    "subagentStop",
    "stop",
    "sessionEnd",
];

impl Provider for Cursor {
    fn name(&self) -> &'static str {
        "cursor"
    }
    fn product(&self) -> &'static str {
        "Cursor"
    }
    fn config_dir_var(&self) -> &'static str {
        "CURSOR_CONFIG_DIR"
    }
    fn config_dir_default(&self) -> &'static str {
        ".cursor"
    }
    fn settings_file(&self) -> &'static str {
        "hooks.json"
    }
    fn project_settings_files(&self) -> &'static [&'static str] {
        &[".cursor/hooks.json"]
    }
    fn events(&self) -> &'static [&'static str] {
        EVENTS
    }
    fn layout(&self) -> Layout {
        Layout::Flat { version: 1 }
    }
    // No `timeout` (Cursor's own default) and no `project_dir_var`: the hook's working directory
    // is the project's.
    fn sent(&self, payload: &Value) -> bool {
        view::<Marked>(payload).conversation_id
    }
    fn map(&self, v: &Value, now: chrono::DateTime<chrono::Utc>) -> Mapped {
        map(v, now)
    }
    fn acts<'v>(&self, v: &'v Value) -> Vec<Act<'v>> {
        acts(v)
    }
    /// `afterFileEdit` reports a file the agent edited.
    fn edited_file<'v>(&self, v: &'v Value) -> Option<&'v str> {
        edited_file(v)
    }
    /// A command's own folder, else the first workspace root.
    fn work_dir<'v>(&self, v: &'v Value) -> Option<&'v str> {
        let p: Payload = view(v);
        given(p.cwd).or(p.workspace_roots)
    }
    fn can_ask(&self, v: &Value) -> bool {
        view::<Payload>(v).event().can_ask()
    }
    // No `unattended`: Cursor's payloads name no permission mode.
    fn render(&self, hook_event: &str, decision: &Decision) -> String {
        render(hook_event, decision)
    }
    /// `{}` abstains.
    fn neutral(&self) -> &'static str {
        "{}"
    }
    fn plan_mask(&self, redacted: &Value, redaction: &PayloadRedaction) -> Option<ModelMask> {
        plan_mask(redacted, redaction)
    }
    fn apply_mask(&self, hook_event: &str, out: &mut Map<String, Value>, m: ModelMask) -> bool {
        apply_mask(hook_event, out, m)
    }
    // No `awaited_response`: no stop event of Cursor's names the response it is about.
    fn stop(&self, v: &Value) -> StopFacts {
        stop(v)
    }
    /// afterAgentResponse carries the response's whole text.
    fn response_text(&self, v: &Value) -> Option<String> {
        owned(view::<Payload>(v).text)
    }
    /// afterFileEdit reports the file it wrote.
    fn written_file<'v>(&self, v: &'v Value) -> Option<&'v str> {
        edited_file(v)
    }
    fn untrusted_tools(&self) -> &'static [&'static str] {
        &["Fetch", "WebSearch"]
    }
    fn tool_result<'v>(&self, v: &'v Value) -> Option<ToolResult<'v>> {
        tool_result(v)
    }
    /// Only postToolUse takes `additional_context` after a tool ran (`render`).
    fn carries_context(&self, hook_event: &str) -> bool {
        Event::of(hook_event) == Event::PostToolUse
    }
}

/// What an after-tool event returned: `postToolUse`'s `tool_output`, `afterMCPExecution`'s
/// `result_json`, `afterShellExecution`'s `output`.
fn tool_result(v: &Value) -> Option<ToolResult<'_>> {
    let mcp = |t: &str| t.starts_with("MCP:") || t.starts_with("mcp__");
    let p: Payload = view(v);
    match p.event() {
        Event::PostToolUse => {
            let tool = given(p.tool_name)?;
            Some(ToolResult {
                tool,
                command: SHELL_TOOLS.contains(&tool).then(|| given(p.tool_input.command)).flatten(),
                output: v.get("tool_output"),
                mcp: mcp(tool),
            })
        }
        Event::AfterMcpExecution => Some(ToolResult {
            tool: given(p.tool_name).unwrap_or("MCP"),
            command: None,
            output: v.get("result_json"),
            mcp: true,
        }),
        Event::AfterShellExecution => Some(ToolResult {
            tool: "shell",
            command: given(p.command),
            output: v.get("output"),
            mcp: false,
        }),
        _ => None,
    }
}

const READ_TOOLS: &[&str] = &[
    "Read",
    "read_file",
    "Grep",
    "grep",
    "Glob",
    "list_dir",
    "codebase_search",
    "web_search",
];

/// The `preToolUse` tool that spawns a subagent.
const SUBAGENT_TOOLS: &[&str] = &["Task"];

/// `preToolUse` tool names (Cursor's own and those of the models it runs) by what the floor
/// judges them as.
const SHELL_TOOLS: &[&str] = &["Shell", "run_terminal_cmd", "Bash", "terminal"];
const FLOOR_READ_TOOLS: &[&str] = &["Read", "read_file", "ReadFile"];
const FLOOR_WRITE_TOOLS: &[&str] = &["Write", "write", "create_file", "WriteFile"];
const FLOOR_EDIT_TOOLS: &[&str] = &["Edit", "edit_file", "StrReplace", "search_replace", "MultiEdit", "ApplyPatch"];
const FLOOR_DELETE_TOOLS: &[&str] = &["Delete", "delete_file", "DeleteFile"];

/// The dedicated events act on their command, file or MCP tool; `preToolUse` on what its tool
/// does with its input.
fn acts(v: &Value) -> Vec<Act<'_>> {
    let p: Payload = view(v);
    let tool = given(p.tool_name).unwrap_or("");
    let input = &p.tool_input;
    let mcp_input = || v.get("tool_input");
    let act = match p.event() {
        Event::BeforeShellExecution => given(p.command).map(Act::Shell),
        Event::BeforeReadFile => given(p.file_path).map(Act::Read),
        Event::BeforeMcpExecution => Some(Act::Mcp { tool, input: mcp_input() }),
        Event::PreToolUse if SHELL_TOOLS.contains(&tool) => given(input.command).map(Act::Shell),
        Event::PreToolUse if tool.starts_with("mcp__") || tool.starts_with("MCP:") => Some(Act::Mcp { tool, input: mcp_input() }),
        Event::PreToolUse => {
            let path = [
                input.file_path,
                input.notebook_path,
                input.path,
                input.target_file,
                input.target_notebook,
            ]
            .into_iter()
            .find_map(given);
            path.and_then(|p| {
                if FLOOR_READ_TOOLS.contains(&tool) {
                    Some(Act::Read(p))
                } else if FLOOR_WRITE_TOOLS.contains(&tool) {
                    Some(Act::Write(p))
                } else if FLOOR_EDIT_TOOLS.contains(&tool) {
                    Some(Act::Edit(p))
                } else if FLOOR_DELETE_TOOLS.contains(&tool) {
                    Some(Act::Delete(p))
                } else {
                    None
                }
            })
        }
        _ => None,
    };
    act.into_iter().collect()
}

/// `afterFileEdit` reports a file the agent edited.
fn edited_file(v: &Value) -> Option<&str> {
    let p: Payload = view(v);
    (p.event() == Event::AfterFileEdit).then(|| given(p.file_path)).flatten()
}

pub(crate) fn map(v: &Value, now: chrono::DateTime<chrono::Utc>) -> Mapped {
    let p: Payload = view(v);
    let name = owned(p.hook_event_name.name).unwrap_or_default();
    let tool = owned(p.tool_name);
    let kind = match p.event() {
        Event::SessionStart => Kind::SessionStart,
        Event::SessionEnd => Kind::SessionEnd,
        Event::BeforeSubmitPrompt => Kind::PromptSubmit,
        Event::BeforeShellExecution => Kind::ShellStart,
        Event::AfterShellExecution => Kind::ShellEnd,
        Event::BeforeMcpExecution => Kind::McpStart,
        Event::AfterMcpExecution => Kind::McpEnd,
        Event::BeforeReadFile => Kind::FileRead,
        Event::AfterFileEdit => Kind::FileEdit,
        Event::PreToolUse => Kind::ToolStart,
        Event::PostToolUse => Kind::ToolEnd,
        Event::PostToolUseFailure => Kind::ToolFail,
        Event::AfterAgentResponse => Kind::AgentResponse,
        Event::AfterAgentThought => Kind::AgentThought,
        Event::PreCompact => Kind::Compact,
        Event::SubagentStart => Kind::SubagentStart,
        Event::SubagentStop => Kind::SubagentEnd,
        Event::Stop => Kind::Stop,
        Event::Unknown => Kind::Unknown,
    };
    let mut ev = NeutralEvent::new(Cursor.name(), kind, now);
    ev.session_id = owned(p.session_id).or_else(|| owned(p.conversation_id));
    ev.trace_id = owned(p.generation_id).or_else(|| owned(p.conversation_id));
    ev.cwd = p.workspace_roots.map(str::to_string).or_else(|| owned(p.cwd));
    ev.transcript_path = owned(p.transcript_path);
    ev.model = owned(p.model).or_else(|| owned(p.subagent_model));
    if kind == Kind::SessionStart {
        ev.session_model = ev.model.clone();
    }
    let command = owned(p.command);
    ev.tool = match kind {
        Kind::ShellStart | Kind::ShellEnd => Some("shell".into()),
        _ => tool.clone(),
    };
    let (phase, pair) = match kind {
        Kind::ShellStart => (Some(Phase::Start), Some(format!("shell:{}", command.as_deref().unwrap_or("")))),
        Kind::ShellEnd => (Some(Phase::End), Some(format!("shell:{}", command.as_deref().unwrap_or("")))),
        Kind::McpStart => (Some(Phase::Start), Some(format!("mcp:{}", tool.as_deref().unwrap_or("")))),
        Kind::McpEnd => (Some(Phase::End), Some(format!("mcp:{}", tool.as_deref().unwrap_or("")))),
        Kind::ToolStart => (Some(Phase::Start), Some(format!("tool:{}", tool.as_deref().unwrap_or("")))),
        Kind::ToolEnd => (Some(Phase::End), Some(format!("tool:{}", tool.as_deref().unwrap_or("")))),
        Kind::ToolFail => (Some(Phase::Fail), Some(format!("tool:{}", tool.as_deref().unwrap_or("")))),
        _ => (None, None),
    };
    ev.phase = phase;
    ev.pair_key = pair.map(|pair| owned(p.tool_use_id).unwrap_or(pair));
    if kind == Kind::SessionEnd {
        ev.duration_ms = p.duration_ms;
    }
    let mut attrs = Map::new();
    attrs.insert("event".into(), name.clone().into());
    for key in [
        "conversation_id",
        "prompt",
        "text",
        "thought",
        "reason",
        "status",
        "loop_count",
        "subagent_type",
        "failure_type",
        "url",
        "file_path",
        "is_background_agent",
        "is_parallel_worker",
        "context_usage_percent",
        "sandbox",
    ] {
        if let Some(val) = v.get(key).filter(|x| !x.is_null()) {
            attrs.insert(key.into(), val.clone());
        }
    }
    if let Some(c) = &command {
        attrs.insert("command".into(), c.clone().into());
    }
    ev.attrs = attrs;

    let action = match kind {
        Kind::ShellStart => Some(Action {
            subject: Subject::Shell,
            detail: command.unwrap_or_default(),
            reads_only: false,
            dialog: false,
        }),
        Kind::McpStart => Some(Action {
            subject: Subject::Mcp,
            detail: tool.clone().unwrap_or_default(),
            reads_only: false,
            dialog: false,
        }),
        Kind::FileRead => Some(Action {
            subject: Subject::FileRead,
            detail: owned(p.file_path).unwrap_or_default(),
            reads_only: true,
            dialog: false,
        }),
        Kind::SubagentStart => Some(Action {
            subject: Subject::Subagent,
            detail: owned(p.subagent_type).unwrap_or_else(|| "subagent".into()),
            reads_only: false,
            dialog: false,
        }),
        Kind::ToolStart if tool.as_deref().is_some_and(|t| SUBAGENT_TOOLS.contains(&t)) => Some(Action {
            subject: Subject::Subagent,
            detail: tool.clone().unwrap_or_default(),
            reads_only: false,
            dialog: false,
        }),
        Kind::ToolStart => {
            let t = tool.clone().unwrap_or_default();
            Some(Action {
                subject: Subject::Tool,
                reads_only: READ_TOOLS.contains(&t.as_str()),
                dialog: false,
                detail: t,
            })
        }
        _ => None,
    };
    let mut tool_payload = Map::new();
    for key in ["tool_input", "tool_output", "output", "content"] {
        if let Some(x) = v.get(key) {
            tool_payload.insert(key.into(), x.clone());
        }
    }
    let spawn = spawn_request(v, &p, kind, tool.as_deref());
    Mapped {
        event: ev,
        hook_event: name,
        action,
        tool_payload,
        turn: None,
        subagent_transcript: None,
        awaited_response: None,
        spawn,
        agent_type: owned(p.agent_type),
        read: None,
        rules: None,
    }
}

/// The spawn a `subagentStart` (its `subagent_model`) or a `Task` preToolUse (its input's
/// `model`) asks for; the parent's model is the payload's `model`, where it says one.
fn spawn_request(v: &Value, p: &Payload<'_>, kind: Kind, tool: Option<&str>) -> Option<SpawnRequest> {
    let input = v.get("tool_input").unwrap_or(&Value::Null);
    let (model, subagent_type, effort) = match kind {
        Kind::SubagentStart => (
            agent_field(v, "subagent_model"),
            agent_field(v, "subagent_type"),
            agent_field(v, "effort").or_else(|| agent_field(v, "reasoning_effort")),
        ),
        Kind::ToolStart if tool.is_some_and(|t| SUBAGENT_TOOLS.contains(&t)) => (
            agent_field(input, "model"),
            agent_field(v, "subagent_type").or_else(|| agent_field(input, "subagent_type")),
            agent_field(input, "effort").or_else(|| agent_field(input, "reasoning_effort")),
        ),
        _ => return None,
    };
    Some(SpawnRequest {
        model,
        subagent_type,
        effort,
        parent_model: owned(p.model),
    })
}

/// Cursor's `stop` says how the agent loop ended in `status`; only `completed` is gated.
fn stop(v: &Value) -> StopFacts {
    let status = owned(view::<Payload>(v).status);
    StopFacts {
        first_of_turn: None,
        completed: status.as_deref().is_none_or(|s| s == "completed"),
        status,
        last_response: None,
        // Cursor's stop names no background subagents.
        running_subagents: Vec::new(),
        deadline: None,
    }
}

/// The response Cursor expects for `hook_event` under `decision`.
pub(crate) fn render(hook_event: &str, decision: &Decision) -> String {
    let reason = decision.reason.clone().unwrap_or_default();
    let event = Event::of(hook_event);
    let can_ask = event.can_ask();
    let acting = event.acting();
    let permission = match decision.permission {
        Permission::Ask if !can_ask => Permission::Deny,
        p => p,
    };
    if acting && permission != Permission::Allow {
        let user = decision.user_note.clone().unwrap_or_else(|| reason.clone());
        return json!({"permission": permission.as_str(), "user_message": user, "agent_message": reason}).to_string();
    }
    if event == Event::BeforeSubmitPrompt && permission != Permission::Allow {
        return json!({"continue": false, "user_message": reason}).to_string();
    }
    if matches!(event, Event::Stop | Event::SubagentStop) {
        if let Some(f) = &decision.follow_up {
            return json!({"followup_message": f}).to_string();
        }
    }
    if let Some(c) = &decision.context {
        if matches!(event, Event::SessionStart | Event::PostToolUse) {
            return json!({"additional_context": c}).to_string();
        }
    }
    "{}".to_string()
}

/// Cursor replaces only an MCP tool's output (`updated_mcp_tool_output`).
fn plan_mask(payload: &Value, redaction: &PayloadRedaction) -> Option<ModelMask> {
    let p: Payload = view(payload);
    let tool = p.tool_name.unwrap_or("");
    match p.event() {
        Event::PostToolUse => {
            let r = mask::found(redaction, "tool_output")?;
            let mcp = tool.starts_with("MCP:") || tool.starts_with("mcp__");
            Some(match payload.get("tool_output") {
                Some(output) if mcp && r.keys == 0 => ModelMask::Replace {
                    output: mcp_output(output),
                    mcp,
                },
                _ => mask::notice(r),
            })
        }
        Event::PostToolUseFailure => ["error_message", "error", "tool_output"]
            .iter()
            .find_map(|f| mask::found(redaction, f))
            .map(mask::notice),
        _ => None,
    }
}

/// Cursor passes an MCP tool's output as JSON text; its replacement is the value that text holds
/// (`{"content": [...]}`), or the text itself when it holds none.
fn mcp_output(output: &Value) -> Value {
    match output {
        Value::String(text) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(|v| v.is_object() || v.is_array())
            .unwrap_or_else(|| output.clone()),
        other => other.clone(),
    }
}

fn apply_mask(_hook_event: &str, out: &mut Map<String, Value>, m: ModelMask) -> bool {
    match m {
        ModelMask::Replace { output, .. } => {
            out.insert("updated_mcp_tool_output".into(), output);
        }
        ModelMask::Notice(text) => mask::append_context(out, "additional_context", &text),
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_wired_event_is_one_the_payload_type_knows() {
        for name in Cursor.events() {
            assert_ne!(Event::of(name), Event::Unknown, "{name}");
            assert_eq!(serde_json::to_value(Event::of(name)).unwrap(), *name);
        }
        assert_eq!(Event::of("PreToolUse"), Event::Unknown, "Claude Code's name is not Cursor's");
    }

    #[test]
    fn a_field_of_the_wrong_type_reads_as_absent_and_the_rest_is_read() {
        let v = Event::PreToolUse.payload(json!({"tool_name": "Shell", "tool_input": {"command": 5}, "conversation_id": 1,
            "workspace_roots": [7, "/b"], "cwd": "", "file_path": {"x": 1}}));
        let p: Payload = view(&v);
        assert_eq!((p.event(), p.tool_name), (Event::PreToolUse, Some("Shell")));
        assert!(p.tool_input.command.is_none() && p.conversation_id.is_none() && p.workspace_roots.is_none());
        assert!(acts(&v).is_empty());
        assert_eq!(Cursor.work_dir(&v), None);
        assert!(Cursor.sent(&v), "a conversation_id of any type marks Cursor's payload");
        let roots = json!({"workspace_roots": ["/a", "/b"]});
        assert_eq!(Cursor.work_dir(&roots), Some("/a"));
        assert_eq!(map(&v, chrono::Utc::now()).event.kind, Kind::ToolStart);
    }
}
