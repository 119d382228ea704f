//! `tlc obs cost` and `tlc obs import transcripts` (wired into [`super::obs::ObsCommand`]).

use super::Ctx;
use crate::cost::catalog::PriceCatalog;
use crate::cost::import::{Import, ImportSummary, Options};
use crate::cost::report::{CostBy, CostFilter, CostReport, CostReports, CostRow};
use crate::render::{self, Cell, Format, Progress, Table};
use crate::store::{self, DbKind, Store};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CostArgs {
    /// What each row is.
    #[arg(long, value_enum, default_value_t = CostBy::Day)]
    pub by: CostBy,
    /// First day included (YYYY-MM-DD, UTC).
    #[arg(long)]
    pub since: Option<String>,
    /// Last day included (YYYY-MM-DD, UTC).
    #[arg(long)]
    pub until: Option<String>,
    /// Only this project (a repository's name; a transcript naming no working directory keeps
    /// Claude Code's folder slug, which starts with `-`).
    #[arg(long, allow_hyphen_values = true)]
    pub project: Option<String>,
    /// Read the current project's database instead of the home database.
    #[arg(long)]
    pub here: bool,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Same as `--format json`.
    #[arg(long)]
    pub json: bool,
}

/// The day of `--since`/`--until`: a date, or a time whose UTC day is taken.
fn day_arg(flag: &str, v: Option<String>) -> anyhow::Result<Option<String>> {
    match v {
        None => Ok(None),
        Some(s) => {
            let t = crate::clock::parse(&s).map_err(|e| crate::error::unusable(format!("--{flag}: {e}")))?;
            Ok(Some(crate::clock::stamp(t)[..10].to_string()))
        }
    }
}

fn default_dirs() -> anyhow::Result<Vec<PathBuf>> {
    if let Some(v) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        let v = v.to_string_lossy().into_owned();
        return Ok(v
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| PathBuf::from(s).join("projects"))
            .collect());
    }
    match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        Some(h) => Ok(vec![PathBuf::from(h).join(".claude").join("projects")]),
        None => Err(crate::error::unusable(
            "neither CLAUDE_CONFIG_DIR nor HOME is set: name the transcripts folder",
        )),
    }
}

pub(super) fn import(ctx: &Ctx, dir: Option<PathBuf>) -> anyhow::Result<()> {
    let dirs = match dir {
        Some(d) => vec![d],
        None => default_dirs()?,
    };
    for d in &dirs {
        if !d.is_dir() {
            return Err(crate::error::unusable(format!("{}: no such transcripts folder", d.display())));
        }
    }
    let paths = ctx.paths()?;
    let db = paths.home_db();
    let mut home = store::open_write(DbKind::Home, &db)?;
    // The catalog reads prices through a connection of its own while the import writes.
    let prices = store::open_read(DbKind::Home, &db)?;
    let catalog = PriceCatalog::new(prices.as_ref().map(Store::conn), &crate::cost::catalog::override_file(paths))?;
    let mut total = ImportSummary::default();
    // The process ends with the import: the allocator may keep what it frees.
    let options = Options {
        keep_freed_memory: true,
        ..Options::default()
    };
    let mut import = Import::new(home.conn_mut(), &db, &catalog, options);
    for d in &dirs {
        let mut progress = Progress::new(format!("importing {}", d.display()), 0);
        let mut last = 0u64;
        let s = import.run(d, &mut |done, all| {
            progress.set_total(all);
            progress.inc(done.saturating_sub(last));
            last = done;
        })?;
        progress.finish();
        total.add(&s);
    }
    let mut text = format!(
        "files: {} ({} read, {} restarted from the top)\nresponses: {} read, {} new\nmalformed lines skipped: {}\nbytes read: {}\n",
        total.files,
        total.files_read,
        total.files_restarted,
        render::thousands(total.responses as i64),
        render::thousands(total.inserted as i64),
        total.malformed,
        render::thousands(total.bytes as i64)
    );
    if total.unpriced > 0 {
        text += &format!("new responses without a price: {} (their cost is unknown, not 0)\n", total.unpriced);
    }
    if let Some(line) = super::obs_spool::catch_up_when_on(ctx)? {
        text += &line;
    }
    render::out(&text)
}

fn row_json(r: &CostRow) -> serde_json::Value {
    serde_json::json!({
        "key": r.key,
        "models": r.models,
        "responses": r.responses,
        "input_tokens": r.input_tokens,
        "output_tokens": r.output_tokens,
        "cache_read_tokens": r.cache_read_tokens,
        "cache_write_tokens": r.cache_write_tokens,
        "total_tokens": r.total_tokens,
        "cost_usd": r.cost_usd,
        "cost_complete": r.cost_complete,
    })
}

pub(super) fn cost(ctx: &Ctx, args: CostArgs) -> anyhow::Result<()> {
    let format = if args.json { Format::Json } else { args.format };
    let filter = CostFilter {
        since: day_arg("since", args.since)?,
        until: day_arg("until", args.until)?,
        project: args.project,
    };
    if args.here && filter.project.is_some() {
        return Err(crate::error::unusable(
            "--project does not apply with --here (the project database holds one repository)",
        ));
    }
    let (kind, path) = if args.here {
        (DbKind::Project, ctx.project()?.db_path())
    } else {
        (DbKind::Home, ctx.paths()?.home_db())
    };
    let report = match store::open_read(kind, &path)? {
        Some(store) => CostReports::new(store.conn(), kind)
            .report(args.by, &filter)
            .with_context(|| path.display().to_string())?,
        None => {
            if format != Format::Json {
                eprintln!("tlc: no {} database at {}: nothing recorded yet", kind.name(), path.display());
            }
            CostReport {
                totals: CostRow {
                    key: "total".into(),
                    cost_complete: true,
                    ..CostRow::default()
                },
                ..CostReport::default()
            }
        }
    };
    if format == Format::Json {
        return render::json(&serde_json::json!({
            "by": format!("{:?}", args.by).to_lowercase(),
            "rows": report.rows.iter().map(row_json).collect::<Vec<_>>(),
            "totals": row_json(&report.totals),
        }));
    }
    let key_header = format!("{:?}", args.by).to_lowercase();
    let mut t = Table::new([
        key_header.as_str(),
        "models",
        "input",
        "output",
        "cache create",
        "cache read",
        "total tokens",
        "cost (USD)",
    ]);
    let human = format != Format::Csv;
    let mut any_partial = false;
    let mut cells = |r: &CostRow| -> Vec<Cell> {
        let partial = !r.cost_complete && r.cost_usd.is_some();
        any_partial |= partial;
        let cost = match (human, r.cost_usd) {
            (false, c) => c.into(),
            (true, None) => Cell::Text("unknown".into()),
            (true, Some(v)) => Cell::Text(format!("{}{}", render::usd(v), if partial { "*" } else { "" })),
        };
        let n = |v: i64| if human { Cell::Text(render::thousands(v)) } else { Cell::Int(v) };
        vec![
            r.key.clone().into(),
            r.models.join(", ").into(),
            n(r.input_tokens),
            n(r.output_tokens),
            n(r.cache_write_tokens),
            n(r.cache_read_tokens),
            n(r.total_tokens),
            cost,
        ]
    };
    for r in &report.rows {
        t.push(cells(r));
    }
    if !human {
        // CSV carries the rows only, so that summing a column does not count the totals twice.
        return t.print(Format::Csv);
    }
    t.push(cells(&report.totals));
    t.print(format)?;
    if any_partial {
        render::out("* some responses in this row have no price (their model is not in the catalog): the cost shown is a lower bound\n")?;
    }
    Ok(())
}
