//! Cursor: hook payloads to neutral events, decisions to responses.
//!
//! Cursor reads a JSON object on stdout; `{}` abstains. With no rail objecting tlc abstains, so
//! Cursor's own approval flow stays in charge. Where Cursor cannot ask, an ask becomes a deny.

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
    name: "cursor",
    product: "Cursor",
    agent_markers: &["CURSOR_AGENT"],
    config_dir_var: "CURSOR_CONFIG_DIR",
    config_dir_default: ".cursor",
    settings_file: "hooks.json",
    events: &[
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
    ],
    layout: Layout::Flat { version: 1 },
    // Not set: Cursor's own default.
    timeout: |_| None,
    // The hook's working directory is the project's.
    project_dir_var: None,
    map,
    acts,
    edited_file,
    work_dir,
    asking_events: ASKING_EVENTS,
    // Cursor's payloads name no permission mode.
    unattended: |_| false,
    render,
    plan_mask,
    apply_mask,
    // No stop event of Cursor's names the response it is about.
    awaited_response: |_| None,
    // `{}` abstains.
    neutral: "{}",
    stop,
    // afterAgentResponse carries the response's whole text.
    response_text: |v| str_field(v, "text"),
    // afterFileEdit reports the file it wrote.
    written_file: edited_file,
    untrusted_tools: &["Fetch", "WebSearch"],
    tool_result,
    // Only postToolUse takes `additional_context` after a tool ran (`render`).
    context_events: &["postToolUse"],
};

/// What an after-tool event returned: `postToolUse`'s `tool_output`, `afterMCPExecution`'s
/// `result_json`, `afterShellExecution`'s `output`.
fn tool_result(v: &Value) -> Option<super::provider::ToolResult<'_>> {
    let mcp = |t: &str| t.starts_with("MCP:") || t.starts_with("mcp__");
    match text(v, "hook_event_name")? {
        "postToolUse" => {
            let tool = text(v, "tool_name")?;
            Some(super::provider::ToolResult {
                tool,
                command: SHELL_TOOLS
                    .contains(&tool)
                    .then(|| v.get("tool_input").and_then(|i| text(i, "command")))
                    .flatten(),
                output: v.get("tool_output"),
                mcp: mcp(tool),
            })
        }
        "afterMCPExecution" => Some(super::provider::ToolResult {
            tool: text(v, "tool_name").unwrap_or("MCP"),
            command: None,
            output: v.get("result_json"),
            mcp: true,
        }),
        "afterShellExecution" => Some(super::provider::ToolResult {
            tool: "shell",
            command: text(v, "command"),
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

/// The events on which Cursor can ask the operator.
const ASKING_EVENTS: &[&str] = &["beforeShellExecution", "beforeMCPExecution"];
/// The events that ask permission for an act (a response may allow, ask or deny).
const ACTING_EVENTS: &[&str] = &[
    "beforeShellExecution",
    "beforeMCPExecution",
    "beforeReadFile",
    "preToolUse",
    "subagentStart",
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

fn text<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str).filter(|x| !x.is_empty())
}

/// The dedicated events act on their command, file or MCP tool; `preToolUse` on what its tool
/// does with its input.
fn acts(v: &Value) -> Vec<Act<'_>> {
    let tool = text(v, "tool_name").unwrap_or("");
    let input = v.get("tool_input");
    let act = match text(v, "hook_event_name").unwrap_or("") {
        "beforeShellExecution" => text(v, "command").map(Act::Shell),
        "beforeReadFile" => text(v, "file_path").map(Act::Read),
        "beforeMCPExecution" => Some(Act::Mcp { tool, input }),
        "preToolUse" if SHELL_TOOLS.contains(&tool) => input.and_then(|i| text(i, "command")).map(Act::Shell),
        "preToolUse" if tool.starts_with("mcp__") || tool.starts_with("MCP:") => Some(Act::Mcp { tool, input }),
        "preToolUse" => {
            let path = input.and_then(|i| {
                ["file_path", "notebook_path", "path", "target_file", "target_notebook"]
                    .iter()
                    .find_map(|k| text(i, k))
            });
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
    (text(v, "hook_event_name") == Some("afterFileEdit"))
        .then(|| text(v, "file_path"))
        .flatten()
}

/// A command's own folder, else the first workspace root.
fn work_dir(v: &Value) -> Option<&str> {
    text(v, "cwd").or_else(|| v.get("workspace_roots").and_then(|r| r.get(0)).and_then(Value::as_str))
}

pub(crate) fn map(v: &Value, now: chrono::DateTime<chrono::Utc>) -> Mapped {
    let name = str_field(v, "hook_event_name").unwrap_or_default();
    let tool = str_field(v, "tool_name");
    let kind = match name.as_str() {
        "sessionStart" => Kind::SessionStart,
        "sessionEnd" => Kind::SessionEnd,
        "beforeSubmitPrompt" => Kind::PromptSubmit,
        "beforeShellExecution" => Kind::ShellStart,
        "afterShellExecution" => Kind::ShellEnd,
        "beforeMCPExecution" => Kind::McpStart,
        "afterMCPExecution" => Kind::McpEnd,
        "beforeReadFile" => Kind::FileRead,
        "afterFileEdit" => Kind::FileEdit,
        "preToolUse" => Kind::ToolStart,
        "postToolUse" => Kind::ToolEnd,
        "postToolUseFailure" => Kind::ToolFail,
        "afterAgentResponse" => Kind::AgentResponse,
        "afterAgentThought" => Kind::AgentThought,
        "preCompact" => Kind::Compact,
        "subagentStart" => Kind::SubagentStart,
        "subagentStop" => Kind::SubagentEnd,
        "stop" => Kind::Stop,
        _ => Kind::Unknown,
    };
    let mut ev = Event::new(PROVIDER.name, kind, now);
    ev.session_id = str_field(v, "session_id").or_else(|| str_field(v, "conversation_id"));
    ev.trace_id = str_field(v, "generation_id").or_else(|| str_field(v, "conversation_id"));
    ev.cwd = v
        .get("workspace_roots")
        .and_then(|r| r.get(0))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| str_field(v, "cwd"));
    ev.transcript_path = str_field(v, "transcript_path");
    ev.model = str_field(v, "model").or_else(|| str_field(v, "subagent_model"));
    if kind == Kind::SessionStart {
        ev.session_model = ev.model.clone();
    }
    let command = str_field(v, "command");
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
    ev.pair_key = pair.map(|p| str_field(v, "tool_use_id").unwrap_or(p));
    if kind == Kind::SessionEnd {
        ev.duration_ms = v.get("duration_ms").and_then(Value::as_i64);
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
            detail: str_field(v, "file_path").unwrap_or_default(),
            reads_only: true,
            dialog: false,
        }),
        Kind::SubagentStart => Some(Action {
            subject: Subject::Subagent,
            detail: str_field(v, "subagent_type").unwrap_or_else(|| "subagent".into()),
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
    let spawn = spawn_request(v, kind, tool.as_deref());
    Mapped {
        event: ev,
        hook_event: name,
        action,
        tool_payload,
        turn: None,
        subagent_transcript: None,
        awaited_response: None,
        spawn,
        agent_type: str_field(v, "agent_type"),
        read: None,
        rules: None,
    }
}

/// The spawn a `subagentStart` (its `subagent_model`) or a `Task` preToolUse (its input's
/// `model`) asks for; the parent's model is the payload's `model`, where it says one.
fn spawn_request(v: &Value, kind: Kind, tool: Option<&str>) -> Option<SpawnRequest> {
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
        parent_model: str_field(v, "model"),
    })
}

/// Cursor's `stop` says how the agent loop ended in `status`; only `completed` is gated.
fn stop(v: &Value) -> StopFacts {
    let status = str_field(v, "status");
    StopFacts {
        first_of_turn: None,
        completed: status.as_deref().is_none_or(|s| s == "completed"),
        status,
        last_response: None,
        // Cursor's stop names no background subagents.
        running_subagents: Vec::new(),
    }
}

/// The response Cursor expects for `hook_event` under `decision`.
pub(crate) fn render(hook_event: &str, decision: &Decision) -> String {
    let reason = decision.reason.clone().unwrap_or_default();
    let can_ask = ASKING_EVENTS.contains(&hook_event);
    let acting = ACTING_EVENTS.contains(&hook_event);
    let permission = match decision.permission {
        Permission::Ask if !can_ask => Permission::Deny,
        p => p,
    };
    if acting && permission != Permission::Allow {
        let user = decision.user_note.clone().unwrap_or_else(|| reason.clone());
        return json!({"permission": permission.as_str(), "user_message": user, "agent_message": reason}).to_string();
    }
    if hook_event == "beforeSubmitPrompt" && permission != Permission::Allow {
        return json!({"continue": false, "user_message": reason}).to_string();
    }
    if matches!(hook_event, "stop" | "subagentStop") {
        if let Some(f) = &decision.follow_up {
            return json!({"followup_message": f}).to_string();
        }
    }
    if let Some(c) = &decision.context {
        if matches!(hook_event, "sessionStart" | "postToolUse") {
            return json!({"additional_context": c}).to_string();
        }
    }
    "{}".to_string()
}

/// Cursor replaces only an MCP tool's output (`updated_mcp_tool_output`).
fn plan_mask(event: &str, tool: &str, payload: &Value, redaction: &PayloadRedaction) -> Option<ModelMask> {
    match event {
        "postToolUse" => {
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
        "postToolUseFailure" => ["error_message", "error", "tool_output"]
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
