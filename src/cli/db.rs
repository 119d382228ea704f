//! `tlc db migrate|status|check`.

use super::Ctx;
use crate::cli::OutputArgs;
use crate::render::{self, Cell, Format, Role, Table};
use crate::store::{self, DbKind};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(crate) enum DbCommand {
    /// Create or upgrade the project and home databases, and print what was applied.
    Migrate,
    /// Print each database's path, schema version, migrations, size and journal mode (read-only).
    Status {
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Run integrity_check and foreign_key_check on both databases (read-only; exit 1 on a fault).
    Check {
        #[command(flatten)]
        output: OutputArgs,
    },
}

pub(crate) fn run(ctx: &Ctx, cmd: DbCommand) -> anyhow::Result<()> {
    let project = ctx.project()?;
    let home_db = ctx.paths()?.home_db();
    let targets = [(DbKind::Project, project.db_path()), (DbKind::Home, home_db)];
    match cmd {
        DbCommand::Migrate => {
            for (kind, path) in &targets {
                let store = store::open_write(*kind, path)?;
                let report = store.migration();
                if report.applied.is_empty() && !report.views_recreated {
                    render::out(&format!(
                        "{} {}: up to date (schema {})\n",
                        kind.name(),
                        path.display(),
                        kind.latest_version()
                    ))?;
                } else {
                    for m in &report.applied {
                        render::out(&format!("{} {}: applied V{}__{}\n", kind.name(), path.display(), m.version, m.name))?;
                    }
                    if report.views_recreated && !kind.views().is_empty() {
                        render::out(&format!(
                            "{} {}: views created ({})\n",
                            kind.name(),
                            path.display(),
                            kind.views().len()
                        ))?;
                    }
                }
            }
            Ok(())
        }
        DbCommand::Status { output } => {
            let output = output.output()?;
            let statuses: Vec<_> = targets.iter().map(|(k, p)| store::status(*k, p)).collect();
            // A database that cannot be read, or that a newer tlc wrote, is unusable input.
            let unusable = statuses
                .iter()
                .any(|s| s.error.is_some() || !s.problems.is_empty() || s.schema_version.is_some_and(|v| v > s.binary_schema_version));
            let result = if unusable {
                Err(crate::error::silent_failure_with(crate::error::ExitKind::Unusable))
            } else {
                Ok(())
            };
            if output.format == Format::Json {
                render::json(&statuses)?;
                return result;
            }
            let human = matches!(output.format, Format::Table | Format::Markdown);
            let mut t = Table::new(["database", "path", "schema", "migrations", "size", "journal"]).roles([
                Role::Key,
                Role::Text,
                Role::Key,
                Role::List,
                Role::Number,
                Role::Key,
            ]);
            for st in &statuses {
                if !st.exists {
                    t.push(vec![
                        st.database.into(),
                        st.path.clone().into(),
                        Cell::Text(if human {
                            "does not exist (nothing recorded yet)".into()
                        } else {
                            String::new()
                        }),
                        Cell::Null,
                        Cell::Null,
                        Cell::Null,
                    ]);
                    continue;
                }
                t.push(vec![
                    st.database.into(),
                    st.path.clone().into(),
                    st.schema_version
                        .map_or(Cell::Null, |v| Cell::Text(format!("{v} (binary {})", st.binary_schema_version))),
                    Cell::Text(
                        st.applied_migrations
                            .iter()
                            .map(|m| format!("V{}__{}", m.version, m.name))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                    st.size_bytes.map_or(Cell::Null, |s| {
                        if human {
                            Cell::Text(format!("{} bytes", render::thousands(s as i64)))
                        } else {
                            Cell::Int(s as i64)
                        }
                    }),
                    st.journal_mode.clone().into(),
                ]);
            }
            t.print(output)?;
            for st in statuses.iter().filter(|_| human) {
                if let Some(e) = &st.error {
                    render::out(&format!("{}: {e}\n", st.path))?;
                }
                if let Some(v) = st.schema_version.filter(|v| *v > st.binary_schema_version) {
                    render::out(&format!(
                        "{}: schema version {v} is newer than this tlc knows (version {}): upgrade tlc\n",
                        st.path, st.binary_schema_version
                    ))?;
                }
                for p in &st.problems {
                    render::out(&format!("  {p}\n"))?;
                }
            }
            result
        }
        DbCommand::Check { output } => {
            let output = output.output()?;
            let mut reports = Vec::new();
            for (kind, path) in &targets {
                reports.push(store::check(*kind, path)?);
            }
            let ok = reports.iter().all(|r| r.ok);
            if output.format == Format::Json {
                render::json(&serde_json::json!({ "ok": ok, "databases": reports }))?;
            } else if output.format != Format::Table {
                let mut t = Table::new(["database", "path", "exists", "ok", "faults"]);
                for r in &reports {
                    let faults: Vec<&str> = r
                        .integrity
                        .iter()
                        .filter(|l| *l != "ok")
                        .chain(&r.foreign_key_faults)
                        .map(String::as_str)
                        .collect();
                    t.push(vec![
                        r.database.into(),
                        r.path.clone().into(),
                        r.exists.into(),
                        r.ok.into(),
                        faults.join("; ").into(),
                    ]);
                }
                t.print(output)?;
            } else {
                for r in &reports {
                    if !r.exists {
                        render::out(&format!("{} {}: does not exist — nothing to check\n", r.database, r.path))?;
                    } else if r.ok {
                        render::out(&format!("{} {}: ok\n", r.database, r.path))?;
                    } else {
                        render::out(&format!("{} {}: FAULT\n", r.database, r.path))?;
                        for line in r
                            .integrity
                            .iter()
                            .filter(|l| *l != "ok")
                            .chain(&r.foreign_key_faults)
                            .chain(&r.schema)
                        {
                            render::out(&format!("  {line}\n"))?;
                        }
                    }
                }
            }
            if ok {
                Ok(())
            } else {
                Err(crate::error::silent_failure())
            }
        }
    }
}
