//! The hot path: one provider payload in, one neutral event recorded, one valid response out.
//!
//! Whatever arrives — nothing, garbage, 20 MB, an unknown event — and whatever fails — a locked
//! or unwritable database, a broken config — [`handle`] returns a valid response for the
//! provider and the process exits 0. Faults are recorded where anything is writable: a
//! `hook.fault` event, else a size-capped log under the home.

mod adopt;
pub mod claude;
pub mod cursor;
mod fault_log;
mod guard;
mod mask;
pub mod provider;
mod record;
mod usage;
pub mod wiring;

pub use fault_log::{read_fault_log, FAULT_LOG_NAME};
pub use provider::{NoConfigDir, Provider, ProviderSpec};

use crate::obs::Event;
use serde_json::{Map, Value};
use std::io::Read;

/// Payloads larger than this are not parsed: the hook answers and records the fault.
pub const MAX_PAYLOAD_BYTES: usize = 64 * 1024 * 1024;

/// Every provider tlc answers, one [`ProviderSpec`] each (see [`provider`] for what is derived
/// from this table, and how to add one).
pub const PROVIDERS: &[Provider] = &[claude::PROVIDER, cursor::PROVIDER];

/// What an acting event asks permission for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Shell,
    Mcp,
    Tool,
    FileRead,
}

impl Subject {
    pub fn as_str(self) -> &'static str {
        match self {
            Subject::Shell => "shell",
            Subject::Mcp => "mcp",
            Subject::Tool => "tool",
            Subject::FileRead => "file",
        }
    }
}

/// An action about to happen that a rail may decide on.
#[derive(Debug, Clone)]
pub struct Action {
    pub subject: Subject,
    /// The command, tool or path (redacted).
    pub detail: String,
    /// The action only reads: a policy divergence never blocks it.
    pub reads_only: bool,
}

/// A payload mapped to its neutral event.
#[derive(Debug, Clone)]
pub struct Mapped {
    pub event: Event,
    /// The provider's own event name.
    pub hook_event: String,
    pub action: Option<Action>,
    /// Tool inputs and outputs: kept in attributes only with `obs.includePayloads`.
    pub tool_payload: Map<String, Value>,
}

pub(crate) fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string)
}

/// What becomes of the hook's database connections once it has answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AfterAnswer {
    /// Closed: the caller goes on running (the library's [`run`] and [`handle`]).
    Close,
    /// Left open for the process exit to release (see `store::leave_open_until_exit`): only for
    /// `tlc hook`, whose process exits as soon as the response is printed.
    ProcessExits,
}

/// Reads stdin (bounded) and handles it; returns the response to print. Never panics out.
pub fn run(provider: Provider) -> String {
    run_then(provider, AfterAnswer::Close)
}

/// [`run`] for a process that exits right after printing the response (`tlc hook`): its
/// connections are left to the exit, which saves closing them.
pub(crate) fn run_in_exiting_process(provider: Provider) -> String {
    run_then(provider, AfterAnswer::ProcessExits)
}

fn run_then(provider: Provider, after: AfterAnswer) -> String {
    let mut input = Vec::new();
    let read = std::io::stdin().lock().take(MAX_PAYLOAD_BYTES as u64 + 1).read_to_end(&mut input);
    let oversized = input.len() > MAX_PAYLOAD_BYTES;
    if oversized {
        // Drain the rest so the writer is not left blocked on a full pipe.
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
    }
    let read_fault = match read {
        Err(e) => Some(format!("cannot read stdin: {e}")),
        Ok(_) if oversized => Some(format!("payload larger than {MAX_PAYLOAD_BYTES} bytes was not parsed")),
        Ok(_) => None,
    };
    let payload = if oversized { &[][..] } else { &input[..] };
    let outcome = std::panic::catch_unwind(|| handle_then(provider, payload, read_fault.clone(), after));
    match outcome {
        Ok(response) => response,
        Err(_) => {
            fault_log::append_best_effort(provider.name(), "the hook panicked; answered neutrally");
            provider.neutral().to_string()
        }
    }
}

/// Handles one payload and returns the response text.
pub fn handle(provider: Provider, input: &[u8], read_fault: Option<String>) -> String {
    handle_then(provider, input, read_fault, AfterAnswer::Close)
}

fn handle_then(provider: Provider, input: &[u8], read_fault: Option<String>, after: AfterAnswer) -> String {
    let now = crate::clock::now();
    let mut faults: Vec<String> = read_fault.into_iter().collect();
    let value = match parse_payload(input) {
        Ok(v) => Some(v),
        Err(e) => {
            faults.push(e.to_string());
            None
        }
    };
    let outcome = record::process(provider, value, now, faults, after);
    let response = provider.render(&outcome.hook_event, &outcome.decision);
    match outcome.mask {
        Some(mask) => mask::apply(provider, &outcome.hook_event, response, mask),
        None => response,
    }
}

/// Why a payload could not be used.
#[derive(Debug, thiserror::Error)]
enum PayloadError {
    #[error("empty payload")]
    Empty,
    #[error("payload is not JSON ({bytes} bytes{}): {cause}", if *.invalid_utf8 { ", invalid UTF-8" } else { "" })]
    NotJson {
        bytes: usize,
        invalid_utf8: bool,
        cause: serde_json::Error,
    },
    #[error("payload is JSON but not an object ({bytes} bytes)")]
    NotObject { bytes: usize },
}

/// Parses a payload: JSON, tolerating invalid UTF-8 by replacing it.
fn parse_payload(input: &[u8]) -> Result<Value, PayloadError> {
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err(PayloadError::Empty);
    }
    let bytes = input.len();
    let parsed = match serde_json::from_slice::<Value>(input) {
        Ok(v) => Ok(v),
        Err(_) if std::str::from_utf8(input).is_err() => {
            serde_json::from_str::<Value>(&String::from_utf8_lossy(input)).map_err(|cause| PayloadError::NotJson {
                bytes,
                invalid_utf8: true,
                cause,
            })
        }
        Err(cause) => Err(PayloadError::NotJson {
            bytes,
            invalid_utf8: false,
            cause,
        }),
    }?;
    if parsed.is_object() {
        Ok(parsed)
    } else {
        Err(PayloadError::NotObject { bytes })
    }
}
