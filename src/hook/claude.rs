//! Claude Code: hook payloads to neutral events, decisions to responses.
//!
//! Claude Code accepts an empty stdout with exit 0 as "no opinion" for every event, and that is
//! what tlc prints when no rail objected: it never grants a permission Claude Code would
//! otherwise ask the operator for.

use super::mapped::{agent_field, str_field, Action, Mapped, SpawnRequest, Subject};
use super::mask;
use super::provider::{Layout, ModelMask, Provider, ProviderSpec};
use crate::decision::{Decision, Permission};
use crate::gate::stop::StopFacts;
use crate::obs::redact::PayloadRedaction;
use crate::obs::{Event, Kind, Phase};
use crate::policy::floor::Act;
use serde_json::{json, Map, Value};

pub(crate) const PROVIDER: Provider = &ProviderSpec {
    name: "claude",
    product: "Claude Code",
    agent_markers: &["CLAUDECODE"],
    config_dir_var: "CLAUDE_CONFIG_DIR",
    config_dir_default: ".claude",
    settings_file: "settings.json",
    // docs/hook.md says why the other events Claude Code knows are not wired.
    events: &[
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
    ],
    layout: Layout::Grouped {
        matcher_events: &[
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "PermissionRequest",
            "PermissionDenied",
        ],
    },
    timeout,
    // Claude Code sets it to the project folder in every hook's environment; the hook's working
    // directory (and the payload's `cwd`) follow the agent's shell instead.
    project_dir_var: Some("CLAUDE_PROJECT_DIR"),
    map,
    acts,
    edited_file,
    work_dir,
    // Only PreToolUse can ask; elsewhere Claude Code's answer is a block.
    asking_events: &["PreToolUse"],
    unattended,
    render,
    plan_mask,
    apply_mask,
    awaited_response,
    // An empty stdout with exit 0 is "no opinion" for every event.
    neutral: "",
    stop,
    // MessageDisplay may show a response in parts: a claim is read from the Stop's
    // `last_assistant_message`, else from the transcript.
    response_text: |_| None,
    written_file,
    untrusted_tools: &["WebFetch", "WebSearch"],
    tool_result,
    // PostToolUse renders `additionalContext` (`render`, `context_or_nothing`).
    context_events: &["PostToolUse"],
};

/// A PostToolUse's tool, the command a Bash call ran, and `tool_response`.
fn tool_result(v: &Value) -> Option<super::provider::ToolResult<'_>> {
    if text(v, "hook_event_name") != Some("PostToolUse") {
        return None;
    }
    let tool = text(v, "tool_name")?;
    Some(super::provider::ToolResult {
        tool,
        command: (tool == "Bash")
            .then(|| v.get("tool_input").and_then(|i| text(i, "command")))
            .flatten(),
        output: v.get("tool_response"),
        mcp: tool.starts_with("mcp__"),
    })
}

/// Seconds Claude Code gives tlc's hook on `event` before it gives up on it. A hook answers in
/// milliseconds; the margin covers a busy machine and a database locked by another writer. A
/// stop runs the gates (lint, tests) and needs minutes.
fn timeout(event: &str) -> Option<u64> {
    Some(match event {
        "Stop" | "SubagentStop" => 600,
        _ => 30,
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

fn text<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str).filter(|x| !x.is_empty())
}

/// A PreToolUse of Bash is a command, of `mcp__…` an MCP call, of a file tool a read, write or
/// edit of its path; a PermissionRequest (Claude Code 2.1.332 and later: its own permission
/// dialog is about to open) is the same act, asked again so that the floor refuses it there too;
/// nothing else acts.
fn acts(v: &Value) -> Vec<Act<'_>> {
    if !matches!(text(v, "hook_event_name"), Some("PreToolUse" | "PermissionRequest")) {
        return Vec::new();
    }
    let tool = text(v, "tool_name").unwrap_or("");
    let input = v.get("tool_input");
    let act = if tool == "Bash" {
        input.and_then(|i| text(i, "command")).map(Act::Shell)
    } else if tool.starts_with("mcp__") {
        Some(Act::Mcp { tool, input })
    } else {
        let path = input.and_then(|i| ["file_path", "notebook_path", "path"].iter().find_map(|k| text(i, k)));
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

/// Claude Code's edits are claimed from their PreToolUse ([`acts`]); it reports none after.
fn edited_file(_: &Value) -> Option<&str> {
    None
}

/// A PostToolUse of an edit tool: the file it wrote (`notebook_path` for NotebookEdit).
fn written_file(v: &Value) -> Option<&str> {
    let input = v.get("tool_input")?;
    text(input, "file_path").or_else(|| text(input, "notebook_path"))
}

fn work_dir(v: &Value) -> Option<&str> {
    text(v, "cwd")
}

/// `bypassPermissions` approves and `dontAsk` refuses by itself: nobody would see a question.
fn unattended(v: &Value) -> bool {
    matches!(text(v, "permission_mode"), Some("bypassPermissions" | "dontAsk"))
}

pub(crate) fn map(v: &Value, now: chrono::DateTime<chrono::Utc>) -> Mapped {
    let name = str_field(v, "hook_event_name").unwrap_or_default();
    let tool = str_field(v, "tool_name");
    let kind = match name.as_str() {
        "SessionStart" => Kind::SessionStart,
        "SessionEnd" => Kind::SessionEnd,
        "UserPromptSubmit" => Kind::PromptSubmit,
        "PreToolUse" => match tool.as_deref() {
            Some("Bash") => Kind::ShellStart,
            Some(t) if t.starts_with("mcp__") => Kind::McpStart,
            Some("Read") => Kind::FileRead,
            _ => Kind::ToolStart,
        },
        "PostToolUse" => match tool.as_deref() {
            Some("Bash") => Kind::ShellEnd,
            Some(t) if t.starts_with("mcp__") => Kind::McpEnd,
            Some(t) if EDIT_TOOLS.contains(&t) => Kind::FileEdit,
            _ => Kind::ToolEnd,
        },
        "PostToolUseFailure" => Kind::ToolFail,
        "PostToolBatch" => Kind::ToolBatch,
        "Stop" => Kind::Stop,
        "StopFailure" => Kind::StopFailure,
        "PermissionRequest" => Kind::PermissionRequest,
        "PermissionDenied" => Kind::PermissionDenied,
        "SubagentStart" => Kind::SubagentStart,
        "SubagentStop" => Kind::SubagentEnd,
        "PreCompact" => Kind::Compact,
        "Notification" => Kind::Notification,
        "MessageDisplay" => Kind::AgentResponse,
        _ => Kind::Unknown,
    };
    let mut ev = Event::new(PROVIDER.name, kind, now);
    ev.session_id = str_field(v, "session_id");
    ev.trace_id = str_field(v, "prompt_id").or_else(|| ev.session_id.clone());
    ev.cwd = str_field(v, "cwd");
    ev.transcript_path = str_field(v, "transcript_path");
    ev.model = str_field(v, "model").or_else(|| v.get("tool_input").and_then(|t| str_field(t, "model")));
    ev.tool = tool.clone();
    if kind == Kind::SessionStart {
        ev.session_model = ev.model.clone();
    }
    let tool_use_id = str_field(v, "tool_use_id");
    match name.as_str() {
        "PreToolUse" => ev.phase = Some(Phase::Start),
        "PostToolUse" => ev.phase = Some(Phase::End),
        "PostToolUseFailure" => ev.phase = Some(Phase::Fail),
        _ => {}
    }
    if matches!(ev.phase, Some(Phase::End | Phase::Fail)) {
        // The tool's own time, as Claude Code measured it (hook-to-hook time would add the hooks').
        ev.duration_ms = v.get("duration_ms").and_then(Value::as_i64).filter(|d| *d >= 0);
    }
    if ev.phase.is_some() {
        ev.span_id = tool_use_id.clone();
        ev.pair_key = Some(tool_use_id.unwrap_or_else(|| format!("tool:{}", tool.as_deref().unwrap_or("?"))));
    }
    // A payload sent from inside a subagent names it: the subagent is the event's parent span
    // (its own start and stop are its span).
    if matches!(kind, Kind::SubagentStart | Kind::SubagentEnd) {
        ev.span_id = str_field(v, "agent_id");
    } else {
        ev.parent_span_id = str_field(v, "agent_id");
    }
    let mut attrs = Map::new();
    attrs.insert("event".into(), name.clone().into());
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
    let input = v.get("tool_input");
    if let Some(cmd) = input.and_then(|i| str_field(i, "command")) {
        attrs.insert("command".into(), cmd.into());
    }
    if let Some(path) = input.and_then(|i| str_field(i, "file_path")) {
        attrs.insert("file_path".into(), path.into());
    }
    if kind == Kind::StopFailure {
        // The text Claude Code showed for the failure ("API Error: 400 …").
        if let Some(text) = str_field(v, "last_assistant_message") {
            attrs.insert("error_message".into(), text.into());
        }
    }
    if kind == Kind::AgentResponse {
        // MessageDisplay carries the shown text in `delta`, one call per text block.
        if let Some(text) = str_field(v, "delta") {
            attrs.insert("text".into(), text.into());
        }
    }
    if name == "PostToolUse" && tool.as_deref().is_some_and(|t| SUBAGENT_TOOLS.contains(&t)) {
        subagent_result(v.get("tool_response"), &mut attrs);
    }
    ev.attrs = attrs;

    let dialog = name == "PermissionRequest";
    let action = (name == "PreToolUse" || dialog).then(|| {
        let t = tool.clone().unwrap_or_default();
        let (subject, detail) = match t.as_str() {
            "Bash" => (Subject::Shell, input.and_then(|i| str_field(i, "command")).unwrap_or_default()),
            m if m.starts_with("mcp__") => (Subject::Mcp, t.clone()),
            "Read" => (Subject::FileRead, input.and_then(|i| str_field(i, "file_path")).unwrap_or_default()),
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
    let subagent_transcript = (kind == Kind::SubagentEnd).then(|| str_field(v, "agent_transcript_path")).flatten();
    let spawn = (name == "PreToolUse" && tool.as_deref().is_some_and(|t| SUBAGENT_TOOLS.contains(&t))).then(|| {
        let input = input.unwrap_or(&Value::Null);
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
        agent_type: str_field(v, "agent_type"),
        read: None,
        rules: None,
    }
}

/// `stop_hook_active` false is the turn's first stop; Claude Code sends no status (a Stop is a
/// completed response) and the response's text as `last_assistant_message`.
fn stop(v: &Value) -> StopFacts {
    StopFacts {
        first_of_turn: v.get("stop_hook_active").and_then(Value::as_bool).map(|active| !active),
        completed: true,
        status: None,
        last_response: v.get("last_assistant_message").and_then(Value::as_str).map(str::to_string),
        running_subagents: running_subagents(v),
    }
}

/// The subagents a Stop's `background_tasks` lists as running (Claude Code 2.1.332 and later),
/// each as `<description> (<agent type>, <id>)`; at most 10 are named, any more counted.
fn running_subagents(v: &Value) -> Vec<String> {
    let tasks = v
        .get("background_tasks")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let running: Vec<&Value> = tasks
        .iter()
        .filter(|t| text(t, "type") == Some("subagent") && text(t, "status") == Some("running"))
        .collect();
    let name = |t: &Value| {
        let short = |s: &str| s.chars().take(80).collect::<String>();
        format!(
            "{} ({}, {})",
            short(text(t, "description").unwrap_or("subagent")),
            short(text(t, "agent_type").unwrap_or("?")),
            short(text(t, "id").unwrap_or("?"))
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
    let event = v.get("hook_event_name").and_then(Value::as_str)?;
    matches!(event, "Stop" | "SubagentStop")
        .then(|| str_field(v, "last_assistant_message"))
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
    match hook_event {
        "PreToolUse" => match decision.permission {
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
        "PermissionRequest" => match decision.permission {
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
        "UserPromptSubmit" | "PostToolUse" | "PostToolUseFailure" => match decision.permission {
            Permission::Allow => context_or_nothing(hook_event, decision),
            // Claude Code cannot ask here: an ask is a block.
            _ => json!({"decision": "block", "reason": reason}).to_string(),
        },
        "Stop" | "SubagentStop" => match (&decision.follow_up, decision.permission) {
            (Some(f), _) => json!({"decision": "block", "reason": f}).to_string(),
            // Claude Code treats a Stop's additionalContext as a block, so advice that lets the
            // stop through is shown to the operator as a systemMessage instead.
            (None, Permission::Allow) => match &decision.context {
                Some(c) => json!({"systemMessage": c}).to_string(),
                None => String::new(),
            },
            (None, _) => json!({"decision": "block", "reason": reason}).to_string(),
        },
        "SessionStart" => context_or_nothing(hook_event, decision),
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
fn plan_mask(event: &str, tool: &str, payload: &Value, redaction: &PayloadRedaction) -> Option<ModelMask> {
    match event {
        "PostToolUse" => {
            let r = mask::found(redaction, "tool_response")?;
            Some(match payload.get("tool_response") {
                Some(output) if r.keys == 0 => ModelMask::Replace {
                    output: output.clone(),
                    mcp: tool.starts_with("mcp__"),
                },
                _ => mask::notice(r),
            })
        }
        "PostToolUseFailure" => mask::found(redaction, "error").map(mask::notice),
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
}
