//! Cost reports: the `cost_by_*` and `cost_hourly_rows` views re-aggregated per key after
//! filtering on day and project. The same view names exist in both databases (home: imported
//! transcripts and the spool; project: this repository's generation events), so one function
//! serves `obs cost` and `obs cost --here`.
//!
//! Keys by day, week and month are UTC days unless a time zone is given; then they come from the
//! hourly rows, each hour placed on its local day (exact for zones whose offset is a whole number
//! of hours, which a zone with another offset is refused for). `--by block` groups the hourly
//! rows into 5-hour billing windows as ccusage does ([`blocks`]).

use crate::cost::usage;
use crate::store::queries;
use crate::store::DbKind;
use chrono::{DateTime, Duration, Utc};
use rusqlite::types::ValueRef;
use rusqlite::{params, Connection};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// What the rows are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub(crate) enum CostBy {
    #[default]
    Day,
    Week,
    Month,
    Model,
    Session,
    Project,
    /// 5-hour billing windows (ccusage's `blocks`).
    Block,
}

/// The order of the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub(crate) enum Order {
    #[default]
    Asc,
    Desc,
}

/// Which rows to keep: days are inclusive `YYYY-MM-DD`, in the report's time zone.
#[derive(Debug, Clone, Default)]
pub(crate) struct CostFilter {
    pub since: Option<String>,
    pub until: Option<String>,
    pub project: Option<String>,
}

/// Everything a report is asked for besides its filter.
#[derive(Debug, Clone, Default)]
pub(crate) struct CostOptions {
    pub by: CostBy,
    /// `None` is UTC.
    pub tz: Option<jiff::tz::TimeZone>,
    pub order: Order,
    /// Only the last N rows (in ascending order of the key, or of last activity by session).
    pub last: Option<usize>,
    /// Per-model rows under each row.
    pub breakdown: bool,
    /// The time that decides which block is active.
    pub now: DateTime<Utc>,
}

/// One row of a cost report (also the totals, and a breakdown row).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct CostRow {
    pub key: String,
    pub models: Vec<String>,
    pub responses: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cache_read_tokens: i64,
    /// Every cache write, 5-minute and 1-hour.
    pub cache_write_tokens: i64,
    /// The part of `cache_write_tokens` written with the 1-hour TTL.
    pub cache_write_1h_tokens: i64,
    pub total_tokens: i64,
    /// USD; `None` when nothing in the row could be priced.
    pub cost_usd: Option<f64>,
    /// True when every response in the row was priced.
    pub cost_complete: bool,
    #[serde(skip)]
    pub priced: i64,
    /// `--by session`: the session's projects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// `--by session`: its latest response (UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_activity: Option<String>,
    /// `--by block`: the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<Block>,
    /// `--breakdown`: one row per model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub breakdown: Vec<CostRow>,
}

/// A 5-hour billing window, as ccusage's `blocks` computes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Block {
    /// The first response's hour (UTC).
    pub start: String,
    /// `start` + 5 hours; for a gap, the next response.
    pub end: String,
    /// The last response (none for a gap).
    pub actual_end: Option<String>,
    pub active: bool,
    /// No activity for more than 5 hours: the time between two blocks.
    pub gap: bool,
    /// The active block's rates since its first response.
    pub burn_rate: Option<BurnRate>,
    /// The active block's totals at its end at that rate.
    pub projection: Option<Projection>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub(crate) struct BurnRate {
    /// All tokens (input, output, cache read and write) per minute.
    pub tokens_per_minute: f64,
    /// Input and output tokens per minute.
    pub tokens_per_minute_for_indicator: f64,
    pub cost_per_hour: f64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub(crate) struct Projection {
    pub total_tokens: i64,
    /// Rounded to cents, as ccusage does.
    pub total_cost: f64,
    pub remaining_minutes: i64,
}

/// A cost report: its rows and their totals.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct CostReport {
    pub rows: Vec<CostRow>,
    pub totals: CostRow,
}

/// A report that cannot be made as asked (it names the option).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReportError {
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
}

/// The UTC stamp at which the local day `day` (`YYYY-MM-DD`) plus `days` begins in `tz` (UTC when
/// `None`); `None` for a text that is no day.
fn day_start(day: &str, days: i64, tz: Option<&jiff::tz::TimeZone>) -> Option<String> {
    let date: jiff::civil::Date = day.parse().ok()?;
    let date = date.checked_add(jiff::Span::new().days(days)).ok()?;
    let zone = tz.cloned().unwrap_or(jiff::tz::TimeZone::UTC);
    let ms = date.to_zoned(zone).ok()?.timestamp().as_millisecond();
    DateTime::<Utc>::from_timestamp_millis(ms).map(crate::clock::stamp)
}

/// The length of a billing block.
pub(crate) const BLOCK_HOURS: i64 = 5;

fn by_query(kind: DbKind, by: CostBy) -> &'static str {
    use queries::{home::cost as h, project::cost as p};
    match (kind, by) {
        (DbKind::Home, CostBy::Day) => h::REPORT_BY_DAY,
        (DbKind::Home, CostBy::Week) => h::REPORT_BY_WEEK,
        (DbKind::Home, CostBy::Month) => h::REPORT_BY_MONTH,
        (DbKind::Home, CostBy::Model) => h::REPORT_BY_MODEL,
        (DbKind::Home, CostBy::Session) => h::REPORT_BY_SESSION,
        (DbKind::Home, CostBy::Project | CostBy::Block) => h::REPORT_BY_PROJECT,
        (DbKind::Project, CostBy::Day) => p::REPORT_BY_DAY,
        (DbKind::Project, CostBy::Week) => p::REPORT_BY_WEEK,
        (DbKind::Project, CostBy::Month) => p::REPORT_BY_MONTH,
        (DbKind::Project, CostBy::Model) => p::REPORT_BY_MODEL,
        (DbKind::Project, CostBy::Session) => p::REPORT_BY_SESSION,
        (DbKind::Project, CostBy::Project | CostBy::Block) => p::REPORT_BY_PROJECT,
    }
}

fn hourly_query(kind: DbKind) -> &'static str {
    match kind {
        DbKind::Home => queries::home::cost::REPORT_HOURLY,
        DbKind::Project => queries::project::cost::REPORT_HOURLY,
    }
}

/// Single responses in the hourly rows' shape (see [`CostReports::by_local_hour`]).
fn responses_query(kind: DbKind) -> &'static str {
    match kind {
        DbKind::Home => queries::home::cost::REPORT_RESPONSES,
        DbKind::Project => queries::project::cost::REPORT_RESPONSES,
    }
}

impl CostRow {
    fn keyed(key: &str) -> CostRow {
        CostRow {
            key: key.to_string(),
            ..CostRow::default()
        }
    }

    fn finish(&mut self) {
        self.total_tokens = self
            .input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_read_tokens)
            .saturating_add(self.cache_write_tokens);
        self.cost_complete = self.priced == self.responses;
        if self.priced == 0 {
            self.cost_usd = None;
        }
        self.models.sort();
        self.breakdown.sort_by(|a, b| a.key.cmp(&b.key));
        for b in &mut self.breakdown {
            b.finish();
        }
    }

    /// Adds `o`'s counts, saturating as the views' sums do: no stored value can wrap a total.
    fn add(&mut self, o: &CostRow) {
        self.responses = self.responses.saturating_add(o.responses);
        self.priced = self.priced.saturating_add(o.priced);
        self.input_tokens = self.input_tokens.saturating_add(o.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(o.output_tokens);
        self.cache_read_tokens = self.cache_read_tokens.saturating_add(o.cache_read_tokens);
        self.cache_write_tokens = self.cache_write_tokens.saturating_add(o.cache_write_tokens);
        self.cache_write_1h_tokens = self.cache_write_1h_tokens.saturating_add(o.cache_write_1h_tokens);
        if let Some(c) = o.cost_usd {
            self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + c);
        }
        for m in &o.models {
            if !self.models.contains(m) {
                self.models.push(m.clone());
            }
        }
    }

    /// Adds `o`, one model's sums, to this row and to its breakdown row for that model.
    fn add_model(&mut self, model: &str, o: &CostRow, breakdown: bool) {
        self.add(o);
        if breakdown {
            match self.breakdown.iter_mut().find(|b| b.key == model) {
                Some(b) => b.add(o),
                None => {
                    let mut b = CostRow::keyed(model);
                    b.add(o);
                    self.breakdown.push(b);
                }
            }
        }
    }
}

/// The cost reports of one database, borrowing its connection: the `usage` views of the home
/// database or the generation events of a project database.
pub(crate) struct CostReports<'c> {
    conn: &'c Connection,
    kind: DbKind,
}

/// A block being summed: its row, start, first and last response.
type OpenBlock = (CostRow, DateTime<Utc>, DateTime<Utc>, DateTime<Utc>);
/// The hourly rows of one (hour, at_hour), with their first and last response.
type Chunk = (String, DateTime<Utc>, DateTime<Utc>, Vec<HourRow>);

/// One row of `report_hourly.sql`.
struct HourRow {
    hour: String,
    /// Whether the row is one of `usage_hourly`'s numbered hours (times of the stored form), which an
    /// odd time of the same hour text is summed apart from (see `usage::stored_form`).
    numbered: bool,
    at_hour: bool,
    project: String,
    model: String,
    sums: CostRow,
    first: DateTime<Utc>,
    last: DateTime<Utc>,
}

impl<'c> CostReports<'c> {
    /// The reports of `conn`, a database of `kind`.
    pub(crate) fn new(conn: &'c Connection, kind: DbKind) -> CostReports<'c> {
        CostReports { conn, kind }
    }

    /// The rows keyed `by` (UTC days), filtered, and their totals.
    #[cfg(test)]
    pub(crate) fn report(&self, by: CostBy, filter: &CostFilter) -> Result<CostReport, ReportError> {
        self.report_with(
            filter,
            &CostOptions {
                by,
                now: crate::clock::now(),
                ..CostOptions::default()
            },
        )
    }

    /// The report `opts` asks for.
    pub(crate) fn report_with(&self, filter: &CostFilter, opts: &CostOptions) -> Result<CostReport, ReportError> {
        let mut rows = match (opts.by, &opts.tz) {
            (CostBy::Block, _) => self.blocks(filter, opts)?,
            (CostBy::Day | CostBy::Week | CostBy::Month | CostBy::Model | CostBy::Project, Some(_)) => self.by_local_hour(filter, opts)?,
            _ => self.by_key(filter, opts)?,
        };
        for r in &mut rows {
            r.finish();
        }
        if opts.by == CostBy::Session {
            // By time, as ccusage lists sessions.
            rows.sort_by(|a, b| a.last_activity.cmp(&b.last_activity).then_with(|| a.key.cmp(&b.key)));
        }
        if let Some(n) = opts.last {
            let skip = rows.len().saturating_sub(n);
            rows.drain(..skip);
        }
        if opts.order == Order::Desc {
            rows.reverse();
        }
        let mut totals = CostRow::keyed("total");
        for r in rows.iter().filter(|r| !r.block.as_ref().is_some_and(|b| b.gap)) {
            totals.add(r);
        }
        totals.finish();
        Ok(CostReport { rows, totals })
    }

    /// How many responses of the filter's days (local days in `tz`, UTC when `None`) have inexact
    /// output tokens: their `cost_source` carries [`super::rates::INEXACT_OUTPUT_MARK`]. Read apart
    /// from [`Self::report_with`] (the statusline's report does not pay for it).
    pub(crate) fn inexact_output(&self, filter: &CostFilter, tz: Option<&jiff::tz::TimeZone>) -> Result<i64, ReportError> {
        let sql = match self.kind {
            DbKind::Home => queries::home::cost::INEXACT_OUTPUT,
            DbKind::Project => queries::project::cost::INEXACT_OUTPUT,
        };
        let from = filter.since.as_deref().and_then(|d| day_start(d, 0, tz));
        let to = filter.until.as_deref().and_then(|d| day_start(d, 1, tz));
        let mut st = self.conn.prepare_cached(sql)?;
        Ok(st.query_row(params![from, to, filter.project], |r| r.get(0))?)
    }

    /// Rows from the `cost_by_*` views (UTC days).
    fn by_key(&self, filter: &CostFilter, opts: &CostOptions) -> rusqlite::Result<Vec<CostRow>> {
        let mut st = self.conn.prepare_cached(by_query(self.kind, opts.by))?;
        let mut q = st.query(params![filter.since, filter.until, filter.project])?;
        let mut rows: Vec<CostRow> = Vec::new();
        while let Some(r) = q.next()? {
            let key: String = r.get::<_, Option<String>>(0)?.unwrap_or_default();
            let model: String = r.get::<_, Option<String>>(1)?.unwrap_or_default();
            let sums = CostRow {
                models: vec![model.clone()],
                responses: r.get(2)?,
                priced: r.get(3)?,
                input_tokens: r.get(4)?,
                output_tokens: r.get(5)?,
                cache_read_tokens: r.get(6)?,
                cache_write_tokens: r.get(7)?,
                cache_write_1h_tokens: r.get(8)?,
                cost_usd: r.get(9)?,
                ..CostRow::default()
            };
            let projects: Option<String> = r.get(10)?;
            let last: Option<String> = r.get(11)?;
            // The query orders by key, so a key's models are together.
            if rows.last().is_none_or(|row| row.key != key) {
                rows.push(CostRow::keyed(&key));
            }
            let row = rows.last_mut().expect("pushed above");
            row.add_model(&model, &sums, opts.breakdown);
            if opts.by == CostBy::Session {
                for p in projects.iter().flat_map(|p| p.split(',')).filter(|p| !p.is_empty()) {
                    let list = row.project.get_or_insert_with(String::new);
                    if !list.split(", ").any(|x| x == p) {
                        if !list.is_empty() {
                            list.push_str(", ");
                        }
                        list.push_str(p);
                    }
                }
                if last > row.last_activity {
                    row.last_activity = last;
                }
            }
        }
        Ok(rows)
    }

    /// The hourly rows of the UTC days that can hold the filter's local days.
    fn hours(&self, filter: &CostFilter, widen: bool) -> rusqlite::Result<Vec<HourRow>> {
        let shift = |d: &Option<String>, days: i64| -> Option<String> {
            let d = d.as_ref()?;
            if !widen {
                return Some(d.clone());
            }
            let date = chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()?;
            Some((date + Duration::days(days)).format("%Y-%m-%d").to_string())
        };
        let (since, until) = (shift(&filter.since, -1), shift(&filter.until, 1));
        self.hour_rows(false, since, until, filter.project.as_deref())
    }

    /// Rows of `sql` (report_hourly.sql's columns) for `from` to `to` and `project`, in the order of
    /// their hours' texts. The home database's hourly rows come as `usage_hourly` keeps them: a
    /// numbered hour with its first and last response as milliseconds into it, written out here.
    fn hour_rows(&self, singles: bool, from: Option<String>, to: Option<String>, project: Option<&str>) -> rusqlite::Result<Vec<HourRow>> {
        let sql = if singles {
            responses_query(self.kind)
        } else {
            hourly_query(self.kind)
        };
        let mut st = self.conn.prepare_cached(sql)?;
        let mut q = st.query(params![from, to, project])?;
        let mut out = Vec::new();
        let mut hour_starts: Option<(u64, DateTime<Utc>)> = None;
        while let Some(r) = q.next()? {
            let numbered_hour = match r.get_ref(0)? {
                ValueRef::Integer(digits) => u64::try_from(digits).ok(),
                _ => None,
            };
            let hour = match numbered_hour {
                Some(digits) => String::from_utf8_lossy(&usage::hour_text(digits)).into_owned(),
                None => r.get(0)?,
            };
            // A numbered hour's start, parsed once for its rows (they come in the order of hours).
            let start = match numbered_hour {
                Some(digits) => match hour_starts {
                    Some((d, start)) if d == digits => Some(start),
                    _ => {
                        let start = hour_start(&hour);
                        hour_starts = start.map(|s| (digits, s));
                        start
                    }
                },
                None => None,
            };
            let stamp = |i: usize| -> rusqlite::Result<DateTime<Utc>> {
                // The time `stored_time` writes out and `clock::parse` reads back, without the text.
                if let (Some(start), ValueRef::Integer(ms @ 0..3_600_000)) = (start, r.get_ref(i)?) {
                    return Ok(start + Duration::milliseconds(ms));
                }
                let text = match (numbered_hour, r.get_ref(i)?) {
                    (Some(digits), ValueRef::Integer(ms)) => usage::stored_time(digits, ms),
                    _ => r.get(i)?,
                };
                crate::clock::parse(&text)
                    .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e)))
            };
            // A single response (`report_responses.sql`) belongs to a numbered hour when its time
            // is of the stored form; the project database keeps no numbered hours.
            let numbered = match numbered_hour {
                Some(_) => true,
                None => singles && self.kind == DbKind::Home && usage::stored_form(r.get_ref(12)?.as_str()?).is_some(),
            };
            let model: String = r.get(3)?;
            let (first, last) = (stamp(12)?, stamp(13)?);
            out.push(HourRow {
                hour,
                numbered,
                at_hour: r.get(1)?,
                project: r.get(2)?,
                sums: CostRow {
                    models: vec![model.clone()],
                    responses: r.get(4)?,
                    priced: r.get(5)?,
                    input_tokens: r.get(6)?,
                    output_tokens: r.get(7)?,
                    cache_read_tokens: r.get(8)?,
                    cache_write_tokens: r.get(9)?,
                    cache_write_1h_tokens: r.get(10)?,
                    cost_usd: r.get(11)?,
                    ..CostRow::default()
                },
                model,
                first,
                last,
            });
        }
        // Hourly rows come in the order of their stored hours (the home database's query does not
        // sort them), in which an odd time's text comes after every numbered hour (none in the
        // project database): in the order of the texts it is where SQLite would have put it, after
        // the numbered row of the same text. Single responses stay in time order.
        if !singles {
            out.sort_by(|a, b| {
                (a.hour.cmp(&b.hour))
                    .then(b.at_hour.cmp(&a.at_hour))
                    .then_with(|| a.project.cmp(&b.project))
                    .then_with(|| a.model.cmp(&b.model))
                    .then(b.numbered.cmp(&a.numbered))
            });
        }
        Ok(out)
    }

    /// Day, week, month, model and project rows with days in `opts.tz`.
    ///
    /// An hourly row lies on one local day unless the zone's midnight falls between its first and
    /// last response, which happens only in a zone whose offset has minutes (Asia/Kolkata, +05:30).
    /// Those rows are replaced by their single responses (`cost_responses`, read once for the hours
    /// between the first and the last such row), so every zone is exact.
    fn by_local_hour(&self, filter: &CostFilter, opts: &CostOptions) -> Result<Vec<CostRow>, ReportError> {
        let tz = opts.tz.clone().unwrap_or(jiff::tz::TimeZone::UTC);
        let mut keyed: BTreeMap<String, CostRow> = BTreeMap::new();
        let mut add = |h: &HourRow, day: String| {
            if filter.since.as_ref().is_some_and(|s| day < *s) || filter.until.as_ref().is_some_and(|u| day > *u) {
                return;
            }
            let key = match opts.by {
                CostBy::Day => day,
                CostBy::Week => iso_week(&day),
                CostBy::Month => day[..7].to_string(),
                CostBy::Model => h.model.clone(),
                _ => h.project.clone(),
            };
            keyed
                .entry(key.clone())
                .or_insert_with(|| CostRow::keyed(&key))
                .add_model(&h.model, &h.sums, opts.breakdown);
        };
        let mut split: Vec<HourRow> = Vec::new();
        // A numbered hour's local day, worked out once for all its rows (they come in the order of
        // hours): a row of it lies on that day whenever the hour's first and last millisecond do,
        // which is every hour of a zone whose offset is whole hours.
        let mut hour_day: Option<(String, Option<String>)> = None;
        for h in self.hours(filter, true)? {
            if h.numbered {
                if hour_day.as_ref().is_none_or(|(hour, _)| *hour != h.hour) {
                    let day = hour_start(&h.hour).and_then(|start| {
                        let day = local_day(&tz, start);
                        (day == local_day(&tz, start + Duration::milliseconds(3_599_999))).then_some(day)
                    });
                    hour_day = Some((h.hour.clone(), day));
                }
                if let Some((_, Some(day))) = &hour_day {
                    add(&h, day.clone());
                    continue;
                }
            }
            let day = local_day(&tz, h.first);
            if day == local_day(&tz, h.last) {
                add(&h, day);
            } else {
                split.push(h);
            }
        }
        if let (Some(first), Some(last)) = (split.first(), split.last()) {
            let keys: HashSet<(&str, bool, bool, &str, &str)> = split
                .iter()
                .map(|h| (h.hour.as_str(), h.numbered, h.at_hour, h.project.as_str(), h.model.as_str()))
                .collect();
            let is_split = |r: &HourRow| keys.contains(&(r.hour.as_str(), r.numbered, r.at_hour, r.project.as_str(), r.model.as_str()));
            let project = filter.project.as_deref();
            for r in self.hour_rows(true, Some(first.hour.clone()), Some(last.hour.clone()), project)? {
                if is_split(&r) {
                    add(&r, local_day(&tz, r.first));
                }
            }
        }
        Ok(keyed.into_values().collect())
    }

    /// ccusage's billing blocks over the hourly rows: a block starts at its first response's hour
    /// and lasts [`BLOCK_HOURS`]; a response more than that after the block's start, or after the
    /// previous response, starts a new one, and a silence longer than that is a gap row. A row of
    /// `usage_hourly` never straddles a block boundary (see migrations/home/V7__cache_write_1h.sql),
    /// so the blocks are those of the single responses.
    ///
    /// The blocks are activity's, not the window's: the chain is computed from a silence before
    /// the window's first day (read further back until one is found), so `--since` and `--until`
    /// only choose which blocks are shown — those with a response in the window, whole — and a
    /// block running over midnight is the same block whichever day is asked for.
    fn blocks(&self, filter: &CostFilter, opts: &CostOptions) -> Result<Vec<CostRow>, ReportError> {
        let tz = opts.tz.clone().unwrap_or(jiff::tz::TimeZone::UTC);
        let span = Duration::hours(BLOCK_HOURS);
        let window_from = filter.since.as_deref().and_then(|d| local_midnight(&tz, d, 0));
        let window_to = filter.until.as_deref().and_then(|d| local_midnight(&tz, d, 1));
        let rows = self.chain_hours(filter, opts.tz.is_some(), window_from, span)?;
        let mut out: Vec<CostRow> = Vec::new();
        // The open block: its row, start, first and last response.
        let mut open: Option<OpenBlock> = None;
        let close = |out: &mut Vec<CostRow>, (mut row, start, first, last): OpenBlock| {
            let end = start + span;
            let active = opts.now - last < span && opts.now < end;
            row.finish();
            let (burn_rate, projection) = if active {
                burn(&row, first, last, end, opts.now)
            } else {
                (None, None)
            };
            row.block = Some(Block {
                start: crate::clock::stamp(start),
                end: crate::clock::stamp(end),
                actual_end: Some(crate::clock::stamp(last)),
                active,
                gap: false,
                burn_rate,
                projection,
            });
            out.push(row);
        };
        // The rows of one (hour, at_hour) are one chunk: its first and last response decide.
        let mut chunks: Vec<Chunk> = Vec::new();
        for h in rows {
            match chunks.last_mut() {
                Some((hour, first, last, rows)) if *hour == h.hour && rows[0].at_hour == h.at_hour => {
                    *first = (*first).min(h.first);
                    *last = (*last).max(h.last);
                    rows.push(h);
                }
                _ => chunks.push((h.hour.clone(), h.first, h.last, vec![h])),
            }
        }
        for (hour, first, chunk_last, rows) in chunks {
            if let Some((_, start, _, last)) = &open {
                if first - *start > span || first - *last > span {
                    let gap_from = *last + span;
                    let silent = first - *last > span;
                    close(&mut out, open.take().expect("checked above"));
                    if silent {
                        out.push(CostRow {
                            key: format!("gap-{}", crate::clock::stamp(gap_from)),
                            cost_complete: true,
                            block: Some(Block {
                                start: crate::clock::stamp(gap_from),
                                end: crate::clock::stamp(first),
                                gap: true,
                                ..Block::default()
                            }),
                            ..CostRow::default()
                        });
                    }
                }
            }
            let (row, _, _, last) = open.get_or_insert_with(|| {
                let start = hour_start(&hour).unwrap_or(first);
                (CostRow::keyed(&crate::clock::stamp(start)), start, first, chunk_last)
            });
            for h in &rows {
                row.add_model(&h.model, &h.sums, opts.breakdown);
            }
            *last = (*last).max(chunk_last);
        }
        if let Some(b) = open.take() {
            close(&mut out, b);
        }
        Ok(shown(out, window_from, window_to))
    }

    /// The hourly rows the blocks of the window are chained over: from `window_from`'s day back to
    /// a silence of more than `span` before the window (after which the chain no longer depends on
    /// what came before), or from the first row. A day, then 4, 16 and 64 days are read before
    /// the whole history is; the statusline's window is the last hours, so it reads a day or two.
    fn chain_hours(
        &self,
        filter: &CostFilter,
        widen: bool,
        window_from: Option<DateTime<Utc>>,
        span: Duration,
    ) -> rusqlite::Result<Vec<HourRow>> {
        // A block shown is shown whole: it may run up to a block's length past the last day.
        let filter = &CostFilter {
            until: filter.until.as_deref().and_then(|u| shift_day(u, 1)),
            ..filter.clone()
        };
        let (Some(since), Some(window_from)) = (filter.since.as_deref(), window_from) else {
            return self.hours(filter, widen);
        };
        let mut back = 1;
        loop {
            let from = (back <= 64).then(|| shift_day(since, -back)).flatten();
            let read = CostFilter {
                since: from.clone(),
                ..filter.clone()
            };
            let rows = self.hours(&read, widen)?;
            let Some(from) = from else { return Ok(rows) };
            // What was read starts no later than this (a day earlier when widened for a zone).
            let read_from = local_midnight(&jiff::tz::TimeZone::UTC, &from, if widen { -1 } else { 0 });
            if read_from.is_some_and(|start| silence_before(&rows, start, window_from, span)) {
                return Ok(rows);
            }
            // No silence in the day before: rather than read further back (on a record busy for
            // months, the whole history), walk the blocks' starts to the window.
            if back == 1 {
                if let Some(rows) = self.walked_hours(filter, widen, window_from, span)? {
                    return Ok(rows);
                }
            }
            back *= 4;
        }
    }

    /// The hourly rows from the start of the first block that can reach `window_from` on, found by
    /// walking the blocks' starts from the first response (`block_walk.sql`: one seek per block,
    /// not a read of every hourly row back to a silence). The blocks chained over these rows are
    /// the whole history's from that block on: its first row is the block's first response.
    /// `None` where the walk does not apply (the project database, an hour kept as text, an hour
    /// that is no time); the caller reads back to a silence instead.
    fn walked_hours(
        &self,
        filter: &CostFilter,
        widen: bool,
        window_from: DateTime<Utc>,
        span: Duration,
    ) -> rusqlite::Result<Option<Vec<HourRow>>> {
        if self.kind != DbKind::Home {
            return Ok(None);
        }
        let odd: bool = self
            .conn
            .prepare_cached(queries::home::cost::HOURLY_ODD)?
            .query_row([], |r| r.get(0))?;
        if odd {
            return Ok(None);
        }
        let mut step = self.conn.prepare_cached(queries::home::cost::BLOCK_WALK)?;
        // The hour that closes the previous block (its start + `span`); -1 before the first.
        let mut closes: i64 = -1;
        let (hour, shares_hour) = loop {
            let next: Option<i64> = step.query_row(params![closes, filter.project], |r| r.get(0))?;
            let Some(hour) = next else { return Ok(Some(Vec::new())) };
            let Some(start) = numbered_hour_start(hour) else { return Ok(None) };
            if start + span >= window_from {
                break (hour, hour == closes);
            }
            let Some(end) = hour_number(start + span) else { return Ok(None) };
            closes = end;
        };
        let Ok(digits) = u64::try_from(hour) else { return Ok(None) };
        let anchor = String::from_utf8_lossy(&usage::hour_text(digits)).into_owned();
        let read = CostFilter {
            since: Some(anchor[..10].to_string()),
            ..filter.clone()
        };
        let mut rows = self.hours(&read, widen)?;
        // The responses stamped exactly on the hour that closed the previous block are that block's.
        rows.retain(|r| r.hour > anchor || (r.hour == anchor && !(shares_hour && r.at_hour)));
        Ok(Some(rows))
    }
}

/// The start of a `usage_hourly` hour kept as a number (2026112009); `None` for one that is no time.
fn numbered_hour_start(hour: i64) -> Option<DateTime<Utc>> {
    let digits = u64::try_from(hour).ok()?;
    hour_start(std::str::from_utf8(&usage::hour_text(digits)).ok()?)
}

/// The number `usage_hourly` keeps the UTC hour of `t` by (2026112009).
fn hour_number(t: DateTime<Utc>) -> Option<i64> {
    t.format("%Y%m%d%H").to_string().parse().ok()
}

/// Whether the chain of `rows` (in time order, read from `read_from`) passes a silence of more
/// than `span` at or before the window's first response: the time from `read_from` to the first
/// row counts as one (nothing was read before it).
fn silence_before(rows: &[HourRow], read_from: DateTime<Utc>, window_from: DateTime<Utc>, span: Duration) -> bool {
    let mut last = read_from;
    for r in rows {
        if r.first - last > span {
            return true;
        }
        if r.first >= window_from {
            return false;
        }
        last = last.max(r.last);
    }
    // Nothing in the window: no block of it to show, however the chain ran.
    true
}

/// The blocks with a response in the window (`from` inclusive, `to` exclusive), whole, and the
/// gaps between them.
fn shown(rows: Vec<CostRow>, from: Option<DateTime<Utc>>, to: Option<DateTime<Utc>>) -> Vec<CostRow> {
    if from.is_none() && to.is_none() {
        return rows;
    }
    let t = |s: &str| crate::clock::parse(s).ok();
    let inside = |r: &CostRow| {
        let Some(b) = r.block.as_ref().filter(|b| !b.gap) else {
            return false;
        };
        let (start, last) = (t(&b.start), b.actual_end.as_deref().and_then(t));
        from.is_none_or(|f| last.is_some_and(|l| l >= f)) && to.is_none_or(|u| start.is_some_and(|s| s < u))
    };
    let (Some(first), Some(last)) = (rows.iter().position(inside), rows.iter().rposition(inside)) else {
        return Vec::new();
    };
    rows.into_iter()
        .enumerate()
        .filter(|(i, r)| (first..=last).contains(i) && (inside(r) || r.block.as_ref().is_some_and(|b| b.gap)))
        .map(|(_, r)| r)
        .collect()
}

/// The start of day `day` (`YYYY-MM-DD`) + `days` in `tz`, as a UTC time.
fn local_midnight(tz: &jiff::tz::TimeZone, day: &str, days: i64) -> Option<DateTime<Utc>> {
    let date: jiff::civil::Date = day.parse().ok()?;
    let date = date.checked_add(jiff::Span::new().days(days)).ok()?;
    let zoned = date.to_zoned(tz.clone()).ok()?;
    DateTime::from_timestamp_millis(zoned.timestamp().as_millisecond())
}

/// `day` (`YYYY-MM-DD`) moved by `days`.
fn shift_day(day: &str, days: i64) -> Option<String> {
    let date = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()?;
    Some((date + Duration::days(days)).format("%Y-%m-%d").to_string())
}

/// The least activity a block's burn rate is measured over (issue 52): 15 cents spent in six
/// seconds is no hourly rate, and projecting it to the block's end printed $382.
pub(crate) const MIN_BURN_MINUTES: f64 = 10.0;

/// ccusage's burn rate and projection of an active block, once its responses span at least
/// [`MIN_BURN_MINUTES`].
fn burn(
    row: &CostRow,
    first: DateTime<Utc>,
    last: DateTime<Utc>,
    end: DateTime<Utc>,
    now: DateTime<Utc>,
) -> (Option<BurnRate>, Option<Projection>) {
    let minutes = (last - first).num_milliseconds() as f64 / 60_000.0;
    if minutes < MIN_BURN_MINUTES {
        return (None, None);
    }
    let cost = row.cost_usd.unwrap_or(0.0);
    let rate = BurnRate {
        tokens_per_minute: row.total_tokens as f64 / minutes,
        tokens_per_minute_for_indicator: row.input_tokens.saturating_add(row.output_tokens) as f64 / minutes,
        cost_per_hour: cost / minutes * 60.0,
    };
    let remaining = ((end - now).num_milliseconds() as f64 / 60_000.0).max(0.0);
    let projection = Projection {
        total_tokens: (row.total_tokens as f64 + rate.tokens_per_minute * remaining).round() as i64,
        total_cost: ((cost + rate.cost_per_hour / 60.0 * remaining) * 100.0).round() / 100.0,
        remaining_minutes: remaining.round() as i64,
    };
    (Some(rate), Some(projection))
}

/// `YYYY-MM-DDTHH` as the start of that UTC hour.
fn hour_start(hour: &str) -> Option<DateTime<Utc>> {
    crate::clock::parse(&format!("{hour}:00:00Z")).ok()
}

/// The day of `t` in `tz`.
fn local_day(tz: &jiff::tz::TimeZone, t: DateTime<Utc>) -> String {
    match jiff::Timestamp::from_millisecond(t.timestamp_millis()) {
        Ok(ts) => ts.to_zoned(tz.clone()).date().to_string(),
        Err(_) => crate::clock::stamp(t)[..10].to_string(),
    }
}

/// The ISO week (`YYYY-Www`) of a `YYYY-MM-DD` day.
fn iso_week(day: &str) -> String {
    match chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d") {
        Ok(d) => d.format("%G-W%V").to_string(),
        Err(_) => day.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 52, item 4: a burn rate and a projection only over ten minutes of activity or more.
    #[test]
    fn a_block_of_a_few_seconds_has_no_burn_rate() {
        let row = CostRow {
            cost_usd: Some(0.15),
            total_tokens: 10_000,
            ..CostRow::keyed("b")
        };
        let t = |s: &str| crate::clock::parse(s).unwrap();
        let (rate, projection) = burn(
            &row,
            t("2026-12-07T10:00:00Z"),
            t("2026-12-07T10:00:06Z"),
            t("2026-12-07T15:00:00Z"),
            t("2026-12-07T10:00:07Z"),
        );
        assert!(rate.is_none() && projection.is_none());
        let (rate, _) = burn(
            &row,
            t("2026-12-07T10:00:00Z"),
            t("2026-12-07T10:10:00Z"),
            t("2026-12-07T15:00:00Z"),
            t("2026-12-07T10:10:07Z"),
        );
        assert!((rate.unwrap().cost_per_hour - 0.9).abs() < 1e-9);
    }

    #[test]
    fn unpriced_rows_have_no_cost_and_make_totals_incomplete() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(DbKind::Home, &dir.path().join("h.db")).unwrap();
        let conn = store.conn();
        let mut w = crate::cost::usage::UsageWriter::new(conn).unwrap();
        let u = crate::cost::TokenUsage {
            input: 1,
            output: 2,
            cache_read: 3,
            cache_write: 4,
            cache_write_1h: 0,
        };
        for (k, project, ts, model, cost) in [
            ("a", "p1", "2026-11-20T10:00:00.000Z", "m1", Some(0.5)),
            ("b", "p1", "2026-11-21T10:00:00.000Z", "m1", Some(0.25)),
            ("c", "p2", "2026-11-21T11:00:00.000Z", "unknown", None),
        ] {
            let row = crate::cost::usage::UsageRow {
                project,
                provider: None,
                model,
                usage: u,
                cost_usd: cost,
                ..crate::cost::usage::UsageRow::for_test(k, ts)
            };
            w.insert(&row).unwrap();
        }
        w.flush().unwrap();
        let reports = CostReports::new(conn, DbKind::Home);
        let r = reports.report(CostBy::Model, &CostFilter::default()).unwrap();
        assert_eq!(r.rows.len(), 2);
        assert_eq!(r.rows[0].key, "m1");
        assert_eq!(r.rows[0].cost_usd, Some(0.75));
        assert!(r.rows[0].cost_complete);
        assert_eq!(r.rows[0].total_tokens, 20);
        assert_eq!(r.rows[1].cost_usd, None);
        assert!(!r.rows[1].cost_complete);
        assert_eq!(r.totals.cost_usd, Some(0.75));
        assert!(!r.totals.cost_complete);
        assert_eq!(r.totals.responses, 3);
        let f = CostFilter {
            since: Some("2026-11-21".into()),
            until: None,
            project: Some("p1".into()),
        };
        let r = reports.report(CostBy::Day, &f).unwrap();
        assert_eq!(r.rows.len(), 1);
        assert_eq!((r.rows[0].key.as_str(), r.rows[0].cost_usd), ("2026-11-21", Some(0.25)));
        let r = reports.report(CostBy::Week, &CostFilter::default()).unwrap();
        assert_eq!(r.rows[0].key, "2026-W47");
    }

    /// Blocks asked for a window (the walk to it, `walked_hours`) are the blocks of the whole
    /// history that reach the window: responses every 20 minutes for ten days (so no silence before
    /// most windows), many stamped exactly on the hour a block closes at, and one 7-hour silence.
    #[test]
    fn the_walked_blocks_are_the_whole_historys() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(DbKind::Home, &dir.path().join("h.db")).unwrap();
        let conn = store.conn();
        let mut w = crate::cost::usage::UsageWriter::new(conn).unwrap();
        let base = crate::clock::parse("2026-11-01T00:00:00Z").unwrap();
        let mut stamps = Vec::new();
        for k in 0..720i64 {
            // A silence of 7 hours after the third day.
            let t = base + Duration::minutes(20 * k) + Duration::hours(if k > 216 { 7 } else { 0 });
            let t = if k % 3 == 1 { t + Duration::seconds(7) } else { t };
            stamps.push((format!("k{k}"), crate::clock::stamp(t), k));
        }
        for (key, ts, k) in &stamps {
            let row = crate::cost::usage::UsageRow {
                project: if k % 2 == 0 { "p1" } else { "p2" },
                model: if k % 5 == 0 { "m2" } else { "m1" },
                usage: crate::cost::TokenUsage {
                    input: (1 + *k) as u64,
                    output: 2,
                    cache_read: 3,
                    cache_write: 4,
                    cache_write_1h: 0,
                },
                cost_usd: Some(0.001 * *k as f64),
                ..crate::cost::usage::UsageRow::for_test(key, ts)
            };
            w.insert(&row).unwrap();
        }
        w.flush().unwrap();
        let reports = CostReports::new(conn, DbKind::Home);
        let now = crate::clock::parse("2026-11-06T12:10:00Z").unwrap();
        for tz in [None, Some("Europe/Berlin"), Some("Asia/Kolkata")] {
            let tz = tz.map(|z| jiff::tz::TimeZone::get(z).unwrap());
            for project in [None, Some("p1"), Some("nowhere")] {
                let opts = CostOptions {
                    by: CostBy::Block,
                    tz: tz.clone(),
                    breakdown: true,
                    now,
                    ..CostOptions::default()
                };
                let all = CostFilter {
                    project: project.map(str::to_string),
                    ..CostFilter::default()
                };
                let whole = reports.report_with(&all, &opts).unwrap().rows;
                for day in 1..=12 {
                    for len in [0, 1] {
                        let (since, until) = (format!("2026-11-{day:02}"), format!("2026-11-{:02}", day + len));
                        let zone = tz.clone().unwrap_or(jiff::tz::TimeZone::UTC);
                        let want = shown(whole.clone(), local_midnight(&zone, &since, 0), local_midnight(&zone, &until, 1));
                        let filter = CostFilter {
                            since: Some(since.clone()),
                            until: Some(until),
                            ..all.clone()
                        };
                        let got = reports.report_with(&filter, &opts).unwrap().rows;
                        assert_eq!(got, want, "since {since}, project {project:?}, zone {tz:?}");
                        if project.is_none() && (5..=10).contains(&day) {
                            assert!(!got.is_empty(), "since {since}: blocks expected");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_local_day_is_the_zones_whatever_its_offset() {
        let t = crate::clock::parse("2026-11-20T20:00:00Z").unwrap();
        let tokyo = jiff::tz::TimeZone::get("Asia/Tokyo").unwrap();
        assert_eq!(local_day(&tokyo, t), "2026-11-21");
        let ny = jiff::tz::TimeZone::get("America/New_York").unwrap();
        assert_eq!(local_day(&ny, crate::clock::parse("2026-11-21T04:59:59Z").unwrap()), "2026-11-20");
        let kolkata = jiff::tz::TimeZone::get("Asia/Kolkata").unwrap();
        assert_eq!(
            local_day(&kolkata, crate::clock::parse("2026-11-20T18:29:59.999Z").unwrap()),
            "2026-11-20"
        );
        assert_eq!(
            local_day(&kolkata, crate::clock::parse("2026-11-20T18:30:00Z").unwrap()),
            "2026-11-21"
        );
    }
}
