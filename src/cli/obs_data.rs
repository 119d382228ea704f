//! `tlc obs export`, `views`, `prune` and `import jsonl`.

use super::obs::{ExportArgs, ExportFormatArg};
use super::Ctx;
use crate::gate::turn::TurnStore;
use crate::gate::GateStore;
use crate::obs::export::{ExportFormat, Views, Window};
use crate::obs::{import::Importer, EventStore, Spool};
use crate::policy::claims::ClaimStore;
use crate::policy::integrity::IntegrityStore;
use crate::render::{self, Format, Table};
use crate::store::{self, DbKind, PruneCount};
use anyhow::Context;
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// Which database holds `view`.
fn view_db(view: &str) -> Option<DbKind> {
    [DbKind::Project, DbKind::Home]
        .into_iter()
        .find(|k| k.views().iter().any(|(name, _)| *name == view))
}

pub fn export(ctx: &Ctx, a: ExportArgs) -> anyhow::Result<()> {
    let Some(kind) = view_db(&a.view) else {
        let names: Vec<&str> = DbKind::Project
            .views()
            .iter()
            .chain(DbKind::Home.views())
            .map(|(n, _)| *n)
            .collect();
        return Err(crate::error::unusable(format!(
            "no view named {:?}; views: {}",
            a.view,
            names.join(", ")
        )));
    };
    let window = Window::parse(a.since.as_deref(), a.until.as_deref())?;
    let path = match kind {
        DbKind::Project => ctx.project()?.db_path(),
        DbKind::Home => ctx.paths()?.home_db(),
    };
    let format = match a.format {
        ExportFormatArg::Csv => ExportFormat::Csv,
        ExportFormatArg::Json => ExportFormat::Json,
    };
    let store = store::open_read(kind, &path)?;
    // With nothing recorded the export is still well-formed: the header (or []) from an in-memory schema.
    let memory;
    let conn: &rusqlite::Connection = match &store {
        Some(s) => s.conn(),
        None => {
            memory = store::in_memory(kind)?;
            &memory
        }
    };
    let run = |out: &mut dyn Write| {
        Views::new(conn)
            .export(&a.view, &window, format, out)
            .with_context(|| format!("view {}", a.view))
    };
    match &a.out {
        Some(file) => {
            let mut f = std::io::BufWriter::new(
                std::fs::File::create(file).map_err(|e| crate::error::refused(format!("{}: cannot write: {e}", file.display())))?,
            );
            let n = run(&mut f)?;
            f.flush()?;
            eprintln!("exported {n} rows of {} to {}", a.view, file.display());
            Ok(())
        }
        None => {
            let stdout = std::io::stdout();
            // Printed: escaped like every other output (`render::escape`); a file gets the data as it is.
            let mut lock = render::Escaped::new(std::io::BufWriter::new(stdout.lock()), format == ExportFormat::Json);
            run(&mut lock)?;
            match lock.flush() {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => Ok(other?),
            }
        }
    }
}

pub fn views(json: bool) -> anyhow::Result<()> {
    let mut t = Table::new(["view", "database", "columns"]);
    let mut all = Vec::new();
    for kind in [DbKind::Project, DbKind::Home] {
        let conn = store::in_memory(kind)?;
        for (name, _) in kind.views() {
            let cols = Views::new(&conn).columns(name)?;
            t.push(vec![(*name).into(), kind.name().into(), cols.join(", ").into()]);
            all.push(serde_json::json!({"view": name, "database": kind.name(), "columns": cols}));
        }
    }
    if json {
        return render::json(&all);
    }
    t.print(Format::Table)
}

pub fn prune(ctx: &Ctx, dry_run: bool, json: bool) -> anyhow::Result<()> {
    let cfg = ctx.config()?;
    let days = cfg.settings.obs.retention_days;
    let cutoff = crate::clock::stamp(crate::clock::now() - chrono::Duration::days(days));
    let project_db = ctx.project()?.db_path();
    let home_db = ctx.paths()?.home_db();
    let mut rows: Vec<(String, &'static str, i64)> = Vec::new();
    if project_db.is_file() {
        let counts = if dry_run {
            let store =
                store::open_read(DbKind::Project, &project_db)?.ok_or_else(|| crate::error::unusable("project database vanished"))?;
            let conn = store.conn();
            let mut counts = EventStore::new(conn).count_prunable(&cutoff)?;
            counts.push(GateStore::new(conn).count_prunable(&cutoff)?);
            counts.push(IntegrityStore::new(conn).count_prunable(&cutoff)?);
            counts.push(ClaimStore::new(conn).count_prunable(&cutoff)?);
            counts.extend(TurnStore::new(conn).count_prunable(&cutoff)?);
            counts
        } else {
            // Each domain prunes its own tables, all in one transaction.
            let mut store = store::open_write(DbKind::Project, &project_db)?;
            let tx = store
                .conn_mut()
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let mut counts = EventStore::new(&tx).prune(&cutoff)?;
            counts.push(GateStore::new(&tx).prune(&cutoff)?);
            counts.push(ClaimStore::new(&tx).prune(&cutoff)?);
            counts.push(IntegrityStore::new(&tx).prune(&cutoff)?);
            counts.extend(TurnStore::new(&tx).prune(&cutoff)?);
            // A ship cursor past the ids the prune kept would skip the rows SQLite numbers next.
            crate::ship::ShipStore::new(&tx).clamp_after_prune()?;
            tx.commit()?;
            if counts.iter().any(|c| c.rows > 0) {
                store.vacuum()?;
            }
            counts
        };
        rows.extend(in_prune_order(counts).into_iter().map(|c| ("project".to_string(), c.table, c.rows)));
    }
    if home_db.is_file() {
        let c = if dry_run {
            let store = store::open_read(DbKind::Home, &home_db)?.ok_or_else(|| crate::error::unusable("home database vanished"))?;
            Spool::new(store.conn()).count_prunable(&cutoff)?
        } else {
            let mut store = store::open_write(DbKind::Home, &home_db)?;
            let tx = store
                .conn_mut()
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let c = Spool::new(&tx).prune(&cutoff)?;
            tx.commit()?;
            if c.rows > 0 {
                store.vacuum()?;
            }
            c
        };
        rows.push(("home".to_string(), c.table, c.rows));
    }
    if json {
        return render::json(&serde_json::json!({
            "dry_run": dry_run,
            "retention_days": days,
            "cutoff": cutoff,
            "dropped": rows.iter().map(|(db, t, n)| serde_json::json!({"database": db, "table": t, "rows": n})).collect::<Vec<_>>(),
        }));
    }
    let verb = if dry_run { "would drop" } else { "dropped" };
    render::out(&format!("retention {days} days: records before {cutoff}\n"))?;
    if rows.is_empty() {
        return render::out("nothing recorded: no database to prune\n");
    }
    let mut t = Table::new(["database", "table", verb]);
    for (db, table, n) in rows {
        t.push(vec![db.into(), table.into(), n.into()]);
    }
    t.print(Format::Table)
}

/// The project tables in the order `obs prune` lists them (events and decisions keep the order
/// their domain gave: decisions are deleted first, but counted after events).
fn in_prune_order(mut counts: Vec<PruneCount>) -> Vec<PruneCount> {
    const ORDER: [&str; 9] = [
        "events",
        "sessions",
        "gate_runs",
        "ship_ledger",
        "open_spans",
        "policy_baselines",
        "file_claims",
        "stop_outcomes",
        "turns",
    ];
    let rank = |t: &str| ORDER.iter().position(|o| *o == t || (t == "decisions" && *o == "events"));
    counts.sort_by_key(|c| rank(c.table));
    counts
}

pub fn import_jsonl(ctx: &Ctx, files: &[PathBuf], json: bool) -> anyhow::Result<()> {
    for f in files {
        if !f.is_file() {
            return Err(crate::error::unusable(format!("{}: no such file", f.display())));
        }
    }
    let project = ctx.project()?;
    let mut pstore = store::open_write(DbKind::Project, &project.db_path())?;
    let mut hstore = store::open_write(DbKind::Home, &ctx.paths()?.home_db())?;
    let ptx = pstore
        .conn_mut()
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let htx = hstore
        .conn_mut()
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let total: u64 = files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();
    let mut progress = render::Progress::new("importing", total);
    let counts = {
        let mut importer = Importer::new(&ptx, Some(&htx));
        for f in files {
            let file = std::fs::File::open(f).map_err(|e| crate::error::unusable(format!("{}: {e}", f.display())))?;
            let reader = std::io::BufReader::with_capacity(1 << 20, file);
            for line in reader.split(b'\n') {
                let line = line.map_err(|e| crate::error::unusable(format!("{}: {e}", f.display())))?;
                progress.inc(line.len() as u64 + 1);
                importer.line(&String::from_utf8_lossy(&line))?;
            }
        }
        importer.counts
    };
    progress.finish();
    ptx.commit()?;
    htx.commit()?;
    drop((pstore, hstore));
    let spooled = super::obs_spool::catch_up_when_on(ctx)?;
    if json {
        return render::json(&counts);
    }
    render::out(&format!(
        "imported {} lines: {} observability, {} audit, {} ship-ledger, {} spool; {} already imported, {} malformed, {} unrecognised\n",
        counts.lines,
        counts.observability,
        counts.audit,
        counts.ship_ledger,
        counts.spool,
        counts.duplicates,
        counts.malformed,
        counts.unrecognised
    ))?;
    match spooled {
        Some(line) => render::out(&line),
        None => Ok(()),
    }
}
