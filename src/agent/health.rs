//! The agent domain's answer to `tlc doctor`'s "stables and pins": every pin in the store is from
//! a declared stable and still holds exactly the files recorded when it was installed, every
//! recorded pin is still in the store, and every declared stable has a clone whose last fetch
//! worked. Reads only.

use super::pins::{self, SourceRef};
use super::records::AgentStore;
use super::stable;
use crate::config::Config;
use crate::paths::Paths;
use crate::store::{self, DbKind, StoreError};
use std::collections::BTreeMap;

/// What the check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PinHealth {
    /// `[stable.*]` tables of the machine tier.
    pub stables: usize,
    /// Pin folders in the store.
    pub pins: usize,
    /// Each thing that is not as it should be, naming the pin, file or stable.
    pub problems: Vec<String>,
}

/// Compares the declared stables, the pin store on disk and the pins the home database recorded.
pub(crate) fn stables_and_pins(paths: &Paths, cfg: &Config) -> Result<PinHealth, StoreError> {
    let declared = stable::declared(cfg);
    let on_disk = pins::list_pins(paths);
    let mut problems = Vec::new();
    for d in &declared {
        if !stable::clone_dir(paths, &d.name).exists() {
            problems.push(format!(
                "stable {} has no local clone (`tlc stable update {}` makes one)",
                d.name, d.name
            ));
        }
    }
    for pin in &on_disk {
        if !declared.iter().any(|d| d.name == pin.stable) {
            problems.push(format!(
                "pin {pin} is from stable {}, which is not declared in {} (`tlc agent prune` removes pins nothing names)",
                pin.stable,
                paths.machine_config().display()
            ));
        }
    }
    if let Some(home) = store::open_read(DbKind::Home, &paths.home_db())? {
        let records = AgentStore::new(home.conn());
        let sq = |e| StoreError::sqlite(&paths.home_db(), e);
        for s in records.stables().map_err(sq)? {
            if let Some(e) = s.fetch_error.filter(|_| declared.iter().any(|d| d.name == s.name)) {
                problems.push(format!("stable {}: the last fetch failed: {e}", s.name));
            }
        }
        for row in records.pins().map_err(sq)? {
            let pin = SourceRef {
                stable: row.stable,
                package: row.package,
                sha: row.sha,
            };
            if !on_disk.contains(&pin) {
                problems.push(format!(
                    "pin {pin} was installed but is gone from the store ({})",
                    pins::pin_dir(paths, &pin).display()
                ));
                continue;
            }
            let recorded = records.pin_files(&pin.stable, &pin.package, &pin.sha).map_err(sq)?;
            problems.extend(changed_files(paths, &pin, recorded.into_iter().map(|f| (f.path, f.sha256))));
        }
    }
    Ok(PinHealth {
        stables: declared.len(),
        pins: on_disk.len(),
        problems,
    })
}

/// The files of `pin` on disk that differ from the digests recorded at install: changed, missing
/// or added.
fn changed_files(paths: &Paths, pin: &SourceRef, recorded: impl Iterator<Item = (String, String)>) -> Vec<String> {
    let dir = pins::pin_dir(paths, pin);
    let on_disk = match super::files::PackageFiles::from_dir(&dir) {
        Ok(files) => files,
        Err(e) => return vec![format!("pin {pin}: cannot read {}: {e}", dir.display())],
    };
    let mut want: BTreeMap<String, String> = recorded.collect();
    let mut out = Vec::new();
    for f in &on_disk.files {
        match want.remove(&f.path) {
            Some(digest) if digest == f.sha256() => {}
            Some(_) => out.push(format!("pin {pin}: {} changed since it was installed", dir.join(&f.path).display())),
            None => out.push(format!(
                "pin {pin}: {} was added after it was installed",
                dir.join(&f.path).display()
            )),
        }
    }
    for path in want.keys() {
        out.push(format!("pin {pin}: {} is missing", dir.join(path).display()));
    }
    out
}
