//! Stables: the trust ledger. `[stable.<name>]` lives in the machine tier only (written through
//! the one format-preserving editor); its clone lives under `$TLC_HOME/agents/stables/<name>/`;
//! its fetch state (last fetch, head) lives in the home database.

use super::git;
use super::pins;
use super::records::{AgentStore, StableState};
use super::{io_error, refused, unusable, AgentError};
use crate::config::edit::ConfigEdit;
use crate::config::{Config, Tier};
use crate::paths::Paths;
use crate::store::{self, DbKind};
use std::path::PathBuf;

/// A stable as the machine tier declares it.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Declared {
    pub name: String,
    pub remote: String,
    pub public: bool,
}

/// Every `[stable.*]` of the machine tier.
pub(crate) fn declared(cfg: &Config) -> Vec<Declared> {
    cfg.named("stable")
        .filter(|t| t.tier == Tier::Machine)
        .map(|t| Declared {
            name: t.name.clone(),
            remote: t.get("remote").and_then(|v| v.as_str()).unwrap_or_default().to_string(),
            // Unset is treated as public, as the ADR says.
            public: t.get("public").and_then(|v| v.as_bool()).unwrap_or(true),
        })
        .collect()
}

pub(crate) fn find(cfg: &Config, name: &str) -> Option<Declared> {
    declared(cfg).into_iter().find(|d| d.name == name)
}

pub(crate) fn clone_dir(paths: &Paths, name: &str) -> PathBuf {
    pins::stables_root(paths).join(name)
}

/// `tlc stable add`: clones first (so a bad remote writes nothing), then writes the table.
pub(crate) fn add(paths: &Paths, cfg: &Config, name: &str, remote: &str, public: bool) -> Result<StableState, AgentError> {
    if !super::valid_stable_name(name) {
        return Err(unusable(format!("stable name {name:?} must match ^[a-z0-9][a-z0-9_-]*$")));
    }
    git::check_remote(remote).map_err(|why| unusable(format!("stable {name}: {why}; nothing was added")))?;
    if let Some(d) = find(cfg, name) {
        return Err(refused(format!(
            "stable {name} is already declared in {} (remote {}); `tlc stable update {name}` fetches it",
            paths.machine_config().display(),
            git::shown_remote(&d.remote)
        )));
    }
    let root = pins::stables_root(paths);
    crate::store::create_private_dir(&root).map_err(io_error(&root, "cannot create"))?;
    let dest = clone_dir(paths, name);
    let tmp = root.join(format!(".{name}.clone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    git::clone(remote, &tmp).map_err(|e| refused(format!("stable {name}: {e}; nothing was added")))?;
    if dest.exists() {
        // A clone left behind by an earlier `stable remove` or an interrupted add: it is ours.
        std::fs::remove_dir_all(&dest).map_err(io_error(&dest, "cannot replace"))?;
    }
    std::fs::rename(&tmp, &dest).map_err(io_error(&dest, "cannot move the clone into place"))?;
    let mut edit = ConfigEdit::open(&paths.machine_config())?;
    edit.set(&format!("stable.{name}.remote"), remote.into());
    edit.set(&format!("stable.{name}.public"), public.into());
    edit.save()?;
    let now = crate::clock::now_stamp();
    let state = StableState {
        name: name.into(),
        remote: remote.into(),
        added_at: now.clone(),
        last_fetch: Some(now),
        head: git::resolve_version(&dest, None).ok(),
        fetch_error: None,
    };
    let home = store::open_write(DbKind::Home, &paths.home_db())?;
    AgentStore::new(home.conn()).upsert_stable(&state)?;
    Ok(state)
}

/// The outcome of fetching one stable.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Updated {
    pub name: String,
    pub before: Option<String>,
    pub head: Option<String>,
    pub error: Option<String>,
}

/// `tlc stable update [name]`: the only command that fetches. `progress(done, total)` is told
/// after each stable.
pub(crate) fn update(
    paths: &Paths,
    cfg: &Config,
    only: Option<&str>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<Updated>, AgentError> {
    let all = declared(cfg);
    let targets: Vec<Declared> = match only {
        Some(n) => vec![all
            .into_iter()
            .find(|d| d.name == n)
            .ok_or_else(|| unusable(format!("stable {n} is not declared in {}", paths.machine_config().display())))?],
        None => all,
    };
    let home = store::open_write(DbKind::Home, &paths.home_db())?;
    let store = AgentStore::new(home.conn());
    let known = store.stables()?;
    let total = targets.len() as u64;
    progress(0, total);
    let mut out = Vec::new();
    for d in targets {
        let dir = clone_dir(paths, &d.name);
        let before = git::resolve_version(&dir, None).ok();
        let result = if dir.join(".git").exists() || dir.join("HEAD").exists() {
            git::fetch(&dir, &d.remote)
        } else {
            git::clone(&d.remote, &dir)
        };
        let head = git::resolve_version(&dir, None).ok();
        let added_at = known
            .iter()
            .find(|k| k.name == d.name)
            .map(|k| k.added_at.clone())
            .unwrap_or_else(crate::clock::now_stamp);
        let state = StableState {
            name: d.name.clone(),
            remote: d.remote.clone(),
            added_at,
            last_fetch: result
                .is_ok()
                .then(crate::clock::now_stamp)
                .or_else(|| known.iter().find(|k| k.name == d.name).and_then(|k| k.last_fetch.clone())),
            head: head.clone(),
            fetch_error: result.as_ref().err().map(ToString::to_string),
        };
        store.upsert_stable(&state)?;
        out.push(Updated {
            name: d.name,
            before,
            head,
            error: state.fetch_error,
        });
        progress(out.len() as u64, total);
    }
    Ok(out)
}

/// A row of `tlc stable list`.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Listed {
    pub name: String,
    pub remote: String,
    pub visibility: &'static str,
    pub last_fetch: Option<String>,
    pub head: Option<String>,
    pub fetch_error: Option<String>,
}

/// Reads without writing: the table from the machine tier, the fetch state from the home
/// database when it exists.
pub(crate) fn list(paths: &Paths, cfg: &Config) -> Result<Vec<Listed>, AgentError> {
    let state = match store::open_read(DbKind::Home, &paths.home_db())? {
        Some(home) => AgentStore::new(home.conn()).stables()?,
        None => Vec::new(),
    };
    Ok(declared(cfg)
        .into_iter()
        .map(|d| {
            let s = state.iter().find(|s| s.name == d.name);
            Listed {
                visibility: if d.public { "public" } else { "private" },
                last_fetch: s.and_then(|s| s.last_fetch.clone()),
                head: s.and_then(|s| s.head.clone()),
                fetch_error: s.and_then(|s| s.fetch_error.clone()),
                name: d.name,
                remote: git::shown_remote(&d.remote),
            }
        })
        .collect())
}

/// `tlc stable remove`: deletes the table and the clone; uninstalls nothing. Returns every
/// package still installed from the stable (tables naming it, and pins in the store).
pub(crate) fn remove(paths: &Paths, cfg: &Config, name: &str) -> Result<Vec<String>, AgentError> {
    if find(cfg, name).is_none() {
        return Err(unusable(format!(
            "stable {name} is not declared in {}",
            paths.machine_config().display()
        )));
    }
    let mut edit = ConfigEdit::open(&paths.machine_config())?;
    edit.remove(&format!("stable.{name}"));
    if edit.doc.get("stable").and_then(|t| t.as_table_like()).is_some_and(|t| t.is_empty()) {
        edit.remove("stable");
    }
    edit.save()?;
    let dir = clone_dir(paths, name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io_error(&dir, "cannot remove the clone"))?;
    }
    if store::open_read(DbKind::Home, &paths.home_db())?.is_some() {
        let home = store::open_write(DbKind::Home, &paths.home_db())?;
        AgentStore::new(home.conn()).delete_stable(name)?;
    }
    let mut still = Vec::new();
    for t in cfg.named("harness") {
        if let Some(src) = t.get("source").and_then(|v| v.as_str()) {
            if src.starts_with(&format!("{name}/")) {
                still.push(format!("[harness.{}] in {} names {src}", t.name, t.file.display()));
            }
        }
    }
    // Tables in other projects' configs the home database knows of.
    if let Some(home) = store::open_read(DbKind::Home, &paths.home_db())? {
        for r in AgentStore::new(home.conn()).references()? {
            let line = format!("[harness.{}] in {} names {}", r.table_name, r.config_file, r.source);
            if r.source.starts_with(&format!("{name}/")) && !still.contains(&line) {
                still.push(line);
            }
        }
    }
    for p in pins::list_pins(paths).into_iter().filter(|p| p.stable == name) {
        still.push(format!("pin {p} is in the store ({})", pins::pin_dir(paths, &p).display()));
    }
    Ok(still)
}
