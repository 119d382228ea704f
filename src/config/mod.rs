//! The three config tiers, nearest wins: the shipped defaults (compiled in), the machine tier
//! (`$TLC_HOME/config.toml`, the operator's alone) and the project tier
//! (`<repo>/.tlc/harness/config.toml`).
//!
//! Loading validates every key: an unknown key, a wrong type, or a table a tier may not declare
//! (`[stable.*]` in a project file) is a [`ConfigError`] naming the file, the key and the line.

pub mod catalog;
pub(crate) mod edit;
// The generator build.rs compiles and runs (`settings.rs`, the default config); the crate itself
// needs it only in the tests that keep docs/config.md and the committed template equal to its
// output. Its generating half runs only in build.rs (and in a test's child build), hence the allow,
// as build.rs has for the half it does not use.
#[cfg(test)]
#[allow(dead_code)]
mod keygen;
pub(crate) mod keys;
pub mod registry;
pub(crate) mod scaffold;
mod settings;
mod value;

pub(crate) use settings::*;
pub use value::Value;
pub(crate) use value::ValueError;

use crate::paths::Paths;
use registry::{KeySpec, Tiers, KEYS, NAMED_TABLES};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The compiled-in template: every key with its default and one line on what it does, generated
/// from `keys.rs` by `build.rs`. It is byte-identical to `docs/config-template.toml` (a test keeps
/// it so).
pub(crate) const TEMPLATE: &str = include_str!(concat!(env!("OUT_DIR"), "/default-config.toml"));

/// A tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Tier {
    Default,
    Machine,
    Project,
}

impl Tier {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tier::Default => "default",
            Tier::Machine => "machine",
            Tier::Project => "project",
        }
    }
}

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct Origin {
    pub tier: Tier,
    /// The file, for the machine and project tiers.
    pub file: Option<PathBuf>,
    /// The line in that file.
    pub line: Option<usize>,
}

/// A config file that could not be used. Names the file, and the key and line where there is one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ConfigError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": key `{}`", shown_key(key))?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A key as an error may print it: a part that looks like a secret pasted where a name goes (long,
/// and mixing letters with digits, as a token does and no key name here does) is cut to its first
/// four characters, so a message never echoes it; the line number still finds it.
pub(crate) fn shown_key(key: &str) -> String {
    key.split('.')
        .map(|part| {
            // A redaction placeholder (`[REDACTED:kind:hash]`) already hides what it stands for.
            let secret_shaped = !part.starts_with("[REDACTED:")
                && part.chars().count() >= 20
                && part.chars().any(|c| c.is_ascii_digit())
                && part.chars().any(|c| c.is_ascii_alphabetic());
            if secret_shaped {
                let head: String = part.chars().take(4).collect();
                format!("{head}…({} characters, not shown: it looks like a secret)", part.chars().count())
            } else {
                part.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

impl std::error::Error for ConfigError {}

/// An operator-named table (`[stable.acme]`, `[harness.pr-reviewer]`): its keys as read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NamedTable {
    pub kind: String,
    pub name: String,
    pub tier: Tier,
    pub file: PathBuf,
    pub line: Option<usize>,
    /// Each key with its value and line.
    pub entries: BTreeMap<String, (Value, Option<usize>)>,
}

impl NamedTable {
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.entries.get(key).map(|(v, _)| v)
    }
}

/// One tier file as read.
#[derive(Debug, Clone)]
pub(crate) struct TierFile {
    pub tier: Tier,
    pub path: PathBuf,
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    values: BTreeMap<&'static str, (Value, Origin)>,
    /// Every value each tier file set, by key (for `doctor`'s restated keys).
    pub declared: Vec<(Tier, &'static str, Value, Option<usize>)>,
    /// Operator-named tables, in tier order (machine first).
    pub tables: Vec<NamedTable>,
    pub files: Vec<TierFile>,
    pub settings: Settings,
    /// Renamed keys a tier file still names: (tier, file, line, old name, new name).
    pub renamed: Vec<Renamed>,
}

/// A renamed key a tier file still names ([`registry::RENAMED`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Renamed {
    pub tier: Tier,
    pub file: PathBuf,
    pub line: Option<usize>,
    pub old: &'static str,
    pub new: &'static str,
}

/// Every registered key at its shipped default.
fn default_values() -> BTreeMap<&'static str, (Value, Origin)> {
    KEYS.iter()
        .map(|s| {
            let origin = Origin {
                tier: Tier::Default,
                file: None,
                line: None,
            };
            (s.key, (Value::from_default(s.default), origin))
        })
        .collect()
}

impl Config {
    /// The shipped defaults alone.
    pub(crate) fn defaults() -> Config {
        Self::build(default_values(), Vec::new(), Vec::new(), Vec::new())
    }

    fn build(
        values: BTreeMap<&'static str, (Value, Origin)>,
        declared: Vec<(Tier, &'static str, Value, Option<usize>)>,
        tables: Vec<NamedTable>,
        files: Vec<TierFile>,
    ) -> Config {
        let settings = Settings::from_values(&|k: &str| values.get(k).map(|(v, _)| v));
        Config {
            values,
            declared,
            tables,
            files,
            settings,
            renamed: Vec::new(),
        }
    }

    /// Loads the machine tier and, unless `root` is the home itself, the project tier.
    pub(crate) fn load(paths: &Paths) -> Result<Config, ConfigError> {
        let machine = paths.machine_config();
        let project = if paths.root_overlaps_home() {
            None
        } else {
            Some(paths.project_config())
        };
        Self::load_files(&machine, project.as_deref())
    }

    /// Loads the given tier files (a missing file is an empty tier).
    pub(crate) fn load_files(machine: &Path, project: Option<&Path>) -> Result<Config, ConfigError> {
        Self::load_files_with(machine, project, &|_| None)
    }

    /// [`Config::load`] with some tiers' bytes given instead of read (`Some(None)`: absent): the
    /// policy a session was baselined with, when a file changed under it.
    pub(crate) fn load_with(paths: &Paths, given: &dyn Fn(&Path) -> Option<Option<Vec<u8>>>) -> Result<Config, ConfigError> {
        let machine = paths.machine_config();
        let project = if paths.root_overlaps_home() {
            None
        } else {
            Some(paths.project_config())
        };
        Self::load_files_with(&machine, project.as_deref(), given)
    }

    fn load_files_with(
        machine: &Path,
        project: Option<&Path>,
        given: &dyn Fn(&Path) -> Option<Option<Vec<u8>>>,
    ) -> Result<Config, ConfigError> {
        let mut values = default_values();
        let mut declared = Vec::new();
        let mut tables = Vec::new();
        let mut files = Vec::new();
        let mut renamed = Vec::new();
        let tiers = [(Tier::Machine, Some(machine)), (Tier::Project, project)];
        for (tier, path) in tiers {
            let Some(path) = path else { continue };
            // A FIFO, a device or a huge file is never read (see `fsread`): the tier does not load.
            let bytes = match given(path) {
                Some(bytes) => bytes,
                None => {
                    crate::fsread::read_capped(path, crate::fsread::CONFIG_CAP, crate::fsread::Links::Follow).map_err(|e| ConfigError {
                        file: path.to_path_buf(),
                        line: None,
                        key: None,
                        message: e.reason(),
                    })?
                }
            };
            if let Some(bytes) = &bytes {
                let parsed = parse_tier(tier, path, bytes)?;
                for (key, value, line) in parsed.values {
                    values.insert(
                        key,
                        (
                            value.clone(),
                            Origin {
                                tier,
                                file: Some(path.to_path_buf()),
                                line,
                            },
                        ),
                    );
                    declared.push((tier, key, value, line));
                }
                tables.extend(parsed.tables);
                renamed.extend(parsed.renamed);
            }
            files.push(TierFile {
                tier,
                path: path.to_path_buf(),
            });
        }
        let mut config = Self::build(values, declared, tables, files);
        config.renamed = renamed;
        Ok(config)
    }

    /// The effective value of `key` and where it came from.
    pub(crate) fn get(&self, key: &str) -> Option<&(Value, Origin)> {
        self.values.get(key)
    }

    /// Every effective value, in template order.
    pub(crate) fn entries(&self) -> Vec<(&'static KeySpec, &Value, &Origin)> {
        KEYS.iter().filter_map(|s| self.values.get(s.key).map(|(v, o)| (s, v, o))).collect()
    }

    /// Named tables of one kind (`"stable"`, `"harness"`, ...), machine tier first.
    pub(crate) fn named(&self, kind: &str) -> impl Iterator<Item = &NamedTable> {
        let kind = kind.to_string();
        self.tables.iter().filter(move |t| t.kind == kind)
    }

    /// The value `key` would have without the project tier (what a project key restates).
    pub(crate) fn inherited(&self, key: &str) -> Option<Value> {
        let spec = registry::spec(key)?;
        let machine = self.declared.iter().rev().find(|(t, k, _, _)| *t == Tier::Machine && *k == key);
        Some(
            machine
                .map(|(_, _, v, _)| v.clone())
                .unwrap_or_else(|| Value::from_default(spec.default)),
        )
    }
}

struct ParsedTier {
    values: Vec<(&'static str, Value, Option<usize>)>,
    tables: Vec<NamedTable>,
    renamed: Vec<Renamed>,
}

/// 1-based line of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|b| **b == b'\n').count() + 1
}

/// The text the parser reads: each whole-line comment blanked to its line ending, so every line
/// keeps its number (and every error its line). A scaffolded project config is mostly
/// commented-out reference, and parsing those comments was two thirds of the config load on the
/// hook path. Kept as written: a file with a multi-line string (a `#` line may belong to it) and
/// a comment line holding a control character (the parser must still reject it).
fn blank_comment_lines(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    if memchr::memmem::find(bytes, b"\"\"\"").is_some() || memchr::memmem::find(bytes, b"'''").is_some() {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    while start < text.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(text.len(), |i| start + i + 1);
        let line = &text[start..end];
        let body = line.strip_suffix('\n').unwrap_or(line);
        let body = body.strip_suffix('\r').unwrap_or(body);
        // TOML whitespace is space and tab only; TOML forbids U+0000-U+0008, U+000A-U+001F and
        // U+007F in a comment.
        let is_comment = body.trim_start_matches([' ', '\t']).starts_with('#');
        // A fold rather than `any`: it vectorises, and comment lines rarely hold a control byte.
        if is_comment && !body.bytes().fold(false, |bad, b| bad | ((b < 0x20 && b != b'\t') || b == 0x7f)) {
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
        start = end;
    }
    out.into()
}

fn parse_tier(tier: Tier, path: &Path, bytes: &[u8]) -> Result<ParsedTier, ConfigError> {
    let err = |line: Option<usize>, key: Option<String>, message: String| ConfigError {
        file: path.to_path_buf(),
        line,
        key,
        message,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| err(None, None, format!("not UTF-8 text: {e}")))?;
    let text = &*blank_comment_lines(text);
    let doc = toml_edit::Document::parse(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        let msg = e.message().trim().to_string();
        err(line, None, format!("TOML syntax error: {msg}"))
    })?;
    let mut out = ParsedTier {
        values: Vec::new(),
        tables: Vec::new(),
        renamed: Vec::new(),
    };
    walk(tier, path, text, "", doc.as_table(), &mut out)?;
    Ok(out)
}

fn span_line(text: &str, item: &toml_edit::Item, key: Option<&toml_edit::Key>) -> Option<usize> {
    key.and_then(|k| k.span()).or_else(|| item.span()).map(|s| line_of(text, s.start))
}

fn walk(tier: Tier, path: &Path, text: &str, prefix: &str, table: &toml_edit::Table, out: &mut ParsedTier) -> Result<(), ConfigError> {
    let err = |line: Option<usize>, key: &str, message: String| ConfigError {
        file: path.to_path_buf(),
        line,
        key: Some(key.to_string()),
        message,
    };
    for (key, item) in table.iter() {
        let full = if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        };
        let key_repr = table.key(key);
        let line = span_line(text, item, key_repr).or_else(|| table.span().map(|s| line_of(text, s.start)));
        if prefix.is_empty() {
            if let Some((kind, tiers)) = NAMED_TABLES.iter().find(|(k, _)| *k == key) {
                if *tiers == Tiers::MachineOnly && tier != Tier::Machine {
                    return Err(err(
                        line,
                        &full,
                        format!("[{kind}.*] may only be declared in the machine tier ($TLC_HOME/config.toml), not in a project config"),
                    ));
                }
                let Some(inner) = item.as_table_like() else {
                    return Err(err(line, &full, format!("expected a table of [{kind}.<name>] tables")));
                };
                for (name, named) in inner.iter() {
                    let nline = span_line(text, named, inner.key(name)).or(line);
                    let Some(body) = named.as_table_like() else {
                        return Err(err(nline, &format!("{kind}.{name}"), "expected a table".into()));
                    };
                    let mut entries = BTreeMap::new();
                    for (k, v) in body.iter() {
                        let vline = span_line(text, v, body.key(k)).or(nline);
                        let value = Value::from_item(v).map_err(|m| err(vline, &format!("{kind}.{name}.{k}"), m.to_string()))?;
                        entries.insert(k.to_string(), (value, vline));
                    }
                    out.tables.push(NamedTable {
                        kind: kind.to_string(),
                        name: name.to_string(),
                        tier,
                        file: path.to_path_buf(),
                        line: nline,
                        entries,
                    });
                }
                continue;
            }
        }
        let new_name = registry::renamed(&full);
        if let Some(spec) = registry::spec(new_name.unwrap_or(&full)) {
            if let Some(new) = new_name {
                out.renamed.push(Renamed {
                    tier,
                    file: path.to_path_buf(),
                    line,
                    old: registry::RENAMED.iter().find(|(o, _)| *o == full).map_or(new, |(o, _)| *o),
                    new,
                });
            }
            if spec.tiers == Tiers::MachineOnly && tier != Tier::Machine {
                return Err(err(
                    line,
                    &full,
                    "may only be set in the machine tier ($TLC_HOME/config.toml)".into(),
                ));
            }
            let value = Value::from_item(item)
                .and_then(|v| v.check(spec.kind))
                .map_err(|m| err(line, &full, m.to_string()))?;
            out.values.push((spec.key, value, line));
            continue;
        }
        if registry::is_section(&full) {
            if let Some(t) = item.as_table() {
                walk(tier, path, text, &full, t, out)?;
                continue;
            }
            if let Some(t) = item.as_inline_table() {
                let t = t.clone().into_table();
                walk(tier, path, text, &full, &t, out)?;
                continue;
            }
            return Err(err(line, &full, "expected a table".into()));
        }
        return Err(err(line, &full, "unknown key".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod shown_key_tests {
    #[test]
    fn a_secret_shaped_key_is_never_echoed() {
        let token = "ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l1234";
        let shown = super::shown_key(&format!("grind.{token}"));
        assert!(!shown.contains(token) && shown.starts_with("grind.ghp_…("), "{shown}");
        assert_eq!(super::shown_key("shipGate.claimWindowMinutes"), "shipGate.claimWindowMinutes");
        assert_eq!(
            super::shown_key("intelligence.lessons.decayLambda"),
            "intelligence.lessons.decayLambda"
        );
    }
}
