//! Where the boundary's protected set is for one project (`policy::boundary`), with the clients'
//! settings files each provider names, and the jail tlc's children run in.

use crate::confine::Jail;
use crate::paths::Paths;
use crate::policy::boundary::{self, store::BoundaryStore, Member, Places, Protected};
use std::path::PathBuf;

/// Every provider's own settings file (`~/.claude/settings.json`, `~/.cursor/hooks.json`).
fn user_client_files() -> Vec<PathBuf> {
    super::PROVIDERS
        .iter()
        .filter_map(|p| p.config_dir().ok().map(|d| d.join(p.settings_file())))
        .collect()
}

/// The places of `paths`' protected set: the runtime home, the operator's home, the project, and
/// every provider's settings files (its own, and those it reads inside the project).
pub(crate) fn places(paths: &Paths) -> Places {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let mut client_files = user_client_files();
    for p in super::PROVIDERS {
        client_files.extend(p.project_settings_files().iter().map(|f| paths.root.join(f)));
    }
    Places {
        tlc_home: paths.home.clone(),
        home,
        project: Some(paths.root.clone()),
        client_files,
    }
}

/// The `PATH` an operator command recorded (`tlc install`), read from the home database without
/// creating it; `None` when there is none.
pub(crate) fn operator_path(paths: &Paths) -> Option<String> {
    let store = crate::store::open_read(crate::store::DbKind::Home, &paths.home_db())
        .ok()
        .flatten()?;
    BoundaryStore::new(store.conn()).fact(boundary::store::OPERATOR_PATH).ok().flatten()
}

/// The jail of `paths`' project: its protected set read-only, the operator's recorded `PATH`.
pub(crate) fn jail(paths: &Paths) -> Jail {
    boundary::jail(&places(paths), operator_path(paths).as_deref())
}

/// The protected set a client's sandbox is given at `tlc install`: the runtime home, every
/// client's settings file, the operator's start-up files, and the repository the command runs
/// in when tlc has adopted it (every other repository is added by its first session's hook:
/// [`wire_project`]). A repository's git hooks and config are left to the client, which keeps
/// its working folder's own.
pub(crate) fn install_set(paths: &Paths) -> Vec<Protected> {
    let mut set = boundary::protected_set(&Places {
        tlc_home: paths.home.clone(),
        home: std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from),
        project: None,
        client_files: user_client_files(),
    });
    if let Some(state) = project_state(paths) {
        set.push(state);
    }
    set
}

/// The repository's `.tlc/` as a sandbox names it (its real path), when tlc has adopted it.
fn project_state(paths: &Paths) -> Option<Protected> {
    let dir = paths.root.join(".tlc");
    let real = std::fs::canonicalize(&dir).ok().filter(|d| d.is_dir())?;
    Some(Protected {
        path: real,
        member: Member::ProjectState,
    })
}

/// Why a client's sandbox cannot run on this machine (Claude Code's needs bubblewrap and socat
/// on Linux), or `None` when it can.
pub(crate) fn sandbox_missing() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let missing: Vec<&str> = ["bwrap", "socat"]
        .into_iter()
        .filter(|p| !std::env::split_paths(&path).any(|d| d.is_absolute() && d.join(p).is_file()))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "{} not found on PATH (Debian: apt-get install bubblewrap socat)",
            missing.join(" and ")
        )
    })
}

/// How long a client may take to read its settings again after tlc changed them (Claude Code
/// watches its settings files: it takes a change once the file has been stable for a second,
/// polling every half second).
pub(crate) const SETTLE: std::time::Duration = std::time::Duration::from_millis(2500);

/// Adds the repository's `.tlc/` to the client's sandbox when tlc's sandbox wiring is in the
/// client's settings (`tlc install` put the runtime home in its `denyWrite`) and the repository
/// is not there yet: the first session in a newly adopted repository wires it. Returns whether it
/// wrote. The operator's own choices are left alone: a sandbox that is off, or settings tlc did
/// not wire, get nothing.
pub(crate) fn wire_project(provider: &dyn super::Provider, paths: &Paths) -> anyhow::Result<bool> {
    let Some(state) = project_state(paths) else { return Ok(false) };
    let Ok(dir) = provider.config_dir() else { return Ok(false) };
    let file = dir.join(provider.settings_file());
    let needs = |value: &serde_json::Value| {
        provider.sandbox_state(value).is_some_and(|st| {
            st.enabled
                && st.deny_write.iter().any(|d| std::path::Path::new(d) == paths.home)
                && !st.deny_write.iter().any(|d| std::path::Path::new(d) == state.path)
        })
    };
    if !needs(&super::settings_file::Settings::read(&dir, &file)?.value) {
        return Ok(false);
    }
    // The repository's `.tlc/`, and every client's settings read inside the repository (the
    // client keeps its own; another client's, `.cursor/hooks.json`, is tlc's to name).
    let root = state.path.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
    let mut members = vec![state.clone()];
    for p in super::PROVIDERS {
        members.extend(p.project_settings_files().iter().map(|f| Protected {
            path: root.join(f),
            member: Member::ClientSettings,
        }));
    }
    let Some(wants) = provider.sandbox_wants(&members) else {
        return Ok(false);
    };
    let settings = super::settings_file::Settings::read_locked(&dir, &file)?;
    if !needs(&settings.value) {
        return Ok(false);
    }
    let mut value = settings.value.clone();
    let added = super::additions::apply(&mut value, &wants).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    if added.is_empty() {
        return Ok(false);
    }
    let text = settings.text_for(&value)?;
    let mut home = crate::store::open_write(crate::store::DbKind::Home, &paths.home_db())?;
    let tx = home.conn_mut().transaction()?;
    let store = BoundaryStore::new(&tx);
    for a in &added {
        store.record_added(provider.name(), &file.display().to_string(), a)?;
    }
    settings.write(&text)?;
    tx.commit()?;
    Ok(true)
}

/// Waits, on an acting event, until the client has had [`SETTLE`] to read its settings again
/// since tlc last changed them ([`wire_project`] at a session's start): a command is not let run
/// before the sandbox that keeps the repository's state from it is in force. One `stat` when
/// nothing changed lately.
pub(crate) fn settle(provider: &dyn super::Provider) {
    if provider.sandbox_state(&serde_json::Value::Null).is_none() {
        return;
    }
    let Ok(dir) = provider.config_dir() else { return };
    let Ok(modified) = std::fs::metadata(dir.join(provider.settings_file())).and_then(|m| m.modified()) else {
        return;
    };
    if let Ok(age) = std::time::SystemTime::now().duration_since(modified) {
        if age < SETTLE {
            std::thread::sleep(SETTLE - age);
        }
    }
}

/// What holds the boundary for one provider, as `tlc status` and `tlc doctor` say it.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct ProviderBoundary {
    pub provider: &'static str,
    pub product: &'static str,
    /// tlc's hooks are in the provider's settings.
    pub wired: bool,
    /// `kernel` when the agent's commands run in the client's sandbox with the protected set out
    /// of their reach, else `recognition` (tlc refuses what it recognises: the floor, the operator
    /// check, policy integrity).
    pub agent_commands: &'static str,
    /// What enforces it (`Claude Code's sandbox (bubblewrap)`), or why the kernel does not.
    pub by: String,
    /// Where only recognition stands: the routes that stay open.
    pub open_routes: Vec<String>,
}

/// The boundary of `paths`' project: per provider, and for tlc's own children.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct BoundaryReport {
    pub providers: Vec<ProviderBoundary>,
    /// `bubblewrap` when gate commands and tlc's git run in the jail, else `none`.
    pub gates: &'static str,
    /// What the jail keeps read-only, or why there is none.
    pub gates_detail: String,
}

/// Routes that stay open where only recognition stands (docs/policy.md, *The boundary*).
const RECOGNITION_ROUTES: &[&str] = &[
    "a process the agent detaches (a double fork with setsid, tmux, screen, at) and gives a terminal (script) is not recognised as the agent's: it passes the operator check",
    "a write to tlc's state or config through a path only known at run time (compiled code, an interpreter assembling the path): the floor sees only what a command line names; policy integrity notices a changed config or state at the next acting call, and the stop runs on the session's baseline",
    "code planted where the operator runs it later (shell start-up files, git hooks, git's config) through a path the floor cannot read",
    "a `tlc hook` payload forged by the agent's own command",
];

/// Reads what holds the boundary, writing nothing.
pub(crate) fn report(paths: &Paths) -> BoundaryReport {
    let providers = super::PROVIDERS.iter().map(|p| provider_boundary(*p, paths)).collect();
    let jail = jail(paths);
    let (gates, gates_detail) = match jail.bwrap() {
        Some(b) => (
            "bubblewrap",
            format!(
                "gate commands and tlc's git run under {} with {} paths of the protected set read-only and the {} PATH",
                b.display(),
                jail.read_only().len(),
                if operator_path(paths).is_some() {
                    "operator's recorded"
                } else {
                    "hook's own (no `tlc install` recorded one)"
                }
            ),
        ),
        None => (
            "none",
            "bubblewrap not found on the operator's PATH (Debian: apt-get install bubblewrap): gate commands run unconfined and can write tlc's state".to_string(),
        ),
    };
    BoundaryReport {
        providers,
        gates,
        gates_detail,
    }
}

fn provider_boundary(p: &'static dyn super::Provider, paths: &Paths) -> ProviderBoundary {
    let mut out = ProviderBoundary {
        provider: p.name(),
        product: p.product(),
        wired: false,
        agent_commands: "recognition",
        by: String::new(),
        open_routes: RECOGNITION_ROUTES.iter().map(|r| r.to_string()).collect(),
    };
    let value = p
        .config_dir()
        .ok()
        .and_then(|dir| super::settings_file::Settings::read(&dir, &dir.join(p.settings_file())).ok())
        .filter(|s| s.existed)
        .map(|s| s.value);
    out.wired = value.as_ref().is_some_and(|v| {
        super::wiring::wired_commands(v)
            .iter()
            .any(|(_, c)| super::wiring::is_tlc_command(c, p.name()))
    });
    let Some(state) = p.sandbox_state(value.as_ref().unwrap_or(&serde_json::Value::Null)) else {
        out.by = format!("{} has no kernel sandbox tlc can configure", p.product());
        return out;
    };
    let mut missing = Vec::new();
    if !state.enabled {
        missing.push("its sandbox is off (sandbox.enabled)".to_string());
    }
    if !state.no_escape {
        missing.push("commands may ask to run outside it (sandbox.allowUnsandboxedCommands is not false)".to_string());
    }
    let listed = |p: &std::path::Path| state.deny_write.iter().any(|d| std::path::Path::new(d) == p);
    if !listed(&paths.home) {
        missing.push(format!("{} is not in sandbox.filesystem.denyWrite", paths.home.display()));
    }
    if let Some(project) = project_state(paths) {
        if !listed(&project.path) {
            missing.push(format!(
                "{} is not in sandbox.filesystem.denyWrite (the repository's next session adds it)",
                project.path.display()
            ));
        }
    }
    if let Some(why) = sandbox_missing() {
        missing.push(why);
    }
    missing.extend(state.openings.iter().cloned());
    if missing.is_empty() {
        out.agent_commands = "kernel";
        out.by = format!(
            "{}'s sandbox (bubblewrap and seccomp): the protected set is read-only to the agent's commands{}",
            p.product(),
            if state.required {
                ""
            } else {
                " (sandbox.failIfUnavailable is not set: it runs unsandboxed, with a warning, where the sandbox cannot start)"
            }
        );
        out.open_routes = Vec::new();
    } else {
        out.by = format!("not {}'s sandbox: {}", p.product(), missing.join("; "));
    }
    out
}

/// The key a project's anchors are kept under in the home database: its state folder.
pub(crate) fn project_key(project: &crate::project::Project) -> String {
    project.state_dir.display().to_string()
}

/// A session's baselines as anchored in the home database; none when it has no home database.
pub(crate) fn anchored_baselines(
    project: &crate::project::Project,
    provider: &str,
    session: &str,
) -> anyhow::Result<Vec<crate::policy::integrity::Source>> {
    let Some(home) = crate::store::open_read(crate::store::DbKind::Home, &project.paths.home_db())? else {
        return Ok(Vec::new());
    };
    Ok(crate::policy::integrity::anchored(
        home.conn(),
        &project_key(project),
        provider,
        session,
    )?)
}

/// Anchors the baselines `written` (as the project database `conn` holds them) in the home
/// database, which it creates when missing.
pub(crate) fn mirror_baselines(
    project: &crate::project::Project,
    conn: &rusqlite::Connection,
    written: &[crate::policy::integrity::Touched],
) -> anyhow::Result<()> {
    let home = crate::store::open_write(crate::store::DbKind::Home, &project.paths.home_db())?;
    crate::policy::integrity::mirror(conn, home.conn(), &project_key(project), written)?;
    Ok(())
}

/// The attestation chain's head as anchored in the home database: (seq, hash); none when there is
/// no home database or no anchor.
pub(crate) fn attest_anchor(project: &crate::project::Project) -> anyhow::Result<Option<(i64, String)>> {
    use crate::policy::boundary::store::ATTEST_HEAD;
    let Some(home) = crate::store::open_read(crate::store::DbKind::Home, &project.paths.home_db())? else {
        return Ok(None);
    };
    Ok(BoundaryStore::new(home.conn())
        .anchor(&project_key(project), ATTEST_HEAD, "")?
        .and_then(|a| a.seq.map(|seq| (seq, a.hash))))
}

/// Anchors the attestation chain's head (as the project database `conn` holds it) in the home
/// database — only when the chain still holds the record its anchor names, with the anchored hash:
/// a chain truncated or rewritten before this append keeps its old anchor, so `tlc attest
/// --verify` still names the difference instead of the append laundering it.
pub(crate) fn mirror_attest_head(project: &crate::project::Project, conn: &rusqlite::Connection) -> anyhow::Result<()> {
    use crate::policy::boundary::store::{Anchor, ATTEST_HEAD};
    let store = crate::policy::attest::AttestStore::new(conn);
    let Some((seq, hash)) = store.head()? else {
        return Ok(());
    };
    let home = crate::store::open_write(crate::store::DbKind::Home, &project.paths.home_db())?;
    let anchors = BoundaryStore::new(home.conn());
    if let Some(old) = anchors.anchor(&project_key(project), ATTEST_HEAD, "")? {
        let kept = match old.seq {
            Some(old_seq) => store.hash_of(old_seq)? == Some(old.hash.clone()),
            None => false,
        };
        if !kept {
            anyhow::bail!(
                "the attestation chain no longer holds its anchored head (record {}): the anchor was left as it was",
                old.seq.unwrap_or_default()
            );
        }
    }
    anchors.put_anchor(
        &project_key(project),
        ATTEST_HEAD,
        "",
        &Anchor {
            hash,
            content: None,
            seq: Some(seq),
        },
    )?;
    Ok(())
}
