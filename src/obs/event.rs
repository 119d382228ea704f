//! The neutral event: what every provider payload becomes, and which plane each kind lands on.

use serde_json::{Map, Value};

/// The neutral kinds. Which plane an event lands on is fixed by its kind (and, for a decision,
/// by whether it interrupted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    SessionStart,
    SessionEnd,
    PromptSubmit,
    ToolStart,
    ToolEnd,
    ToolFail,
    ShellStart,
    ShellEnd,
    McpStart,
    McpEnd,
    FileRead,
    FileEdit,
    AgentResponse,
    AgentThought,
    Compact,
    SubagentStart,
    SubagentEnd,
    Stop,
    /// The turn ended on an API error instead of a stop (Claude Code's StopFailure).
    StopFailure,
    /// The provider is about to ask the operator for a permission.
    PermissionRequest,
    /// The provider's own permission check refused a tool call.
    PermissionDenied,
    /// A batch of tool calls finished (its calls were each recorded already).
    ToolBatch,
    Notification,
    Unknown,
    GenerationEnd,
    CostSessionAlert,
    ConfigScaffolded,
    /// An operator-only command ran (`tlc mode`, `tlc policy accept`, …): what, and from where.
    OperatorCommand,
    /// An observation-mode reading of a rail that is off (`observe.rails`).
    ObserveReading,
    HookFault,
}

/// The three planes: signal (on), debug (off unless `obs.debug`), audit (on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plane {
    Signal,
    Debug,
    Audit,
}

impl Plane {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Plane::Signal => "signal",
            Plane::Debug => "debug",
            Plane::Audit => "audit",
        }
    }
}

impl Kind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::SessionStart => "session.start",
            Kind::SessionEnd => "session.end",
            Kind::PromptSubmit => "prompt.submit",
            Kind::ToolStart => "tool.start",
            Kind::ToolEnd => "tool.end",
            Kind::ToolFail => "tool.fail",
            Kind::ShellStart => "shell.start",
            Kind::ShellEnd => "shell.end",
            Kind::McpStart => "mcp.start",
            Kind::McpEnd => "mcp.end",
            Kind::FileRead => "file.read",
            Kind::FileEdit => "file.edit",
            Kind::AgentResponse => "agent.response",
            Kind::AgentThought => "agent.thought",
            Kind::Compact => "compact",
            Kind::SubagentStart => "subagent.start",
            Kind::SubagentEnd => "subagent.end",
            Kind::Stop => "stop",
            Kind::StopFailure => "stop.failure",
            Kind::PermissionRequest => "permission.request",
            Kind::PermissionDenied => "permission.denied",
            Kind::ToolBatch => "tool.batch",
            Kind::Notification => "notification",
            Kind::Unknown => "unknown",
            Kind::GenerationEnd => "generation.end",
            Kind::CostSessionAlert => "cost.session_alert",
            Kind::ConfigScaffolded => "config.scaffolded",
            Kind::OperatorCommand => "operator.command",
            Kind::ObserveReading => "observe.reading",
            Kind::HookFault => "hook.fault",
        }
    }

    /// Happy-path tool and shell noise is debug; lifecycle, failures, decisions that interrupt,
    /// usage, alerts and faults are signal.
    pub(crate) fn plane(self) -> Plane {
        match self {
            Kind::ToolStart
            | Kind::ToolEnd
            | Kind::ShellStart
            | Kind::ShellEnd
            | Kind::McpStart
            | Kind::McpEnd
            | Kind::FileRead
            | Kind::FileEdit
            | Kind::ToolBatch
            | Kind::AgentThought => Plane::Debug,
            _ => Plane::Signal,
        }
    }
}

/// Where a tool event sits in its tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Start,
    End,
    Fail,
}

impl Phase {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Phase::Start => "start",
            Phase::End => "end",
            Phase::Fail => "fail",
        }
    }
}

/// Token counts of one generation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tokens {
    pub input: i64,
    pub output: i64,
    pub cache_read: i64,
    pub cache_write: i64,
    /// The part of `cache_write` written with the 1-hour TTL.
    pub cache_write_1h: i64,
}

/// One neutral event, ready to store. Everything in it is already redacted.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub ts: chrono::DateTime<chrono::Utc>,
    pub provider: String,
    pub kind: Kind,
    pub session_id: Option<String>,
    pub trace_id: Option<String>,
    pub span_id: Option<String>,
    pub parent_span_id: Option<String>,
    pub model: Option<String>,
    pub tool: Option<String>,
    pub phase: Option<Phase>,
    /// Pairs a tool's start with its end (the tool_use_id where the payload has one).
    pub pair_key: Option<String>,
    pub attrs: Map<String, Value>,
    /// The whole payload, redacted, as JSON text (the audit record).
    pub payload: Option<String>,
    pub duration_ms: Option<i64>,
    pub tokens: Option<Tokens>,
    pub cost_usd: Option<f64>,
    pub cost_source: Option<String>,
    pub cost_pool: Option<String>,
    pub dedup_key: Option<String>,
    /// Session facts the payload carried (recorded as data, never used as a place to write).
    pub cwd: Option<String>,
    /// The session's own model, where the event states it (a subagent's model is not it).
    pub session_model: Option<String>,
    /// A model for the session when it has none yet: a main-thread response's (Claude Code's
    /// SessionStart names no model except after a compaction).
    pub session_model_fallback: Option<String>,
    pub transcript_path: Option<String>,
}

impl Event {
    pub(crate) fn new(provider: &str, kind: Kind, ts: chrono::DateTime<chrono::Utc>) -> Event {
        Event {
            ts,
            provider: provider.to_string(),
            kind,
            session_id: None,
            trace_id: None,
            span_id: None,
            parent_span_id: None,
            model: None,
            tool: None,
            phase: None,
            pair_key: None,
            attrs: Map::new(),
            payload: None,
            duration_ms: None,
            tokens: None,
            cost_usd: None,
            cost_source: None,
            cost_pool: None,
            dedup_key: None,
            cwd: None,
            session_model: None,
            session_model_fallback: None,
            transcript_path: None,
        }
    }
}

/// Truncates every attribute value to `max` characters (values that are not strings are
/// serialised first), so one huge field cannot bloat the record.
pub(crate) fn truncate_attrs(attrs: &mut Map<String, Value>, max: usize) {
    for v in attrs.values_mut() {
        let text = match v {
            Value::String(s) => {
                if s.chars().count() <= max {
                    continue;
                }
                s.clone()
            }
            Value::Array(_) | Value::Object(_) => {
                let s = v.to_string();
                if s.chars().count() <= max {
                    continue;
                }
                s
            }
            _ => continue,
        };
        let cut: String = text.chars().take(max).collect();
        *v = Value::String(format!("{cut}…[truncated {} chars]", text.chars().count() - max));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attrs_are_truncated_per_value() {
        let mut m = Map::new();
        m.insert("short".into(), "abc".into());
        m.insert("long".into(), "x".repeat(50).into());
        m.insert("obj".into(), serde_json::json!({"a": "y".repeat(40)}));
        m.insert("n".into(), 5.into());
        truncate_attrs(&mut m, 20);
        assert_eq!(m["short"], "abc");
        assert!(m["long"].as_str().unwrap().starts_with(&"x".repeat(20)));
        assert!(m["long"].as_str().unwrap().contains("truncated 30"));
        assert!(m["obj"].as_str().unwrap().len() < 60);
        assert_eq!(m["n"], 5);
    }

    #[test]
    fn planes_follow_kinds() {
        assert_eq!(Kind::ShellStart.plane(), Plane::Debug);
        assert_eq!(Kind::ToolFail.plane(), Plane::Signal);
        assert_eq!(Kind::SessionStart.plane(), Plane::Signal);
        assert_eq!(Kind::GenerationEnd.plane(), Plane::Signal);
    }
}
