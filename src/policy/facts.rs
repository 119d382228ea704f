//! What the per-event rails decide on: the event as facts ([`ActFacts`]), what was decided before
//! the hook's transaction ([`Prior`]), and the [`Context`] each rail reads. The order the rails run
//! in is `decide::ORDER`; the rails use these types and nothing of the table that lists them.

use super::shell::parse::Script;
use super::Posture;
use crate::config::Settings;
use crate::decision::Decision;
use rusqlite::Connection;
use std::path::Path;

/// What an acting event asks permission for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subject {
    Shell,
    Mcp,
    Tool,
    FileRead,
    /// A subagent spawn.
    Subagent,
}

impl Subject {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Subject::Shell => "shell",
            Subject::Mcp => "mcp",
            Subject::Tool => "tool",
            Subject::FileRead => "file",
            Subject::Subagent => "subagent",
        }
    }
}

/// The act an event is about to perform.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Acting<'a> {
    pub subject: Subject,
    /// The command, tool or path (redacted).
    pub detail: &'a str,
    /// The act only reads: a policy divergence never blocks it.
    pub reads_only: bool,
}

/// A subagent spawn, as the payload asks for it (every field the agent's own words).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Spawn<'a> {
    /// The model it names (`None`: it runs on its parent's).
    pub model: Option<&'a str>,
    /// The reasoning effort it states.
    pub effort: Option<&'a str>,
}

/// One event as the per-event rails see it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ActFacts<'a> {
    pub provider: &'a str,
    pub session: Option<&'a str>,
    /// When the event happened.
    pub at: chrono::DateTime<chrono::Utc>,
    /// What it is about to do; `None` for an event that acts on nothing.
    pub acting: Option<Acting<'a>>,
    /// The file it is about to write (absolute), for edit collision.
    pub edit_target: Option<&'a str>,
    /// The folder its command runs in.
    pub cwd: &'a Path,
    /// The project's root, and whether it is a git checkout.
    pub root: &'a Path,
    pub in_git: bool,
    /// The running posture.
    pub posture: Posture,
    /// Every command a shell line that may lose work runs, as the floor's walk saw them (empty
    /// for a line that names no git and no remover: see `hook::guard::floor`).
    pub ran: &'a [super::floor::Ran],
    /// The subagent spawn this event asks for, if it is one.
    pub spawn: Option<Spawn<'a>>,
    /// The type of the subagent that makes this call, as the provider states it (`None`: the
    /// main agent, or a provider that does not say).
    pub agent_type: Option<&'a str>,
    /// The session's model as recorded (a spawn's parent), read only for a spawn.
    pub parent_model: Option<&'a str>,
    /// The tool the event calls, as the provider names it (`Bash`, `Write`, an MCP tool; Cursor's
    /// shell events: `shell`), for operator rules' `tool(<name>)`.
    pub tool: Option<&'a str>,
}

/// What was decided before the hook's transaction, each taking its place in [`ORDER`]: the
/// floor's verdict (from the payload as it arrived, before any config was read), policy
/// integrity's (which also keeps the session's baselines, inside the transaction), and the stop
/// checks' (run before the transaction, so that no lock is held while a gate command runs).
#[derive(Debug, Clone, Default)]
pub(crate) struct Prior {
    pub floor: Option<Decision>,
    pub integrity: Option<Decision>,
    pub stop: Option<Decision>,
    /// The framing of untrusted content this event read (`policy::untrusted::on_hook`, inside
    /// the transaction, where the turn's framing marker is kept).
    pub untrusted: Option<Decision>,
    /// The operator's rule files, HEAD and the tool's input, on an acting event with
    /// `rules.enabled` (`rails::operator_rule`); `None` otherwise.
    pub rules: Option<super::rules::Input>,
}

/// What each check may read: the facts, the settings, the hook's transaction, what was decided
/// before, and the command's parsed form (parsed once, here).
pub(crate) struct Context<'a> {
    pub conn: &'a Connection,
    pub facts: ActFacts<'a>,
    pub settings: &'a Settings,
    pub prior: &'a Prior,
    /// A shell act's command line as the shell parser splits it; `None` for any other act, or a
    /// line the parser refuses (the floor has denied that one already).
    pub command: Option<std::borrow::Cow<'a, Script>>,
}

impl<'a> Context<'a> {
    /// `parsed`: a command line already parsed (by the floor) and its text; used when it is this
    /// shell act's, so a hook parses the line once.
    pub(crate) fn new(
        conn: &'a Connection,
        facts: ActFacts<'a>,
        settings: &'a Settings,
        prior: &'a Prior,
        parsed: Option<(&str, &'a Script)>,
    ) -> Context<'a> {
        let command = facts.acting.filter(|a| a.subject == Subject::Shell).and_then(|a| match parsed {
            Some((text, script)) if text == a.detail => Some(std::borrow::Cow::Borrowed(script)),
            _ => super::shell::parse(a.detail).ok().map(std::borrow::Cow::Owned),
        });
        Context {
            conn,
            facts,
            settings,
            prior,
            command,
        }
    }

    /// The shell act's command text, when the event is one.
    pub(crate) fn shell_command(&self) -> Option<&'a str> {
        self.facts.acting.filter(|a| a.subject == Subject::Shell).map(|a| a.detail)
    }
}
