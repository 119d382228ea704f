//! `tlc agent list`: every installed package — each `[harness.*]` table of the machine or project
//! tier whose `source` names a pin — with its version, pinned commit, install time, tier, and
//! whether its stable's local clone has a head other than the pin (read from the clone as the
//! last `tlc stable update` left it: nothing is fetched). Reads only: no file, folder or database
//! is created.

use super::git;
use super::manifest;
use super::pins::{self, SourceRef};
use super::records::AgentStore;
use super::schema::TableContext;
use super::stable;
use super::AgentError;
use crate::config::{Config, Tier};
use crate::paths::Paths;
use crate::store::{self, DbKind, StoreError};

/// One installed package, as `agent list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct InstalledPackage {
    /// The `[harness.<name>]` table.
    pub harness_name: String,
    pub stable: String,
    pub package: String,
    /// The pinned manifest's `version`, when it states one (and the pin is in the store).
    pub version: Option<String>,
    /// The full commit the table's `source` pins.
    pub pinned_commit: String,
    /// When it was installed at this commit (the latest install, upgrade or rollback of the table
    /// to it; else when the pin was stored).
    pub installed_at: Option<String>,
    /// `global` (the machine tier) or `project` (installed with `--project`).
    pub tier: &'static str,
    pub config_file: String,
    /// The stable clone's fetched head; `None` when the stable has no clone (or no default branch).
    pub stable_head: Option<String>,
    /// The clone's head is another commit than the pin (`tlc agent upgrade` would move the table);
    /// `None` when there is no clone to compare with.
    pub newer_head: Option<bool>,
}

/// Every table with a source, in the order the tiers list them (machine first).
pub(crate) fn installed(paths: &Paths) -> Result<Vec<InstalledPackage>, AgentError> {
    let cfg = Config::load(paths)?;
    let ctx = TableContext::from_config(&cfg);
    let home = store::open_read(DbKind::Home, &paths.home_db())?;
    let records = home.as_ref().map(|h| AgentStore::new(h.conn()));
    let sq = |e| AgentError::Store(StoreError::sqlite(&paths.home_db(), e));
    let installs = match &records {
        Some(r) => r.installs(None).map_err(sq)?,
        None => Vec::new(),
    };
    let pins_stored = match &records {
        Some(r) => r.pins().map_err(sq)?,
        None => Vec::new(),
    };
    let mut heads: std::collections::BTreeMap<String, Option<String>> = Default::default();
    let mut out = Vec::new();
    for t in cfg.named("harness") {
        let Some(src) = t.get("source").and_then(|v| v.as_str()).and_then(|s| SourceRef::parse(s).ok()) else {
            continue;
        };
        let file = t.file.display().to_string();
        let installed_at = installs
            .iter()
            .filter(|i| i.harness_name == t.name && i.config_file == file && i.sha == src.sha)
            .map(|i| i.ts.clone())
            .max()
            .or_else(|| {
                pins_stored
                    .iter()
                    .find(|p| p.stable == src.stable && p.package == src.package && p.sha == src.sha)
                    .map(|p| p.installed_at.clone())
            });
        let head = heads
            .entry(src.stable.clone())
            .or_insert_with(|| {
                let dir = stable::clone_dir(paths, &src.stable);
                dir.is_dir().then(|| git::resolve_version(&dir, None).ok()).flatten()
            })
            .clone();
        out.push(InstalledPackage {
            harness_name: t.name.clone(),
            stable: src.stable.clone(),
            package: src.package.clone(),
            version: version_of(paths, &ctx, &src),
            pinned_commit: src.sha.clone(),
            installed_at,
            tier: match t.tier {
                Tier::Project => "project",
                _ => "global",
            },
            config_file: file,
            newer_head: head.as_ref().map(|h| *h != src.sha),
            stable_head: head,
        });
    }
    Ok(out)
}

/// The pinned manifest's version, read from the pin store.
fn version_of(paths: &Paths, ctx: &TableContext, src: &SourceRef) -> Option<String> {
    let files = pins::read_pin_manifest(paths, src).ok()?;
    let text = files.manifest_text().ok()?;
    manifest::parse(text, Some(&files), ctx).ok()?.version
}
