//! What each page shows, gathered from the domains' readers over pooled read-only connections:
//! one JSON value per page, which is both its `/api/…` answer and what `pages` draws, so a page
//! and its JSON cannot disagree. Each part is the value a command prints — a cost report as
//! `tlc obs cost --json`, a view's rows as `tlc obs export <view> --format json`, a session as
//! `tlc obs report <id> --json` — and the page names that command.

use super::guard::{zone, BadParam};
use super::State;
use crate::cost::catalog::{CostError, PriceCatalog};
use crate::cost::report::{CostBy, CostFilter, CostOptions, CostReport, CostReports, CostRow, ReportError};
use crate::obs::export::{ExportError, ExportFormat, Views, Window};
use crate::obs::report::Reports;
use crate::policy::integrity::IntegrityStore;
use crate::store::{DbKind, PooledConnection, StoreError};
use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Why a page could not be made: each names what it is about.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PageError {
    #[error(transparent)]
    Bad(#[from] BadParam),
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{path}: {cause}")]
    Read { path: String, cause: String },
}

impl PageError {
    pub(crate) fn status(&self) -> u16 {
        match self {
            PageError::Bad(_) => 400,
            PageError::NotFound(_) => 404,
            PageError::Store(_) | PageError::Read { .. } => 500,
        }
    }
}

/// An open database for one request: its connection and path, or nothing recorded yet.
pub(crate) struct Db {
    pub kind: DbKind,
    pub path: String,
    pub conn: Option<PooledConnection>,
}

impl Db {
    fn read_error(&self, cause: impl std::fmt::Display) -> PageError {
        PageError::Read {
            path: self.path.clone(),
            cause: cause.to_string(),
        }
    }

    /// What the pages say about the database: where it is and whether it exists.
    pub(crate) fn describe(&self) -> Value {
        json!({ "database": self.kind.name(), "path": self.path, "exists": self.conn.is_some() })
    }
}

/// The home database (`None` connection when there is none yet).
pub(crate) fn home(state: &State) -> Result<Db, PageError> {
    let pool = state.home.get()?;
    Ok(Db {
        kind: DbKind::Home,
        path: state.opts.home_db.display().to_string(),
        conn: pool.map(|p| p.get()).transpose()?,
    })
}

/// The project database; `None` outside a repository.
pub(crate) fn project(state: &State) -> Result<Option<Db>, PageError> {
    let Some(p) = &state.opts.project else { return Ok(None) };
    let pool = state.project.get()?;
    Ok(Some(Db {
        kind: DbKind::Project,
        path: p.db.display().to_string(),
        conn: pool.map(|p| p.get()).transpose()?,
    }))
}

/// One `tlc obs cost` report, asked as the command line asks it.
#[derive(Debug, Clone)]
pub(crate) struct CostQuery {
    pub by: CostBy,
    pub since: Option<String>,
    pub until: Option<String>,
    pub timezone: Option<String>,
    pub project: Option<String>,
    pub breakdown: bool,
    /// The project database (`--here`) instead of the home database.
    pub here: bool,
}

fn by_name(by: CostBy) -> &'static str {
    match by {
        CostBy::Day => "day",
        CostBy::Week => "week",
        CostBy::Month => "month",
        CostBy::Model => "model",
        CostBy::Session => "session",
        CostBy::Project => "project",
        CostBy::Block => "block",
    }
}

impl CostQuery {
    fn new(by: CostBy, since: Option<String>, until: Option<String>, timezone: Option<String>) -> CostQuery {
        CostQuery {
            by,
            since,
            until,
            timezone,
            project: None,
            breakdown: false,
            here: false,
        }
    }

    /// The command that prints the same JSON.
    pub(crate) fn command(&self) -> String {
        let mut c = format!("tlc obs cost --by {}", by_name(self.by));
        for (flag, v) in [
            ("--since", &self.since),
            ("--until", &self.until),
            ("--timezone", &self.timezone),
            ("--project", &self.project),
        ] {
            if let Some(v) = v {
                c.push_str(&format!(" {flag} {v}"));
            }
        }
        if self.breakdown {
            c.push_str(" --breakdown");
        }
        if self.here {
            c.push_str(" --here");
        }
        c + " --json"
    }

    /// The report as `obs cost --json` prints it: `by`, `timezone`, `rows`, `totals`,
    /// `inexact_output`.
    pub(crate) fn run(&self, db: &Db, now: DateTime<Utc>) -> Result<Value, PageError> {
        let mut inexact = 0;
        let report = match &db.conn {
            None => CostReport {
                totals: CostRow {
                    key: "total".into(),
                    cost_complete: true,
                    ..CostRow::default()
                },
                ..CostReport::default()
            },
            Some(conn) => {
                let opts = CostOptions {
                    by: self.by,
                    tz: zone(self.timezone.as_deref()).map_err(|e| db.read_error(e))?,
                    breakdown: self.breakdown,
                    now,
                    ..CostOptions::default()
                };
                let filter = CostFilter {
                    since: self.since.clone(),
                    until: self.until.clone(),
                    project: self.project.clone(),
                };
                let reports = CostReports::new(conn, db.kind);
                let report = reports.report_with(&filter, &opts).map_err(|e: ReportError| db.read_error(e))?;
                inexact = reports
                    .inexact_output(&filter, opts.tz.as_ref())
                    .map_err(|e: ReportError| db.read_error(e))?;
                report
            }
        };
        // The same value as `tlc obs cost --json` prints, field for field.
        Ok(json!({
            "by": by_name(self.by),
            "timezone": self.timezone.as_deref().unwrap_or("UTC"),
            "rows": report.rows,
            "totals": report.totals,
            "inexact_output": {"responses": inexact, "why": crate::cost::rates::INEXACT_OUTPUT_WHY},
        }))
    }
}

/// The local day of `t` in the zone, and days around it.
fn local_date(tz: &Option<jiff::tz::TimeZone>, t: DateTime<Utc>) -> chrono::NaiveDate {
    let utc = t.date_naive();
    let Some(tz) = tz else { return utc };
    jiff::Timestamp::from_millisecond(t.timestamp_millis())
        .ok()
        .and_then(|ts| chrono::NaiveDate::parse_from_str(&ts.to_zoned(tz.clone()).date().to_string(), "%Y-%m-%d").ok())
        .unwrap_or(utc)
}

fn day(d: chrono::NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// A view's rows as `obs export <view> --format json` prints them (nothing: `[]`).
pub(crate) fn view_rows(db: &Db, view: &str) -> Result<Value, PageError> {
    let Some(conn) = &db.conn else { return Ok(json!([])) };
    let mut buf = Vec::new();
    Views::new(conn)
        .export(view, &Window::default(), ExportFormat::Json, &mut buf)
        .map_err(|e: ExportError| db.read_error(format!("view {view}: {e}")))?;
    serde_json::from_slice(&buf).map_err(|e| db.read_error(format!("view {view}: {e}")))
}

/// The time zone a request asks for, else the server's.
fn zone_name(state: &State, asked: Option<String>) -> Option<String> {
    asked
        .or_else(|| state.opts.timezone.clone())
        .filter(|z| zone(Some(z)).is_ok_and(|z| z.is_some()))
}

/// `/`: today, this week, this month, the active block, the last 30 days, live sessions.
pub(crate) fn overview(state: &State, timezone: Option<String>) -> Result<Value, PageError> {
    let now = crate::clock::now();
    let timezone = zone_name(state, timezone);
    let tz = zone(timezone.as_deref()).ok().flatten();
    let today = local_date(&tz, now);
    let monday = today - Duration::days(i64::from(chrono::Datelike::weekday(&today).num_days_from_monday()));
    let first = chrono::NaiveDate::from_ymd_opt(chrono::Datelike::year(&today), chrono::Datelike::month(&today), 1).unwrap_or(today);
    let block_since = local_date(&tz, now - Duration::hours(crate::cost::report::BLOCK_HOURS * 2));
    let t = Some(day(today));
    let z = timezone.clone();
    let mut days = CostQuery::new(CostBy::Day, Some(day(today - Duration::days(29))), t.clone(), z.clone());
    days.breakdown = true;
    let parts = [
        ("today", CostQuery::new(CostBy::Day, t.clone(), t.clone(), z.clone())),
        ("week", CostQuery::new(CostBy::Week, Some(day(monday)), t.clone(), z.clone())),
        ("month", CostQuery::new(CostBy::Month, Some(day(first)), t.clone(), z.clone())),
        ("block", CostQuery::new(CostBy::Block, Some(day(block_since)), t.clone(), z.clone())),
        ("last_30_days", days),
    ];
    let home = home(state)?;
    let mut out = serde_json::Map::new();
    out.insert("now".into(), crate::clock::stamp(now).into());
    out.insert("timezone".into(), timezone.as_deref().unwrap_or("UTC").into());
    let mut commands = serde_json::Map::new();
    for (name, q) in &parts {
        out.insert(name.to_string(), q.run(&home, now)?);
        commands.insert(name.to_string(), q.command().into());
    }
    out.insert("commands".into(), commands.into());
    let project = project(state)?;
    let live = match project.as_ref().and_then(|p| p.conn.as_ref().map(|c| (p, c))) {
        Some((p, conn)) => {
            serde_json::to_value(IntegrityStore::new(conn).live_sessions().map_err(|e| p.read_error(e))?).map_err(|e| p.read_error(e))?
        }
        None => json!([]),
    };
    out.insert("live_sessions".into(), live);
    out.insert(
        "databases".into(),
        json!({ "home": home.describe(), "project": project.as_ref().map(Db::describe) }),
    );
    Ok(out.into())
}

/// `/cost`: per day or per week, stacked by model.
pub(crate) fn cost(state: &State, q: &CostQuery) -> Result<Value, PageError> {
    let home = home(state)?;
    let mut v = q.run(&home, crate::clock::now())?;
    v["command"] = q.command().into();
    v["database"] = home.describe();
    Ok(v)
}

/// The default window of the cost page: the last 30 days, or the last 12 weeks.
pub(crate) fn cost_query(
    state: &State,
    by: CostBy,
    since: Option<String>,
    until: Option<String>,
    timezone: Option<String>,
    project: Option<String>,
) -> CostQuery {
    let timezone = zone_name(state, timezone);
    let tz = zone(timezone.as_deref()).ok().flatten();
    let today = local_date(&tz, crate::clock::now());
    let back = if by == CostBy::Week { 7 * 12 - 1 } else { 29 };
    // With neither end named: the window that ends today (a record may hold later days when
    // the clock is set back, as the benchmarks and tests do).
    let (since, until) = match (since, until) {
        (None, None) => (Some(day(today - Duration::days(back))), Some(day(today))),
        other => other,
    };
    CostQuery {
        by,
        since,
        until,
        timezone,
        project,
        breakdown: true,
        here: false,
    }
}

/// `/projects`: cost by project (home database) and the spool's rollup per repository.
pub(crate) fn projects(state: &State, since: Option<String>, until: Option<String>) -> Result<Value, PageError> {
    let home = home(state)?;
    let q = CostQuery::new(CostBy::Project, since, until, None);
    Ok(json!({
        "cost": q.run(&home, crate::clock::now())?,
        "commands": { "cost": q.command(), "repositories": "tlc obs export spool_repo_rollup --db home --format json" },
        "repositories": view_rows(&home, "spool_repo_rollup")?,
        "database": home.describe(),
    }))
}

/// `obs report --json`'s value of one session (without the camelCase names it keeps for old
/// scripts).
fn report_value(db: &Db, conn: &rusqlite::Connection, provider: &str, session: &str) -> Result<Option<Value>, PageError> {
    let rep = Reports::new(conn).session(provider, session).map_err(|e| db.read_error(e))?;
    rep.map(|r| serde_json::to_value(r).map_err(|e| db.read_error(e))).transpose()
}

/// `/sessions`: a page of sessions, last active first, with their `session_rollup` figures.
pub(crate) fn sessions(state: &State, limit: i64, offset: i64) -> Result<Value, PageError> {
    let Some(db) = project(state)? else {
        return Ok(json!({ "database": null, "limit": limit, "offset": offset, "sessions": [] }));
    };
    let list = match &db.conn {
        Some(conn) => serde_json::to_value(Reports::new(conn).sessions_page(limit, offset).map_err(|e| db.read_error(e))?)
            .map_err(|e| db.read_error(e))?,
        None => json!([]),
    };
    Ok(json!({
        "database": db.describe(),
        "limit": limit,
        "offset": offset,
        "sessions": list,
        "commands": { "sessions": "tlc obs export session_rollup --db project --format json (these sessions' rows, the same columns)" },
    }))
}

/// `/sessions/<id>`: the session's report and its last events on each plane.
pub(crate) fn session(state: &State, id: &str, events: i64) -> Result<Value, PageError> {
    let not_found = || PageError::NotFound(format!("no session {id:?} in this repository's record"));
    let Some(db) = project(state)? else { return Err(not_found()) };
    let Some(conn) = &db.conn else { return Err(not_found()) };
    let reports = Reports::new(conn);
    let found = reports.find_session(id).map_err(|e| db.read_error(e))?;
    let (provider, session) = match found.as_slice() {
        [one] => one.clone(),
        [] => return Err(not_found()),
        _ => {
            return Err(PageError::NotFound(format!(
                "session prefix {id:?} matches more than one session; give more of it"
            )))
        }
    };
    let report = report_value(&db, conn, &provider, &session)?.ok_or_else(not_found)?;
    let timeline = timeline(&db, conn, &provider, &session)?;
    let mut planes = serde_json::Map::new();
    for plane in ["signal", "debug", "audit"] {
        let rows = reports
            .session_events(&provider, &session, plane, events)
            .map_err(|e| db.read_error(e))?;
        planes.insert(plane.into(), serde_json::to_value(rows).map_err(|e| db.read_error(e))?);
    }
    Ok(json!({
        "report": report,
        "timeline": timeline,
        "events": planes,
        "commands": {
            "report": format!("tlc obs report {session} --json"),
            "cost": "tlc obs cost --here --by session --json",
        },
        "database": db.describe(),
    }))
}

/// The events a session's timeline tells at most (the last ones): a few turns of a busy session.
pub(crate) const TIMELINE_EVENTS: i64 = 200;
/// The stops and gate runs read beside them at most.
const TIMELINE_STOPS: i64 = 100;

/// One entry of a session's timeline: an event of the hooks (a prompt, a tool call, a stop, …)
/// with the decisions that answered it and, for a stop, its outcomes (one per rule that decided)
/// and the gate runs it judged by. A decision, an outcome or a run whose event is not among those
/// read stands alone (its `kind` is then `decision`, `stop.outcome` or `gate.run`).
#[derive(Debug, serde::Serialize)]
pub(crate) struct TimelineEntry {
    pub ts: String,
    pub kind: String,
    /// The event's id (none for an entry standing alone).
    pub event_id: Option<i64>,
    pub tool: Option<String>,
    pub duration_ms: Option<i64>,
    pub attrs: Value,
    pub decisions: Vec<crate::obs::report::SessionDecision>,
    pub outcomes: Vec<crate::gate::turn::StopRecord>,
    pub gate_runs: Vec<Value>,
}

impl TimelineEntry {
    fn bare(ts: String, kind: &str) -> TimelineEntry {
        TimelineEntry {
            ts,
            kind: kind.into(),
            event_id: None,
            tool: None,
            duration_ms: None,
            attrs: json!({}),
            decisions: Vec::new(),
            outcomes: Vec::new(),
            gate_runs: Vec::new(),
        }
    }
}

/// A gate run as the timeline shows it: what ran, its verdict, and the tail of its output.
fn run_value(r: &crate::gate::GateRun) -> Value {
    json!({
        "id": r.id,
        "gate": r.gate,
        "command": r.command,
        "files": r.files,
        "verdict": r.verdict,
        "classification": r.classification(),
        "exit_code": r.exit_code,
        "reused": r.reused,
        "attempt": r.attempt,
        "started_at": r.started_at,
        "duration_ms": r.duration_ms,
        "output_tail": r.output_tail,
    })
}

/// What the timeline merges, in the order it is told at one instant: an event before the
/// decision on it, a stop's outcome (stamped when the stop began judging) before its gate runs.
enum Item {
    Event(TimelineEntry),
    Decision(crate::obs::report::SessionDecision),
    Outcome(crate::gate::turn::StopRecord),
    Run(Value),
}

impl Item {
    fn rank(&self) -> u8 {
        match self {
            Item::Event(_) => 0,
            Item::Decision(_) => 1,
            Item::Outcome(_) => 2,
            Item::Run(_) => 3,
        }
    }
}

/// A session's story, oldest first: its last [`TIMELINE_EVENTS`] events (the model's API calls
/// left to the totals), each tool call with the hooks' decision on it, each stop with its
/// outcomes, the text it sent the agent and the gate runs it judged by.
fn timeline(db: &Db, conn: &rusqlite::Connection, provider: &str, session: &str) -> Result<Vec<TimelineEntry>, PageError> {
    let err = |e: rusqlite::Error| db.read_error(e);
    let reports = Reports::new(conn);
    let events = reports.session_story(provider, session, TIMELINE_EVENTS).map_err(err)?;
    let decisions = reports.session_decisions(provider, session, TIMELINE_EVENTS).map_err(err)?;
    let stops = crate::gate::turn::TurnStore::new(conn)
        .session_stops(provider, session, TIMELINE_STOPS)
        .map_err(err)?;
    let runs = crate::gate::GateStore::new(conn)
        .session_runs(provider, session, TIMELINE_STOPS)
        .map_err(err)?;
    // When the events were cut, what happened before the first one kept is cut too: a decision
    // or a stop alone at the top would read as the session's start.
    let from = match events.first() {
        Some(e) if events.len() as i64 == TIMELINE_EVENTS => Some(e.ts.clone()),
        _ => None,
    };
    let kept = |ts: &str| from.as_deref().is_none_or(|f| ts >= f);
    let ids: std::collections::BTreeSet<i64> = events.iter().map(|e| e.id).collect();
    let mut items: Vec<(String, Item)> = Vec::with_capacity(events.len() + decisions.len() + stops.len() + runs.len());
    for e in events {
        let entry = TimelineEntry {
            event_id: Some(e.id),
            tool: e.tool,
            duration_ms: e.duration_ms,
            attrs: e.attrs,
            ..TimelineEntry::bare(e.ts.clone(), &e.kind)
        };
        items.push((e.ts, Item::Event(entry)));
    }
    for d in decisions {
        if d.event_id.is_some_and(|id| ids.contains(&id)) || kept(&d.ts) {
            items.push((d.ts.clone(), Item::Decision(d)));
        }
    }
    for st in stops.into_iter().filter(|s| kept(&s.ts)) {
        items.push((st.ts.clone(), Item::Outcome(st)));
    }
    for r in runs.iter().filter(|r| kept(&r.started_at)) {
        items.push((r.started_at.clone(), Item::Run(run_value(r))));
    }
    // Stable: at one instant and rank, the order each was read in (by id).
    items.sort_by(|a, b| (&a.0, a.1.rank()).cmp(&(&b.0, b.1.rank())));
    let mut out: Vec<TimelineEntry> = Vec::with_capacity(items.len());
    let mut event_at: BTreeMap<i64, usize> = BTreeMap::new();
    // The stop event whose judging is under way: its outcomes and runs follow it, until the next
    // stop event or prompt.
    let mut open_stop: Option<usize> = None;
    for (ts, item) in items {
        match item {
            Item::Event(entry) => {
                let stop = matches!(entry.kind.as_str(), "stop" | "stop.failure");
                if stop || entry.kind == "prompt.submit" {
                    open_stop = None;
                }
                if let Some(id) = entry.event_id {
                    event_at.insert(id, out.len());
                }
                if stop {
                    open_stop = Some(out.len());
                }
                out.push(entry);
            }
            Item::Decision(d) => match d.event_id.and_then(|id| event_at.get(&id)) {
                Some(&at) => out[at].decisions.push(d),
                None => {
                    let mut alone = TimelineEntry::bare(ts, "decision");
                    alone.decisions.push(d);
                    out.push(alone);
                }
            },
            Item::Outcome(o) => match open_stop {
                Some(at) => out[at].outcomes.push(o),
                None => {
                    let mut alone = TimelineEntry::bare(ts, "stop.outcome");
                    alone.outcomes.push(o);
                    open_stop = Some(out.len());
                    out.push(alone);
                }
            },
            Item::Run(r) => match open_stop {
                Some(at) => out[at].gate_runs.push(r),
                None => {
                    let mut alone = TimelineEntry::bare(ts, "gate.run");
                    alone.gate_runs.push(r);
                    out.push(alone);
                }
            },
        }
    }
    Ok(out)
}

/// The rows of `views` in the project database, keyed by view name.
fn project_views(state: &State, views: &[&str]) -> Result<Value, PageError> {
    let mut out = serde_json::Map::new();
    let db = project(state)?;
    let mut commands = serde_json::Map::new();
    for v in views {
        let rows = match &db {
            Some(db) => view_rows(db, v)?,
            None => json!([]),
        };
        out.insert(v.to_string(), rows);
        commands.insert(v.to_string(), format!("tlc obs export {v} --db project --format json").into());
    }
    out.insert("commands".into(), commands.into());
    out.insert("database".into(), db.as_ref().map(Db::describe).unwrap_or(Value::Null));
    Ok(out.into())
}

/// `/gates`: gate runs per day and gate, time per session and gate, stagnations, stop outcomes.
pub(crate) fn gates(state: &State) -> Result<Value, PageError> {
    project_views(
        state,
        &["gate_runs_by_day", "gate_time", "gate_stagnations", "stop_outcomes_by_rule"],
    )
}

/// The denials and questions the Policy page lists one by one (the newest).
pub(crate) const RECENT_INTERRUPTIONS: i64 = 50;

/// `/policy`: floor denials and interruptions by rule, the latest of them one by one with the
/// command or file each was about, and the policy divergences recorded.
pub(crate) fn policy(state: &State) -> Result<Value, PageError> {
    let mut v = project_views(state, &["floor_denials_by_rule", "interruptions_by_posture"])?;
    let (divergences, recent) = match project(state)? {
        Some(db) => match &db.conn {
            Some(conn) => {
                let err = |e: rusqlite::Error| db.read_error(e);
                let divergences = IntegrityStore::new(conn).divergence_records().map_err(err)?;
                let recent = Reports::new(conn).recent_interruptions(RECENT_INTERRUPTIONS).map_err(err)?;
                (
                    serde_json::to_value(divergences).map_err(|e| db.read_error(e))?,
                    serde_json::to_value(recent).map_err(|e| db.read_error(e))?,
                )
            }
            None => (json!([]), json!([])),
        },
        None => (json!([]), json!([])),
    };
    v["divergences"] = divergences;
    v["commands"]["divergences"] = "tlc policy --json (its history)".into();
    v["recent_interruptions"] = recent;
    v["commands"]["recent_interruptions"] =
        format!("tlc obs export decision_log --db project --format json (its last {RECENT_INTERRUPTIONS} rows that deny or ask)").into();
    Ok(v)
}

fn opt(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |f| json!(f))
}

/// `/prices`: the catalog's planes (`prices status --json`) and, when asked, one model's price
/// (`prices lookup <model> --json`).
pub(crate) fn prices(state: &State, model: Option<&str>, provider: Option<&str>) -> Result<Value, PageError> {
    let home = home(state)?;
    let conn: Option<&rusqlite::Connection> = home.conn.as_deref();
    let cat = PriceCatalog::new(conn, &state.opts.override_file).map_err(|e: CostError| home.read_error(e))?;
    let planes = cat.status(&state.opts.override_file).map_err(|e| home.read_error(e))?;
    let lookup = match model {
        None => Value::Null,
        Some(model) => match cat.resolve(model, provider).map_err(|e| home.read_error(e))? {
            None => json!({ "model": model, "provider": provider, "found": false }),
            Some(p) => {
                let r = p.rates();
                json!({
                    "model": model,
                    "provider": provider,
                    "key": p.key,
                    "plane": p.plane,
                    "builtin": p.builtin,
                    "unit": "USD per 1M tokens",
                    "input": r.input,
                    "output": r.output,
                    "cache_read": opt(r.cache_read),
                    "cache_write": opt(r.cache_write),
                    "input_above_200k": opt(r.input_above_200k),
                    "output_above_200k": opt(r.output_above_200k),
                    "cache_read_above_200k": opt(r.cache_read_above_200k),
                    "cache_write_above_200k": opt(r.cache_write_above_200k),
                    "cache_write_1h": opt(r.cache_write_1h),
                    "cache_write_1h_above_200k": opt(r.cache_write_1h_above_200k),
                    "context_window": p.entry.context_window,
                    "catalog_provider": p.entry.provider,
                    "display_name": p.entry.display_name,
                    "pool": p.entry.pool,
                    "billing": p.entry.billing,
                })
            }
        },
    };
    let mut commands = json!({ "planes": "tlc prices status --json" });
    if let Some(m) = model {
        commands["lookup"] = match provider {
            Some(p) => format!("tlc prices lookup {m} {p} --json"),
            None => format!("tlc prices lookup {m} --json"),
        }
        .into();
    }
    Ok(json!({ "planes": planes, "lookup": lookup, "commands": commands, "database": home.describe() }))
}
