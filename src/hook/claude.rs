//! Claude Code: hook payloads to neutral events, decisions to responses.
//!
//! Claude Code accepts an empty stdout with exit 0 as "no opinion" for every event, and that is
//! what tlc prints when no rail objected: it never grants a permission Claude Code would
//! otherwise ask the operator for.

use super::mask::{self, ModelMask};
use super::wiring::Layout;
use super::{str_field, Action, Mapped, Provider, ProviderSpec, Subject};
use crate::decision::{Decision, Permission};
use crate::gate::stop::StopFacts;
use crate::obs::redact::PayloadRedaction;
use crate::obs::{Event, Kind, Phase};
use crate::policy::floor::Act;
use serde_json::{json, Map, Value};

pub const PROVIDER: Provider = &ProviderSpec {
    name: "claude",
    product: "Claude Code",
    agent_markers: &["CLAUDECODE"],
    config_dir_var: "CLAUDE_CONFIG_DIR",
    config_dir_default: ".claude",
    settings_file: "settings.json",
    events: &[
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Notification",
        "Stop",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "SessionEnd",
    ],
    layout: Layout::Grouped {
        matcher_events: &["PreToolUse", "PostToolUse", "PostToolUseFailure"],
    },
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
    // An empty stdout with exit 0 is "no opinion" for every event.
    neutral: "",
    stop,
    // MessageDisplay may show a response in parts: a claim is read from the Stop's
    // `last_assistant_message`, else from the transcript.
    response_text: |_| None,
    written_file,
};

/// Tools that only read: an integrity divergence never blocks them.
const READ_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch", "TodoRead"];
const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// Tools whose `file_path` (or `notebook_path`) the floor judges as a read, a write or an edit.
const FLOOR_READ_TOOLS: &[&str] = &["Read", "Grep"];
const FLOOR_WRITE_TOOLS: &[&str] = &["Write"];
const FLOOR_EDIT_TOOLS: &[&str] = &["Edit", "MultiEdit", "NotebookEdit"];

fn text<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str).filter(|x| !x.is_empty())
}

/// A PreToolUse of Bash is a command, of `mcp__…` an MCP call, of a file tool a read, write or
/// edit of its path; nothing else acts.
fn acts(v: &Value) -> Vec<Act<'_>> {
    if text(v, "hook_event_name") != Some("PreToolUse") {
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

pub fn map(v: &Value, now: chrono::DateTime<chrono::Utc>) -> Mapped {
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
        "Stop" => Kind::Stop,
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
    if ev.phase.is_some() {
        ev.span_id = tool_use_id.clone();
        ev.pair_key = Some(tool_use_id.unwrap_or_else(|| format!("tool:{}", tool.as_deref().unwrap_or("?"))));
        ev.parent_span_id = str_field(v, "agent_id");
    }
    if matches!(kind, Kind::SubagentStart | Kind::SubagentEnd) {
        ev.span_id = str_field(v, "agent_id");
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
        "agent_type",
        "subagent_type",
        "text",
        "permission_mode",
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
    ev.attrs = attrs;

    let action = (name == "PreToolUse").then(|| {
        let t = tool.clone().unwrap_or_default();
        let (subject, detail) = match kind {
            Kind::ShellStart => (Subject::Shell, input.and_then(|i| str_field(i, "command")).unwrap_or_default()),
            Kind::McpStart => (Subject::Mcp, t.clone()),
            Kind::FileRead => (Subject::FileRead, input.and_then(|i| str_field(i, "file_path")).unwrap_or_default()),
            _ => (Subject::Tool, t.clone()),
        };
        Action {
            subject,
            detail,
            reads_only: READ_TOOLS.contains(&t.as_str()),
        }
    });
    Mapped {
        event: ev,
        hook_event: name,
        action,
        tool_payload: tool_payload(v),
        turn: None,
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
pub fn render(hook_event: &str, decision: &Decision) -> String {
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
