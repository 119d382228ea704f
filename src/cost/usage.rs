//! `UsageWriter`: the bulk writer of the home database's `usage` table. It inserts responses
//! idempotently (an insert whose dedup key is stored changes nothing) and, for rows of source `transcript`, adds
//! the sums of the rows it actually inserted to `usage_rollup` when flushed — in the caller's
//! transaction, so the rollup never disagrees with `usage`. The per-row insert trigger (V2) skips
//! `transcript` rows because it cost about 40% of a bulk import; rows of any other source are
//! still rolled up by it. Call [`UsageWriter::flush`] before committing.

use super::borrowed_insert::{BorrowedInsert, Param};
use super::rates::TokenUsage;
use super::transcript::Fx;
use crate::store::queries::home::cost as q;
use rusqlite::{params, Connection, OptionalExtension};
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

/// The sums `usage_rollup` and `usage_daily` keep per group of responses.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Sums {
    responses: i64,
    priced: i64,
    input: i64,
    output: i64,
    cache_read: i64,
    cache_write: i64,
    cost: f64,
}

impl Sums {
    /// Adds one response.
    pub fn count(&mut self, u: &TokenUsage, cost: Option<f64>) {
        self.responses += 1;
        self.priced += i64::from(cost.is_some());
        self.input += u.input as i64;
        self.output += u.output as i64;
        self.cache_read += u.cache_read as i64;
        self.cache_write += u.cache_write as i64;
        self.cost += cost.unwrap_or(0.0);
    }

    pub fn is_empty(&self) -> bool {
        self.responses == 0
    }

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

/// Rows bound per statement by [`UsageWriter::insert_new`] (SQLite allows 32,766 parameters).
pub const ROWS_PER_STATEMENT: usize = 64;
/// Parameters per row of `usage_insert_new.sql`.
const COLUMNS: usize = 15;

/// `sql` (an INSERT ending in one `VALUES (…)` row) with that row repeated `n` times.
fn values_repeated(sql: &str, n: usize) -> String {
    let Some(at) = sql.rfind("VALUES") else {
        return sql.to_string();
    };
    let (head, row) = sql.split_at(at + "VALUES".len());
    let row = row.trim();
    let mut out = String::with_capacity(head.len() + n * (row.len() + 2));
    out.push_str(head);
    out.push(' ');
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(row);
    }
    out
}

/// `row`'s parameters for `usage_insert_new.sql`, in order.
fn row_params<'a>(row: &'a UsageRow<'_>) -> [Param<'a>; COLUMNS] {
    let u = &row.usage;
    [
        Param::Text(row.dedup_key),
        Param::Text(row.source),
        Param::Text(row.project),
        row.repo_path.into(),
        Param::Text(row.session_id),
        row.provider.into(),
        Param::Text(row.ts),
        Param::Text(row.model),
        Param::Int(u.input as i64),
        Param::Int(u.output as i64),
        Param::Int(u.cache_read as i64),
        Param::Int(u.cache_write as i64),
        row.cost_usd.into(),
        row.cost_source.into(),
        row.cost_pool.into(),
    ]
}

/// Inserts usage rows and keeps `usage_rollup` and `usage_daily` in step.
pub struct UsageWriter<'c> {
    conn: &'c Connection,
    insert: rusqlite::CachedStatement<'c>,
    /// Sums per `day \0 project \0 session \0 model`, the key built in `key`.
    pending: HashMap<String, Sums, BuildHasherDefault<Fx>>,
    key: String,
    /// The many-row and one-row forms of `usage_insert_new.sql`, prepared on first use.
    insert_many: Option<(BorrowedInsert<'c>, BorrowedInsert<'c>)>,
}

impl<'c> UsageWriter<'c> {
    /// A writer over `conn`; the insert statement is prepared once here, not per row.
    pub fn new(conn: &'c Connection) -> rusqlite::Result<UsageWriter<'c>> {
        Ok(UsageWriter {
            conn,
            insert: conn.prepare_cached(q::USAGE_INSERT)?,
            pending: HashMap::default(),
            key: String::new(),
            insert_many: None,
        })
    }

    /// Stores `row` and counts it in the rollup; `false` when its dedup key was already stored
    /// (nothing changed). The one-row form the tests seed databases with; the import inserts with
    /// [`UsageWriter::insert_unsummed`] / [`UsageWriter::insert_new`] and sums per group.
    #[cfg(test)]
    pub fn insert(&mut self, row: &UsageRow<'_>) -> rusqlite::Result<bool> {
        if !self.insert_unsummed(row)? {
            return Ok(false);
        }
        // Rows of other sources are rolled up by the `usage_rollup_insert` trigger (V2).
        if row.source != ROLLED_UP_BY_WRITER {
            return Ok(true);
        }
        let day = row.ts.get(..10).unwrap_or(row.ts);
        let cost = row.cost_usd;
        self.pending_sums(day, row.project, row.session_id, row.model)
            .count(&row.usage, cost);
        Ok(true)
    }

    /// Stores `row` without counting it in the rollup: for a caller that sums the rows it
    /// inserted itself (in groups, cheaper than one key per row) and hands the sums to
    /// [`UsageWriter::add`]. `false` when its dedup key was already stored.
    pub fn insert_unsummed(&mut self, row: &UsageRow<'_>) -> rusqlite::Result<bool> {
        let st = &mut self.insert;
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
        Ok(n > 0)
    }

    /// Stores rows the caller has checked are not stored yet, many per statement, without counting
    /// them in the rollup (like [`UsageWriter::insert_unsummed`]). Binding one statement of
    /// [`ROWS_PER_STATEMENT`] rows instead of one per row halved the time of a bulk import's
    /// inserts. A row that is stored already fails the call with a constraint error and rolls back
    /// the caller's whole transaction (`OR ROLLBACK`).
    pub fn insert_new<'r>(&mut self, rows: impl IntoIterator<Item = UsageRow<'r>>) -> rusqlite::Result<u64> {
        if self.insert_many.is_none() {
            let many = values_repeated(q::USAGE_INSERT_NEW, ROWS_PER_STATEMENT);
            self.insert_many = Some((
                BorrowedInsert::prepare(self.conn, &many)?,
                BorrowedInsert::prepare(self.conn, q::USAGE_INSERT_NEW)?,
            ));
        }
        let Some((many, one)) = self.insert_many.as_mut() else {
            return Ok(0);
        };
        let mut held: Vec<UsageRow<'r>> = Vec::with_capacity(ROWS_PER_STATEMENT);
        let mut stored = 0u64;
        for row in rows {
            held.push(row);
            if held.len() == ROWS_PER_STATEMENT {
                stored += many.execute(held.iter().flat_map(row_params))? as u64;
                held.clear();
            }
        }
        for row in &held {
            stored += one.execute(row_params(row))? as u64;
        }
        Ok(stored)
    }

    /// Adds the sums of rows of source `transcript` inserted with [`UsageWriter::insert_unsummed`].
    pub fn add(&mut self, day: &str, project: &str, session: &str, model: &str, sums: &Sums) {
        if !sums.is_empty() {
            self.pending_sums(day, project, session, model).add(sums);
        }
    }

    fn pending_sums(&mut self, day: &str, project: &str, session: &str, model: &str) -> &mut Sums {
        self.key.clear();
        for (i, part) in [day, project, session, model].into_iter().enumerate() {
            if i > 0 {
                self.key.push('\0');
            }
            self.key.push_str(part);
        }
        self.pending.entry(self.key.clone()).or_default()
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

/// The `usage_rollup_insert` trigger, set aside for the length of a transaction that only adds
/// `transcript` rows (which the trigger skips): even skipping, it cost every row a check and
/// every statement a statement journal, a third of a bulk import's inserts. Dropped and restored
/// from its stored text inside the caller's transaction, so no other connection ever sees the
/// table without it; [`SuspendedTrigger::restore`] must run before the commit (an error before
/// it rolls the transaction back, the trigger with it).
pub struct SuspendedTrigger(Option<String>);

impl SuspendedTrigger {
    /// Drops the trigger; with no trigger there (an older or damaged schema) nothing is dropped
    /// and nothing will be restored.
    pub fn suspend(conn: &Connection) -> rusqlite::Result<SuspendedTrigger> {
        let sql: Option<String> = conn.prepare_cached(q::INSERT_TRIGGER_SQL)?.query_row([], |r| r.get(0)).optional()?;
        if sql.is_some() {
            conn.prepare(q::INSERT_TRIGGER_DROP)?.execute([])?;
        }
        Ok(SuspendedTrigger(sql))
    }

    pub fn restore(self, conn: &Connection) -> rusqlite::Result<()> {
        match self.0 {
            Some(sql) => conn.execute_batch(&sql),
            None => Ok(()),
        }
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
        let mut w = UsageWriter::new(&conn).unwrap();
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

    #[test]
    fn insert_new_stores_many_rows_per_statement_and_a_failed_row_rolls_back_the_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, _) = crate::store::open_and_migrate(DbKind::Home, &dir.path().join("h.db")).unwrap();
        let keys: Vec<String> = (0..ROWS_PER_STATEMENT * 2 + 3).map(|i| format!("k{i:04}")).collect();
        fn row(k: &str) -> UsageRow<'_> {
            UsageRow {
                dedup_key: k,
                source: ROLLED_UP_BY_WRITER,
                project: "p",
                repo_path: None,
                session_id: "s",
                provider: Some("claude"),
                ts: "2026-11-20T01:00:00.000Z",
                model: "m",
                usage: TokenUsage::default(),
                cost_usd: None,
                cost_source: None,
                cost_pool: None,
            }
        }
        let count = |c: &Connection| -> i64 { c.query_row("SELECT count(*) FROM usage", [], |r| r.get(0)).unwrap() };
        let mut w = UsageWriter::new(&conn).unwrap();
        assert_eq!(w.insert_new(keys.iter().map(|k| row(k))).unwrap(), keys.len() as u64);
        assert_eq!(count(&conn), keys.len() as i64);
        let stored: Vec<String> = conn
            .prepare("SELECT dedup_key FROM usage ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(stored, keys);
        // A row that breaks a constraint ends the caller's transaction, rows before it included.
        conn.execute_batch("CREATE UNIQUE INDEX test_key ON usage (dedup_key)").unwrap();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        let again = ["new1", "new2", keys[5].as_str()];
        let err = w.insert_new(again.iter().map(|k| row(k))).unwrap_err();
        assert!(err.to_string().contains("UNIQUE"), "{err}");
        assert!(conn.is_autocommit(), "the transaction was rolled back");
        assert_eq!(count(&conn), keys.len() as i64);
    }
}
