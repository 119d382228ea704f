//! `tlc db migrate|status|check`.

use super::Ctx;
use crate::render::{self, Cell, Table};
use crate::store::{self, DbKind};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Create or upgrade the project and home databases, and print what was applied.
    Migrate,
    /// Print each database's path, schema version, migrations, size and journal mode (read-only).
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Run integrity_check and foreign_key_check on both databases (read-only; exit 1 on a fault).
    Check {
        #[arg(long)]
        json: bool,
    },
}

pub fn run(ctx: &Ctx, cmd: DbCommand) -> anyhow::Result<()> {
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
        DbCommand::Status { json } => {
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
            if json {
                render::json(&statuses)?;
                return result;
            }
            for st in &statuses {
                if !st.exists {
                    render::out(&format!(
                        "{} database: {} — does not exist (nothing recorded yet)\n",
                        st.database, st.path
                    ))?;
                    continue;
                }
                let mut t = Table::new(["database", "path", "schema", "migrations", "size", "journal"]);
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
                    st.size_bytes
                        .map_or(Cell::Null, |s| Cell::Text(format!("{} bytes", render::thousands(s as i64)))),
                    st.journal_mode.clone().into(),
                ]);
                t.print(render::Format::Table)?;
                if let Some(e) = &st.error {
                    render::out(&format!("  error: {e}\n"))?;
                }
                if let Some(v) = st.schema_version.filter(|v| *v > st.binary_schema_version) {
                    render::out(&format!(
                        "  schema version {v} is newer than this tlc knows (version {}): upgrade tlc\n",
                        st.binary_schema_version
                    ))?;
                }
                for p in &st.problems {
                    render::out(&format!("  {p}\n"))?;
                }
            }
            result
        }
        DbCommand::Check { json } => {
            let mut reports = Vec::new();
            for (kind, path) in &targets {
                reports.push(store::check(*kind, path)?);
            }
            let ok = reports.iter().all(|r| r.ok);
            if json {
                render::json(&serde_json::json!({ "ok": ok, "databases": reports }))?;
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
