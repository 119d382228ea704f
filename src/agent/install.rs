//! Install: resolve a version to a commit, validate and scan the
//! files at that commit, show everything, ask, then pin, write one `source` line (and any
//! defaults the operator chose) through the format-preserving editor, and record it all.
//!
//! Prompts read standard input only when it is a terminal: no variable or flag makes a pipe stand
//! in for the operator (the integration tests type their answers through a pseudo-terminal).

use super::defaults;
use super::files::PackageFiles;
use super::git;
use super::manifest::{self, Manifest};
use super::pins::{self, SourceRef};
use super::records::{AgentStore, InstallRecord};
use super::resolve::{self, KeyOrigin};
use super::scan::{self, Finding};
use super::schema::{self, TableContext};
use super::stable;
use super::{refused, unusable, AgentError};
use super::{Invalid, PackageRef};
use crate::config::{Config, Value};
use crate::paths::Paths;
use crate::revision::short;
use crate::store::{self, DbKind};
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal};
use std::path::Path;
use std::path::PathBuf;

/// Reads the operator's answers.
pub(crate) struct Prompter {
    pub interactive: bool,
    input: Box<dyn BufRead>,
}

impl Prompter {
    /// Standard input, interactive when it is a terminal.
    pub(crate) fn from_stdin() -> Prompter {
        Prompter {
            interactive: std::io::stdin().is_terminal(),
            input: Box::new(std::io::BufReader::new(std::io::stdin())),
        }
    }

    /// Tells the operator something about their last answer (on stderr, with the prompts).
    pub(crate) fn say(&mut self, text: &str) {
        eprintln!("{text}");
    }

    /// Prints `prompt` on stderr and reads one line; `None` at the end of input.
    pub(crate) fn ask(&mut self, prompt: &str) -> Option<String> {
        eprint!("{prompt}");
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
        }
    }
}

/// What install was asked to do.
#[derive(Debug, Clone, Default)]
pub(crate) struct InstallOptions {
    pub as_name: Option<String>,
    pub project: bool,
    pub yes: bool,
    pub force_unsafe: bool,
    pub accept_defaults: bool,
}

/// A package at one commit, validated and scanned.
pub(crate) struct Candidate {
    pub stable: String,
    pub package: String,
    pub sha: String,
    pub version_asked: Option<String>,
    pub files: PackageFiles,
    pub manifest: Manifest,
    pub findings: Vec<Finding>,
    pub from_store: bool,
}

impl Candidate {
    pub(crate) fn source(&self) -> SourceRef {
        SourceRef {
            stable: self.stable.clone(),
            package: self.package.clone(),
            sha: self.sha.clone(),
        }
    }

    pub(crate) fn name(&self) -> String {
        format!("{}/{}", self.stable, self.package)
    }
}

/// Validates a package's files: refused entries, the manifest, the name. Errors list everything.
pub(crate) fn validate_files(files: &PackageFiles, package: &str, ctx: &TableContext) -> Result<Manifest, Vec<String>> {
    let mut problems = files.refused_entries();
    let text = match files.manifest_text() {
        Ok(t) => t,
        Err(e) => {
            problems.push(e.to_string());
            return Err(problems);
        }
    };
    match manifest::parse(text, Some(files), ctx) {
        Ok(m) => {
            if m.name != package {
                problems.push(format!(
                    "package.toml: `package.name`: {:?} does not match the package folder {package:?}",
                    m.name
                ));
            }
            if problems.is_empty() {
                Ok(m)
            } else {
                Err(problems)
            }
        }
        Err(errors) => {
            problems.extend(errors.iter().map(|e| e.to_string()));
            Err(problems)
        }
    }
}

/// Resolves `r`'s version in its stable's local clone and reads the package at it: the commit's
/// SHA and the package's files.
pub(crate) fn read_from_clone(paths: &Paths, cfg: &Config, r: &PackageRef) -> Result<(String, super::files::PackageFiles), AgentError> {
    if stable::find(cfg, &r.stable).is_none() {
        return Err(unusable(format!(
            "stable {} is not declared in {} (add it with `tlc stable add {} <remote>`)",
            r.stable,
            paths.machine_config().display(),
            r.stable
        )));
    }
    let dir = stable::clone_dir(paths, &r.stable);
    if !dir.exists() {
        return Err(unusable(format!(
            "stable {} has no local clone at {} (run `tlc stable update {}`)",
            r.stable,
            dir.display(),
            r.stable
        )));
    }
    let sha = git::resolve_version(&dir, r.version.as_deref()).map_err(|e| unusable(format!("{}: {e}", r.name())))?;
    let files = git::read_package(&dir, &sha, &r.package).map_err(|e| unusable(format!("{}: {e}", r.name())))?;
    Ok((sha, files))
}

/// Resolves, reads, validates and scans a package. A full SHA already in the pin store is read
/// from the store with no clone at all.
pub(crate) fn load_candidate(paths: &Paths, cfg: &Config, ctx: &TableContext, r: &PackageRef) -> Result<Candidate, AgentError> {
    let stored = r.version.as_deref().filter(|v| git::is_full_sha(v)).map(|sha| SourceRef {
        stable: r.stable.clone(),
        package: r.package.clone(),
        sha: sha.to_string(),
    });
    let (sha, files, from_store) = match stored.filter(|s| pins::has_pin(paths, s)) {
        Some(src) => (src.sha.clone(), pins::read_pin(paths, &src)?, true),
        None => {
            let (sha, files) = read_from_clone(paths, cfg, r)?;
            (sha, files, false)
        }
    };
    let manifest = validate_files(&files, &r.package, ctx).map_err(|p| {
        refused(format!(
            "{}@{}: the package is refused:\n  {}",
            r.name(),
            short(&sha),
            p.join("\n  ")
        ))
    })?;
    let findings = scan::scan_package(&files, manifest.homepage.as_deref());
    Ok(Candidate {
        stable: r.stable.clone(),
        package: r.package.clone(),
        sha,
        version_asked: r.version.clone(),
        files,
        manifest,
        findings,
        from_store,
    })
}

/// The review printed before any confirmation: manifest verbatim, requests, files, findings.
pub(crate) fn review_text(c: &Candidate) -> String {
    let mut s = String::new();
    let asked = c.version_asked.clone().unwrap_or_else(|| "the stable's default branch".into());
    s.push_str(&format!(
        "== {}@{} (version asked: {asked}{})\n",
        c.name(),
        c.sha,
        if c.from_store { "; read from the local pin store" } else { "" }
    ));
    s.push_str("\n-- manifest: package.toml (verbatim) --\n");
    s.push_str(&c.manifest.text);
    if !c.manifest.text.ends_with('\n') {
        s.push('\n');
    }
    s.push_str("\n-- requests --\n");
    for r in c.manifest.requests.itemised() {
        s.push_str(&format!("  * {r}\n"));
    }
    s.push_str(&format!("\n-- files ({}) --\n", c.files.files.len()));
    for f in &c.files.files {
        s.push_str(&format!(
            "  {}  ({} bytes)\n",
            crate::render::escape_controls(&f.path),
            f.bytes.len()
        ));
    }
    s.push_str(&findings_text(&c.findings));
    if c.files.has_dir("prompts") {
        s.push_str("\nnote: this package ships prompts/; it is never registered anywhere. To use a prompt, copy it or point your own config at it by hand\n");
    }
    s
}

pub(crate) fn findings_text(findings: &[Finding]) -> String {
    let mut s = format!("\n-- content scan ({}) --\n{}\n", scan::RULES_VERSION, scan::TRIPWIRE_NOTICE);
    if findings.is_empty() {
        s.push_str("  no findings\n");
    }
    for f in findings {
        s.push_str(&format!("  {f}\n"));
    }
    s
}

/// Converts a config value to a TOML value for the editor.
pub(crate) fn to_toml(v: &Value) -> toml_edit::Value {
    match v {
        Value::Bool(b) => (*b).into(),
        Value::Int(i) => (*i).into(),
        Value::Float(f) => (*f).into(),
        Value::Str(s) => s.as_str().into(),
        Value::Off => false.into(),
        Value::List(items) => toml_edit::Value::Array(items.iter().map(to_toml).collect()),
        Value::Table(map) => {
            let mut t = toml_edit::InlineTable::new();
            for (k, v) in map {
                t.insert(k, to_toml(v));
            }
            toml_edit::Value::InlineTable(t)
        }
    }
}

/// The typed confirmations: a high finding (with --force-unsafe) and an MCP write request each
/// need `<stable>/<package>` re-typed; otherwise --yes or a y/N answer. Returns what was typed.
pub(super) fn confirm(
    c: &Candidate,
    opts: &InstallOptions,
    prompter: &mut Prompter,
    question: &str,
    extra_high: bool,
) -> Result<Vec<String>, AgentError> {
    let name = c.name();
    let highs = c.findings.iter().filter(|f| f.severity == scan::Severity::High).count();
    let high = highs > 0 || extra_high;
    if high && !opts.force_unsafe {
        return Err(refused(format!(
            "{name}: {highs} high-severity scan finding(s) block this (nothing was changed); --yes never clears them; --force-unsafe with the name re-typed on a terminal does"
        )));
    }
    let mut reasons = Vec::new();
    if high {
        reasons.push("force-unsafe");
    }
    if c.manifest.requests.wants_mcp_write() {
        reasons.push("mcp-write");
    }
    let mut typed = Vec::new();
    if !reasons.is_empty() {
        if !prompter.interactive {
            return Err(refused(format!(
                "{name}: {} needs {name} re-typed on a terminal; there is none (and --yes does not count): nothing was changed",
                reasons.join(" and ")
            )));
        }
        let answer = prompter
            .ask(&format!(
                "This needs typed confirmation ({}). Type {name} to go on: ",
                reasons.join(", ")
            ))
            .unwrap_or_default();
        if answer.trim() != name {
            return Err(refused(format!(
                "{name}: the typed confirmation did not match; nothing was changed"
            )));
        }
        typed.extend(reasons.iter().map(|r| format!("typed:{r}")));
        return Ok(typed);
    }
    if opts.yes {
        typed.push("--yes".into());
        return Ok(typed);
    }
    if !prompter.interactive {
        return Err(refused(format!(
            "{name}: no terminal to confirm on and no --yes: nothing was changed"
        )));
    }
    let answer = prompter.ask(&format!("{question} [y/N] ")).unwrap_or_default();
    if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        return Err(refused(format!("{name}: declined; nothing was changed")));
    }
    typed.push("y".into());
    Ok(typed)
}

/// The local keys of `[harness.<name>]` across both tiers (machine first).
pub(super) fn local_table(cfg: &Config, name: &str) -> BTreeMap<String, (Value, KeyOrigin)> {
    super::resolve::local_entries(cfg, name).0
}

/// Validates the table as the config loader would, with `extra` local keys set on it.
pub(super) fn check_table(
    c: &Candidate,
    paths: &Paths,
    ctx: &TableContext,
    local: &BTreeMap<String, (Value, KeyOrigin)>,
    extra: &[(String, Value)],
) -> Result<(), Invalid> {
    let mut local = local.clone();
    local.insert(
        "source".into(),
        (
            Value::Str(c.source().to_string()),
            KeyOrigin {
                origin: "local",
                file: None,
                line: None,
            },
        ),
    );
    for (k, v) in extra {
        local.insert(
            k.clone(),
            (
                v.clone(),
                KeyOrigin {
                    origin: "local",
                    file: None,
                    line: None,
                },
            ),
        );
    }
    let pkg = resolve::package_values(&c.manifest, &pins::pin_dir(paths, &c.source()), c.files.has_dir("skills"));
    let merged = resolve::merge(&local, Some(&pkg));
    let plain: BTreeMap<String, Value> = merged.into_iter().map(|(k, (v, _))| (k, v)).collect();
    schema::validate_table(&plain, ctx).map_err(|(k, m)| Invalid(format!("key `{k}`: {m}")))
}

/// The outcome of offering `[defaults]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct DefaultsChoice {
    pub written: Vec<(String, Value)>,
    /// key -> (the package's value, why it was not written).
    pub skipped: Vec<(String, Value, String)>,
    /// Earlier skips not offered again (unchanged suggestions): remembered, not printed.
    pub carried: Vec<(String, Value)>,
}

/// Offers each default in the fixed order (keep / override / skip), never one the table already
/// sets; `only` limits the offer (upgrade offers only new or changed suggestions).
pub(super) fn offer_defaults(
    c: &Candidate,
    paths: &Paths,
    ctx: &TableContext,
    local: &BTreeMap<String, (Value, KeyOrigin)>,
    opts: &InstallOptions,
    prompter: &mut Prompter,
    only: Option<&[String]>,
) -> DefaultsChoice {
    let mut choice = DefaultsChoice::default();
    for (key, suggested) in c.manifest.ordered_defaults() {
        if local.contains_key(key) || only.is_some_and(|o| !o.iter().any(|k| k == key)) {
            continue;
        }
        let mut value = suggested.clone();
        if opts.accept_defaults {
            // Taken as suggested.
        } else if opts.yes || !prompter.interactive {
            choice.skipped.push((
                key.into(),
                suggested.clone(),
                "not accepted (--yes accepts no default; --accept-defaults does)".into(),
            ));
            continue;
        } else {
            loop {
                let a = prompter
                    .ask(&format!(
                        "default {key} = {}: [k]eep, [o]verride or [s]kip? ",
                        suggested.to_toml_text()
                    ))
                    .unwrap_or_else(|| "s".into());
                match a.trim().to_ascii_lowercase().as_str() {
                    "k" | "keep" => break,
                    "o" | "override" => {
                        let typed = prompter.ask(&format!("{key} = ")).unwrap_or_default();
                        let parsed = parse_typed(&typed);
                        match defaults::check_value(key, &parsed) {
                            Ok(()) => {
                                value = parsed;
                                break;
                            }
                            Err(e) => prompter.say(&format!("{key}: {e}; try again")),
                        }
                    }
                    "s" | "skip" | "" => {
                        value = Value::Off;
                        break;
                    }
                    _ => prompter.say("answer k, o or s"),
                }
            }
            if value == Value::Off {
                choice
                    .skipped
                    .push((key.into(), suggested.clone(), "skipped by the operator".into()));
                continue;
            }
        }
        if key == "triggers" {
            let missing: Vec<String> = value
                .as_strings()
                .unwrap_or_default()
                .into_iter()
                .filter(|t| !ctx.sources.contains(t))
                .collect();
            if !missing.is_empty() {
                choice.skipped.push((
                    key.into(),
                    suggested.clone(),
                    format!(
                        "trigger source {} does not exist as a table in the machine tier",
                        missing.join(", ")
                    ),
                ));
                continue;
            }
        }
        let mut trial = choice.written.clone();
        trial.push((key.into(), value.clone()));
        if let Err(e) = check_table(c, paths, ctx, local, &trial) {
            choice
                .skipped
                .push((key.into(), suggested.clone(), format!("the table would not load: {e}")));
            continue;
        }
        choice.written.push((key.into(), value));
    }
    choice
}

/// A typed override: a TOML value when it parses as one, else the text as a string.
fn parse_typed(s: &str) -> Value {
    let s = s.trim();
    if let Ok(v) = s.parse::<toml_edit::Value>() {
        if let Ok(v) = Value::from_item(&toml_edit::Item::Value(v)) {
            return v;
        }
    }
    Value::Str(s.to_string())
}

/// The `source` the target file's `[harness.<name>]` names, if any.
fn current_source(cfg: &Config, file: &Path, name: &str) -> Option<String> {
    cfg.named("harness")
        .find(|t| t.name == name && t.file == file)
        .and_then(|t| t.get("source"))
        .and_then(|v| v.as_str())
        .map(str::to_string)
}

/// What an install, upgrade or rollback did: for the command line to say.
#[derive(Debug, Clone)]
pub(crate) struct Installed {
    /// `install`, `upgrade` or `rollback`.
    pub action: String,
    /// `<stable>/<package>`.
    pub package: String,
    /// The harness table's name and the file it is in.
    pub name: String,
    pub file: PathBuf,
    pub source: SourceRef,
    pub pin_dir: PathBuf,
    /// False when the pin was already in the store (kept as it was).
    pub new_pin: bool,
    pub defaults: DefaultsChoice,
}

/// Pins the candidate, writes `source` (and chosen defaults) in one edit, records it all.
#[allow(clippy::too_many_arguments)]
pub(super) fn commit(
    paths: &Paths,
    cfg: &Config,
    c: &Candidate,
    action: &str,
    name: &str,
    file: &Path,
    previous: Option<String>,
    typed: Vec<String>,
    forced: bool,
    defaults: DefaultsChoice,
) -> Result<Installed, AgentError> {
    let src = c.source();
    // The database first: one that cannot be opened (newer schema, not a database) stops the
    // install before the pin or the config is touched.
    let home = store::open_write(DbKind::Home, &paths.home_db())?;
    let store = AgentStore::new(home.conn());
    let mut edit = super::target::open_editor(paths, cfg, file)?;
    edit.set(&format!("harness.{name}.source"), src.to_string().as_str().into());
    for (k, v) in &defaults.written {
        edit.set(&format!("harness.{name}.{k}"), to_toml(v));
    }
    // The pin before the line that names it: a config never names a pin that is not there.
    let new_pin = pins::write_pin(paths, &src, &c.files)?;
    edit.save()?;
    let digests: Vec<(String, String, i64)> = c
        .files
        .files
        .iter()
        .map(|f| (f.path.clone(), f.sha256(), f.bytes.len() as i64))
        .collect();
    store.record_pin(&src.stable, &src.package, &src.sha, &c.manifest.text, &digests)?;
    let written: serde_json::Map<String, serde_json::Value> = defaults.written.iter().map(|(k, v)| (k.clone(), v.to_json())).collect();
    let skipped: serde_json::Map<String, serde_json::Value> = defaults
        .skipped
        .iter()
        .map(|(k, v, _)| (k.clone(), v.to_json()))
        .chain(defaults.carried.iter().map(|(k, v)| (k.clone(), v.to_json())))
        .collect();
    store.record_install(&InstallRecord {
        ts: crate::clock::now_stamp(),
        action: action.into(),
        stable: src.stable.clone(),
        package: src.package.clone(),
        harness_name: name.into(),
        config_file: file.display().to_string(),
        version_asked: c.version_asked.clone(),
        sha: src.sha.clone(),
        previous_sha: previous,
        scan_version: scan::RULES_VERSION.into(),
        findings: serde_json::to_value(&c.findings)?,
        forced,
        confirmations: serde_json::to_value(&typed)?,
        defaults_written: serde_json::Value::Object(written),
        defaults_skipped: serde_json::Value::Object(skipped),
        ..Default::default()
    })?;
    store.upsert_reference(&file.display().to_string(), name, &src.to_string())?;
    Ok(Installed {
        action: action.into(),
        package: c.name(),
        name: name.into(),
        file: file.to_path_buf(),
        pin_dir: pins::pin_dir(paths, &src),
        source: src,
        new_pin,
        defaults,
    })
}

/// What `tlc agent install` found before asking anything.
pub(crate) enum InstallPlan {
    /// The table already names this package at the asked commit (or at any, when none was
    /// asked): nothing to do.
    Already {
        name: String,
        file: PathBuf,
        current: String,
        package: String,
    },
    /// A candidate to review (`review_text`) and then [`apply_install`].
    Review(Box<Review>),
}

/// A validated, scanned candidate and where it would go.
pub(crate) struct Review {
    pub candidate: Candidate,
    pub name: String,
    pub file: PathBuf,
    current: Option<String>,
    cfg: Config,
    ctx: TableContext,
}

/// `tlc agent install`, first half: resolves the table and the file, refuses what install may not
/// do, and reads, validates and scans the package. Changes nothing.
pub(crate) fn plan_install(paths: &Paths, r: &PackageRef, opts: &InstallOptions) -> Result<InstallPlan, AgentError> {
    let cfg = Config::load(paths)?;
    let ctx = TableContext::from_config(&cfg);
    let name = opts.as_name.clone().unwrap_or_else(|| r.package.clone());
    if !manifest::valid_package_name(&name) {
        return Err(unusable(format!("harness name {name:?} must match ^[a-z][a-z0-9-]*$")));
    }
    let file = super::target::target_file(paths, &cfg, opts.project)?;
    let current = current_source(&cfg, &file, &name);
    let explicit_sha = r.version.as_deref().is_some_and(git::is_full_sha);
    if let Some(cur) = &current {
        let cur_ref = SourceRef::parse(cur).ok();
        match cur_ref {
            Some(c) if c.stable == r.stable && c.package == r.package => {
                if !explicit_sha || r.version.as_deref() == Some(c.sha.as_str()) {
                    return Ok(InstallPlan::Already {
                        name,
                        file,
                        current: cur.clone(),
                        package: r.name(),
                    });
                }
                let target = SourceRef { stable: r.stable.clone(), package: r.package.clone(), sha: r.version.clone().unwrap_or_default() };
                if !pins::has_pin(paths, &target) {
                    return Err(refused(format!(
                        "[harness.{name}] in {} already names {cur}; {target} is not in the pin store, so this is not a rollback: `tlc agent upgrade {name}` is the only way a pin moves forward",
                        file.display()
                    )));
                }
            }
            _ => {
                return Err(refused(format!(
                    "[harness.{name}] in {} already names {cur}; install under another name with --as <name>, or `tlc agent uninstall {name}` first",
                    file.display()
                )))
            }
        }
    }
    let candidate = load_candidate(paths, &cfg, &ctx, r)?;
    Ok(InstallPlan::Review(Box::new(Review {
        candidate,
        name,
        file,
        current,
        cfg,
        ctx,
    })))
}

/// `tlc agent install`, second half (after the review was shown): checks the table would load,
/// confirms, offers the defaults, and commits.
pub(crate) fn apply_install(
    paths: &Paths,
    review: Review,
    opts: &InstallOptions,
    prompter: &mut Prompter,
) -> Result<Installed, AgentError> {
    let Review {
        candidate: c,
        name,
        file,
        current,
        cfg,
        ctx,
    } = review;
    let local = local_table(&cfg, &name);
    check_table(&c, paths, &ctx, &local, &[]).map_err(|e| {
        refused(format!(
            "[harness.{name}] would not load with {}: {e}; nothing was changed",
            c.source()
        ))
    })?;
    let action = if current.is_some() { "rollback" } else { "install" };
    let typed = confirm(
        &c,
        opts,
        prompter,
        &format!("Install {}@{} as [harness.{name}] in {}?", c.name(), short(&c.sha), file.display()),
        false,
    )?;
    let forced = typed.iter().any(|t| t == "typed:force-unsafe");
    let chosen = offer_defaults(&c, paths, &ctx, &local, opts, prompter, None);
    commit(
        paths,
        &cfg,
        &c,
        action,
        &name,
        &file,
        current.and_then(|s| SourceRef::parse(&s).ok()).map(|s| s.sha),
        typed,
        forced,
        chosen,
    )
}
