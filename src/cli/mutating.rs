//! What every mutating command does around its change: adopt the repository first (unless it is
//! a guest), open the project database, and afterwards re-record the policy baselines of live
//! sessions, since a tlc command is behind whatever policy changed.
//!
//! The commands of docs/init.md's `init` … `lessons add` list use [`Mutation::begin`] and
//! [`Mutation::finish`]. The agent commands that write the project tier adopt through
//! `agent::target::open_editor` instead, without recording `config.scaffolded` (as docs/init.md
//! says), and like `stable add|remove` call [`rerecord_if_recorded`] once they changed policy.

use super::Ctx;
use crate::config::scaffold::ScaffoldOutcome;
use crate::obs::EventStore;
use crate::policy::integrity::{self, IntegrityStore};
use crate::project::Project;
use crate::store::{self, DbKind, Store};

/// A mutating command in progress.
pub(crate) struct Mutation {
    pub project: Project,
    /// What adoption did (`None` for a guest, or outside a git repository).
    pub adoption: Option<ScaffoldOutcome>,
    pub store: Store,
    /// The policy sources as they were before the command changed anything.
    before: Vec<integrity::Source>,
}

impl Mutation {
    /// Adopts the repository (printing a warning when the scaffold could not write) and opens the
    /// project database (under the home for a guest). `command` names the command in the
    /// `config.scaffolded` event.
    pub(crate) fn begin(ctx: &Ctx, command: &str) -> anyhow::Result<Mutation> {
        let project = ctx.project()?;
        // Taken before adoption: a config the adoption writes is this command's change.
        let before = snapshot_of(&project)?;
        let adoption = project.adopt();
        if let Some(ScaffoldOutcome::NotWritten(w)) = &adoption {
            eprintln!("tlc: warning: not adopted: {w}");
        }
        if let Some(ScaffoldOutcome::Present(config)) = &adoption {
            // What an adoption killed between its link and its unlink left beside the config.
            crate::config::edit::remove_stale_temps(config);
        }
        let store = store::open_write(DbKind::Project, &project.db_path())?;
        if let Some(ScaffoldOutcome::Written(path)) = &adoption {
            EventStore::new(store.conn()).record_scaffolded("tlc", None, path, command)?;
        }
        Ok(Mutation {
            project,
            adoption,
            store,
            before,
        })
    }

    /// Re-records, for live sessions, the policy sources this command changed: what it changed
    /// is the operator's. Nothing else is re-recorded (see `IntegrityStore::rerecord_changed`).
    pub(crate) fn finish(&self) -> anyhow::Result<()> {
        let conn = self.store.conn();
        let now = integrity::current_sources(conn, &self.project.paths)?;
        let store = IntegrityStore::new(conn);
        store.rerecord_changed(&self.before, &now, "tlc-command")?;
        anchor(&self.project, conn, &store.touched())
    }
}

/// The policy sources of `project` as they are now (the operator state from its database when
/// it has one).
fn snapshot_of(project: &Project) -> anyhow::Result<Vec<integrity::Source>> {
    Ok(match store::open_read(DbKind::Project, &project.db_path())? {
        Some(store) => integrity::current_sources(store.conn(), &project.paths)?,
        None => integrity::sources(&project.paths, integrity::States::default()),
    })
}

/// The policy sources before a command that changes one without a [`Mutation`] (the machine
/// tier, or a project config through the agent commands); hand it to [`rerecord_if_recorded`].
pub(crate) fn snapshot(ctx: &Ctx) -> anyhow::Result<Vec<integrity::Source>> {
    snapshot_of(&Project::locate(ctx.paths()?, &ctx.raw_config()?))
}

/// After such a command: re-records, for this repository's live sessions, the sources it changed
/// since `before`, when the repository has a database. Sessions in other repositories are not
/// reached.
pub(crate) fn rerecord_if_recorded(ctx: &Ctx, before: &[integrity::Source]) -> anyhow::Result<()> {
    // The raw config: a harness table the command just broke must not hide the re-recording.
    let project = Project::locate(ctx.paths()?, &ctx.raw_config()?);
    if !project.db_path().is_file() {
        return Ok(());
    }
    let store = store::open_write(DbKind::Project, &project.db_path())?;
    let conn = store.conn();
    let now = integrity::current_sources(conn, &project.paths)?;
    let store = IntegrityStore::new(conn);
    store.rerecord_changed(before, &now, "tlc-command")?;
    anchor(&project, conn, &store.touched())
}

/// Anchors the baselines a command re-recorded in the home database (issue 51).
pub(crate) fn anchor(project: &Project, conn: &rusqlite::Connection, written: &[integrity::Touched]) -> anyhow::Result<()> {
    if written.is_empty() {
        return Ok(());
    }
    crate::hook::boundary::mirror_baselines(project, conn, written)
}

/// What an operator-only command needs besides not running inside an agent session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Needs {
    /// An interactive terminal on stdin as well: a script cannot stand in for the operator.
    Terminal,
    /// Only that no agent session's marker is present.
    NoAgent,
}

/// The one operator-only check: every command that changes policy, hook wiring or the record
/// runs it before changing anything (see docs/policy.md for which needs what).
pub(crate) fn operator_only(what: &str, needs: Needs) -> anyhow::Result<()> {
    use crate::policy::operator;
    use std::io::IsTerminal;
    let terminal = needs == Needs::NoAgent || std::io::stdin().is_terminal();
    let parent = std::os::unix::process::parent_id();
    if let Some(why) = operator::refusal_with_ancestry(what, |k| std::env::var(k).ok(), terminal, &operator::ProcFs, parent) {
        return Err(crate::error::refused(why));
    }
    // A terminal on stdin that is not this process's controlling terminal: a descriptor handed
    // over by something that is not an operator's session.
    if needs == Needs::Terminal && operator::has_controlling_terminal() == Some(false) {
        return Err(crate::error::refused(format!(
            "{what} changes policy and needs an interactive terminal, and this process has no controlling terminal; run it from your own terminal"
        )));
    }
    Ok(())
}

/// Whether an agent session started this process, as the operator check decides it (its own
/// environment or an ancestor's carries an agent's marker, or an ancestor is an agent's program),
/// without asking for a terminal: `Some(why)` names what gave it away. Commands an agent may run
/// but whose result must say who wrote it (`lessons add`) ask this, not the environment alone,
/// which `env -u CLAUDECODE` clears.
pub(crate) fn started_by_agent(what: &str) -> Option<String> {
    use crate::policy::operator;
    let parent = std::os::unix::process::parent_id();
    operator::refusal_with_ancestry(what, |k| std::env::var(k).ok(), true, &operator::ProcFs, parent)
}

/// Records an operator-only command that succeeded in the project's record, when the project
/// already has a database (a command never creates one for this): what ran, the terminal on its
/// stdin, and what the operator check established. Best effort: the command already did its work,
/// and a record that cannot be written must not turn that into a failure.
pub(crate) fn record_operator_command(ctx: &Ctx, what: &str, needs: Needs) {
    let Ok(project) = ctx.project() else { return };
    let db = project.db_path();
    if !db.is_file() {
        return;
    }
    let tty = std::fs::read_link("/proc/self/fd/0")
        .ok()
        .map(|p| p.display().to_string())
        .filter(|p| p.starts_with("/dev/pts/") || p.starts_with("/dev/tty"));
    let checked = match needs {
        Needs::Terminal => "an interactive controlling terminal, and no agent session in its environment or ancestry",
        Needs::NoAgent => "no agent session in its environment or ancestry",
    };
    if let Ok(store) = store::open_write(DbKind::Project, &db) {
        if let Err(e) = EventStore::new(store.conn()).record_operator_command(what, tty.as_deref(), checked) {
            eprintln!("tlc: {what} ran, but was not recorded in {}: {e}", db.display());
        }
    }
}
