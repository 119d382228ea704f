//! `tlc config show [--origin] [--json]`.

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
}

pub(crate) fn run(ctx: &Ctx, cmd: ConfigCommand) -> anyhow::Result<()> {
    match cmd {
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
