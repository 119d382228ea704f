//! `UsageWriter`: the bulk writer of the home database's `usage` table. It inserts responses
//! idempotently (`INSERT OR IGNORE` on the dedup key) and, for rows of source `transcript`, adds
//! the sums of the rows it actually inserted to `usage_rollup` when flushed — in the caller's
//! transaction, so the rollup never disagrees with `usage`. The per-row insert trigger (V2) skips
//! `transcript` rows because it cost about 40% of a bulk import; rows of any other source are
//! still rolled up by it. Call [`UsageWriter::flush`] before committing.

use super::rates::TokenUsage;
use super::transcript::Fx;
use crate::store::queries::home::cost as q;
use rusqlite::{params, Connection};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The source whose rows this writer adds to `usage_rollup` itself; the insert trigger skips them.
pub const ROLLED_UP_BY_WRITER: &str = "transcript";

/// One response to store.
#[derive(Debug, Clone)]
pub struct UsageRow<'a> {
    pub dedup_key: &'a str,
    /// `transcript`, `spool`, …
    pub source: &'a str,
    pub project: &'a str,
    pub repo_path: Option<&'a str>,
    pub session_id: &'a str,
    pub provider: Option<&'a str>,
    /// UTC RFC 3339; its first ten characters are the rollup's day.
    pub ts: &'a str,
    pub model: &'a str,
    pub usage: TokenUsage,
    pub cost_usd: Option<f64>,
    pub cost_source: Option<&'a str>,
    pub cost_pool: Option<&'a str>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Sums {
    responses: i64,
    priced: i64,
    input: i64,
    output: i64,
    cache_read: i64,
    cache_write: i64,
    cost: f64,
}

impl Sums {
    fn add(&mut self, o: &Sums) {
        self.responses += o.responses;
        self.priced += o.priced;
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
        self.cost += o.cost;
    }
}

/// Inserts usage rows and keeps `usage_rollup` and `usage_daily` in step.
pub struct UsageWriter<'c> {
    conn: &'c Connection,
    /// Sums per `day \0 project \0 session \0 model`, built in `key` to avoid an allocation per row.
    pending: HashMap<String, Sums, BuildHasherDefault<Fx>>,
    key: String,
}

impl<'c> UsageWriter<'c> {
    pub fn new(conn: &'c Connection) -> UsageWriter<'c> {
        UsageWriter {
            conn,
            pending: HashMap::default(),
            key: String::new(),
        }
    }

    /// Stores `row`; `false` when its dedup key was already stored (nothing changed).
    pub fn insert(&mut self, row: &UsageRow<'_>) -> rusqlite::Result<bool> {
        let mut st = self.conn.prepare_cached(q::USAGE_INSERT)?;
        let u = &row.usage;
        let n = st.execute(params![
            row.dedup_key,
            row.source,
            row.project,
            row.repo_path,
            row.session_id,
            row.provider,
            row.ts,
            row.model,
            u.input as i64,
            u.output as i64,
            u.cache_read as i64,
            u.cache_write as i64,
            row.cost_usd,
            row.cost_source,
            row.cost_pool
        ])?;
        if n == 0 {
            return Ok(false);
        }
        // Rows of other sources are rolled up by the `usage_rollup_insert` trigger (V2).
        if row.source != ROLLED_UP_BY_WRITER {
            return Ok(true);
        }
        let day = row.ts.get(..10).unwrap_or(row.ts);
        self.key.clear();
        for (i, part) in [day, row.project, row.session_id, row.model].into_iter().enumerate() {
            if i > 0 {
                self.key.push('\0');
            }
            self.key.push_str(part);
        }
        if !self.pending.contains_key(self.key.as_str()) {
            self.pending.insert(self.key.clone(), Sums::default());
        }
        let Some(s) = self.pending.get_mut(self.key.as_str()) else {
            return Ok(true);
        };
        s.responses += 1;
        s.priced += i64::from(row.cost_usd.is_some());
        s.input += u.input as i64;
        s.output += u.output as i64;
        s.cache_read += u.cache_read as i64;
        s.cache_write += u.cache_write as i64;
        s.cost += row.cost_usd.unwrap_or(0.0);
        Ok(true)
    }

    /// Adds the sums of every row inserted since the last flush to `usage_rollup`.
    pub fn flush(&mut self) -> rusqlite::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut daily: HashMap<(String, String, String), Sums> = HashMap::new();
        let mut st = self.conn.prepare_cached(q::ROLLUP_ADD)?;
        for (key, s) in self.pending.drain() {
            let mut parts = key.splitn(4, '\0');
            let mut next = || parts.next().unwrap_or("");
            let (day, project, session, model) = (next(), next(), next(), next());
            st.execute(params![
                day,
                project,
                session,
                model,
                s.responses,
                s.priced,
                s.input,
                s.output,
                s.cache_read,
                s.cache_write,
                s.cost
            ])?;
            daily
                .entry((day.to_string(), project.to_string(), model.to_string()))
                .or_default()
                .add(&s);
        }
        let mut st = self.conn.prepare_cached(q::DAILY_ADD)?;
        for ((day, project, model), s) in daily {
            st.execute(params![
                day,
                project,
                model,
                s.responses,
                s.priced,
                s.input,
                s.output,
                s.cache_read,
                s.cache_write,
                s.cost
            ])?;
        }
        Ok(())
    }
}

/// Rebuilds `usage_rollup` and `usage_daily` from `usage` (the repair path).
pub fn rebuild_rollup(conn: &Connection) -> rusqlite::Result<()> {
    conn.prepare_cached(q::ROLLUP_CLEAR)?.execute([])?;
    conn.prepare_cached(q::ROLLUP_REBUILD)?.execute([])?;
    conn.prepare_cached(q::DAILY_CLEAR)?.execute([])?;
    conn.prepare_cached(q::DAILY_REBUILD)?.execute([])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::DbKind;

    type RollupRow = (String, String, String, String, i64, i64, i64, i64, i64, i64, f64);

    fn rollup(conn: &Connection) -> Vec<RollupRow> {
        let mut st = conn.prepare("SELECT * FROM usage_rollup ORDER BY 1, 2, 3, 4").unwrap();
        st.query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
                r.get(9)?,
                r.get(10)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    }

    #[test]
    fn the_rollup_matches_a_rebuild_and_duplicates_add_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, _) = crate::store::open_and_migrate(DbKind::Home, &dir.path().join("h.db")).unwrap();
        let mut w = UsageWriter::new(&conn);
        let u = TokenUsage {
            input: 1,
            output: 2,
            cache_read: 3,
            cache_write: 4,
        };
        let row = |k: &'static str, day: &'static str, cost: Option<f64>| UsageRow {
            dedup_key: k,
            source: ROLLED_UP_BY_WRITER,
            project: "p",
            repo_path: None,
            session_id: "s",
            provider: Some("claude"),
            ts: day,
            model: "m",
            usage: u,
            cost_usd: cost,
            cost_source: None,
            cost_pool: None,
        };
        assert!(w.insert(&row("a", "2026-11-20T01:00:00.000Z", Some(0.5))).unwrap());
        assert!(w.insert(&row("b", "2026-11-20T02:00:00.000Z", None)).unwrap());
        assert!(w.insert(&row("c", "2026-11-21T02:00:00.000Z", Some(0.25))).unwrap());
        assert!(!w.insert(&row("a", "2026-11-20T01:00:00.000Z", Some(0.5))).unwrap());
        w.flush().unwrap();
        let incremental = rollup(&conn);
        assert_eq!(incremental.len(), 2);
        assert_eq!(incremental[0].4, 2);
        assert_eq!(incremental[0].5, 1);
        rebuild_rollup(&conn).unwrap();
        assert_eq!(rollup(&conn), incremental);
        // Rows of another source are rolled up by the trigger, once, whoever inserts them.
        let spool = UsageRow {
            source: "spool",
            dedup_key: "d",
            ..row("x", "2026-11-21T03:00:00.000Z", Some(1.0))
        };
        assert!(w.insert(&spool).unwrap());
        w.flush().unwrap();
        conn.execute(
            "INSERT INTO usage (dedup_key, source, project, session_id, ts, model, cost_usd) VALUES ('e', 'spool', 'p', 's', '2026-11-21T04:00:00.000Z', 'm', 2.0)",
            [],
        )
        .unwrap();
        let with_spool = rollup(&conn);
        let daily = |c: &Connection| -> Vec<(String, String, i64, f64)> {
            let mut st = c
                .prepare("SELECT day, model, responses, cost_usd FROM usage_daily ORDER BY 1, 2")
                .unwrap();
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let daily_before = daily(&conn);
        assert_eq!(daily_before.len(), 2);
        rebuild_rollup(&conn).unwrap();
        assert_eq!(rollup(&conn), with_spool);
        assert_eq!(daily(&conn), daily_before);
        assert_eq!(with_spool[1].4, 3);
        // The delete trigger still keeps the rollup right.
        conn.execute("DELETE FROM usage WHERE dedup_key = 'c'", []).unwrap();
        assert_eq!(rollup(&conn)[1].4, 2);
    }
}
