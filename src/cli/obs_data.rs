//! `tlc obs export`, `views`, `prune` and `import jsonl`.

use super::Ctx;
use crate::cli::OutputArgs;
use crate::gate::turn::TurnStore;
use crate::gate::GateStore;
use crate::obs::export::{ExportFormat, Views, Window};
use crate::obs::{import::Importer, EventStore, Spool};
use crate::policy::claims::ClaimStore;
use crate::policy::integrity::IntegrityStore;
use crate::render::{self, Cell, Format, Output, Role, Table};
use crate::store::{self, DbKind, PruneCount};
use anyhow::Context;
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub(crate) struct ExportArgs {
    /// The view to export (see `tlc obs views`).
    pub view: String,
    /// Which database to read (default: the project database inside a repository, the home
    /// database outside one).
    #[arg(long, value_enum)]
    pub db: Option<DbArg>,
    /// Print as csv (the default), json, jsonl, table or markdown.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Print JSON (the same as `--format json`).
    #[arg(long)]
    pub json: bool,
    /// Only rows at or after this time (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub since: Option<String>,
    /// Only rows at or before this time (a date includes its whole day).
    #[arg(long)]
    pub until: Option<String>,
    /// Write to FILE instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// CSV: write text cells as stored, without the `'` that keeps a spreadsheet from reading a
    /// cell starting `=`, `+`, `-` or `@` as a formula.
    #[arg(long)]
    pub raw: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum DbArg {
    /// The repository's database (`.tlc/tlc.db`).
    Project,
    /// The home database (prices, transcripts' usage, the spool of every repository).
    Home,
}

/// The database `tlc obs export` reads: the one named, else the only one holding `view`, else
/// (the cost views are in both) the project database inside a repository and the home database
/// outside one.
fn export_db(ctx: &Ctx, view: &str, asked: Option<DbArg>) -> anyhow::Result<DbKind> {
    let has = |k: DbKind| k.views().iter().any(|(name, _)| *name == view);
    let list = |k: DbKind| k.views().iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
    let asked = asked.map(|a| match a {
        DbArg::Project => DbKind::Project,
        DbArg::Home => DbKind::Home,
    });
    match asked {
        Some(k) if has(k) => Ok(k),
        Some(k) => Err(crate::error::unusable(format!(
            "the {} database has no view named {view:?}; its views: {}",
            k.name(),
            list(k)
        ))),
        None => match (has(DbKind::Project), has(DbKind::Home)) {
            (true, true) => Ok(if ctx.paths()?.in_git { DbKind::Project } else { DbKind::Home }),
            (true, false) => Ok(DbKind::Project),
            (false, true) => Ok(DbKind::Home),
            (false, false) => Err(crate::error::unusable(format!(
                "no view named {view:?}; project database views: {}; home database views: {}",
                list(DbKind::Project),
                list(DbKind::Home)
            ))),
        },
    }
}

pub(crate) fn export(ctx: &Ctx, a: ExportArgs) -> anyhow::Result<()> {
    let output = OutputArgs {
        format: a.format,
        json: a.json,
        wide: false,
    }
    .output_or(Format::Csv)?;
    let kind = export_db(ctx, &a.view, a.db)?;
    let window = Window::parse(a.since.as_deref(), a.until.as_deref())?;
    let path = match kind {
        DbKind::Project => ctx.project()?.db_path(),
        DbKind::Home => ctx.paths()?.home_db(),
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
    let context = || format!("view {} of the {} database {}", a.view, kind.name(), path.display());
    let run = |format: ExportFormat, out: &mut dyn Write| Views::new(conn).export(&a.view, &window, format, out).with_context(context);
    let text_for_people = matches!(output.format, Format::Table | Format::Markdown);
    let mut sink: Box<dyn Write> = match &a.out {
        Some(file) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(file).map_err(|e| crate::error::refused(format!("{}: cannot write: {e}", file.display())))?,
        )),
        // Printed: escaped like every other output (`render::escape`); a file gets the data as it is.
        None => Box::new(render::Escaped::new(
            std::io::BufWriter::new(std::io::stdout().lock()),
            output.is_json(),
        )),
    };
    let n = if text_for_people {
        // A table is laid out from every row, so this form is read whole before it is drawn.
        let mut buf = Vec::new();
        let n = run(ExportFormat::Jsonl, &mut buf)?;
        let cols = Views::new(conn).columns(&a.view).with_context(context)?;
        let table = table_from_jsonl(&cols, &buf)?;
        sink.write_all(table.render(output)?.as_bytes()).or_else(ignore_broken_pipe)?;
        n
    } else {
        let format = match output.format {
            Format::Json => ExportFormat::Json,
            Format::Jsonl => ExportFormat::Jsonl,
            _ if a.raw => ExportFormat::CsvRaw,
            _ => ExportFormat::Csv,
        };
        match run(format, &mut sink) {
            Err(e) if is_broken_pipe(&e) => 0,
            other => other?,
        }
    };
    sink.flush().or_else(ignore_broken_pipe)?;
    if let Some(file) = &a.out {
        eprintln!("exported {n} rows of {} ({} database) to {}", a.view, kind.name(), file.display());
    }
    Ok(())
}

fn ignore_broken_pipe(e: std::io::Error) -> std::io::Result<()> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(e)
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// A table from JSON lines (one object per row) under `cols`.
fn table_from_jsonl(cols: &[String], buf: &[u8]) -> anyhow::Result<Table> {
    let mut t = Table::new(cols.iter().cloned());
    for line in buf.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let obj: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(line)?;
        t.push(cols.iter().map(|c| obj.get(c).map_or(Cell::Null, Cell::from_json)).collect());
    }
    Ok(t)
}

pub(crate) fn views(output: Output) -> anyhow::Result<()> {
    let mut t = Table::new(["database", "view", "columns"]).roles([Role::Key, Role::Key, Role::Prose]);
    let mut all = Vec::new();
    for kind in [DbKind::Project, DbKind::Home] {
        let conn = store::in_memory(kind)?;
        for (name, _) in kind.views() {
            let cols = Views::new(&conn).columns(name)?;
            t.push(vec![kind.name().into(), (*name).into(), cols.join(", ").into()]);
            all.push(serde_json::json!({"database": kind.name(), "view": name, "columns": cols}));
        }
    }
    if output.format == Format::Json {
        return render::json(&all);
    }
    t.print(output)
}

pub(crate) fn prune(ctx: &Ctx, dry_run: bool, output: Output) -> anyhow::Result<()> {
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
            counts.push(crate::policy::untrusted::UntrustedStore::new(conn).count_prunable(&cutoff)?);
            counts.push(crate::policy::rules::ProofStore::new(conn).count_prunable(&cutoff)?);
            counts.extend(TurnStore::new(conn).count_prunable(&cutoff)?);
            counts.extend(crate::lesson::LessonStore::new(conn, DbKind::Project).count_prunable(&cutoff)?);
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
            counts.push(crate::policy::untrusted::UntrustedStore::new(&tx).prune(&cutoff)?);
            counts.push(crate::policy::rules::ProofStore::new(&tx).prune(&cutoff)?);
            counts.extend(TurnStore::new(&tx).prune(&cutoff)?);
            counts.extend(crate::lesson::LessonStore::new(&tx, DbKind::Project).prune(&cutoff)?);
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
    if output.format == Format::Json {
        return render::json(&serde_json::json!({
            "dry_run": dry_run,
            "retention_days": days,
            "cutoff": cutoff,
            "dropped": rows.iter().map(|(db, t, n)| serde_json::json!({"database": db, "table": t, "rows": n})).collect::<Vec<_>>(),
        }));
    }
    let verb = if output.format != Format::Table {
        "rows"
    } else if dry_run {
        "would drop"
    } else {
        "dropped"
    };
    if output.format == Format::Table {
        render::out(&format!("retention {days} days: records before {cutoff}\n"))?;
        if rows.is_empty() {
            return render::out("nothing recorded: no database to prune\n");
        }
    }
    let mut t = Table::new(["database", "table", verb]);
    for (db, table, n) in rows {
        t.push(vec![db.into(), table.into(), n.into()]);
    }
    t.print(output)
}

/// The project tables in the order `obs prune` lists them (events and decisions keep the order
/// their domain gave: decisions are deleted first, but counted after events).
fn in_prune_order(mut counts: Vec<PruneCount>) -> Vec<PruneCount> {
    const ORDER: [&str; 13] = [
        "events",
        "sessions",
        "gate_runs",
        "ship_ledger",
        "open_spans",
        "policy_baselines",
        "file_claims",
        "untrusted_content",
        "rule_proofs",
        "stop_outcomes",
        "turns",
        "lesson_injections",
        "lesson_garden_log",
    ];
    let rank = |t: &str| ORDER.iter().position(|o| *o == t || (t == "decisions" && *o == "events"));
    counts.sort_by_key(|c| rank(c.table));
    counts
}

pub(crate) fn import_jsonl(ctx: &Ctx, files: &[PathBuf], output: Output) -> anyhow::Result<()> {
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
    let mut progress = render::Progress::bytes("importing", total);
    let counts = {
        let gates = GateStore::new(&ptx);
        let mut importer = Importer::new(&ptx, Some(&htx))
            .with_gates(&gates)
            .with_sender(crate::hook::provider::sender);
        for f in files {
            // Streamed whole (no cap), but never a FIFO or a device: a regular file ends.
            let file = crate::fsread::open_regular(f, crate::fsread::Links::Follow).map_err(|e| crate::error::unusable(e.to_string()))?;
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
    match output.format {
        Format::Json => return render::json(&counts),
        Format::Table => {}
        _ => {
            let mut t = Table::new([
                "lines",
                "observability",
                "audit",
                "ship_ledger",
                "spool",
                "attestation",
                "gate_runs",
                "duplicates",
                "malformed",
                "unrecognised",
            ]);
            t.push(vec![
                (counts.lines as i64).into(),
                (counts.observability as i64).into(),
                (counts.audit as i64).into(),
                (counts.ship_ledger as i64).into(),
                (counts.spool as i64).into(),
                (counts.attestation as i64).into(),
                (counts.gate_runs as i64).into(),
                (counts.duplicates as i64).into(),
                (counts.malformed as i64).into(),
                (counts.unrecognised as i64).into(),
            ]);
            return t.print(output);
        }
    }
    render::out(&format!(
        "imported {} lines: {} observability, {} audit, {} ship-ledger, {} spool, {} attestation ({} new gate runs); {} already imported, {} malformed, {} unrecognised\n",
        counts.lines,
        counts.observability,
        counts.audit,
        counts.ship_ledger,
        counts.spool,
        counts.attestation,
        counts.gate_runs,
        counts.duplicates,
        counts.malformed,
        counts.unrecognised
    ))?;
    match spooled {
        Some(line) => render::out(&line),
        None => Ok(()),
    }
}
