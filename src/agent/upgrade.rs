//! `tlc agent upgrade`: the only way an installed pin moves forward. It re-runs install's
//! resolve, validate, scan and confirm against the stable's already-fetched state (it never
//! fetches), shows a diff of the manifest and every bundled file against the current pin, and
//! offers only new or changed `[defaults]` for keys the table does not set.

use super::diff;
use super::files::PackageFiles;
use super::git;
use super::install::{
    check_table, commit, confirm, load_candidate, local_table, offer_defaults, review_text, Candidate, InstallOptions, Installed, Prompter,
};
use super::manifest;
use super::pins::{self, SourceRef};
use super::records::AgentStore;
use super::scan;
use super::schema::TableContext;
use super::stable;
use super::{refused, unusable, AgentError, PackageRef};
use crate::config::{Config, Value};
use crate::paths::Paths;
use crate::revision::short;
use crate::store::{self, DbKind};
use std::path::PathBuf;

/// The tables `tlc agent upgrade <target>` moves, and the configuration they were read from.
pub(crate) struct Targets {
    cfg: Config,
    ctx: TableContext,
    /// (table name, its file, its current source), in the order the config lists them.
    pub tables: Vec<(String, PathBuf, SourceRef)>,
}

/// Every `[harness.*]` table that `target` names (by table name or `<stable>/<package>`) and that
/// has a source.
pub(crate) fn targets(paths: &Paths, target: &str) -> Result<Targets, AgentError> {
    let cfg = Config::load(paths)?;
    let ctx = TableContext::from_config(&cfg);
    let mut tables = Vec::new();
    for t in cfg.named("harness") {
        let Some(src) = t.get("source").and_then(|v| v.as_str()).and_then(|s| SourceRef::parse(s).ok()) else {
            continue;
        };
        if t.name == target || src.package_ref() == target {
            tables.push((t.name.clone(), t.file.clone(), src));
        }
    }
    if tables.is_empty() {
        return Err(unusable(format!(
            "no [harness.*] table names {target} (by table name or <stable>/<package>) with a source"
        )));
    }
    Ok(Targets { cfg, ctx, tables })
}

/// What upgrading one table would do.
pub(crate) enum UpgradePlan {
    /// The table already names the stable's fetched head.
    UpToDate { name: String, file: PathBuf, source: SourceRef },
    /// A move to show (`text`: the diff, the review and the defaults that changed) and then
    /// [`apply`].
    Move(Box<Move>),
}

/// One table's move to a new commit, ready to confirm.
pub(crate) struct Move {
    /// The diff against the current pin, the review, and the `[defaults]` that changed.
    pub text: String,
    name: String,
    file: PathBuf,
    old: SourceRef,
    candidate: Candidate,
    /// A high-severity finding the current pin did not have.
    new_high: bool,
    /// The defaults to offer (new or changed, not set by the table, not skipped before unchanged).
    offer: Vec<String>,
    /// Defaults skipped before and unchanged: remembered, not offered again.
    carried: Vec<(String, Value)>,
}

/// Reads the stable's fetched head for one table (never fetches) and prepares its move.
pub(crate) fn plan(paths: &Paths, targets: &Targets, (name, file, old): &(String, PathBuf, SourceRef)) -> Result<UpgradePlan, AgentError> {
    let (cfg, ctx) = (&targets.cfg, &targets.ctx);
    let r = PackageRef {
        stable: old.stable.clone(),
        package: old.package.clone(),
        version: None,
    };
    let c = load_candidate(paths, cfg, ctx, &r)?;
    if c.sha == old.sha {
        return Ok(UpgradePlan::UpToDate {
            name: name.clone(),
            file: file.clone(),
            source: c.source(),
        });
    }
    let old_files = if pins::has_pin(paths, old) {
        pins::read_pin(paths, old)?
    } else {
        let dir = stable::clone_dir(paths, &old.stable);
        git::read_package(&dir, &old.sha, &old.package).unwrap_or_default()
    };
    let old_findings = scan::scan_package(&old_files, c.manifest.homepage.as_deref());
    let new_high = c.findings.iter().any(|f| {
        f.severity == scan::Severity::High
            && !old_findings
                .iter()
                .any(|o| o.rule == f.rule && o.file == f.file && o.excerpt == f.excerpt)
    });
    let mut s = format!(
        "== upgrade [harness.{name}] in {}: {} -> {}\n",
        file.display(),
        short(&old.sha),
        short(&c.sha)
    );
    s.push_str(&diff_text(&old_files, &c.files));
    s.push_str(&review_text(&c));
    // Defaults: report new or changed suggestions against the old pin's.
    let old_manifest = old_files
        .manifest_text()
        .ok()
        .and_then(|t| manifest::parse(t, Some(&old_files), ctx).ok());
    let old_defaults = old_manifest.map(|m| m.defaults).unwrap_or_default();
    let local = local_table(cfg, name);
    let home = store::open_read(DbKind::Home, &paths.home_db())?;
    let skipped_before = match &home {
        Some(home) => AgentStore::new(home.conn()).last_skipped_defaults(name, &file.display().to_string())?,
        None => Default::default(),
    };
    let mut offer = Vec::new();
    let mut carried = Vec::new();
    for (k, v) in c.manifest.ordered_defaults() {
        let changed = old_defaults.get(k) != Some(v);
        if changed {
            let was = old_defaults.get(k).map(|o| o.to_toml_text()).unwrap_or_else(|| "(none)".into());
            let kept = if local.contains_key(k) {
                "; your table's value is kept as it is"
            } else {
                ""
            };
            s.push_str(&format!("default {k}: {was} -> {}{kept}\n", v.to_toml_text()));
        }
        let skipped_same = skipped_before.get(k).is_some_and(|sv| *sv == v.to_json());
        if !local.contains_key(k) && !skipped_same {
            offer.push(k.to_string());
        } else if !local.contains_key(k) {
            carried.push((k.to_string(), v.clone()));
        }
    }
    Ok(UpgradePlan::Move(Box::new(Move {
        text: s,
        name: name.clone(),
        file: file.clone(),
        old: old.clone(),
        candidate: c,
        new_high,
        offer,
        carried,
    })))
}

/// Moves one table (after its [`Move::text`] was shown): checks it would load, confirms, offers
/// the new or changed defaults, and commits.
pub(crate) fn apply(
    paths: &Paths,
    targets: &Targets,
    m: Move,
    opts: &InstallOptions,
    prompter: &mut Prompter,
) -> Result<Installed, AgentError> {
    let (cfg, ctx) = (&targets.cfg, &targets.ctx);
    let Move {
        name,
        file,
        old,
        candidate: c,
        new_high,
        offer,
        carried,
        ..
    } = m;
    let local = local_table(cfg, &name);
    check_table(&c, paths, ctx, &local, &[]).map_err(|e| {
        refused(format!(
            "[harness.{name}] would not load with {}: {e}; nothing was changed",
            c.source()
        ))
    })?;
    let typed = confirm(
        &c,
        opts,
        prompter,
        &format!("Upgrade [harness.{name}] to {}?", c.source()),
        new_high,
    )?;
    let forced = typed.iter().any(|t| t == "typed:force-unsafe");
    let mut chosen = offer_defaults(&c, paths, ctx, &local, opts, prompter, Some(&offer));
    chosen.carried = carried;
    commit(
        paths,
        cfg,
        &c,
        "upgrade",
        &name,
        &file,
        Some(old.sha.clone()),
        typed,
        forced,
        chosen,
    )
}

/// The diff of the manifest and of every bundled file between two pins.
pub(crate) fn diff_text(old: &PackageFiles, new: &PackageFiles) -> String {
    let mut s = String::from("\n-- diff against the current pin --\n");
    let mut paths: Vec<&str> = old.files.iter().chain(new.files.iter()).map(|f| f.path.as_str()).collect();
    paths.sort();
    paths.dedup();
    // The manifest first.
    paths.sort_by_key(|p| *p != super::files::MANIFEST);
    let mut any = false;
    for p in paths {
        let (a, b) = (old.get(p), new.get(p));
        let text = |f: Option<&super::files::PackageFile>| {
            f.map(|f| {
                f.text()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("(binary, sha256 {})", f.sha256()))
            })
        };
        match (text(a), text(b)) {
            (None, Some(t)) => {
                any = true;
                s.push_str(&format!(
                    "+++ added {p}\n{}",
                    t.lines().map(|l| format!("+{l}\n")).collect::<String>()
                ));
            }
            (Some(_), None) => {
                any = true;
                s.push_str(&format!("--- removed {p}\n"));
            }
            (Some(x), Some(y)) if x != y => {
                any = true;
                s.push_str(&format!("~~~ changed {p}\n{}", diff::unified(&x, &y)));
            }
            _ => {}
        }
    }
    if !any {
        s.push_str("  (no file changed)\n");
    }
    s
}
