//! `tlc config show [--origin] [--json]`, `tlc config set KEY VALUE…`, `tlc config unset KEY`.

use super::Ctx;
use crate::cli::OutputArgs;
use crate::render::{self, Cell, Format, Role, Table};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// Print every effective value; with --origin, the tier and file it came from (read-only).
    Show {
        /// Also show the tier and file (with its line) each value came from.
        #[arg(long)]
        origin: bool,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Set a key in the project tier (or with --machine the machine tier), validated against the
    /// key table: `true`, `5`, `1.5`, a word, or the words of a list (an operator's command).
    Set {
        /// The dotted key (`grind.maxLoops`).
        key: String,
        /// The value: one TOML value (`true`, `5`, `"text"`, `["a", "b"]`); for a list key, the
        /// items as separate words; for a string key, the words joined by spaces.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        value: Vec<String>,
        /// Write the machine tier ($TLC_HOME/config.toml) instead of the project's.
        #[arg(long)]
        machine: bool,
    },
    /// Remove a key from the project tier (or with --machine the machine tier): it inherits again.
    Unset {
        /// The dotted key.
        key: String,
        /// Remove it from the machine tier instead of the project's.
        #[arg(long)]
        machine: bool,
    },
}

pub(crate) fn run(ctx: &Ctx, cmd: ConfigCommand) -> anyhow::Result<()> {
    match cmd {
        ConfigCommand::Set { key, value, machine } => set(ctx, &key, Some(&value), machine),
        ConfigCommand::Unset { key, machine } => set(ctx, &key, None, machine),
        ConfigCommand::Show { origin, output } => {
            let output = output.output()?;
            let cfg = ctx.config()?;
            if output.format == Format::Json {
                let mut values = serde_json::Map::new();
                for (spec, value, o) in cfg.entries() {
                    let v = value.to_json();
                    if origin {
                        values.insert(
                            spec.key.to_string(),
                            serde_json::json!({ "value": v, "tier": o.tier.name(), "file": o.file.as_ref().map(|f| f.display().to_string()), "line": o.line }),
                        );
                    } else {
                        values.insert(spec.key.to_string(), v);
                    }
                }
                for t in &cfg.tables {
                    for (k, (v, line)) in &t.entries {
                        let key = format!("{}.{}.{k}", t.kind, t.name);
                        let v = v.to_json();
                        let entry = if origin {
                            serde_json::json!({ "value": v, "tier": t.tier.name(), "file": t.file.display().to_string(), "line": line })
                        } else {
                            v
                        };
                        values.insert(key, entry);
                    }
                }
                return render::json(&serde_json::Value::Object(values));
            }
            let mut t = if origin {
                Table::new(["key", "value", "tier", "file"]).roles([Role::Key, Role::Text, Role::Key, Role::Text])
            } else {
                Table::new(["key", "value"]).roles([Role::Key, Role::Text])
            };
            for (spec, value, o) in cfg.entries() {
                let mut row = vec![Cell::Text(spec.key.to_string()), Cell::Text(value.to_toml_text())];
                if origin {
                    row.push(o.tier.name().into());
                    row.push(match (&o.file, o.line) {
                        (Some(f), Some(l)) => Cell::Text(format!("{}:{l}", f.display())),
                        (Some(f), None) => Cell::Text(f.display().to_string()),
                        _ => Cell::Null,
                    });
                }
                t.push(row);
            }
            for nt in &cfg.tables {
                for (k, (v, line)) in &nt.entries {
                    let mut row = vec![Cell::Text(format!("{}.{}.{k}", nt.kind, nt.name)), Cell::Text(v.to_toml_text())];
                    if origin {
                        row.push(nt.tier.name().into());
                        row.push(Cell::Text(match line {
                            Some(l) => format!("{}:{l}", nt.file.display()),
                            None => nt.file.display().to_string(),
                        }));
                    }
                    t.push(row);
                }
            }
            t.print(output)
        }
    }
}

/// The TOML value `words` give for a key of `kind`: one TOML value when it parses as one of the
/// kind's type, else (a string, an enum, a list) the words as text.
pub(crate) fn parse_value(kind: crate::config::registry::Kind, words: &[String]) -> Result<crate::config::Value, String> {
    use crate::config::registry::Kind;
    use crate::config::Value;
    let joined = words.join(" ");
    let parsed = joined
        .parse::<toml_edit::Value>()
        .ok()
        .and_then(|v| Value::from_item(&toml_edit::Item::Value(v)).ok());
    let candidate = match (kind, parsed) {
        (Kind::StrList, Some(v @ Value::List(_))) => v,
        (Kind::StrList, _) => Value::List(words.iter().map(|w| Value::Str(w.clone())).collect()),
        (Kind::Str | Kind::Enum(_), Some(v @ Value::Str(_))) => v,
        (Kind::Str | Kind::Enum(_), _) => Value::Str(joined),
        (_, Some(v)) => v,
        (_, None) => Value::Str(joined),
    };
    candidate.check(kind).map_err(|e| e.to_string())
}

/// `tlc config set` (with `value`) and `tlc config unset` (without).
fn set(ctx: &Ctx, key: &str, value: Option<&[String]>, machine: bool) -> anyhow::Result<()> {
    use crate::config::registry::{self, Tiers};
    let Some(spec) = registry::spec(key) else {
        let hint = registry::renamed(key).map_or(String::new(), |new| format!(" (it is now `{new}`)"));
        return Err(crate::error::unusable(format!(
            "{key}: not a config key{hint}; `tlc config show` lists them, docs/config.md explains each"
        )));
    };
    if !machine && spec.tiers == Tiers::MachineOnly {
        return Err(crate::error::unusable(format!(
            "{key}: only the machine tier may set it; pass --machine"
        )));
    }
    let toml = match value {
        Some(words) => {
            let v = parse_value(spec.kind, words)
                .map_err(|e| crate::error::unusable(format!("{key}: {e} (it takes {})", spec.kind.describe())))?;
            Some(to_toml(&v))
        }
        None => None,
    };
    let apply = |edit: &mut crate::config::edit::ConfigEdit| -> bool {
        match &toml {
            Some(v) => {
                edit.set(key, v.clone());
                true
            }
            None => edit.remove(key),
        }
    };
    let (path, changed) = if machine {
        let before = super::mutating::snapshot(ctx)?;
        let path = ctx.paths()?.machine_config();
        let mut edit = crate::config::edit::ConfigEdit::open(&path)?;
        let changed = apply(&mut edit);
        edit.save()?;
        super::mutating::rerecord_if_recorded(ctx, &before)?;
        (path, changed)
    } else {
        let m = super::mutating::Mutation::begin(ctx, &format!("config {}", if value.is_some() { "set" } else { "unset" }))?;
        let mut edit = m.project.edit_config()?;
        let changed = apply(&mut edit);
        edit.save()?;
        m.finish()?;
        (edit.path().to_path_buf(), changed)
    };
    match (&toml, changed) {
        (Some(v), _) => render::out(&format!("{key} = {} in {}\n", v.to_string().trim(), path.display())),
        (None, true) => render::out(&format!("{key}: removed from {} (it inherits again)\n", path.display())),
        (None, false) => render::out(&format!("{key}: not set in {}; nothing to remove\n", path.display())),
    }
}

/// A checked value as the TOML the config editor writes.
fn to_toml(v: &crate::config::Value) -> toml_edit::Value {
    use crate::config::Value;
    match v {
        Value::Bool(b) => (*b).into(),
        Value::Int(i) => (*i).into(),
        Value::Float(f) => (*f).into(),
        Value::Off => false.into(),
        Value::Str(s) => s.as_str().into(),
        Value::List(items) => toml_edit::Value::Array(items.iter().map(to_toml).collect()),
        Value::Table(_) => toml_edit::Value::InlineTable(toml_edit::InlineTable::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::registry::Kind;
    use crate::config::Value;

    fn w(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn values_are_read_as_the_key_types_them() {
        assert_eq!(parse_value(Kind::Bool, &w(&["true"])), Ok(Value::Bool(true)));
        assert_eq!(parse_value(Kind::Int { min: 1 }, &w(&["3"])), Ok(Value::Int(3)));
        assert!(parse_value(Kind::Int { min: 1 }, &w(&["0"])).is_err());
        assert!(parse_value(Kind::Bool, &w(&["yes"])).is_err());
        assert_eq!(
            parse_value(Kind::StrList, &w(&["python3", "-m", "pytest"])),
            Ok(Value::List(vec![
                Value::Str("python3".into()),
                Value::Str("-m".into()),
                Value::Str("pytest".into())
            ]))
        );
        assert_eq!(
            parse_value(Kind::StrList, &w(&["[\"a\", \"b c\"]"])),
            Ok(Value::List(vec![Value::Str("a".into()), Value::Str("b c".into())]))
        );
        assert_eq!(
            parse_value(Kind::Enum(&["auto", "never"]), &w(&["never"])),
            Ok(Value::Str("never".into()))
        );
        assert!(parse_value(Kind::Enum(&["auto", "never"]), &w(&["sometimes"])).is_err());
        assert_eq!(parse_value(Kind::Str, &w(&["a", "b"])), Ok(Value::Str("a b".into())));
    }
}
