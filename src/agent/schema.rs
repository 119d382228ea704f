//! The closed schema of a `[harness.<name>]` table: the value keys a package may set, the keys
//! only the operator may set, their types, and the one validator both a hand-written table and a
//! package-resolved one go through (so a package is not a distinct code path).

use super::defaults;
use super::Invalid;
use crate::config::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Adapters tlc knows without an `[adapter.*]` table in the machine tier. Not derived from the
/// hook's providers (`hook::PROVIDERS`, which a domain may not use anyway): an adapter is an agent
/// a package can run, whether tlc answers its hooks or not (`codex`, `aider`), named as packages
/// name it (`claude-code`, where the hook says `claude`).
pub(crate) const BUILTIN_ADAPTERS: &[&str] = &["claude-code", "cursor", "codex", "gemini-cli", "opencode", "aider"];

/// At most one of these may be set on a table.
pub(crate) const PROMPT_KEYS: &[&str] = &["prompt", "prompt_file", "prompt_template", "prompt_template_file"];

/// What a key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyType {
    Str,
    Bool,
    /// An integer of 1 or more.
    Count,
    StrList,
    /// A path (package-relative in a manifest).
    Path,
    /// A list of paths (package-relative in a manifest).
    PathList,
    /// An adapter name.
    Adapter,
    /// A supervision key, validated by [`defaults::check_value`].
    Supervision,
}

/// The value keys a package's `[harness]` may set (and an operator's table too).
pub(crate) const VALUE_KEYS: &[(&str, KeyType)] = &[
    ("harness", KeyType::Adapter),
    ("argv", KeyType::StrList),
    ("model", KeyType::Str),
    ("model_pin", KeyType::Str),
    ("auto_accept", KeyType::Bool),
    ("max_turns", KeyType::Count),
    ("quiet", KeyType::Bool),
    ("system_prompt_file", KeyType::Path),
    ("mcp_config", KeyType::Path),
    ("allowed_tools", KeyType::StrList),
    ("skill_paths", KeyType::PathList),
    ("mcp_bridge", KeyType::Bool),
    ("mcp_exclusive", KeyType::Bool),
    ("mcp_policy", KeyType::Str),
    ("prompt", KeyType::Str),
    ("prompt_file", KeyType::Path),
    ("prompt_template", KeyType::Str),
    ("prompt_template_file", KeyType::Path),
];

/// Keys only an operator's table may hold (never a package's `[harness]`).
pub(crate) const OPERATOR_KEYS: &[(&str, KeyType)] = &[
    ("source", KeyType::Str),
    ("enabled", KeyType::Bool),
    ("env_file", KeyType::Str),
    ("secrets_env", KeyType::StrList),
    ("schedule", KeyType::Supervision),
    ("triggers", KeyType::Supervision),
    ("timeout", KeyType::Supervision),
    ("on_overlap", KeyType::Supervision),
    ("catch_up", KeyType::Supervision),
    ("operating_hours", KeyType::Supervision),
    ("restart", KeyType::Supervision),
    ("restart_delay", KeyType::Supervision),
    ("workdir", KeyType::Supervision),
];

pub(crate) fn value_key(key: &str) -> Option<KeyType> {
    VALUE_KEYS.iter().find(|(k, _)| *k == key).map(|(_, t)| *t)
}

pub(crate) fn table_key(key: &str) -> Option<KeyType> {
    value_key(key).or_else(|| OPERATOR_KEYS.iter().find(|(k, _)| *k == key).map(|(_, t)| *t))
}

/// Checks a value's type (not an adapter's existence, not a package path's rules).
pub(crate) fn check_type(key: &str, kind: KeyType, value: &Value) -> Result<(), Invalid> {
    let found = value.type_name();
    match kind {
        KeyType::Str | KeyType::Path | KeyType::Adapter => value
            .as_str()
            .map(|_| ())
            .ok_or_else(|| Invalid(format!("expected a string, found {found}"))),
        KeyType::Bool => value
            .as_bool()
            .map(|_| ())
            .ok_or_else(|| Invalid(format!("expected a boolean, found {found}"))),
        KeyType::Count => match value {
            Value::Int(i) if *i >= 1 => Ok(()),
            Value::Int(i) => Err(Invalid(format!("expected an integer >= 1, found {i}"))),
            _ => Err(Invalid(format!("expected an integer >= 1, found {found}"))),
        },
        KeyType::StrList | KeyType::PathList => value
            .as_strings()
            .map(|_| ())
            .ok_or_else(|| Invalid(format!("expected an array of strings, found {found}"))),
        KeyType::Supervision => defaults::check_value(key, value),
    }
}

/// What a table is checked against: the adapters and trigger sources the machine tier declares.
#[derive(Debug, Clone, Default)]
pub(crate) struct TableContext {
    /// Names of the machine tier's `[adapter.*]` tables.
    pub adapters: BTreeSet<String>,
    /// `channel.<name>` and `webhook.<name>` tables of the machine tier.
    pub sources: BTreeSet<String>,
}

impl TableContext {
    pub(crate) fn from_config(cfg: &crate::config::Config) -> TableContext {
        let machine = |kind: &str| {
            cfg.named(kind)
                .filter(|t| t.tier == crate::config::Tier::Machine)
                .map(|t| t.name.clone())
                .collect::<Vec<_>>()
        };
        let adapters = machine("adapter").into_iter().collect();
        let mut sources = BTreeSet::new();
        for kind in ["channel", "webhook"] {
            for n in machine(kind) {
                sources.insert(format!("{kind}.{n}"));
            }
        }
        TableContext { adapters, sources }
    }

    pub(crate) fn adapter_known(&self, name: &str) -> bool {
        BUILTIN_ADAPTERS.contains(&name) || self.adapters.contains(name)
    }

    pub(crate) fn adapter_list(&self) -> String {
        BUILTIN_ADAPTERS
            .iter()
            .map(|s| s.to_string())
            .chain(self.adapters.iter().cloned())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Validates an effective harness table (hand-written, or a package's values merged under the
/// table's own). Returns the offending key and why.
pub(crate) fn validate_table(values: &BTreeMap<String, Value>, ctx: &TableContext) -> Result<(), (String, String)> {
    for (key, value) in values {
        let kind = table_key(key).ok_or_else(|| (key.clone(), "unknown key in a harness table".to_string()))?;
        check_type(key, kind, value).map_err(|m| (key.clone(), m.0))?;
        if kind == KeyType::Adapter {
            let name = value.as_str().unwrap_or_default();
            if !ctx.adapter_known(name) {
                return Err((
                    key.clone(),
                    format!(
                        "unknown adapter {name:?} (known: {}; or declare [adapter.{name}] in the machine tier)",
                        ctx.adapter_list()
                    ),
                ));
            }
        }
    }
    if !values.contains_key("harness") {
        return Err((
            "harness".into(),
            "a harness table must select an adapter with `harness = \"<adapter>\"` (or name a package with `source`)".into(),
        ));
    }
    let prompts: Vec<&str> = PROMPT_KEYS.iter().copied().filter(|k| values.contains_key(*k)).collect();
    if prompts.len() > 1 {
        return Err((
            prompts[1].to_string(),
            format!(
                "at most one of {} may be set; found {}",
                PROMPT_KEYS.join(", "),
                prompts.join(" and ")
            ),
        ));
    }
    if let Some(triggers) = values.get("triggers").and_then(Value::as_strings) {
        for t in triggers {
            if !ctx.sources.contains(&t) {
                return Err((
                    "triggers".into(),
                    format!("trigger source {t:?} does not exist: declare [{t}] in the machine tier"),
                ));
            }
        }
    }
    if values.get("enabled").and_then(Value::as_bool) == Some(true) {
        for k in ["schedule", "triggers"] {
            if values.contains_key(k) {
                return Err((
                    "enabled".into(),
                    format!("a harness with `{k}` is started by its {k}; `enabled = true` (autostart) cannot be combined with it"),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn a_table_needs_a_known_adapter_and_one_prompt() {
        let ctx = TableContext::default();
        assert!(validate_table(&table(&[("harness", Value::Str("claude-code".into()))]), &ctx).is_ok());
        let e = validate_table(&table(&[("harness", Value::Str("nope".into()))]), &ctx).unwrap_err();
        assert_eq!(e.0, "harness");
        assert!(e.1.contains("unknown adapter"));
        let e = validate_table(&table(&[("model", Value::Str("x".into()))]), &ctx).unwrap_err();
        assert_eq!(e.0, "harness");
        let two = table(&[
            ("harness", Value::Str("cursor".into())),
            ("prompt", Value::Str("a".into())),
            ("prompt_file", Value::Str("b".into())),
        ]);
        assert!(validate_table(&two, &ctx).unwrap_err().1.contains("at most one"));
        let e = validate_table(&table(&[("harness", Value::Str("cursor".into())), ("colour", Value::Int(1))]), &ctx).unwrap_err();
        assert_eq!(e.0, "colour");
    }

    #[test]
    fn triggers_need_machine_sources_and_enabled_excludes_schedules() {
        let mut ctx = TableContext::default();
        let t = table(&[
            ("harness", Value::Str("cursor".into())),
            ("triggers", Value::List(vec![Value::Str("channel.ops".into())])),
        ]);
        assert!(validate_table(&t, &ctx).unwrap_err().1.contains("channel.ops"));
        ctx.sources.insert("channel.ops".into());
        assert!(validate_table(&t, &ctx).is_ok());
        let t = table(&[
            ("harness", Value::Str("cursor".into())),
            ("enabled", Value::Bool(true)),
            ("schedule", Value::Str("@daily".into())),
        ]);
        assert_eq!(validate_table(&t, &ctx).unwrap_err().0, "enabled");
    }
}
