//! `package.toml`: the narrowed, declarative manifest. Everything here is a pure function of the
//! manifest's text, the package's file list and the machine tier's adapters, so `agent info`,
//! install, `stable lint` and the config load of a pin all refuse exactly the same things.

use super::defaults;
use super::files::{check_package_path, PackageFiles};
use super::schema::{self, KeyType, TableContext};
use crate::config::{line_of, Value};
use std::collections::BTreeMap;

/// One thing wrong with a manifest: the key (or table) it is about, where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ManifestError {
    pub key: String,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "package.toml:{l}: `{}`: {}", self.key, self.message),
            None => write!(f, "package.toml: `{}`: {}", self.key, self.message),
        }
    }
}

/// Joins errors into one message, one per line.
pub(crate) fn describe_errors(errors: &[ManifestError]) -> String {
    errors.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n")
}

/// What a package asks for, shown itemised before anything is installed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Requests {
    pub skill_paths: bool,
    pub mcp_allow: Vec<String>,
    pub network: bool,
}

impl Requests {
    pub(crate) fn wants_mcp_write(&self) -> bool {
        self.mcp_allow.iter().any(|a| a == "write")
    }

    /// The asks in plain language.
    pub(crate) fn itemised(&self) -> Vec<String> {
        let mut out = Vec::new();
        out.push(if self.skill_paths {
            "skill_paths: add this package's bundled skills/ to the harness's skill paths (lowest tier)".to_string()
        } else {
            "skill_paths: no bundled skills are added".to_string()
        });
        out.push(match (self.mcp_allow.iter().any(|a| a == "read"), self.wants_mcp_write()) {
            (_, true) => "mcp_allow: MCP servers may READ AND WRITE (write scope needs you to re-type the package name)".to_string(),
            (true, false) => "mcp_allow: MCP servers may read".to_string(),
            _ => "mcp_allow: no MCP access requested".to_string(),
        });
        out.push(if self.network {
            "network: asks for network access".to_string()
        } else {
            "network: no network access requested".to_string()
        });
        out
    }
}

/// A validated manifest.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Manifest {
    /// The manifest verbatim.
    pub text: String,
    pub name: String,
    pub version: Option<String>,
    pub description: Option<String>,
    pub author: Option<String>,
    pub homepage: Option<String>,
    /// `[harness]`: value keys only.
    pub harness: BTreeMap<String, Value>,
    pub requests: Requests,
    /// `[defaults]`: suggestions, inert at config load.
    pub defaults: BTreeMap<String, Value>,
}

impl Manifest {
    /// The defaults in the fixed order install offers them.
    pub(crate) fn ordered_defaults(&self) -> Vec<(&'static str, &Value)> {
        defaults::DEFAULT_KEYS
            .iter()
            .filter_map(|k| self.defaults.get(*k).map(|v| (*k, v)))
            .collect()
    }
}

const PACKAGE_KEYS: &[&str] = &["name", "version", "description", "author", "homepage"];
const FORBIDDEN_ANYWHERE: &[&str] = &["env_file", "secrets_env"];

/// `^[a-z][a-z0-9-]*$`.
pub(crate) fn valid_package_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Parses and validates a manifest. Every problem is reported, each naming its key or table.
pub(crate) fn parse(text: &str, files: Option<&PackageFiles>, ctx: &TableContext) -> Result<Manifest, Vec<ManifestError>> {
    let mut errors = Vec::new();
    let doc = match toml_edit::Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            let line = e.span().map(|s| line_of(text, s.start));
            return Err(vec![ManifestError {
                key: "package.toml".into(),
                line,
                message: format!("TOML syntax error: {}", e.message().trim()),
            }]);
        }
    };
    let line = |item: &toml_edit::Item, key: Option<&toml_edit::Key>| {
        key.and_then(|k| k.span()).or_else(|| item.span()).map(|s| line_of(text, s.start))
    };
    let root = doc.as_table();

    // Walk everything first for the bans that hold anywhere.
    scan_bans(text, "", root, &mut errors);

    let mut m = Manifest {
        text: text.to_string(),
        name: String::new(),
        version: None,
        description: None,
        author: None,
        homepage: None,
        harness: BTreeMap::new(),
        requests: Requests::default(),
        defaults: BTreeMap::new(),
    };
    let mut seen_harness = false;
    for (key, item) in root.iter() {
        let kline = line(item, root.key(key));
        let Some(table) = item.as_table_like() else {
            errors.push(ManifestError {
                key: key.to_string(),
                line: kline,
                message: "unknown key: a manifest holds only the tables [package], [harness], [requests] and [defaults]".into(),
            });
            continue;
        };
        let entries = || table.iter().map(|(k, v)| (k.to_string(), v, line(v, table.key(k)).or(kline)));
        match key {
            "package" => {
                for (k, v, l) in entries() {
                    let full = format!("package.{k}");
                    if !PACKAGE_KEYS.contains(&k.as_str()) {
                        if !FORBIDDEN_ANYWHERE.contains(&k.as_str()) {
                            errors.push(ManifestError {
                                key: full,
                                line: l,
                                message: format!("unknown key (allowed: {})", PACKAGE_KEYS.join(", ")),
                            });
                        }
                        continue;
                    }
                    match v.as_str() {
                        Some(s) => {
                            let owned = s.to_string();
                            let s = Some(owned.clone());
                            match k.as_str() {
                                "name" => m.name = owned,
                                "version" => m.version = s,
                                "description" => m.description = s,
                                "author" => m.author = s,
                                _ => m.homepage = s,
                            }
                        }
                        None => errors.push(ManifestError {
                            key: full,
                            line: l,
                            message: "expected a string".into(),
                        }),
                    }
                }
                if m.name.is_empty() {
                    errors.push(ManifestError {
                        key: "package.name".into(),
                        line: kline,
                        message: "is required".into(),
                    });
                } else if !valid_package_name(&m.name) {
                    errors.push(ManifestError {
                        key: "package.name".into(),
                        line: kline,
                        message: format!("{:?} does not match ^[a-z][a-z0-9-]*$", m.name),
                    });
                }
            }
            "harness" => {
                seen_harness = true;
                for (k, v, l) in entries() {
                    let full = format!("harness.{k}");
                    if FORBIDDEN_ANYWHERE.contains(&k.as_str()) {
                        continue;
                    }
                    let Some(kind) = schema::value_key(&k) else {
                        let why = if schema::table_key(&k).is_some() {
                            format!("`{k}` is the operator's to set on their own table; a package may suggest supervision values only under [defaults]")
                        } else {
                            "unknown key: not a harness value key a package may set".to_string()
                        };
                        errors.push(ManifestError {
                            key: full,
                            line: l,
                            message: why,
                        });
                        continue;
                    };
                    let value = match Value::from_item(v) {
                        Ok(v) => v,
                        Err(e) => {
                            errors.push(ManifestError {
                                key: full,
                                line: l,
                                message: e.to_string(),
                            });
                            continue;
                        }
                    };
                    if let Err(e) = schema::check_type(&k, kind, &value) {
                        errors.push(ManifestError {
                            key: full,
                            line: l,
                            message: e.to_string(),
                        });
                        continue;
                    }
                    match kind {
                        KeyType::Adapter => {
                            let name = value.as_str().unwrap_or_default();
                            if !ctx.adapter_known(name) {
                                errors.push(ManifestError {
                                    key: full.clone(),
                                    line: l,
                                    message: format!(
                                        "unknown adapter {name:?}: a package selects an adapter (one of {}), it never defines one",
                                        ctx.adapter_list()
                                    ),
                                });
                            }
                        }
                        KeyType::Path => {
                            if let Err(e) = check_package_path(value.as_str().unwrap_or_default(), files) {
                                errors.push(ManifestError {
                                    key: full.clone(),
                                    line: l,
                                    message: e.to_string(),
                                });
                            }
                        }
                        KeyType::PathList => {
                            for p in value.as_strings().unwrap_or_default() {
                                if let Err(e) = check_package_path(&p, files) {
                                    errors.push(ManifestError {
                                        key: full.clone(),
                                        line: l,
                                        message: e.to_string(),
                                    });
                                }
                            }
                        }
                        _ => {}
                    }
                    m.harness.insert(k, value);
                }
                if !m.harness.contains_key("harness") && !table.contains_key("harness") {
                    errors.push(ManifestError {
                        key: "harness.harness".into(),
                        line: kline,
                        message: "is required: it selects the adapter".into(),
                    });
                }
                let prompts: Vec<&str> = schema::PROMPT_KEYS.iter().copied().filter(|k| table.contains_key(k)).collect();
                if prompts.len() > 1 {
                    errors.push(ManifestError {
                        key: format!("harness.{}", prompts[1]),
                        line: kline,
                        message: format!(
                            "at most one of {} may be set; found {}",
                            schema::PROMPT_KEYS.join(", "),
                            prompts.join(" and ")
                        ),
                    });
                }
            }
            "requests" => {
                for (k, v, l) in entries() {
                    let full = format!("requests.{k}");
                    let value = Value::from_item(v).unwrap_or(Value::Off);
                    match k.as_str() {
                        "skill_paths" | "network" => match value.as_bool() {
                            Some(b) if k == "network" => m.requests.network = b,
                            Some(b) => m.requests.skill_paths = b,
                            None => errors.push(ManifestError {
                                key: full,
                                line: l,
                                message: "expected a boolean".into(),
                            }),
                        },
                        "mcp_allow" => {
                            let list = match &value {
                                Value::Str(s) => Some(vec![s.clone()]),
                                other => other.as_strings(),
                            };
                            match list {
                                Some(list) if list.iter().all(|a| a == "read" || a == "write") => m.requests.mcp_allow = list,
                                _ => errors.push(ManifestError {
                                    key: full,
                                    line: l,
                                    message: "expected \"read\", \"write\" or a list of them".into(),
                                }),
                            }
                        }
                        other if FORBIDDEN_ANYWHERE.contains(&other) => {}
                        _ => errors.push(ManifestError {
                            key: full,
                            line: l,
                            message: "unknown key (allowed: skill_paths, mcp_allow, network)".into(),
                        }),
                    }
                }
            }
            "defaults" => {
                for (k, v, l) in entries() {
                    let full = format!("defaults.{k}");
                    if FORBIDDEN_ANYWHERE.contains(&k.as_str()) {
                        continue;
                    }
                    if k == "enabled" {
                        errors.push(ManifestError {
                            key: full,
                            line: l,
                            message: "a package may never suggest `enabled`: it must not start itself".into(),
                        });
                        continue;
                    }
                    if !defaults::DEFAULT_KEYS.contains(&k.as_str()) {
                        errors.push(ManifestError {
                            key: full,
                            line: l,
                            message: format!("unknown key (allowed: {})", defaults::DEFAULT_KEYS.join(", ")),
                        });
                        continue;
                    }
                    let value = match Value::from_item(v) {
                        Ok(v) => v,
                        Err(e) => {
                            errors.push(ManifestError {
                                key: full,
                                line: l,
                                message: e.to_string(),
                            });
                            continue;
                        }
                    };
                    if let Err(e) = defaults::check_value(&k, &value) {
                        errors.push(ManifestError {
                            key: full,
                            line: l,
                            message: e.to_string(),
                        });
                        continue;
                    }
                    m.defaults.insert(k, value);
                }
            }
            other => {
                let names: Vec<String> = table
                    .iter()
                    .filter(|(_, v)| v.is_table_like())
                    .map(|(n, _)| format!("[{other}.{n}]"))
                    .collect();
                let shown = if names.is_empty() { format!("[{other}]") } else { names.join(", ") };
                errors.push(ManifestError {
                    key: other.to_string(),
                    line: kline,
                    message: format!(
                        "table {shown} is not allowed in a package manifest (only [package], [harness], [requests] and [defaults])"
                    ),
                });
            }
        }
    }
    if !root.contains_key("package") {
        errors.push(ManifestError {
            key: "package".into(),
            line: None,
            message: "the [package] table is required".into(),
        });
    }
    if !seen_harness {
        errors.push(ManifestError {
            key: "harness".into(),
            line: None,
            message: "the [harness] table is required".into(),
        });
    }
    if errors.is_empty() {
        Ok(m)
    } else {
        errors.sort_by_key(|e| e.line.unwrap_or(0));
        errors.dedup();
        Err(errors)
    }
}

/// `env_file`/`secrets_env` at any depth, and any string containing `${`.
fn scan_bans(text: &str, prefix: &str, table: &dyn toml_edit::TableLike, errors: &mut Vec<ManifestError>) {
    for (k, item) in table.iter() {
        let full = if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        };
        let l = table
            .key(k)
            .and_then(|key| key.span())
            .or_else(|| item.span())
            .map(|s| line_of(text, s.start));
        if FORBIDDEN_ANYWHERE.contains(&k) {
            errors.push(ManifestError {
                key: full.clone(),
                line: l,
                message: format!("`{k}` is forbidden in a package: credentials are only ever added by the operator, on their own table"),
            });
        }
        if let Some(t) = item.as_table_like() {
            scan_bans(text, &full, t, errors);
        } else if let Ok(v) = Value::from_item(item) {
            if contains_interpolation(&v) {
                errors.push(ManifestError {
                    key: full,
                    line: l,
                    message: "a string containing `${` is forbidden in a package (no environment or secret references)".into(),
                });
            }
        }
    }
}

fn contains_interpolation(v: &Value) -> bool {
    match v {
        Value::Str(s) => s.contains("${"),
        Value::List(items) => items.iter().any(contains_interpolation),
        Value::Table(map) => map.values().any(contains_interpolation),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLEAN: &str = r#"[package]
name = "pr-reviewer"
version = "1.4.0"
description = "Reviews PRs"
homepage = "https://example.com/pr-reviewer"

[harness]
harness = "claude-code"
auto_accept = true
system_prompt_file = "prompt.md"

[requests]
skill_paths = true
mcp_allow = ["read"]
network = false

[defaults]
schedule = "CRON_TZ=UTC 30 9 * * *"
timeout = "45m"
"#;

    fn ctx() -> TableContext {
        TableContext::default()
    }

    fn errors(text: &str) -> Vec<ManifestError> {
        parse(text, None, &ctx()).unwrap_err()
    }

    #[test]
    fn a_clean_manifest_parses() {
        let m = parse(CLEAN, None, &ctx()).unwrap();
        assert_eq!(m.name, "pr-reviewer");
        assert_eq!(m.harness.get("harness"), Some(&Value::Str("claude-code".into())));
        assert_eq!(m.requests.mcp_allow, vec!["read".to_string()]);
        assert_eq!(
            m.ordered_defaults().iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            vec!["schedule", "timeout"]
        );
    }

    #[test]
    fn forbidden_keys_and_tables_are_named() {
        let cases: &[(&str, &str, &str)] = &[
            ("[harness]\nenv_file = \".env\"\n", "harness.env_file", "forbidden"),
            ("[requests]\nsecrets_env = [\"A\"]\n", "requests.secrets_env", "forbidden"),
            ("[harness]\nmodel = \"${MODEL}\"\n", "harness.model", "${"),
            ("[adapter.x]\ncommand = \"sh\"\n", "adapter", "[adapter.x]"),
            ("[stable.y]\nremote = \"x\"\n", "stable", "[stable.y]"),
            ("[server]\nport = 1\n", "server", "[server]"),
            ("[harness]\nschedule = \"@daily\"\n", "harness.schedule", "[defaults]"),
            ("[harness]\nfrobnicate = 1\n", "harness.frobnicate", "unknown key"),
            (
                "[harness]\nsystem_prompt_file = \"/etc/passwd\"\n",
                "harness.system_prompt_file",
                "absolute",
            ),
            ("[harness]\nprompt_file = \"../x.md\"\n", "harness.prompt_file", ".."),
            ("[harness]\nskill_paths = [\"~/skills\"]\n", "harness.skill_paths", "`~`"),
            ("[defaults]\nenabled = true\n", "defaults.enabled", "enabled"),
            ("[defaults]\nenv_file = \"x\"\n", "defaults.env_file", "forbidden"),
            ("[defaults]\ntimeout = \"-5m\"\n", "defaults.timeout", "negative"),
            ("[defaults]\nschedule = \"${CRON}\"\n", "defaults.schedule", "${"),
        ];
        let base = "[package]\nname = \"p\"\n\n[harness]\nharness = \"cursor\"\n";
        for (extra, key, msg) in cases {
            let text = if extra.starts_with("[harness]") {
                format!("[package]\nname = \"p\"\n\n{extra}harness = \"cursor\"\n")
            } else {
                format!("{base}{extra}")
            };
            let errs = errors(&text);
            let hit = errs
                .iter()
                .find(|e| e.key == *key)
                .unwrap_or_else(|| panic!("{key} not named in {errs:?}"));
            assert!(hit.to_string().contains(msg), "{hit}");
            assert!(hit.line.is_some(), "{hit}");
        }
    }

    #[test]
    fn adapters_are_selected_never_defined() {
        let e = errors("[package]\nname = \"p\"\n[harness]\nharness = \"evil\"\n");
        assert_eq!(e[0].key, "harness.harness");
        let mut c = ctx();
        c.adapters.insert("evil".into());
        assert!(parse("[package]\nname = \"p\"\n[harness]\nharness = \"evil\"\n", None, &c).is_ok());
        let e = errors("[package]\nname = \"Bad_Name\"\n[harness]\nharness = \"cursor\"\n");
        assert_eq!(e[0].key, "package.name");
    }
}
