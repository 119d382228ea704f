//! `tlc obs cost` and `tlc obs import transcripts` (wired into [`super::obs::ObsCommand`]).

use super::Ctx;
use crate::cli::OutputArgs;
use crate::cost::catalog::PriceCatalog;
use crate::cost::import::{Import, ImportSummary, Options};
use crate::cost::rates::INEXACT_OUTPUT_WHY;
use crate::cost::report::{CostBy, CostFilter, CostOptions, CostReport, CostReports, CostRow, Order};
use crate::render::{self, Cell, Format, Output, Progress, Role, Table};
use crate::store::{self, DbKind, Store};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub(crate) struct CostArgs {
    /// What each row is.
    #[arg(long, value_enum, default_value_t = CostBy::Day)]
    pub by: CostBy,
    /// First day included (YYYY-MM-DD, YYYYMMDD, `today` or `yesterday`, in the report's time zone).
    #[arg(long)]
    pub since: Option<String>,
    /// Last day included (YYYY-MM-DD, YYYYMMDD, `today` or `yesterday`, in the report's time zone).
    #[arg(long)]
    pub until: Option<String>,
    /// The time zone whose days the rows are grouped by (an IANA name such as Europe/Berlin); UTC
    /// by default.
    #[arg(long, value_name = "TZ")]
    pub timezone: Option<String>,
    /// Row order (by key; by last activity with `--by session`).
    #[arg(long, value_enum, default_value_t = Order::Asc)]
    pub order: Order,
    /// Only the last N rows (the latest days, blocks, sessions; the last keys otherwise).
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// One row per model under each row.
    #[arg(long)]
    pub breakdown: bool,
    /// Only this project (a repository's name; a transcript naming no working directory keeps
    /// Claude Code's folder slug, which starts with `-`).
    #[arg(long, allow_hyphen_values = true)]
    pub project: Option<String>,
    /// Read the current project's database instead of the home database.
    #[arg(long)]
    pub here: bool,
    /// The narrow form: key, models, input, output and cost only (chosen by itself when the
    /// full table does not fit the terminal).
    #[arg(long)]
    pub compact: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The day of `--since`/`--until`: a date (`YYYY-MM-DD` or ccusage's `YYYYMMDD`), `today` or
/// `yesterday` (in the report's time zone, `tz`; `TLC_NOW` moves the clock), or a time whose UTC
/// day is taken.
fn day_arg(flag: &str, v: Option<String>, tz: Option<&jiff::tz::TimeZone>) -> anyhow::Result<Option<String>> {
    match v {
        None => Ok(None),
        Some(s) => {
            let back = match s.trim() {
                "today" => Some(0),
                "yesterday" => Some(1),
                _ => None,
            };
            if let Some(back) = back {
                let now = crate::clock::now() - chrono::Duration::days(back);
                let zone = tz.cloned().unwrap_or(jiff::tz::TimeZone::UTC);
                let day = jiff::Timestamp::from_millisecond(now.timestamp_millis())
                    .map(|t| t.to_zoned(zone).date().to_string())
                    .unwrap_or_else(|_| crate::clock::stamp(now)[..10].to_string());
                return Ok(Some(day));
            }
            let s = match s.trim() {
                d if d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit()) => {
                    format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..])
                }
                d => d.to_string(),
            };
            let t = crate::clock::parse(&s).map_err(|e| crate::error::unusable(format!("--{flag}: {e}")))?;
            Ok(Some(crate::clock::stamp(t)[..10].to_string()))
        }
    }
}

/// `--timezone`: `None` for UTC.
fn zone_arg(v: Option<&str>) -> anyhow::Result<Option<jiff::tz::TimeZone>> {
    match v.map(str::trim) {
        None | Some("UTC" | "utc" | "Etc/UTC" | "Z") => Ok(None),
        Some(name) => jiff::tz::TimeZone::get(name)
            .map(Some)
            .map_err(|e| crate::error::unusable(format!("--timezone {name}: not a time zone this build knows ({e})"))),
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

pub(super) fn import(ctx: &Ctx, dir: Option<PathBuf>, rescan: bool, output: Output) -> anyhow::Result<()> {
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
        rescan,
        ..Options::default()
    };
    let mut import = Import::new(home.conn_mut(), &db, &catalog, options);
    for d in &dirs {
        let mut progress = Progress::bytes(format!("importing {}", d.display()), 0);
        let mut last = 0u64;
        let s = import.run(d, &mut |done, all| {
            progress.set_total(all);
            progress.inc(done.saturating_sub(last));
            last = done;
        })?;
        progress.finish();
        total.add(&s);
    }
    match output.format {
        Format::Json => return render::json(&total),
        Format::Table => {}
        _ => {
            let mut t = Table::new([
                "files",
                "files_read",
                "files_restarted",
                "responses",
                "inserted",
                "refilled",
                "unpriced",
                "malformed",
                "skipped",
                "bytes",
            ]);
            t.push(vec![
                (total.files as i64).into(),
                (total.files_read as i64).into(),
                (total.files_restarted as i64).into(),
                (total.responses as i64).into(),
                (total.inserted as i64).into(),
                (total.refilled as i64).into(),
                (total.unpriced as i64).into(),
                (total.malformed as i64).into(),
                (total.skipped as i64).into(),
                (total.bytes as i64).into(),
            ]);
            return t.print(output);
        }
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
    if total.rejected > 0 {
        text += &format!(
            "responses with a token count outside 0..2^53, stored without it: {}\n",
            total.rejected
        );
    }
    if total.skipped > 0 {
        text += &format!("skipped, not regular files: {}\n", total.skipped);
        for f in &total.skipped_files {
            text += &format!("  {}\n", render::escape_controls(f));
        }
    }
    if rescan {
        text += &format!(
            "responses given their 1-hour cache writes or a new price: {}\n",
            render::thousands(total.refilled as i64)
        );
    }
    if total.unpriced > 0 {
        text += &format!("new responses without a price: {} (their cost is unknown, not 0)\n", total.unpriced);
    }
    if let Some(line) = super::obs_spool::catch_up_when_on(ctx)? {
        text += &line;
    }
    render::out(&text)
}

/// `obs cost` is read-only, so it does not import: when transcripts in the default folders hold
/// responses not imported yet, it says so in one line on stderr, with what to run. Best effort: a
/// folder that cannot be read says nothing.
fn not_imported_hint(conn: &rusqlite::Connection) {
    hint(Some(conn));
}

fn not_imported_hint_without_db() {
    hint(None);
}

fn hint(conn: Option<&rusqlite::Connection>) {
    let Ok(dirs) = default_dirs() else { return };
    let (mut files, mut bytes) = (0, 0);
    for d in dirs.iter().filter(|d| d.is_dir()) {
        if let Ok((f, b)) = crate::cost::import::pending(conn, Path::new(""), d) {
            files += f;
            bytes += b;
        }
    }
    if files > 0 {
        eprintln!(
            "tlc: {files} transcript file(s) in {} have {} bytes not imported yet: run `tlc obs import transcripts` to include them",
            dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", "),
            render::thousands(bytes as i64)
        );
    }
}

fn row_json(r: &CostRow) -> serde_json::Value {
    let mut v = serde_json::json!({
        "key": r.key,
        "models": r.models,
        "responses": r.responses,
        "input_tokens": r.input_tokens,
        "output_tokens": r.output_tokens,
        "cache_read_tokens": r.cache_read_tokens,
        "cache_write_tokens": r.cache_write_tokens,
        "cache_write_1h_tokens": r.cache_write_1h_tokens,
        "total_tokens": r.total_tokens,
        "cost_usd": r.cost_usd,
        "cost_complete": r.cost_complete,
    });
    if let Some(o) = v.as_object_mut() {
        if let Some(p) = &r.project {
            o.insert("project".into(), p.clone().into());
        }
        if let Some(l) = &r.last_activity {
            o.insert("last_activity".into(), l.clone().into());
        }
        if let Some(b) = &r.block {
            o.insert("block".into(), serde_json::to_value(b).unwrap_or_default());
        }
        if !r.breakdown.is_empty() {
            o.insert("breakdown".into(), r.breakdown.iter().map(row_json).collect());
        }
    }
    v
}

pub(super) fn cost(ctx: &Ctx, args: CostArgs) -> anyhow::Result<()> {
    let output = args.output.output()?;
    let format = output.format;
    let tz = zone_arg(args.timezone.as_deref())?;
    let filter = CostFilter {
        since: day_arg("since", args.since, tz.as_ref())?,
        until: day_arg("until", args.until, tz.as_ref())?,
        project: args.project,
    };
    if args.here && filter.project.is_some() {
        return Err(crate::error::unusable(
            "--project does not apply with --here (the project database holds one repository)",
        ));
    }
    if args.last == Some(0) {
        return Err(crate::error::unusable("--last 0: give at least one row"));
    }
    let opts = CostOptions {
        by: args.by,
        tz: tz.clone(),
        order: args.order,
        last: args.last,
        breakdown: args.breakdown,
        now: crate::clock::now(),
    };
    let (kind, path) = if args.here {
        (DbKind::Project, ctx.project()?.db_path())
    } else {
        (DbKind::Home, ctx.paths()?.home_db())
    };
    let mut inexact = 0;
    let report = match store::open_read(kind, &path)? {
        Some(store) => {
            let reports = CostReports::new(store.conn(), kind);
            let in_db = |e: crate::cost::report::ReportError| anyhow::Error::new(e).context(path.display().to_string());
            let report = reports.report_with(&filter, &opts).map_err(in_db)?;
            inexact = reports.inexact_output(&filter, tz.as_ref()).map_err(in_db)?;
            if kind == DbKind::Home && !output.is_json() {
                not_imported_hint(store.conn());
            }
            report
        }
        None => {
            if !output.is_json() {
                eprintln!("tlc: no {} database at {}: nothing recorded yet", kind.name(), path.display());
                if kind == DbKind::Home {
                    not_imported_hint_without_db();
                }
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
    let by = format!("{:?}", args.by).to_lowercase();
    if format == Format::Jsonl {
        for r in &report.rows {
            render::json_line(&row_json(r))?;
        }
        return Ok(());
    }
    if format == Format::Json {
        return render::json(&serde_json::json!({
            "by": by,
            "timezone": args.timezone.as_deref().unwrap_or("UTC"),
            "rows": report.rows.iter().map(row_json).collect::<Vec<_>>(),
            "totals": row_json(&report.totals),
            "inexact_output": {"responses": inexact, "why": INEXACT_OUTPUT_WHY},
        }));
    }
    let human = format != Format::Csv;
    let session = args.by == CostBy::Session;
    let block = args.by == CostBy::Block;
    let mut headers: Vec<&str> = vec![by.as_str()];
    if human || args.breakdown {
        headers.push(if human { "models" } else { "model" });
    }
    if session {
        headers.extend(["project", "last activity"]);
    }
    if block {
        headers.extend(["end", "status"]);
    }
    headers.extend([
        "input",
        "output",
        "cache create",
        "cache create 1h",
        "cache read",
        "total tokens",
        "cost (USD)",
    ]);
    // On a terminal: keys, dates and numbers never wrap; models go one per line; the cache
    // columns give way first when the table is wider than the terminal (ccusage's narrow form).
    let roles: Vec<Role> = headers
        .iter()
        .map(|h| match *h {
            "models" | "model" => Role::List,
            "project" => Role::Text,
            "status" => Role::Text,
            "last activity" | "end" => Role::Date,
            h if h == by => match args.by {
                CostBy::Day | CostBy::Week | CostBy::Month | CostBy::Block => Role::Date,
                CostBy::Session => Role::Id,
                _ => Role::Key,
            },
            _ => Role::Number,
        })
        .collect();
    let narrow = ["cache read", "cache create 1h", "cache create", "total tokens"];
    // On a narrower terminal still, the by-session and by-block detail gives way too.
    let mut droppable = narrow.to_vec();
    droppable.extend(["project", "last activity", "end"]);
    let mut t = Table::new(headers).roles(roles).droppable(&droppable);
    let short_models = format == Format::Table && !output.wide;
    let show_models = |models: &[String]| -> String {
        models
            .iter()
            .map(|m| if short_models { short_model(m) } else { m.as_str() })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut any_partial = false;
    let when = |stamp: &str| -> String {
        match (&tz, crate::clock::parse(stamp)) {
            (Some(z), Ok(t)) => jiff::Timestamp::from_millisecond(t.timestamp_millis())
                .map(|ts| ts.to_zoned(z.clone()).strftime("%Y-%m-%d %H:%M %Z").to_string())
                .unwrap_or_else(|_| stamp.to_string()),
            _ => stamp.get(..16).map(|s| format!("{} UTC", s.replace('T', " "))).unwrap_or_default(),
        }
    };
    let mut cells = |r: &CostRow, key: String, models: String| -> Vec<Cell> {
        let partial = !r.cost_complete && r.cost_usd.is_some();
        any_partial |= partial;
        let gap = r.block.as_ref().is_some_and(|b| b.gap);
        let cost = match (human, r.cost_usd) {
            (false, c) => c.into(),
            (true, _) if gap => Cell::Text(String::new()),
            (true, None) => Cell::Text("unknown".into()),
            (true, Some(v)) => Cell::Text(format!("{}{}", render::usd(v), if partial { "*" } else { "" })),
        };
        let n = |v: i64| if human { Cell::Text(render::thousands(v)) } else { Cell::Int(v) };
        let mut row: Vec<Cell> = vec![key.into()];
        if human || args.breakdown {
            row.push(models.into());
        }
        if session {
            row.push(r.project.clone().unwrap_or_default().into());
            row.push(r.last_activity.as_deref().map(&when).unwrap_or_default().into());
        }
        if block {
            let b = r.block.clone().unwrap_or_default();
            row.push(if human { when(&b.end) } else { b.end.clone() }.into());
            let status = match (&b.projection, b.active, b.gap) {
                (_, _, true) => "gap".to_string(),
                (Some(p), true, _) if human => format!(
                    "active: {} left, {}/h, projected {} / {} tokens",
                    minutes(p.remaining_minutes),
                    b.burn_rate.map(|r| render::usd(r.cost_per_hour)).unwrap_or_default(),
                    render::usd(p.total_cost),
                    render::thousands(p.total_tokens)
                ),
                (_, true, _) => "active".to_string(),
                _ => String::new(),
            };
            row.push(status.into());
        }
        row.extend([
            n(r.input_tokens),
            n(r.output_tokens),
            n(r.cache_write_tokens),
            n(r.cache_write_1h_tokens),
            n(r.cache_read_tokens),
            n(r.total_tokens),
            cost,
        ]);
        row
    };
    let key_text = |r: &CostRow| -> String {
        match &r.block {
            Some(b) if human => when(&b.start),
            Some(b) => b.start.clone(),
            None => r.key.clone(),
        }
    };
    for r in &report.rows {
        if !human && args.breakdown {
            // CSV with --breakdown: the per-model rows only, so that a column still sums to the total.
            for b in &r.breakdown {
                let b = CostRow {
                    block: r.block.clone(),
                    ..b.clone()
                };
                t.push(cells(&b, key_text(r), b.key.clone()));
            }
            continue;
        }
        t.push(cells(r, key_text(r), show_models(&r.models)));
        if human && args.breakdown {
            for b in &r.breakdown {
                t.push(cells(b, format!("  └ {}", b.key), String::new()));
            }
        }
    }
    if !human {
        // CSV carries the rows only, so that summing a column does not count the totals twice.
        return t.print(Format::Csv);
    }
    t.push(cells(&report.totals, "total".into(), show_models(&report.totals.models)));
    if args.compact {
        t = t.without(&narrow);
    }
    t.print(output)?;
    if any_partial {
        render::note("* some responses in this row have no price (their model is not in the catalog): the cost shown is a lower bound")?;
    }
    if inexact > 0 {
        render::note(&format!(
            "{} response(s) have inexact output tokens (cost_source +inexact-output): {INEXACT_OUTPUT_WHY}; their output tokens and cost are lower bounds",
            render::thousands(inexact)
        ))?;
    }
    Ok(())
}

fn minutes(m: i64) -> String {
    format!("{}h{:02}m", m / 60, m % 60)
}

/// A model name as ccusage shows it in a table: without the `claude-` prefix and the release
/// date (`claude-sonnet-4-5-20250929` → `sonnet-4-5`). JSON, CSV and `--wide` keep the name whole.
fn short_model(m: &str) -> &str {
    let m = m.strip_prefix("claude-").unwrap_or(m);
    match m.rsplit_once('-') {
        Some((head, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => m,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_model_names() {
        assert_eq!(super::short_model("claude-sonnet-4-5-20250929"), "sonnet-4-5");
        assert_eq!(super::short_model("claude-opus-4-1"), "opus-4-1");
        assert_eq!(super::short_model("gpt-5"), "gpt-5");
    }
}
