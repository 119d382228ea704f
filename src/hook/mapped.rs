//! A provider's payload mapped to tlc's terms: the neutral event ([`Mapped`]), the act it is about
//! to perform ([`Action`]), a subagent spawn it asks for ([`SpawnRequest`]), and the field readers
//! the providers share. The front door (`hook/mod.rs`) reads stdin and answers; everything under
//! `hook/` reads these types from here.

use crate::obs::Event;
pub(crate) use crate::policy::facts::Subject;
use crate::policy::rules::ProofKind;
use serde_json::{Map, Value};

/// An action about to happen that a rail may decide on.
#[derive(Debug, Clone)]
pub(crate) struct Action {
    pub subject: Subject,
    /// The command, tool or path (redacted).
    pub detail: String,
    /// The action only reads: a policy divergence never blocks it.
    pub reads_only: bool,
    /// The client's own permission dialog is about to open for an act its PreToolUse already
    /// let through (Claude Code's PermissionRequest): only the floor answers it, again, so that a
    /// refused act stays refused however it got there; the rails had their say at PreToolUse and
    /// an ask is the dialog itself.
    pub dialog: bool,
}

/// A payload mapped to its neutral event.
#[derive(Debug, Clone)]
pub(crate) struct Mapped {
    pub event: Event,
    /// The provider's own event name.
    pub hook_event: String,
    pub action: Option<Action>,
    /// Tool inputs and outputs: kept in attributes only with `obs.includePayloads`.
    pub tool_payload: Map<String, Value>,
    /// What the stop checks read of this event (turn bases, stops, claims, edits): left `None` by
    /// a provider's `map`, filled by `turn::map` from the provider's `stop` and `response_text`.
    pub turn: Option<crate::gate::stop::TurnFacts>,
    /// A subagent's own transcript, named when it stops: read like the session's.
    pub subagent_transcript: Option<String>,
    /// The text of the response a stop is about, which the transcript should hold before the
    /// stop is recorded.
    pub awaited_response: Option<String>,
    /// The subagent spawn this event asks for (the subagent rails judge it).
    pub spawn: Option<SpawnRequest>,
    /// The type of the subagent that makes this call, as the provider states it.
    pub agent_type: Option<String>,
    /// A tool's result, read only with `untrustedContent.enabled` (`hook::untrusted`).
    pub read: Option<ToolRead>,
    /// What the event proves and the tool's input, read only with `rules.enabled` (`hook::rules`).
    pub rules: Option<RuleFacts>,
}

/// A subagent spawn as a payload asks for it, in the agent's own words.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SpawnRequest {
    pub model: Option<String>,
    pub subagent_type: Option<String>,
    pub effort: Option<String>,
    /// The parent's model, where the payload states it (Cursor's `model`).
    pub parent_model: Option<String>,
}

/// A field the agent wrote, whatever its JSON type: a string as it is, any other value but
/// `null` as its JSON text (so that `"model": 5` is judged, never read as "no model").
pub(crate) fn agent_field(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

pub(crate) fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string)
}

/// What an after-tool event returned, owned.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolRead {
    pub tool: String,
    pub command: Option<String>,
    /// Whitespace collapsed; of a long output its head and tail only.
    pub output: String,
    /// The output's lines that look like commands, each collapsed.
    pub commands: Vec<String>,
    pub mcp: bool,
    pub declared: bool,
    pub carries_context: bool,
}

impl ToolRead {
    pub(crate) fn as_read(&self) -> crate::policy::untrusted::Read<'_> {
        crate::policy::untrusted::Read {
            tool: &self.tool,
            command: self.command.as_deref(),
            output: &self.output,
            commands: &self.commands,
            mcp: self.mcp,
            declared: self.declared,
            carries_context: self.carries_context,
        }
    }
}

/// One observation a rule's `require:` can name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Observed {
    pub kind: ProofKind,
    pub value: String,
}

/// What one event carries for the rules.
#[derive(Debug, Clone, Default)]
pub(crate) struct RuleFacts {
    pub proof: Option<Observed>,
    pub tool_input: Option<Value>,
}
