//! `UsageWriter`: the only writer of the home database's `usage` table (and of `usage_rollup`,
//! `usage_daily` and `usage_key`, which follow it), for the transcript import, the spool and the
//! JSONL import alike. It inserts responses idempotently (an insert whose dedup key is stored
//! changes nothing) and, for rows of source `transcript`, adds the sums of the rows it actually
//! inserted to `usage_rollup` when flushed — in the caller's transaction, so the rollup never
//! disagrees with `usage`. The per-row insert trigger (V2) skips `transcript` rows because it
//! cost about 40% of a bulk import; rows of any other source are still rolled up by it. Call
//! [`UsageWriter::flush`] before committing.

use super::borrowed_insert::{BorrowedInsert, Param};
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

#[cfg(test)]
impl<'a> UsageRow<'a> {
    /// An unpriced transcript response with no tokens, of project `p`, session `s` and model `m`:
    /// what tests start from.
    pub fn for_test(dedup_key: &'a str, ts: &'a str) -> UsageRow<'a> {
        UsageRow {
            dedup_key,
            source: ROLLED_UP_BY_WRITER,
            project: "p",
            repo_path: None,
            session_id: "s",
            provider: Some("claude"),
            ts,
            model: "m",
            usage: TokenUsage::default(),
            cost_usd: None,
            cost_source: None,
            cost_pool: None,
        }
    }
}

/// A response time as stored (`2026-11-20T09:14:00.000Z`), held without an allocation so that
/// [`Sums`] stays `Copy`. Stored stamps compare as text.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp {
    bytes: [u8; 32],
    len: u8,
}

impl Stamp {
    pub fn new(ts: &str) -> Stamp {
        let mut s = Stamp::default();
        let n = ts.len().min(32);
        s.bytes[..n].copy_from_slice(&ts.as_bytes()[..n]);
        s.len = n as u8;
        s
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }
}

/// The UTC hour of a stored time (`YYYY-MM-DDTHH`) and whether it is exactly on the hour
/// (`HH:00:00.000`): the key of `usage_hourly` (see migrations/home/V7__cache_write_1h.sql).
pub fn hour_of(ts: &str) -> (&str, bool) {
    (ts.get(..13).unwrap_or(ts), ts.get(14..) == Some("00:00.000Z"))
}

/// The sums `usage_rollup`, `usage_daily` and `usage_hourly` keep per group of responses.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Sums {
    responses: i64,
    priced: i64,
    input: i64,
    output: i64,
    cache_read: i64,
    cache_write: i64,
    cache_write_1h: i64,
    cost: f64,
    first: Stamp,
    last: Stamp,
}

impl Sums {
    /// Adds one response, of time `ts`.
    pub fn count(&mut self, u: &TokenUsage, cost: Option<f64>, ts: &str) {
        let at = Stamp::new(ts);
        if self.responses == 0 || at < self.first {
            self.first = at;
        }
        if self.responses == 0 || at > self.last {
            self.last = at;
        }
        self.responses += 1;
        self.priced += i64::from(cost.is_some());
        self.input += u.input as i64;
        self.output += u.output as i64;
        self.cache_read += u.cache_read as i64;
        self.cache_write += u.cache_write as i64;
        self.cache_write_1h += u.cache_write_1h as i64;
        self.cost += cost.unwrap_or(0.0);
    }

    pub fn is_empty(&self) -> bool {
        self.responses == 0
    }

    fn add(&mut self, o: &Sums) {
        if o.responses == 0 {
            return;
        }
        if self.responses == 0 || o.first < self.first {
            self.first = o.first;
        }
        if self.responses == 0 || o.last > self.last {
            self.last = o.last;
        }
        self.responses += o.responses;
        self.priced += o.priced;
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
        self.cache_write_1h += o.cache_write_1h;
        self.cost += o.cost;
    }
}

/// Rows bound per statement by [`UsageWriter::insert_new`] (SQLite allows 32,766 parameters).
pub const ROWS_PER_STATEMENT: usize = 64;
/// Parameters per row of `usage_insert_new.sql`.
const COLUMNS: usize = 17;
/// Keys bound per statement by [`UsageWriter::insert_keys`].
const KEYS_PER_STATEMENT: usize = 256;

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

/// A new row's parameters for `usage_insert_new.sql`, in order: its id, then the row.
fn new_row_params<'a>((id, row): &'a (i64, UsageRow<'_>)) -> [Param<'a>; COLUMNS] {
    let u = &row.usage;
    [
        Param::Int(*id),
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
        Param::Int(u.cache_write_1h as i64),
    ]
}

/// A `usage_key` row's parameters for `usage_key_insert_new.sql`: its tail, then its id.
fn key_params<'a>((tail, id): &'a (&str, i64)) -> [Param<'a>; 2] {
    [Param::Text(tail), Param::Int(*id)]
}

/// The many-row and one-row forms of an insert.
struct InsertPair<'c> {
    many: BorrowedInsert<'c>,
    one: BorrowedInsert<'c>,
    rows_per_statement: usize,
}

impl<'c> InsertPair<'c> {
    fn prepare(conn: &'c Connection, sql: &str, rows_per_statement: usize) -> rusqlite::Result<InsertPair<'c>> {
        Ok(InsertPair {
            many: BorrowedInsert::prepare(conn, &values_repeated(sql, rows_per_statement))?,
            one: BorrowedInsert::prepare(conn, sql)?,
            rows_per_statement,
        })
    }

    /// Inserts every item, `rows_per_statement` to a statement, each bound by `params`; returns
    /// the rows changed.
    fn insert_all<T, const N: usize>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        params: fn(&T) -> [Param<'_>; N],
    ) -> rusqlite::Result<u64> {
        let mut held: Vec<T> = Vec::with_capacity(self.rows_per_statement);
        let mut stored = 0u64;
        for item in items {
            held.push(item);
            if held.len() == self.rows_per_statement {
                stored += self.many.execute(held.iter().flat_map(params))? as u64;
                held.clear();
            }
        }
        for item in &held {
            stored += self.one.execute(params(item))? as u64;
        }
        Ok(stored)
    }
}

/// Inserts usage rows and keeps `usage_rollup` and `usage_daily` in step.
pub struct UsageWriter<'c> {
    conn: &'c Connection,
    insert: rusqlite::CachedStatement<'c>,
    /// Sums per `hour \0 at_hour \0 project \0 session \0 model`, the key built in `key`.
    pending: HashMap<String, Sums, BuildHasherDefault<Fx>>,
    key: String,
    /// `usage_insert_new.sql` and `usage_key_insert_new.sql`, prepared on first use.
    insert_new: Option<InsertPair<'c>>,
    insert_keys: Option<InsertPair<'c>>,
}

impl<'c> UsageWriter<'c> {
    /// A writer over `conn`; the insert statement is prepared once here, not per row.
    pub fn new(conn: &'c Connection) -> rusqlite::Result<UsageWriter<'c>> {
        Ok(UsageWriter {
            conn,
            insert: conn.prepare_cached(q::USAGE_INSERT)?,
            pending: HashMap::default(),
            key: String::new(),
            insert_new: None,
            insert_keys: None,
        })
    }

    /// Stores `row` and counts it in the rollup; `false` when its dedup key was already stored
    /// (nothing changed). The one-row form: the spool and the JSONL import store their responses
    /// this way (rows of their sources are rolled up by the insert trigger); the transcript import
    /// inserts with [`UsageWriter::insert_unsummed`] / [`UsageWriter::insert_new`] and sums per
    /// group. A `transcript` row is summed in memory: [`UsageWriter::flush`] before committing.
    pub fn insert(&mut self, row: &UsageRow<'_>) -> rusqlite::Result<bool> {
        if !self.insert_unsummed(row)? {
            return Ok(false);
        }
        // Rows of other sources are rolled up by the `usage_rollup_insert` trigger (V2).
        if row.source != ROLLED_UP_BY_WRITER {
            return Ok(true);
        }
        let (hour, at_hour) = hour_of(row.ts);
        let cost = row.cost_usd;
        self.pending_sums(hour, at_hour, row.project, row.session_id, row.model)
            .count(&row.usage, cost, row.ts);
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
            row.cost_pool,
            u.cache_write_1h as i64
        ])?;
        Ok(n > 0)
    }

    /// `--rescan`: gives the stored row of `row`'s dedup key (imported or spooled) the 1-hour part
    /// of its cache writes and its cost priced with it; `false` when no row changed (none stored,
    /// or already the same split and price). The caller rebuilds the rollups afterwards
    /// ([`rebuild_rollup`]).
    pub fn refill(&mut self, row: &UsageRow<'_>) -> rusqlite::Result<bool> {
        let n = self.conn.prepare_cached(q::USAGE_REFILL)?.execute(params![
            row.dedup_key,
            row.usage.cache_write_1h as i64,
            row.cost_usd,
            row.cost_source
        ])?;
        Ok(n > 0)
    }

    /// Stores rows the caller has checked are not stored yet, under the ids it gives them (ids
    /// not in use), many per statement, without counting them in the rollup (like
    /// [`UsageWriter::insert_unsummed`]). Binding one statement of [`ROWS_PER_STATEMENT`] rows
    /// instead of one per row halved the time of a bulk import's inserts. Any constraint error
    /// (an id in use, say) fails the call and rolls back the caller's whole transaction
    /// (`OR ROLLBACK`).
    pub fn insert_new<'r>(&mut self, rows: impl IntoIterator<Item = (i64, UsageRow<'r>)>) -> rusqlite::Result<u64> {
        let pair = match &mut self.insert_new {
            Some(pair) => pair,
            empty => empty.insert(InsertPair::prepare(self.conn, q::USAGE_INSERT_NEW, ROWS_PER_STATEMENT)?),
        };
        pair.insert_all(rows, new_row_params)
    }

    /// Adds `usage_key` rows (tail, id) for rows stored with [`UsageWriter::insert_new`] while the
    /// key trigger was set aside (see [`SuspendedTriggers`]), best in (tail, id) order.
    pub fn insert_keys<'k>(&mut self, keys: impl IntoIterator<Item = (&'k str, i64)>) -> rusqlite::Result<u64> {
        let pair = match &mut self.insert_keys {
            Some(pair) => pair,
            empty => empty.insert(InsertPair::prepare(self.conn, q::USAGE_KEY_INSERT_NEW, KEYS_PER_STATEMENT)?),
        };
        pair.insert_all(keys, key_params)
    }

    /// How many responses are stored, counted in `usage_key` (one row per `usage` row, a tenth of
    /// its size): the transcript import reads it to choose its path.
    pub fn stored_count(&self) -> rusqlite::Result<u64> {
        let n: i64 = self.conn.prepare_cached(q::USAGE_COUNT)?.query_row([], |r| r.get(0))?;
        Ok(n.max(0) as u64)
    }

    /// The highest `usage` id (0 when there is none): the bulk import numbers its rows on from here.
    pub fn max_id(&self) -> rusqlite::Result<i64> {
        self.conn.prepare_cached(q::USAGE_MAX_ID)?.query_row([], |r| r.get(0))
    }

    /// Calls `each` with the dedup key of every row after `after_id`, borrowed from SQLite (no copy
    /// per key: the bulk import reads every stored key this way, under its write lock).
    pub fn keys_after(&self, after_id: i64, mut each: impl FnMut(&str)) -> rusqlite::Result<()> {
        let mut st = self.conn.prepare_cached(q::USAGE_KEYS)?;
        let mut rows = st.query([after_id])?;
        while let Some(r) = rows.next()? {
            each(r.get_ref(0)?.as_str().unwrap_or(""));
        }
        Ok(())
    }

    /// Adds the sums of rows of source `transcript` inserted with [`UsageWriter::insert_unsummed`],
    /// grouped by UTC hour (`YYYY-MM-DDTHH`, with `at_hour` as [`hour_of`] says), project, session
    /// and model.
    pub fn add(&mut self, hour: &str, at_hour: bool, project: &str, session: &str, model: &str, sums: &Sums) {
        if !sums.is_empty() {
            self.pending_sums(hour, at_hour, project, session, model).add(sums);
        }
    }

    fn pending_sums(&mut self, hour: &str, at_hour: bool, project: &str, session: &str, model: &str) -> &mut Sums {
        self.key.clear();
        let flag = if at_hour { "1" } else { "0" };
        for (i, part) in [hour, flag, project, session, model].into_iter().enumerate() {
            if i > 0 {
                self.key.push('\0');
            }
            self.key.push_str(part);
        }
        self.pending.entry(self.key.clone()).or_default()
    }

    /// Adds the sums of every row inserted since the last flush to `usage_rollup`, `usage_daily`
    /// and `usage_hourly`.
    pub fn flush(&mut self) -> rusqlite::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        type Key3 = (String, String, String);
        let mut rollup: HashMap<(String, String, String, String), Sums> = HashMap::new();
        let mut daily: HashMap<Key3, Sums> = HashMap::new();
        let mut hourly: HashMap<(String, bool, String, String), Sums> = HashMap::new();
        for (key, s) in self.pending.drain() {
            let mut parts = key.splitn(5, '\0');
            let mut next = || parts.next().unwrap_or("");
            let (hour, flag, project, session, model) = (next(), next(), next(), next(), next());
            let day = hour.get(..10).unwrap_or(hour);
            rollup
                .entry((day.to_string(), project.to_string(), session.to_string(), model.to_string()))
                .or_default()
                .add(&s);
            daily
                .entry((day.to_string(), project.to_string(), model.to_string()))
                .or_default()
                .add(&s);
            hourly
                .entry((hour.to_string(), flag == "1", project.to_string(), model.to_string()))
                .or_default()
                .add(&s);
        }
        let mut st = self.conn.prepare_cached(q::ROLLUP_ADD)?;
        for ((day, project, session, model), s) in rollup {
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
                s.cost,
                s.cache_write_1h,
                s.last.as_str()
            ])?;
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
                s.cost,
                s.cache_write_1h
            ])?;
        }
        let mut st = self.conn.prepare_cached(q::HOURLY_ADD)?;
        for ((hour, at_hour, project, model), s) in hourly {
            st.execute(params![
                hour,
                at_hour,
                project,
                model,
                s.responses,
                s.priced,
                s.input,
                s.output,
                s.cache_read,
                s.cache_write,
                s.cache_write_1h,
                s.cost,
                s.first.as_str(),
                s.last.as_str()
            ])?;
        }
        Ok(())
    }
}

/// The per-row insert triggers on `usage` (`usage_rollup_insert`, `usage_key_insert`), set aside for
/// the length of a bulk import's transaction, which adds the rollup sums and the `usage_key` rows
/// itself. Even skipping `transcript` rows, the rollup trigger cost every row a check and every
/// statement a statement journal, a third of a bulk import's inserts; the key trigger would add
/// each key at a random place instead of in one sorted pass. Dropped and restored from their
/// stored text inside the caller's transaction, so no other connection ever sees the table without
/// them; [`SuspendedTriggers::restore`] must run before the commit, and on an error the caller must
/// roll the transaction back (the triggers come back with it), as the import does.
pub struct SuspendedTriggers(Vec<String>);

/// The triggers [`SuspendedTriggers`] may drop (names are not bound parameters, so they are checked
/// against this list before they are put in a statement).
const SUSPENDABLE: [&str; 2] = ["usage_key_insert", "usage_rollup_insert"];

impl SuspendedTriggers {
    /// Drops the triggers; one that is not there (an older or damaged schema) is neither dropped
    /// nor restored.
    pub fn suspend(conn: &Connection) -> rusqlite::Result<SuspendedTriggers> {
        let mut st = conn.prepare_cached(q::INSERT_TRIGGER_SQL)?;
        let found: Vec<(String, String)> = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
        let mut texts = Vec::new();
        for (name, sql) in found {
            if SUSPENDABLE.contains(&name.as_str()) {
                conn.execute_batch(&format!("DROP TRIGGER {name}"))?;
                texts.push(sql);
            }
        }
        Ok(SuspendedTriggers(texts))
    }

    pub fn restore(self, conn: &Connection) -> rusqlite::Result<()> {
        for sql in self.0 {
            conn.execute_batch(&sql)?;
        }
        Ok(())
    }
}

/// Rebuilds `usage_rollup`, `usage_daily` and `usage_hourly` from `usage` (the repair path, and
/// the end of a `--rescan`).
pub fn rebuild_rollup(conn: &Connection) -> rusqlite::Result<()> {
    conn.prepare_cached(q::ROLLUP_CLEAR)?.execute([])?;
    conn.prepare_cached(q::ROLLUP_REBUILD)?.execute([])?;
    conn.prepare_cached(q::DAILY_CLEAR)?.execute([])?;
    conn.prepare_cached(q::DAILY_REBUILD)?.execute([])?;
    conn.prepare_cached(q::HOURLY_CLEAR)?.execute([])?;
    conn.prepare_cached(q::HOURLY_REBUILD)?.execute([])?;
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
        let store = crate::store::open_write(DbKind::Home, &dir.path().join("h.db")).unwrap();
        let conn = store.conn();
        let mut w = UsageWriter::new(conn).unwrap();
        let u = TokenUsage {
            input: 1,
            output: 2,
            cache_read: 3,
            cache_write: 4,
            cache_write_1h: 0,
        };
        let row = |k: &'static str, day: &'static str, cost: Option<f64>| UsageRow {
            usage: u,
            cost_usd: cost,
            ..UsageRow::for_test(k, day)
        };
        assert!(w.insert(&row("a", "2026-11-20T01:00:00.000Z", Some(0.5))).unwrap());
        assert!(w.insert(&row("b", "2026-11-20T02:00:00.000Z", None)).unwrap());
        assert!(w.insert(&row("c", "2026-11-21T02:00:00.000Z", Some(0.25))).unwrap());
        assert!(!w.insert(&row("a", "2026-11-20T01:00:00.000Z", Some(0.5))).unwrap());
        w.flush().unwrap();
        let incremental = rollup(conn);
        assert_eq!(incremental.len(), 2);
        assert_eq!(incremental[0].4, 2);
        assert_eq!(incremental[0].5, 1);
        rebuild_rollup(conn).unwrap();
        assert_eq!(rollup(conn), incremental);
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
        let with_spool = rollup(conn);
        let daily = |c: &Connection| -> Vec<(String, String, i64, f64)> {
            let mut st = c
                .prepare("SELECT day, model, responses, cost_usd FROM usage_daily ORDER BY 1, 2")
                .unwrap();
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let daily_before = daily(conn);
        assert_eq!(daily_before.len(), 2);
        rebuild_rollup(conn).unwrap();
        assert_eq!(rollup(conn), with_spool);
        assert_eq!(daily(conn), daily_before);
        assert_eq!(with_spool[1].4, 3);
        // The delete trigger still keeps the rollup right.
        conn.execute("DELETE FROM usage WHERE dedup_key = 'c'", []).unwrap();
        assert_eq!(rollup(conn)[1].4, 2);
    }

    #[test]
    fn insert_new_stores_many_rows_per_statement_and_a_failed_row_rolls_back_the_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(DbKind::Home, &dir.path().join("h.db")).unwrap();
        let conn = store.conn();
        let keys: Vec<String> = (0..ROWS_PER_STATEMENT * 2 + 3).map(|i| format!("k{i:04}")).collect();
        let row = |k| UsageRow::for_test(k, "2026-11-20T01:00:00.000Z");
        let count = |c: &Connection| -> i64 { c.query_row("SELECT count(*) FROM usage", [], |r| r.get(0)).unwrap() };
        let pairs = |c: &Connection, sql: &str| -> Vec<(String, i64)> {
            let mut st = c.prepare(sql).unwrap();
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let mut w = UsageWriter::new(conn).unwrap();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        let triggers = SuspendedTriggers::suspend(conn).unwrap();
        let ids = keys.iter().enumerate().map(|(i, k)| (i as i64 + 10, row(k)));
        assert_eq!(w.insert_new(ids).unwrap(), keys.len() as u64);
        assert_eq!(pairs(conn, "SELECT tail, id FROM usage_key"), []);
        let tails = keys.iter().enumerate().map(|(i, k)| (k.as_str(), i as i64 + 10));
        assert_eq!(w.insert_keys(tails).unwrap(), keys.len() as u64);
        triggers.restore(conn).unwrap();
        conn.execute_batch("COMMIT").unwrap();
        assert_eq!(count(conn), keys.len() as i64);
        let stored = pairs(conn, "SELECT dedup_key, id FROM usage ORDER BY id");
        assert_eq!(
            stored,
            keys.iter().enumerate().map(|(i, k)| (k.clone(), i as i64 + 10)).collect::<Vec<_>>()
        );
        assert_eq!(
            pairs(conn, "SELECT tail, id FROM usage_key ORDER BY 1, 2"),
            pairs(conn, "SELECT substr(dedup_key, -16), id FROM usage ORDER BY 1, 2")
        );
        // Both triggers are back: a row inserted the usual way gets its key row.
        conn.execute("INSERT INTO usage (dedup_key, source, ts) VALUES ('later', 'spool', 't')", [])
            .unwrap();
        assert_eq!(pairs(conn, "SELECT tail, id FROM usage_key WHERE tail = 'later'").len(), 1);
        // A row that breaks a constraint (an id in use) ends the caller's transaction, rows before
        // it included.
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        let again = [(1000, row("new1")), (1001, row("new2")), (15, row("new3"))];
        let err = w.insert_new(again).unwrap_err();
        assert!(err.to_string().contains("UNIQUE"), "{err}");
        assert!(conn.is_autocommit(), "the transaction was rolled back");
        assert_eq!(count(conn), keys.len() as i64 + 1);
    }
}
