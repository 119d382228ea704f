//! The turn-relevant facts of a payload, in the neutral terms the stop checks take: which event
//! it is for a turn and, from the provider, what it said at a stop, the assistant text
//! an agent-response event carries and the file an after-edit event wrote.

use super::mapped::{str_field, Mapped};
use super::provider::Provider;
use crate::gate::stop::{TurnEvent, TurnFacts};
use crate::obs::Kind;
use serde_json::Value;

/// What a stop keeps of the client's hook time for itself: waiting for the transcript, recording
/// its verdict, answering.
const STOP_MARGIN: std::time::Duration = std::time::Duration::from_secs(30);

/// The payload's neutral event, with what the stop checks read of it.
pub(super) fn map(provider: &dyn Provider, v: &Value, now: chrono::DateTime<chrono::Utc>) -> Mapped {
    let mut mapped = provider.map(v, now);
    mapped.turn = facts(provider, &mapped, v);
    mapped
}

/// The facts of `mapped` (from `payload`), or `None` for an event no turn check reads.
pub(crate) fn facts(provider: &dyn Provider, mapped: &Mapped, payload: &Value) -> Option<TurnFacts> {
    let ev = &mapped.event;
    let event = match ev.kind {
        Kind::SessionStart => TurnEvent::SessionStart {
            fresh: !matches!(str_field(payload, "source").as_deref(), Some("resume" | "compact")),
        },
        Kind::PromptSubmit => TurnEvent::Prompt,
        // A subagent's stop is not the turn's.
        Kind::Stop => {
            let mut stop = provider.stop(payload);
            stop.deadline = provider
                .timeout(&mapped.hook_event)
                .map(|secs| std::time::Instant::now() + std::time::Duration::from_secs(secs).saturating_sub(STOP_MARGIN));
            TurnEvent::Stop(stop)
        }
        Kind::AgentResponse => TurnEvent::AgentResponse(provider.response_text(payload)?),
        Kind::FileEdit => TurnEvent::FileEdited(provider.written_file(payload)?.to_string()),
        Kind::SessionEnd => TurnEvent::SessionEnd,
        _ => return None,
    };
    Some(TurnFacts {
        provider: provider.name().to_string(),
        session: ev.session_id.clone(),
        event,
        transcript_path: ev.transcript_path.clone(),
    })
}
