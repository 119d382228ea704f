//! `tlc init`'s questions at a terminal: one per opt-in of the capability catalog
//! (`config::catalog`), asked by the kind of its key, each with the value in force as the default.
//! The answers are only returned: `init` writes them after the last one, so a wizard left with
//! Ctrl-C writes nothing.

use crate::config::catalog::{self, OptIn};
use crate::config::registry::{KeySpec, Kind};
use crate::config::{Config, Value};
use crate::gate::{self, detect, Gate};
use dialoguer::theme::SimpleTheme;
use dialoguer::{Confirm, Input, Select};
use std::path::Path;

/// One key the operator chose a value for that differs from the value in force.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub key: &'static str,
    pub value: Value,
}

/// Asks every opt-in of the catalog on the terminal (stderr draws, the terminal's keys answer);
/// returns the answers that change something, in catalog order.
pub(crate) fn ask(cfg: &Config, root: &Path) -> anyhow::Result<Vec<Answer>> {
    eprintln!(
        "tlc init: the optional features, one question each; Enter keeps the value shown (in force now).\n\
         Only what you change is written; everything else stays inherited. Ctrl-C leaves writing nothing.\n"
    );
    let mut answers = Vec::new();
    for opt in catalog::CATALOG {
        let Some(spec) = opt.spec() else { continue };
        let chosen = ask_key(cfg, root, opt, spec, false, &mut answers)?;
        if chosen == Value::from_default(spec.default) {
            continue;
        }
        for then in opt.then {
            if let Some(s) = crate::config::registry::spec(then) {
                ask_key(cfg, root, opt, s, true, &mut answers)?;
            }
        }
    }
    Ok(answers)
}

/// Asks one key, records the answer when it changes the value in force, and returns it.
fn ask_key(
    cfg: &Config,
    root: &Path,
    opt: &OptIn,
    spec: &'static KeySpec,
    follow_up: bool,
    answers: &mut Vec<Answer>,
) -> anyhow::Result<Value> {
    let current = cfg
        .get(spec.key)
        .map(|(v, _)| v.clone())
        .unwrap_or_else(|| Value::from_default(spec.default));
    let gate = [Gate::Test, Gate::Lint, Gate::Docs].into_iter().find(|g| g.key() == spec.key);
    let label = match (follow_up, gate) {
        (true, Some(g)) => format!("  {} command ({})", g.as_str(), spec.key),
        (true, None) => format!("  {} ({})", spec.doc.trim_end_matches('.'), spec.key),
        (false, _) => format!("{}: {} ({})", opt.feature, spec.doc.trim_end_matches('.'), spec.key),
    };
    let chosen = match (spec.kind, gate) {
        (Kind::Bool, _) => Value::Bool(
            Confirm::with_theme(&SimpleTheme)
                .with_prompt(label)
                .default(current.as_bool().unwrap_or(false))
                .interact()
                .map_err(cancelled)?,
        ),
        (Kind::Enum(values), _) => {
            let now = current.as_str().unwrap_or_default();
            let items: Vec<String> = values
                .iter()
                .map(|v| if *v == now { format!("{v} (in force)") } else { (*v).to_string() })
                .collect();
            let at = values.iter().position(|v| *v == now).unwrap_or(0);
            let i = Select::with_theme(&SimpleTheme)
                .with_prompt(label)
                .items(&items)
                .default(at)
                .interact()
                .map_err(cancelled)?;
            Value::Str(values[i].to_string())
        }
        (Kind::StrList, Some(g)) => strings(command(&label, g, current.as_strings().unwrap_or_default(), root)?),
        (Kind::StrList, None) => strings(words(&label, current.as_strings().unwrap_or_default(), follow_up)?),
        // The catalog holds switches, choices and lists only (a unit test keeps it so).
        _ => current.clone(),
    };
    if chosen != current {
        answers.push(Answer {
            key: spec.key,
            value: chosen.clone(),
        });
    }
    Ok(chosen)
}

fn strings(list: Vec<String>) -> Value {
    Value::List(list.into_iter().map(Value::Str).collect())
}

/// A gate's argv: the one in force, the repository's suggestions (`gate::detect`), none, or one
/// typed.
fn command(label: &str, g: Gate, current: Vec<String>, root: &Path) -> anyhow::Result<Vec<String>> {
    let mut items: Vec<(String, Option<Vec<String>>)> = Vec::new();
    if !current.is_empty() {
        items.push((format!("{} (in force)", current.join(" ")), Some(current.clone())));
    }
    for s in detect::suggestions(root, g) {
        if s.argv != current {
            items.push((format!("{} (from {})", s.argv.join(" "), s.because), Some(s.argv)));
        }
    }
    if items.is_empty() {
        return typed_command(label, g);
    }
    items.push(("none".into(), Some(Vec::new())));
    items.push(("another command…".into(), None));
    let names: Vec<&str> = items.iter().map(|(n, _)| n.as_str()).collect();
    let i = Select::with_theme(&SimpleTheme)
        .with_prompt(label)
        .items(&names)
        .default(0)
        .interact()
        .map_err(cancelled)?;
    match &items[i].1 {
        Some(argv) => Ok(argv.clone()),
        None => typed_command(label, g),
    }
}

/// A command typed at the prompt, split at spaces (no quoting); empty is none. Its program must
/// resolve on `PATH`, as `tlc gate test-command` requires.
fn typed_command(label: &str, g: Gate) -> anyhow::Result<Vec<String>> {
    let typed: String = Input::with_theme(&SimpleTheme)
        .with_prompt(format!("{label}, empty for none"))
        .allow_empty(true)
        .validate_with(move |t: &String| -> Result<(), String> {
            match t.split_whitespace().next() {
                None => Ok(()),
                Some(p) if gate::resolve_on_path(p).is_some() => Ok(()),
                Some(p) => Err(format!("`{p}` does not resolve on PATH: the {} gate could not run it", g.as_str())),
            }
        })
        .interact_text()
        .map_err(cancelled)?;
    Ok(typed.split_whitespace().map(str::to_string).collect())
}

/// A list of words (models), separated by commas or spaces. Asked after a switch, it must name
/// one: the switch would enforce nothing without it.
fn words(label: &str, current: Vec<String>, needed: bool) -> anyhow::Result<Vec<String>> {
    let typed: String = Input::with_theme(&SimpleTheme)
        .with_prompt(format!("{label}, separated by commas"))
        .with_initial_text(current.join(", "))
        // Empty passes to the validator, which says why it is refused.
        .allow_empty(true)
        .validate_with(move |t: &String| -> Result<(), String> {
            if needed && split_words(t).is_empty() {
                Err("name at least one: an empty list enforces nothing".into())
            } else {
                Ok(())
            }
        })
        .interact_text()
        .map_err(cancelled)?;
    Ok(split_words(&typed))
}

fn split_words(t: &str) -> Vec<String> {
    t.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn cancelled(e: dialoguer::Error) -> anyhow::Error {
    crate::error::refused(format!("the init questions stopped ({e}); nothing was written"))
}

/// `v` as a TOML value for the config editor.
pub(crate) fn toml_value(v: &Value) -> toml_edit::Value {
    match v {
        Value::Bool(b) => (*b).into(),
        Value::Int(i) => (*i).into(),
        Value::Float(f) => (*f).into(),
        Value::Str(s) => s.as_str().into(),
        Value::List(items) => toml_edit::Value::Array(items.iter().map(toml_value).collect()),
        Value::Off => false.into(),
        Value::Table(map) => {
            let mut t = toml_edit::InlineTable::new();
            for (k, x) in map {
                t.insert(k, toml_value(x));
            }
            toml_edit::Value::InlineTable(t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_asks_only_kinds_the_wizard_knows() {
        for opt in catalog::CATALOG {
            for key in std::iter::once(&opt.key).chain(opt.then.iter()) {
                let spec = crate::config::registry::spec(key).unwrap();
                assert!(
                    matches!(spec.kind, Kind::Bool | Kind::Enum(_) | Kind::StrList),
                    "{key}: the wizard has no question for {:?}",
                    spec.kind
                );
            }
        }
    }

    #[test]
    fn words_split_at_commas_and_spaces() {
        assert_eq!(split_words(" opus, sonnet-4-5  haiku,,"), ["opus", "sonnet-4-5", "haiku"]);
        assert!(split_words(" , ").is_empty());
    }

    #[test]
    fn values_become_the_toml_the_loader_reads_back() {
        let v = Value::List(vec![Value::Str("cargo".into()), Value::Str("test".into())]);
        assert_eq!(toml_value(&v).to_string(), r#"["cargo", "test"]"#);
        assert_eq!(toml_value(&Value::Bool(true)).to_string(), "true");
    }
}
