//! Cost reports: the `cost_by_*` views re-aggregated per key after filtering on day and project.
//! The same view names exist in both databases (home: imported transcripts and the spool; project:
//! this repository's generation events), so one function serves `obs cost` and `obs cost --here`.

use crate::store::queries;
use crate::store::DbKind;
use rusqlite::{params, Connection};
use serde::Serialize;

/// What the rows are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum CostBy {
    #[default]
    Day,
    Week,
    Month,
    Model,
    Session,
    Project,
}

/// Which rows to keep: days are inclusive UTC `YYYY-MM-DD`.
#[derive(Debug, Clone, Default)]
pub struct CostFilter {
    pub since: Option<String>,
    pub until: Option<String>,
    pub project: Option<String>,
}

/// One row of a cost report (also the totals).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CostRow {
    pub key: String,
    pub models: Vec<String>,
    pub responses: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cache_read_tokens: i64,
    pub cache_write_tokens: i64,
    pub total_tokens: i64,
    /// USD; `None` when nothing in the row could be priced.
    pub cost_usd: Option<f64>,
    /// True when every response in the row was priced.
    pub cost_complete: bool,
    #[serde(skip)]
    pub priced: i64,
}

/// A cost report: its rows and their totals.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CostReport {
    pub rows: Vec<CostRow>,
    pub totals: CostRow,
}

fn query(kind: DbKind, by: CostBy) -> &'static str {
    use queries::{home::cost as h, project::cost as p};
    match (kind, by) {
        (DbKind::Home, CostBy::Day) => h::REPORT_BY_DAY,
        (DbKind::Home, CostBy::Week) => h::REPORT_BY_WEEK,
        (DbKind::Home, CostBy::Month) => h::REPORT_BY_MONTH,
        (DbKind::Home, CostBy::Model) => h::REPORT_BY_MODEL,
        (DbKind::Home, CostBy::Session) => h::REPORT_BY_SESSION,
        (DbKind::Home, CostBy::Project) => h::REPORT_BY_PROJECT,
        (DbKind::Project, CostBy::Day) => p::REPORT_BY_DAY,
        (DbKind::Project, CostBy::Week) => p::REPORT_BY_WEEK,
        (DbKind::Project, CostBy::Month) => p::REPORT_BY_MONTH,
        (DbKind::Project, CostBy::Model) => p::REPORT_BY_MODEL,
        (DbKind::Project, CostBy::Session) => p::REPORT_BY_SESSION,
        (DbKind::Project, CostBy::Project) => p::REPORT_BY_PROJECT,
    }
}

impl CostRow {
    fn finish(&mut self) {
        self.total_tokens = self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens;
        self.cost_complete = self.priced == self.responses;
        if self.priced == 0 {
            self.cost_usd = None;
        }
    }

    fn add(&mut self, o: &CostRow) {
        self.responses += o.responses;
        self.priced += o.priced;
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cache_read_tokens += o.cache_read_tokens;
        self.cache_write_tokens += o.cache_write_tokens;
        if let Some(c) = o.cost_usd {
            self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + c);
        }
        for m in &o.models {
            if !self.models.contains(m) {
                self.models.push(m.clone());
            }
        }
    }
}

/// The cost reports of one database, borrowing its connection: the `usage` views of the home
/// database or the generation events of a project database.
pub struct CostReports<'c> {
    conn: &'c Connection,
    kind: DbKind,
}

impl<'c> CostReports<'c> {
    /// The reports of `conn`, a database of `kind`.
    pub fn new(conn: &'c Connection, kind: DbKind) -> CostReports<'c> {
        CostReports { conn, kind }
    }

    /// The rows keyed `by`, filtered, and their totals.
    pub fn report(&self, by: CostBy, filter: &CostFilter) -> rusqlite::Result<CostReport> {
        cost_report(self.conn, self.kind, by, filter)
    }
}

fn cost_report(conn: &Connection, kind: DbKind, by: CostBy, filter: &CostFilter) -> rusqlite::Result<CostReport> {
    let mut st = conn.prepare_cached(query(kind, by))?;
    let rows = st.query_map(params![filter.since, filter.until, filter.project], |r| {
        let models: Option<String> = r.get(1)?;
        let mut models: Vec<String> = models
            .unwrap_or_default()
            .split(',')
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect();
        models.sort();
        Ok(CostRow {
            key: r.get::<_, Option<String>>(0)?.unwrap_or_default(),
            models,
            responses: r.get(2)?,
            priced: r.get(3)?,
            input_tokens: r.get(4)?,
            output_tokens: r.get(5)?,
            cache_read_tokens: r.get(6)?,
            cache_write_tokens: r.get(7)?,
            total_tokens: 0,
            cost_usd: r.get(8)?,
            cost_complete: false,
        })
    })?;
    let mut report = CostReport {
        rows: Vec::new(),
        totals: CostRow {
            key: "total".into(),
            ..CostRow::default()
        },
    };
    for r in rows {
        let mut row = r?;
        row.finish();
        report.totals.add(&row);
        report.rows.push(row);
    }
    report.totals.models.sort();
    report.totals.finish();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
