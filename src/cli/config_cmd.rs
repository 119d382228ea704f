//! `tlc config show [--origin] [--json]`.

use super::Ctx;
use crate::render::{self, Cell, Table};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print every effective value; with --origin, the tier and file it came from (read-only).
    Show {
        #[arg(long)]
        origin: bool,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(ctx: &Ctx, cmd: ConfigCommand) -> anyhow::Result<()> {
    match cmd {
        ConfigCommand::Show { origin, json } => {
            let cfg = ctx.config()?;
            if json {
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
                return render::json(&serde_json::Value::Object(values));
            }
            let mut t = if origin {
                Table::new(["key", "value", "tier", "file"])
            } else {
                Table::new(["key", "value"])
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
            t.print(render::Format::Table)
        }
    }
}
