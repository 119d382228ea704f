//! What tlc knows about a provider (an agent that runs hooks), in one value per provider.
//!
//! Everything else is derived from [`super::PROVIDERS`]: the `tlc hook <name>` argument and its
//! fast path, `tlc install`'s `--<name>` flags and the files it edits, `tlc doctor`'s wiring
//! checks, the "inside an agent session" test, what the floor and the rails decide on (which
//! events act, on what, and which can ask). Adding a provider is writing its module (a
//! [`ProviderSpec`] with its payload mapping, acts and response rendering, as `claude.rs` does)
//! and listing it in that table.

use super::mapped::Mapped;
use crate::decision::Decision;
use crate::gate::stop::StopFacts;
use crate::obs::redact::PayloadRedaction;
use crate::policy::floor::Act;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// One provider's definition.
#[derive(Debug)]
pub(crate) struct ProviderSpec {
    /// The name on the command line (`tlc hook <name>`, `tlc install --<name>`) and in every
    /// event recorded from it.
    pub name: &'static str,
    /// The product, as messages name it.
    pub product: &'static str,
    /// Environment variables the provider sets in the commands its agent runs: one of them
    /// present means a command runs inside an agent session.
    pub agent_markers: &'static [&'static str],
    /// The variable that names the provider's configuration folder, when set and not empty.
    pub config_dir_var: &'static str,
    /// The configuration folder under `HOME` otherwise.
    pub config_dir_default: &'static str,
    /// The file in that folder where its hooks are configured.
    pub settings_file: &'static str,
    /// The events tlc is wired to, and how that file lists them.
    pub events: &'static [&'static str],
    pub layout: Layout,
    /// Seconds the provider is told to give tlc's hook on an event before it gives up on it,
    /// written into each wired entry; `None` leaves the provider's own default.
    pub timeout: fn(&str) -> Option<u64>,
    /// The environment variable in which the provider names the project folder of every hook
    /// call (see [`crate::paths::Paths::for_hook`]); `None`: the hook's working directory.
    pub project_dir_var: Option<&'static str>,
    /// A payload to its neutral event.
    pub map: fn(&Value, chrono::DateTime<chrono::Utc>) -> Mapped,
    /// The acts an acting event is about to perform (a command, a file read, write, edit or
    /// delete, an MCP call), read from the payload as it arrived: the floor decides on them
    /// before any config is read. Empty for every other event.
    pub acts: for<'v> fn(&'v Value) -> Vec<Act<'v>>,
    /// A file the provider reports its agent has edited (an after-edit event): claimed for edit
    /// collision, never asked about.
    pub edited_file: fn(&Value) -> Option<&str>,
    /// The folder the payload's command or tool runs in, against which its relative paths
    /// resolve (used only when absolute).
    pub work_dir: fn(&Value) -> Option<&str>,
    /// The events on which the provider can put a question to the operator; an ask on any other
    /// is rendered as a deny that says so.
    pub asking_events: &'static [&'static str],
    /// Whether the payload says that nobody answers prompts (a permission mode that approves or
    /// refuses by itself): an ask is then a deny that says so.
    pub unattended: fn(&Value) -> bool,
    /// A decision to the response the provider expects for one of its events: the reason for
    /// the model, and the decision's `user_note` where the person watching sees it.
    pub render: fn(&str, &Decision) -> String,
    /// What the model is given when a tool's output held a secret: for an event (with its tool,
    /// the payload as redacted, and what the redaction changed), a replacement output, a notice,
    /// or nothing (see `mask`).
    pub plan_mask: fn(&str, &str, &Value, &PayloadRedaction) -> Option<ModelMask>,
    /// Adds that mask to a rendered response's JSON object; false leaves the response as it was.
    pub apply_mask: fn(&str, &mut Map<String, Value>, ModelMask) -> bool,
    /// The text of the response a stop event says its transcript should hold, read from the
    /// payload as received (before redaction); `None` for every other event.
    pub awaited_response: fn(&Value) -> Option<String>,
    /// The response that says nothing: the provider's neutral answer.
    pub neutral: &'static str,
    /// What the provider says at a turn's stop, for the stop checks: whether this is the turn's
    /// first stop, whether the agent completed, its last response (see `turn`).
    pub stop: fn(&Value) -> StopFacts,
    /// The assistant's text when an agent-response event carries it whole, where a ship claim
    /// is read from; `None` where the claim is read at the stop instead.
    pub response_text: fn(&Value) -> Option<String>,
    /// The file an after-edit event (`Kind::FileEdit`) reports written, once it is on disk: the
    /// comment policy's early HEADS UP reads it.
    pub written_file: fn(&Value) -> Option<&str>,
    /// The tools whose results the provider declares untrusted (its web tools), beside every
    /// MCP tool: `untrustedContent` frames them.
    pub untrusted_tools: &'static [&'static str],
    /// What an after-tool event says a tool returned (`None` for every other event).
    pub tool_result: for<'v> fn(&'v Value) -> Option<ToolResult<'v>>,
    /// The after-tool events whose response can carry context to the model (Claude Code's
    /// `additionalContext`, Cursor's `additional_context`); the framing abstains elsewhere.
    pub context_events: &'static [&'static str],
}

/// A tool's result, as an after-tool event carries it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolResult<'v> {
    pub tool: &'v str,
    /// The command a shell tool ran.
    pub command: Option<&'v str>,
    /// The output, whatever its shape (text, content blocks, an object).
    pub output: Option<&'v Value>,
    /// The tool is an MCP server's.
    pub mcp: bool,
}

/// A provider: a reference into the table.
/// How a provider's settings file lists hook commands.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Layout {
    /// Claude Code's: `hooks.<event>` is a list of groups `{"matcher"?, "hooks": [{"type":
    /// "command", "command"}]}`; the events in `matcher_events` take a `*` matcher.
    Grouped { matcher_events: &'static [&'static str] },
    /// Cursor's: `hooks.<event>` is a list of `{"command"}`, beside a top-level `"version"`.
    Flat { version: u64 },
}

/// What the model is given about secrets in a tool's output.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ModelMask {
    /// The tool's output as redacted, in place of what the tool returned.
    Replace { output: Value, mcp: bool },
    /// A notice that the output held a secret the model must not repeat.
    Notice(String),
}

impl ModelMask {
    /// The `secret_output` attribute of the event.
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            ModelMask::Replace { .. } => "replaced",
            ModelMask::Notice(_) => "notice",
        }
    }
}

pub(crate) type Provider = &'static ProviderSpec;

/// Neither the provider's own variable nor `HOME` names a folder: its settings cannot be found.
/// An empty variable counts as unset (a relative `./.claude` is never meant).
#[derive(Debug, Clone, thiserror::Error)]
#[error("neither {var} nor HOME is set: cannot find {product}'s {file}")]
pub(crate) struct NoConfigDir {
    pub var: &'static str,
    pub product: &'static str,
    pub file: &'static str,
}

impl ProviderSpec {
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// Whether the provider can ask the operator on `hook_event`.
    pub(crate) fn can_ask(&self, hook_event: &str) -> bool {
        self.asking_events.contains(&hook_event)
    }

    pub(super) fn awaited_response(&self, v: &Value) -> Option<String> {
        (self.awaited_response)(v)
    }

    /// Renders a decision for this provider's `hook_event`.
    pub(crate) fn render(&self, hook_event: &str, decision: &Decision) -> String {
        (self.render)(hook_event, decision)
    }

    /// The response that says nothing.
    pub(crate) fn neutral(&self) -> &'static str {
        self.neutral
    }

    /// The provider's configuration folder: `$<config_dir_var>`, else `$HOME/<config_dir_default>`.
    /// The one place it is worked out (install, uninstall and doctor all ask here).
    pub(crate) fn config_dir(&self) -> Result<PathBuf, NoConfigDir> {
        let set = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        if let Some(d) = set(self.config_dir_var) {
            return Ok(PathBuf::from(d));
        }
        set("HOME")
            .map(|h| PathBuf::from(h).join(self.config_dir_default))
            .ok_or(NoConfigDir {
                var: self.config_dir_var,
                product: self.product,
                file: self.settings_file,
            })
    }
}

/// The provider named `name` on the command line.
pub(crate) fn by_name(name: &str) -> Option<Provider> {
    super::PROVIDERS.iter().copied().find(|p| p.name == name)
}

/// Whether this process runs inside an agent session (a provider's marker is in the environment).
pub(crate) fn inside_agent_session() -> bool {
    super::PROVIDERS
        .iter()
        .flat_map(|p| p.agent_markers)
        .any(|k| std::env::var_os(k).is_some())
}
