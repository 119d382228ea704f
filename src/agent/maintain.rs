//! `tlc agent uninstall` (removes one whole harness table), `tlc agent prune` (removes pins
//! nothing references) and `tlc stable lint` (validates a stable checkout for its authors).

use super::files::PackageFiles;
use super::install::{validate_files, Prompter};
use super::pins::{self, SourceRef};
use super::records::AgentStore;
use super::scan::{self, Finding};
use super::schema::TableContext;
use super::target::{open_editor, target_file};
use super::{io_error, refused, unusable, AgentError};
use crate::config::Config;
use crate::paths::Paths;
use crate::store::{self, DbKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `tlc agent uninstall` removed: the table `name` from `file`.
#[derive(Debug, Clone)]
pub(crate) struct Uninstalled {
    pub name: String,
    pub file: PathBuf,
}

/// `tlc agent uninstall <name>`: removes the whole `[harness.<name>]` table, nothing else.
pub(crate) fn uninstall(paths: &Paths, name: &str, project: bool, yes: bool, prompter: &mut Prompter) -> Result<Uninstalled, AgentError> {
    let cfg = Config::load(paths)?;
    let file = target_file(paths, &cfg, project)?;
    if !cfg.named("harness").any(|t| t.name == name && t.file == file) {
        return Err(unusable(format!("[harness.{name}] is not declared in {}", file.display())));
    }
    if !yes {
        if !prompter.interactive {
            return Err(refused(format!(
                "[harness.{name}]: no terminal to confirm on and no --yes: nothing was changed"
            )));
        }
        let a = prompter
            .ask(&format!("Remove the whole [harness.{name}] table from {}? [y/N] ", file.display()))
            .unwrap_or_default();
        if !matches!(a.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            return Err(refused(format!("[harness.{name}]: declined; nothing was changed")));
        }
    }
    let mut edit = open_editor(paths, &cfg, &file)?;
    edit.remove(&format!("harness.{name}"));
    if edit
        .doc
        .get("harness")
        .and_then(|t| t.as_table_like())
        .is_some_and(|t| t.is_empty())
    {
        edit.remove("harness");
    }
    edit.save()?;
    if store::open_read(DbKind::Home, &paths.home_db())?.is_some() {
        let home = store::open_write(DbKind::Home, &paths.home_db())?;
        AgentStore::new(home.conn()).delete_reference(&file.display().to_string(), name)?;
    }
    Ok(Uninstalled {
        name: name.to_string(),
        file,
    })
}

/// What prune did (or would do).
#[derive(Debug, Default, serde::Serialize)]
pub(crate) struct Pruned {
    pub removed: Vec<String>,
    pub kept: Vec<(String, String)>,
}

/// `tlc agent prune [--dry-run]`: removes pins nothing references, re-reading every config file
/// the home database knows to name a pin (and this machine's and project's tiers) first.
pub(crate) fn prune(paths: &Paths, dry_run: bool) -> Result<Pruned, AgentError> {
    let home = store::open_read(DbKind::Home, &paths.home_db())?;
    let mut files: Vec<PathBuf> = vec![paths.machine_config()];
    if !paths.root_overlaps_home() {
        files.push(super::resolve::project_tier_file(paths));
    }
    if let Some(home) = &home {
        for r in AgentStore::new(home.conn()).references()? {
            let p = PathBuf::from(&r.config_file);
            if !files.contains(&p) {
                files.push(p);
            }
        }
    }
    // Re-read each file now: a reference recorded earlier may be gone, a new one may exist.
    let mut referenced: BTreeMap<SourceRef, String> = BTreeMap::new();
    for f in &files {
        let text = match crate::fsread::read_capped_text(f, crate::fsread::CONFIG_CAP, crate::fsread::Links::Follow) {
            Ok(Some(text)) => text,
            Ok(None) => continue,
            Err(e) => return Err(refused(format!("{e}: prune cannot tell which pins it names; nothing was removed"))),
        };
        let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
            return Err(refused(format!(
                "{}: cannot be parsed, so prune cannot tell which pins it names; nothing was removed",
                f.display()
            )));
        };
        if let Some(h) = doc.get("harness").and_then(|h| h.as_table_like()) {
            for (tname, t) in h.iter() {
                if let Some(src) = t
                    .as_table_like()
                    .and_then(|t| t.get("source"))
                    .and_then(|v| v.as_str())
                    .and_then(|s| SourceRef::parse(s).ok())
                {
                    referenced
                        .entry(src)
                        .or_insert_with(|| format!("[harness.{tname}] in {}", f.display()));
                }
            }
        }
    }
    let mut out = Pruned::default();
    for pin in pins::list_pins(paths) {
        if let Some(by) = referenced.get(&pin) {
            out.kept.push((pin.to_string(), by.clone()));
            continue;
        }
        out.removed.push(pin.to_string());
        if !dry_run {
            pins::remove_pin(paths, &pin).map_err(io_error(pins::pin_dir(paths, &pin), "cannot remove"))?;
            if home.is_some() {
                let home = store::open_write(DbKind::Home, &paths.home_db())?;
                AgentStore::new(home.conn()).delete_pin(&pin.stable, &pin.package, &pin.sha)?;
            }
        }
    }
    Ok(out)
}

/// One package of `tlc stable lint`.
#[derive(Debug, serde::Serialize)]
pub(crate) struct Linted {
    pub package: String,
    pub errors: Vec<String>,
    pub findings: Vec<Finding>,
}

/// `tlc stable lint [PATH]`: validates and scans every `packages/<name>/` of a checkout, with
/// the built-in adapters only (an author cannot count on anyone's `[adapter.*]`).
pub(crate) fn lint(dir: &Path) -> Result<Vec<Linted>, AgentError> {
    let root = dir.join("packages");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .map_err(|e| unusable(format!("{}: not a stable checkout (no packages/ folder: {e})", dir.display())))?
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let ctx = TableContext::default();
    let mut out = Vec::new();
    for name in names {
        let files = PackageFiles::from_dir(&root.join(&name)).map_err(io_error(root.join(&name), "cannot read"))?;
        let (errors, homepage) = match validate_files(&files, &name, &ctx) {
            Ok(m) => (Vec::new(), m.homepage),
            Err(e) => (e, None),
        };
        let findings = scan::scan_package(&files, homepage.as_deref());
        out.push(Linted {
            package: name,
            errors,
            findings,
        });
    }
    Ok(out)
}
