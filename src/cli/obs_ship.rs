//! `tlc obs ship`: send the record to an OpenTelemetry collector, show what would be sent
//! (`--dry-run`), or show where each stream stands (`--status`). Parsing and rendering only: the
//! work is in `crate::ship`.

use super::Ctx;
use crate::render::{self, Table};
use crate::ship::run::{self, Mode, RunReport, Settings, ShipLock};
use crate::ship::{endpoint, identity, otlp, Endpoint, ShipError, ShipStore};
use crate::store::{self, DbKind};

#[derive(Debug, clap::Args)]
pub(crate) struct ShipArgs {
    /// Print what would be sent (the OTLP requests with `--format json`); send nothing, move no cursor.
    #[arg(long)]
    pub dry_run: bool,
    /// Show each stream's cursor, and each collector's last success, last error and partial success.
    #[arg(long, conflicts_with = "dry_run")]
    pub status: bool,
    #[command(flatten)]
    pub output: crate::cli::OutputArgs,
}

fn config_error(e: ShipError) -> anyhow::Error {
    match e {
        ShipError::Off(_) | ShipError::Busy(_) | ShipError::Send { .. } => crate::error::refused(e.to_string()),
        ShipError::Config(_) => crate::error::unusable(e.to_string()),
        ShipError::Sqlite { .. } => anyhow::Error::new(e),
    }
}

pub(crate) fn ship(ctx: &Ctx, args: ShipArgs) -> anyhow::Result<()> {
    let output = args.output.output()?;
    let json = output.format == render::Format::Json;
    let config = ctx.config()?;
    let project = ctx.project()?;
    let endpoint = endpoint::resolve(config, &|k| std::env::var(k).ok()).map_err(config_error)?;
    let db = project.db_path();
    if args.status {
        return status(ctx, endpoint.as_ref(), output);
    }
    let mode = if args.dry_run { Mode::DryRun } else { Mode::Send };
    let ship = &config.settings.ship;
    if mode == Mode::Send {
        if !ship.enabled {
            return Err(config_error(ShipError::Off(ctx.paths()?.machine_config().display().to_string())));
        }
        if endpoint.is_none() {
            return Err(config_error(ShipError::Config(run::no_endpoint())));
        }
    }
    if !db.is_file() {
        return ctx.nothing_recorded(json);
    }
    let settings = Settings {
        max_records: usize::try_from(ship.max_batch_records).unwrap_or(512),
        max_bytes: usize::try_from(ship.max_batch_bytes).unwrap_or(1 << 20),
        shaping: otlp::Shaping {
            include_payloads: ship.include_payloads,
            instance: String::new(),
        },
        resource: otlp::resource(&identity::origin(&project, config).map_err(config_error)?),
        protocol: endpoint::Protocol::parse(&ship.protocol, "ship.protocol").map_err(config_error)?,
    };
    let report = match mode {
        Mode::DryRun => {
            let Some(store) = store::open_read(DbKind::Project, &db)? else {
                return ctx.nothing_recorded(json);
            };
            run_with(&ShipStore::new(store.conn()), &db, endpoint.as_ref(), settings, mode)?
        }
        Mode::Send => {
            let _lock = ShipLock::acquire(&db).map_err(config_error)?;
            let store = store::open_write(DbKind::Project, &db)?;
            run_with(&ShipStore::new(store.conn()), &db, endpoint.as_ref(), settings, mode)?
        }
    };
    match output.format {
        render::Format::Json => render::json(&report)?,
        render::Format::Table => render::out(&text(&report))?,
        _ => streams_table(&report).print(output)?,
    }
    match &report.error {
        Some(e) if json => {
            eprintln!("tlc: {e}");
            Err(crate::error::silent_failure())
        }
        Some(e) => Err(crate::error::refused(e.clone())),
        None => Ok(()),
    }
}

fn run_with(
    store: &ShipStore,
    db: &std::path::Path,
    endpoint: Option<&Endpoint>,
    mut settings: Settings,
    mode: Mode,
) -> anyhow::Result<RunReport> {
    settings.shaping.instance = store.instance()?;
    run::ship(store, db, endpoint, &settings, mode, &crate::clock::now_stamp).map_err(config_error)
}

fn streams_table(r: &RunReport) -> Table {
    let mut t = Table::new([
        "stream",
        "signal",
        "collector",
        "cursor",
        "rows",
        "records",
        "requests",
        "bytes",
        "rejected",
    ]);
    for s in &r.streams {
        t.push(vec![
            s.stream.into(),
            s.signal.name().into(),
            (if s.url.is_empty() {
                "(none configured)".to_string()
            } else {
                s.url.clone()
            })
            .into(),
            (if s.cursor_before == s.cursor_after {
                s.cursor_after.to_string()
            } else {
                format!("{} → {}", s.cursor_before, s.cursor_after)
            })
            .into(),
            (s.rows as i64).into(),
            (s.records as i64).into(),
            (s.requests as i64).into(),
            (s.bytes as i64).into(),
            s.rejected.into(),
        ]);
    }
    t
}

fn text(r: &RunReport) -> String {
    let t = streams_table(r);
    let records: usize = r.streams.iter().map(|s| s.records).sum();
    let requests: usize = r.streams.iter().map(|s| s.requests).sum();
    let mut out = String::new();
    if r.dry_run {
        out.push_str(&format!(
            "dry run ({}): {records} records in {requests} requests would be sent; nothing was sent, no cursor moved\n",
            r.protocol
        ));
    } else if records == 0 && r.error.is_none() {
        out.push_str("nothing new to send: every stream is acknowledged up to its cursor\n");
    } else {
        out.push_str(&format!("sent {records} records in {requests} requests ({})\n", r.protocol));
    }
    out.push_str(&t.to_terminal(&|_, c| c.plain()));
    out.push('\n');
    for p in &r.partial {
        out.push_str(&format!("partial success: {p}\n"));
    }
    out
}

#[derive(serde::Serialize)]
struct Status {
    enabled: bool,
    protocol: Option<&'static str>,
    collector: Option<Collector>,
    database: String,
    recorded: bool,
    cursors: Vec<crate::ship::store::CursorRow>,
    latest_ids: std::collections::BTreeMap<String, i64>,
}

#[derive(serde::Serialize)]
struct Collector {
    traces: String,
    logs: String,
    metrics: String,
    timeout_ms: u128,
    headers: Vec<String>,
}

fn status(ctx: &Ctx, endpoint: Option<&Endpoint>, output: render::Output) -> anyhow::Result<()> {
    let json = output.format == render::Format::Json;
    let config = ctx.config()?;
    let db = ctx.project()?.db_path();
    let store = store::open_read(DbKind::Project, &db)?;
    let mut st = Status {
        enabled: config.settings.ship.enabled,
        protocol: endpoint.map(|e| e.protocol.name()),
        collector: endpoint.map(|e| Collector {
            traces: endpoint::display_url(&e.traces),
            logs: endpoint::display_url(&e.logs),
            metrics: endpoint::display_url(&e.metrics),
            timeout_ms: e.timeout.as_millis(),
            // Header values are credentials: only their names are shown.
            headers: e.headers.iter().map(|(k, _)| k.clone()).collect(),
        }),
        database: db.display().to_string(),
        recorded: store.is_some(),
        cursors: Vec::new(),
        latest_ids: Default::default(),
    };
    if let Some(store) = &store {
        let s = ShipStore::new(store.conn());
        st.cursors = s.cursors()?;
        st.latest_ids = s.table_max_ids()?.into_iter().collect();
    }
    if json {
        return render::json(&st);
    }
    let t = cursors_table(&st);
    if output.format != render::Format::Table {
        return t.print(output);
    }
    let mut out = format!(
        "shipping: {}\n",
        if st.enabled {
            "on (ship.enabled)"
        } else {
            "off (set ship.enabled = true in the machine tier to send)"
        }
    );
    match &st.collector {
        Some(c) => out.push_str(&format!(
            "collector: traces {}, logs {}, metrics {} ({}, timeout {} ms{})\n",
            c.traces,
            c.logs,
            c.metrics,
            st.protocol.unwrap_or(""),
            c.timeout_ms,
            if c.headers.is_empty() {
                String::new()
            } else {
                format!(", headers {}", c.headers.join(", "))
            }
        )),
        None => out.push_str("collector: none configured (ship.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT)\n"),
    }
    if !st.recorded {
        out.push_str(&format!("nothing recorded yet (no database at {})\n", st.database));
        return render::out(&out);
    }
    if st.cursors.is_empty() {
        out.push_str("cursors: none yet (nothing was ever sent)\n");
    } else {
        out.push_str(&t.to_terminal(&|_, c| c.plain()));
        out.push('\n');
    }
    for c in st.cursors.iter().filter(|c| c.partial.is_some()) {
        out.push_str(&format!(
            "partial success, {} ({}): {} {}\n",
            c.url,
            c.stream,
            c.partial_at.as_deref().unwrap_or(""),
            c.partial.as_deref().unwrap_or("")
        ));
    }
    render::out(&out)
}

fn cursors_table(st: &Status) -> Table {
    let mut t = Table::new(["collector", "stream", "cursor", "latest id", "last sent", "last error", "rejected"]);
    for c in &st.cursors {
        let table = crate::ship::STREAMS.iter().find(|s| s.name == c.stream).map(|s| s.table);
        let latest = table.and_then(|t| st.latest_ids.get(t)).copied();
        let sent = match (&c.sent_at, c.sent_records) {
            (Some(at), Some(n)) => format!("{at} ({n} records)"),
            _ => "never".into(),
        };
        let error = match (&c.error_at, &c.error) {
            (Some(at), Some(e)) => format!("{at}: {e}"),
            _ => String::new(),
        };
        t.push(vec![
            c.url.clone().into(),
            c.stream.clone().into(),
            c.last_id.into(),
            latest.into(),
            sent.into(),
            error.into(),
            c.rejected.into(),
        ]);
    }
    t
}
