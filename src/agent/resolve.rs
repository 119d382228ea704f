//! Resolution at config load: a `[harness.<name>]` table with `source` takes the pinned
//! package's `[harness]` values from the local pin store only (never the network, never a
//! stable's clone), layers the table's own keys over them (nearest wins), and validates the
//! result with the same validator as a hand-written table. `[defaults]` is never applied.

use super::manifest::{self, Manifest};
use super::pins::{self, SourceRef};
use super::records::ResolutionEvent;
use super::schema::{self, KeyType, TableContext};
use crate::config::{Config, ConfigError, Tier, Value};
use crate::paths::Paths;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where an effective key came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct KeyOrigin {
    /// `local` (the operator's table) or `package` (the pin).
    pub origin: &'static str,
    pub file: Option<PathBuf>,
    pub line: Option<usize>,
}

/// A harness table as it takes effect.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedHarness {
    pub name: String,
    /// The nearest file declaring the table.
    pub file: PathBuf,
    pub tier: Tier,
    pub source: Option<SourceRef>,
    pub pin_dir: Option<PathBuf>,
    pub manifest: Option<Manifest>,
    pub values: BTreeMap<String, (Value, KeyOrigin)>,
}

/// A package's `[harness]` values with package paths made absolute inside the pin.
pub(crate) fn package_values(m: &Manifest, pin: &Path, has_skills_dir: bool) -> BTreeMap<String, Value> {
    let abs = |p: &str| Value::Str(pin.join(p.trim_start_matches("./")).display().to_string());
    let mut out = BTreeMap::new();
    for (k, v) in &m.harness {
        let v = match schema::value_key(k) {
            Some(KeyType::Path) => abs(v.as_str().unwrap_or_default()),
            Some(KeyType::PathList) => Value::List(v.as_strings().unwrap_or_default().iter().map(|p| abs(p)).collect()),
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    if m.requests.skill_paths && has_skills_dir {
        let bundle = abs("skills");
        let list = out.entry("skill_paths".to_string()).or_insert_with(|| Value::List(Vec::new()));
        if let Value::List(items) = list {
            if !items.contains(&bundle) {
                items.push(bundle);
            }
        }
    }
    out
}

/// The local keys of every table named `name`, machine tier first so the project's win.
type Nearest = Option<(PathBuf, Option<usize>, Tier)>;

pub(super) fn local_entries(cfg: &Config, name: &str) -> (BTreeMap<String, (Value, KeyOrigin)>, Nearest) {
    let mut values = BTreeMap::new();
    let mut nearest = None;
    for t in cfg.named("harness").filter(|t| t.name == name) {
        for (k, (v, line)) in &t.entries {
            values.insert(
                k.clone(),
                (
                    v.clone(),
                    KeyOrigin {
                        origin: "local",
                        file: Some(t.file.clone()),
                        line: *line,
                    },
                ),
            );
        }
        nearest = Some((t.file.clone(), t.line, t.tier));
    }
    (values, nearest)
}

/// Merges a package's values under local ones.
pub(crate) fn merge(
    local: &BTreeMap<String, (Value, KeyOrigin)>,
    package: Option<&BTreeMap<String, Value>>,
) -> BTreeMap<String, (Value, KeyOrigin)> {
    let mut out: BTreeMap<String, (Value, KeyOrigin)> = package
        .map(|p| {
            p.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        (
                            v.clone(),
                            KeyOrigin {
                                origin: "package",
                                file: None,
                                line: None,
                            },
                        ),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    for (k, v) in local {
        out.insert(k.clone(), v.clone());
    }
    out
}

fn err(file: &Path, line: Option<usize>, key: String, message: String) -> ConfigError {
    ConfigError {
        file: file.to_path_buf(),
        line,
        key: Some(key),
        message,
    }
}

/// Resolves one table name. `events` receives a history row when the table names a source.
pub(crate) fn resolve_one(
    paths: &Paths,
    cfg: &Config,
    ctx: &TableContext,
    name: &str,
    events: &mut Vec<ResolutionEvent>,
) -> Result<ResolvedHarness, ConfigError> {
    let (local, nearest) = local_entries(cfg, name);
    let (file, line, tier) = nearest.unwrap_or_else(|| (paths.machine_config(), None, Tier::Machine));
    let mut resolved = ResolvedHarness {
        name: name.to_string(),
        file: file.clone(),
        tier,
        source: None,
        pin_dir: None,
        manifest: None,
        values: BTreeMap::new(),
    };
    let source_entry = local.get("source").cloned();
    let mut package = None;
    if let Some((value, origin)) = &source_entry {
        let sfile = origin.file.clone().unwrap_or(file.clone());
        let key = format!("harness.{name}.source");
        let text = value.as_str().ok_or_else(|| {
            err(
                &sfile,
                origin.line,
                key.clone(),
                format!("expected a string, found {}", value.type_name()),
            )
        })?;
        let mut event = ResolutionEvent {
            config_file: sfile.display().to_string(),
            table_name: name.to_string(),
            source: text.to_string(),
            outcome: "resolved",
            detail: None,
        };
        let src = match SourceRef::parse(text) {
            Ok(s) => s,
            Err(e) => {
                event.outcome = "invalid";
                event.detail = Some(e.to_string());
                events.push(event);
                return Err(err(&sfile, origin.line, key, e.to_string()));
            }
        };
        if !pins::has_pin(paths, &src) {
            let msg = format!(
                "[harness.{name}] source {text:?}: pin {src} is not installed on this machine (nothing was fetched; install it with `tlc agent install {}@{}`)",
                src.package_ref(),
                src.sha
            );
            event.outcome = "missing";
            event.detail = Some(msg.clone());
            events.push(event);
            return Err(err(&sfile, origin.line, key, msg));
        }
        let files = match pins::read_pin_manifest(paths, &src) {
            Ok(f) => f,
            Err(e) => {
                event.outcome = "invalid";
                event.detail = Some(e.to_string());
                events.push(event);
                return Err(err(&sfile, origin.line, key, e.to_string()));
            }
        };
        let parsed = files
            .manifest_text()
            .map_err(|e| {
                vec![manifest::ManifestError {
                    key: "package.toml".into(),
                    line: None,
                    message: e.to_string(),
                }]
            })
            .and_then(|t| manifest::parse(t, Some(&files), ctx));
        let m = match parsed {
            Ok(m) => m,
            Err(errors) => {
                let msg = format!(
                    "[harness.{name}] source {text:?}: the pinned manifest does not load:\n{}",
                    manifest::describe_errors(&errors)
                );
                event.outcome = "invalid";
                event.detail = Some(msg.clone());
                events.push(event);
                return Err(err(&sfile, origin.line, key, msg));
            }
        };
        let dir = pins::pin_dir(paths, &src);
        package = Some(package_values(&m, &dir, files.has_dir("skills")));
        resolved.source = Some(src);
        resolved.pin_dir = Some(dir);
        resolved.manifest = Some(m);
        events.push(event);
    }
    resolved.values = merge(&local, package.as_ref());
    let plain: BTreeMap<String, Value> = resolved.values.iter().map(|(k, (v, _))| (k.clone(), v.clone())).collect();
    if let Err((key, message)) = schema::validate_table(&plain, ctx) {
        let (kfile, kline) = match resolved.values.get(&key) {
            Some((_, o)) if o.origin == "local" => (o.file.clone().unwrap_or(file.clone()), o.line),
            _ => (file.clone(), line),
        };
        let from = match (&resolved.source, resolved.values.get(&key).map(|(_, o)| o.origin)) {
            (Some(src), Some("package")) => format!(" (value from the pinned package {src})"),
            _ => String::new(),
        };
        if let Some(last) = events.last_mut().filter(|e| e.table_name == name) {
            last.outcome = "invalid";
            last.detail = Some(format!("{key}: {message}"));
        }
        return Err(err(&kfile, kline, format!("harness.{name}.{key}"), format!("{message}{from}")));
    }
    Ok(resolved)
}

/// Resolves and validates every harness table, appending one history row per table that names
/// a source (only when the home database already exists). The first failure is the error.
pub(crate) fn resolve_config(paths: &Paths, cfg: &Config) -> Result<Vec<ResolvedHarness>, ConfigError> {
    let ctx = TableContext::from_config(cfg);
    let mut names: Vec<String> = Vec::new();
    for t in cfg.named("harness") {
        if !names.contains(&t.name) {
            names.push(t.name.clone());
        }
    }
    let mut events = Vec::new();
    let mut out = Vec::new();
    let mut first_err = None;
    for name in names {
        match resolve_one(paths, cfg, &ctx, &name, &mut events) {
            Ok(r) => out.push(r),
            Err(e) => {
                if first_err.is_none() {
                    first_err = Some(e);
                }
            }
        }
    }
    // The history is best-effort: a locked or unwritable home database never hides the answer.
    let _ = super::records::append_resolutions(&paths.home_db(), &events);
    match first_err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// This project's tier file (read here; written only through the scaffold's editor).
pub(crate) fn project_tier_file(paths: &Paths) -> PathBuf {
    paths.project_config()
}
