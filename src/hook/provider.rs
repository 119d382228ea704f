//! What tlc knows about a provider (an agent that runs hooks): one [`Provider`] per provider.
//!
//! Everything else is derived from [`super::PROVIDERS`]: the `tlc hook <name>` argument and its
//! fast path, `tlc install`'s `--<name>` flags and the files install and uninstall edit, `tlc
//! doctor`'s wiring checks, `tlc obs import`'s attribution of a payload, the "inside an agent
//! session" test, what the floor and the rails decide on (which events act, on what, and which
//! can ask). Adding a provider is writing its module (a type implementing [`Provider`], its
//! payload as a serde type, as `claude.rs` does) and listing it in that table.
//!
//! Every method that reads a payload takes it as parsed (`&Value`, parsed once per hook) and
//! reads it through the provider's own payload type, a borrowed serde view (`claude::Payload`):
//! a pass over the payload's top-level keys that copies nothing. The payload itself is what the
//! record keeps, so a field or an event the type does not know reaches the audit plane as it came.

use super::mapped::Mapped;
use crate::decision::Decision;
use crate::gate::stop::StopFacts;
use crate::obs::redact::PayloadRedaction;
use crate::policy::floor::Act;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// One provider. The methods with a default are the ones a provider may have nothing to say on.
/// A provider holds no state (`RefUnwindSafe`: the hook answers neutrally after a panic).
pub(crate) trait Provider: Sync + std::panic::RefUnwindSafe {
    /// The name on the command line (`tlc hook <name>`, `tlc install --<name>`) and in every
    /// event recorded from it.
    fn name(&self) -> &'static str;
    /// The product, as messages name it.
    fn product(&self) -> &'static str;
    /// The variable that names the provider's configuration folder, when set and not empty.
    fn config_dir_var(&self) -> &'static str;
    /// The configuration folder under `HOME` otherwise.
    fn config_dir_default(&self) -> &'static str;
    /// The file in that folder where its hooks are configured.
    fn settings_file(&self) -> &'static str;
    /// The settings files the provider reads inside a project (relative to its root): hooks or
    /// sandbox settings an agent could rewrite there are in the protected set (issue 51).
    fn project_settings_files(&self) -> &'static [&'static str] {
        &[]
    }
    /// The events tlc is wired to.
    fn events(&self) -> &'static [&'static str];
    /// How the settings file lists them.
    fn layout(&self) -> Layout;
    /// Seconds the provider is told to give tlc's hook on `event` before it gives up on it,
    /// written into each wired entry; `None` leaves the provider's own default.
    fn timeout(&self, _event: &str) -> Option<u64> {
        None
    }
    /// The environment variable in which the provider names the project folder of every hook
    /// call (see [`crate::paths::Paths::for_hook`]); `None`: the hook's working directory.
    fn project_dir_var(&self) -> Option<&'static str> {
        None
    }
    /// What the provider's settings file takes so that its agent's commands run in the client's
    /// own kernel sandbox with `protected` (absolute paths of the protected set) not writable,
    /// and its file tools refused there (issue 51); `None` when the client has no such sandbox,
    /// and the boundary there is recognition only.
    fn sandbox_wants(&self, _protected: &[crate::policy::boundary::Protected]) -> Option<Vec<super::additions::Want>> {
        None
    }
    /// How the client's sandbox stands in its settings `value`, as `tlc status` says it: `None`
    /// when the client has no sandbox tlc wires.
    fn sandbox_state(&self, _value: &Value) -> Option<SandboxState> {
        None
    }
    /// Whether its settings file holds a status line command (`tlc install --statusline`).
    fn has_statusline(&self) -> bool {
        false
    }
    /// Whether a payload found in another tool's log (`tlc obs import`) was sent by this provider.
    fn sent(&self, _payload: &Value) -> bool {
        false
    }

    /// A payload to its neutral event (without the turn's facts: [`super::turn::map`] adds them).
    fn map(&self, v: &Value, now: chrono::DateTime<chrono::Utc>) -> Mapped;
    /// The acts an acting event is about to perform (a command, a file read, write, edit or
    /// delete, an MCP call), read from the payload as it arrived: the floor decides on them
    /// before any config is read. Empty for every other event.
    fn acts<'v>(&self, _v: &'v Value) -> Vec<Act<'v>> {
        Vec::new()
    }
    /// A file the provider reports its agent has edited (an after-edit event): claimed for edit
    /// collision, never asked about.
    fn edited_file<'v>(&self, _v: &'v Value) -> Option<&'v str> {
        None
    }
    /// The folder the payload's command or tool runs in, against which its relative paths
    /// resolve (used only when absolute).
    fn work_dir<'v>(&self, _v: &'v Value) -> Option<&'v str> {
        None
    }
    /// Whether the provider can put a question to the operator on this payload's event; an ask
    /// on any other is rendered as a deny that says so.
    fn can_ask(&self, _v: &Value) -> bool {
        false
    }
    /// Whether the payload says that nobody answers prompts (a permission mode that approves or
    /// refuses by itself): an ask is then a deny that says so.
    fn unattended(&self, _v: &Value) -> bool {
        false
    }
    /// A decision to the response the provider expects for one of its events (`hook_event`, as
    /// the payload named it): the reason for the model, and the decision's `user_note` where the
    /// person watching sees it.
    fn render(&self, hook_event: &str, decision: &Decision) -> String;
    /// The response that says nothing: the provider's neutral answer.
    fn neutral(&self) -> &'static str;
    /// What the model is given when a tool's output held a secret: from the payload as redacted
    /// and what the redaction changed, a replacement output, a notice, or nothing (see `mask`).
    fn plan_mask(&self, _redacted: &Value, _redaction: &PayloadRedaction) -> Option<ModelMask> {
        None
    }
    /// Adds that mask to a rendered response's JSON object; false leaves the response as it was.
    fn apply_mask(&self, _hook_event: &str, _out: &mut Map<String, Value>, _mask: ModelMask) -> bool {
        false
    }
    /// The text of the response a stop event says its transcript should hold, read from the
    /// payload as received (before redaction); `None` for every other event.
    fn awaited_response(&self, _v: &Value) -> Option<String> {
        None
    }
    /// What the provider says at a turn's stop, for the stop checks: whether this is the turn's
    /// first stop, whether the agent completed, its last response (see `turn`).
    fn stop(&self, v: &Value) -> StopFacts;
    /// The assistant's text when an agent-response event carries it whole, where a ship claim
    /// is read from; `None` where the claim is read at the stop instead.
    fn response_text(&self, _v: &Value) -> Option<String> {
        None
    }
    /// The file an after-edit event (`Kind::FileEdit`) reports written, once it is on disk: the
    /// comment policy's early HEADS UP reads it.
    fn written_file<'v>(&self, _v: &'v Value) -> Option<&'v str> {
        None
    }
    /// The tools whose results the provider declares untrusted (its web tools), beside every
    /// MCP tool: `untrustedContent` frames them.
    fn untrusted_tools(&self) -> &'static [&'static str] {
        &[]
    }
    /// What an after-tool event says a tool returned (`None` for every other event).
    fn tool_result<'v>(&self, _v: &'v Value) -> Option<ToolResult<'v>> {
        None
    }
    /// Whether the response to `hook_event` (an after-tool event) can carry context to the model
    /// (Claude Code's `additionalContext`, Cursor's `additional_context`); the framing abstains
    /// elsewhere.
    fn carries_context(&self, _hook_event: &str) -> bool {
        false
    }

    /// The provider's configuration folder: `$<config_dir_var>`, else `$HOME/<config_dir_default>`.
    /// The one place it is worked out (install, uninstall and doctor all ask here).
    fn config_dir(&self) -> Result<PathBuf, NoConfigDir> {
        let set = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        if let Some(d) = set(self.config_dir_var()) {
            return Ok(PathBuf::from(d));
        }
        set("HOME")
            .map(|h| PathBuf::from(h).join(self.config_dir_default()))
            .ok_or(NoConfigDir {
                var: self.config_dir_var(),
                product: self.product(),
                file: self.settings_file(),
            })
    }
}

impl std::fmt::Debug for dyn Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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

/// How a client's own sandbox stands in its settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct SandboxState {
    /// The agent's commands run in the sandbox.
    pub enabled: bool,
    /// No command may ask to run outside it.
    pub no_escape: bool,
    /// The client refuses to start without it.
    pub required: bool,
    /// The paths its commands may not write.
    pub deny_write: Vec<String>,
    /// What the settings open that lets a command reach outside the sandbox (commands excluded
    /// from it that run a shell or tlc, unix sockets allowed).
    pub openings: Vec<String>,
}

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

/// Neither the provider's own variable nor `HOME` names a folder: its settings cannot be found.
/// An empty variable counts as unset (a relative `./.claude` is never meant).
#[derive(Debug, Clone, thiserror::Error)]
#[error("neither {var} nor HOME is set: cannot find {product}'s {file}")]
pub(crate) struct NoConfigDir {
    pub var: &'static str,
    pub product: &'static str,
    pub file: &'static str,
}

/// The provider named `name` on the command line.
pub(crate) fn by_name(name: &str) -> Option<&'static dyn Provider> {
    super::PROVIDERS.iter().copied().find(|p| p.name() == name)
}

/// The provider that sent `payload`, a hook payload found in another tool's log.
pub(crate) fn sender(payload: &Value) -> Option<&'static str> {
    super::PROVIDERS.iter().find(|p| p.sent(payload)).map(|p| p.name())
}
