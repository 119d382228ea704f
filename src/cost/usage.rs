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
use crate::hashing::Fx;
use crate::store::queries::home::cost as q;
use rusqlite::{params, Connection};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The source whose rows this writer adds to `usage_rollup` itself; the insert trigger skips them.
pub(crate) const ROLLED_UP_BY_WRITER: &str = "transcript";

/// One response to store.
#[derive(Debug, Clone)]
pub(crate) struct UsageRow<'a> {
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
    pub(crate) fn for_test(dedup_key: &'a str, ts: &'a str) -> UsageRow<'a> {
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
/// [`Sums`] stays `Copy`. Stored stamps compare as text. Two are compared for every response
/// imported (its groups' first and last), so the comparison reads the bytes as two big-endian
/// integers rather than calling `memcmp`, and the stored form's 24 bytes are copied at a fixed size.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    bytes: [u8; 32],
    len: u8,
}

/// The length of a stored time (`2026-11-20T09:14:00.000Z`).
const STORED_LEN: usize = 24;

impl Stamp {
    pub(crate) fn new(ts: &str) -> Stamp {
        let mut s = Stamp::default();
        let b = ts.as_bytes();
        let n = if b.len() == STORED_LEN {
            s.bytes[..STORED_LEN].copy_from_slice(&b[..STORED_LEN]);
            STORED_LEN
        } else {
            let n = b.len().min(32);
            s.bytes[..n].copy_from_slice(&b[..n]);
            n
        };
        s.len = n as u8;
        s
    }

    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }

    /// The bytes as text orders them (unused bytes are 0, below any character of a time).
    fn order(&self) -> (u128, u128, u8) {
        let (hi, lo) = self.bytes.split_at(16);
        let word = |half: &[u8]| u128::from_be_bytes(half.try_into().unwrap_or([0; 16]));
        (word(hi), word(lo), self.len)
    }
}

impl PartialOrd for Stamp {
    fn partial_cmp(&self, other: &Stamp) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Stamp {
    fn cmp(&self, other: &Stamp) -> std::cmp::Ordering {
        self.order().cmp(&other.order())
    }
}

/// Whether a stored time is exactly on the hour (`HH:00:00.000`): `usage_hourly`'s `at_hour` (see
/// migrations/home/V7__cache_write_1h.sql).
fn on_the_hour(ts: &str) -> bool {
    sql_from(ts, 14) == "00:00.000Z"
}

/// A time of the stored form (`2026-11-20T09:14:07.123Z`, minutes and seconds below 60) as
/// `usage_hourly` keys it: its UTC hour as the number its digits spell (2026112009) and the
/// milliseconds into that hour (847123). `None` for any other text, which `usage_hourly` keys by its
/// first 13 characters instead. Must say what the `GLOB` of migrations/home/V8__usage_hourly_numbered.sql
/// says.
pub(crate) fn stored_form(ts: &str) -> Option<(u64, i64)> {
    // Called for every response a transcript holds (the scanners' `normalise_ts`): plain indexing,
    // no loop over a pattern.
    let b: &[u8; STORED_LEN] = ts.as_bytes().try_into().ok()?;
    let punctuation = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':'), (19, b'.'), (23, b'Z')];
    if punctuation.iter().any(|&(at, c)| b[at] != c) {
        return None;
    }
    let digit = |at: usize| -> Option<u64> {
        let d = b[at].wrapping_sub(b'0');
        (d < 10).then_some(u64::from(d))
    };
    let number = |at: &[usize]| at.iter().try_fold(0u64, |n, &i| Some(n * 10 + digit(i)?));
    let hour = number(&[0, 1, 2, 3, 5, 6, 8, 9, 11, 12])?;
    let (minutes, seconds, thousandths) = (number(&[14, 15])?, number(&[17, 18])?, number(&[20, 21, 22])?);
    if minutes > 59 || seconds > 59 {
        return None;
    }
    Some((hour, (minutes * 60_000 + seconds * 1000 + thousandths) as i64))
}

/// The stored form of the time `ms` milliseconds into `hour` (as [`stored_form`] read them).
pub(crate) fn stored_time(hour: u64, ms: i64) -> String {
    let hour = hour_text(hour);
    let (minutes, seconds, thousandths) = (ms / 60_000, ms / 1000 % 60, ms % 1000);
    format!(
        "{}:{minutes:02}:{seconds:02}.{thousandths:03}Z",
        std::str::from_utf8(&hour).unwrap_or_default()
    )
}

/// The UTC day of a stored time (`YYYY-MM-DD`): `usage_rollup`'s and `usage_daily`'s key.
pub(crate) fn day_of(ts: &str) -> &str {
    sql_prefix(ts, 10)
}

/// `substr(text, 1, chars)` as SQLite works it out, in characters: the rollups' keys are taken
/// here and by the triggers and rebuilds in SQL, and must be the same for any text.
fn sql_prefix(text: &str, chars: usize) -> &str {
    if text.is_ascii() {
        return text.get(..chars).unwrap_or(text);
    }
    text.char_indices().nth(chars).map_or(text, |(i, _)| &text[..i])
}

/// `substr(text, skip + 1)` as SQLite works it out: `text` without its first `skip` characters.
fn sql_from(text: &str, skip: usize) -> &str {
    if text.is_ascii() {
        return text.get(skip..).unwrap_or("");
    }
    text.char_indices().nth(skip).map_or("", |(i, _)| &text[i..])
}

/// The sums `usage_rollup`, `usage_daily` and `usage_hourly` keep per group of responses.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Sums {
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
    pub(crate) fn count(&mut self, u: &TokenUsage, cost: Option<f64>, ts: &str) {
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

    pub(crate) fn is_empty(&self) -> bool {
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
pub(crate) const ROWS_PER_STATEMENT: usize = 64;
/// Parameters per row of `usage_insert_new.sql`.
const COLUMNS: usize = 17;
/// Keys bound per statement by [`UsageWriter::insert_keys`].
const KEYS_PER_STATEMENT: usize = 256;

/// `sql` (an INSERT with one `VALUES (…)` row, perhaps followed by an upsert clause) with that row
/// repeated `n` times.
fn values_repeated(sql: &str, n: usize) -> String {
    let Some(at) = sql.rfind("VALUES") else {
        return sql.to_string();
    };
    let (head, rest) = sql.split_at(at + "VALUES".len());
    // The row is the first parenthesised group after VALUES (no parentheses nest in it).
    let (row, tail) = match (rest.find('('), rest.find(')')) {
        (Some(open), Some(close)) if open < close => (&rest[open..=close], &rest[close + 1..]),
        _ => (rest.trim(), ""),
    };
    let mut out = String::with_capacity(head.len() + n * (row.len() + 2) + tail.len());
    out.push_str(head);
    out.push(' ');
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(row);
    }
    out.push_str(tail);
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

/// Rollup groups added per statement by [`UsageWriter::flush`]: one upsert per group, 222,546 hour
/// groups for the bench's 900,000 responses, cost as much as the responses' own inserts.
const GROUPS_PER_STATEMENT: usize = 64;

/// A group's sums as the rollup inserts bind them, after the group's key: responses, priced,
/// input, output, cache reads, cache writes, 1-hour cache writes, cost.
fn sums_params(s: &Sums) -> [Param<'static>; 8] {
    [
        Param::Int(s.responses),
        Param::Int(s.priced),
        Param::Int(s.input),
        Param::Int(s.output),
        Param::Int(s.cache_read),
        Param::Int(s.cache_write),
        Param::Int(s.cache_write_1h),
        Param::Real(s.cost),
    ]
}

/// A `usage_rollup` group's parameters for `rollup_add.sql`.
fn rollup_params<'a>(([day, project, session, model], s): &'a ([&str; 4], &Sums)) -> [Param<'a>; 13] {
    let [a, b, c, d, e, f, g, h] = sums_params(s);
    [
        Param::Text(day),
        Param::Text(project),
        Param::Text(session),
        Param::Text(model),
        a,
        b,
        c,
        d,
        e,
        f,
        g,
        h,
        Param::Text(s.last.as_str()),
    ]
}

/// A `usage_daily` group's parameters for `daily_add.sql`.
fn daily_params<'a>(([day, project, model], s): &'a ([&str; 3], &Sums)) -> [Param<'a>; 11] {
    let [a, b, c, d, e, f, g, h] = sums_params(s);
    [Param::Text(day), Param::Text(project), Param::Text(model), a, b, c, d, e, f, g, h]
}

/// A `usage_hourly` group's parameters for `hourly_add.sql`: a numbered hour's first and last
/// response as milliseconds into it, an odd hour's as their texts.
fn hourly_params<'a>(((hour, at_hour, project, model), s): &'a HourRow<'_>) -> [Param<'a>; 14] {
    let [a, b, c, d, e, f, g, h] = sums_params(s);
    let (hour, first, last) = match *hour {
        // Every time summed under a numbered hour is of the stored form (see `Tally::count_hour`).
        HourValue::Digits(digits) => (
            Param::Int(digits as i64),
            Param::Int(stored_form(s.first.as_str()).map_or(0, |(_, ms)| ms)),
            Param::Int(stored_form(s.last.as_str()).map_or(0, |(_, ms)| ms)),
        ),
        HourValue::Text(text) => (Param::Text(text), Param::Text(s.first.as_str()), Param::Text(s.last.as_str())),
    };
    [
        hour,
        Param::Int(i64::from(*at_hour)),
        Param::Int(*project),
        Param::Int(*model),
        a,
        b,
        c,
        d,
        e,
        f,
        g,
        h,
        first,
        last,
    ]
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
pub(crate) struct UsageWriter<'c> {
    conn: &'c Connection,
    insert: rusqlite::CachedStatement<'c>,
    /// The sums of the `transcript` rows inserted since the last flush.
    tally: Tally,
    /// `usage_insert_new.sql` and `usage_key_insert_new.sql`, prepared on first use.
    insert_new: Option<InsertPair<'c>>,
    insert_keys: Option<InsertPair<'c>>,
}

impl<'c> UsageWriter<'c> {
    /// A writer over `conn`; the insert statement is prepared once here, not per row.
    pub(crate) fn new(conn: &'c Connection) -> rusqlite::Result<UsageWriter<'c>> {
        Ok(UsageWriter {
            conn,
            insert: conn.prepare_cached(q::USAGE_INSERT)?,
            tally: Tally::default(),
            insert_new: None,
            insert_keys: None,
        })
    }

    /// Stores `row` and counts it in the rollup; `false` when its dedup key was already stored
    /// (nothing changed). The one-row form: the spool and the JSONL import store their responses
    /// this way (rows of their sources are rolled up by the insert trigger); the transcript import
    /// inserts with [`UsageWriter::insert_unsummed`] / [`UsageWriter::insert_new`] and sums per
    /// group. A `transcript` row is summed in memory: [`UsageWriter::flush`] before committing.
    pub(crate) fn insert(&mut self, row: &UsageRow<'_>) -> rusqlite::Result<bool> {
        if !self.insert_unsummed(row)? {
            return Ok(false);
        }
        // Rows of other sources are rolled up by the `usage_rollup_insert` trigger (V2).
        if row.source != ROLLED_UP_BY_WRITER {
            return Ok(true);
        }
        let day = day_of(row.ts);
        let mut one = Sums::default();
        one.count(&row.usage, row.cost_usd, row.ts);
        let tally = &mut self.tally;
        tally.add_session(day, row.project, row.session_id, row.model, &one);
        let (project, model) = (tally.name(row.project), tally.name(row.model));
        tally.count_hour(project, model, &row.usage, row.cost_usd, row.ts);
        Ok(true)
    }

    /// Stores `row` without counting it in the rollup: for a caller that sums the rows it
    /// inserted itself (in groups, cheaper than one key per row) and hands the sums to
    /// [`Tally::add_session`] and [`Tally::count_hour`]. `false` when its dedup key was
    /// already stored.
    pub(crate) fn insert_unsummed(&mut self, row: &UsageRow<'_>) -> rusqlite::Result<bool> {
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
    pub(crate) fn refill(&mut self, row: &UsageRow<'_>) -> rusqlite::Result<bool> {
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
    pub(crate) fn insert_new<'r>(&mut self, rows: impl IntoIterator<Item = (i64, UsageRow<'r>)>) -> rusqlite::Result<u64> {
        let pair = match &mut self.insert_new {
            Some(pair) => pair,
            empty => empty.insert(InsertPair::prepare(self.conn, q::USAGE_INSERT_NEW, ROWS_PER_STATEMENT)?),
        };
        pair.insert_all(rows, new_row_params)
    }

    /// Adds `usage_key` rows (tail, id) for rows stored with [`UsageWriter::insert_new`] while the
    /// key trigger was set aside (see [`SuspendedTriggers`]), best in (tail, id) order.
    pub(crate) fn insert_keys<'k>(&mut self, keys: impl IntoIterator<Item = (&'k str, i64)>) -> rusqlite::Result<u64> {
        let pair = match &mut self.insert_keys {
            Some(pair) => pair,
            empty => empty.insert(InsertPair::prepare(self.conn, q::USAGE_KEY_INSERT_NEW, KEYS_PER_STATEMENT)?),
        };
        pair.insert_all(keys, key_params)
    }

    /// How many responses are stored, counted in `usage_key` (one row per `usage` row, a tenth of
    /// its size): the transcript import reads it to choose its path.
    pub(crate) fn stored_count(&self) -> rusqlite::Result<u64> {
        let n: i64 = self.conn.prepare_cached(q::USAGE_COUNT)?.query_row([], |r| r.get(0))?;
        Ok(n.max(0) as u64)
    }

    /// The highest `usage` id (0 when there is none): the bulk import numbers its rows on from here.
    pub(crate) fn max_id(&self) -> rusqlite::Result<i64> {
        self.conn.prepare_cached(q::USAGE_MAX_ID)?.query_row([], |r| r.get(0))
    }

    /// Calls `each` with the dedup key of every row after `after_id`, borrowed from SQLite (no copy
    /// per key: the bulk import reads every stored key this way, under its write lock).
    pub(crate) fn keys_after(&self, after_id: i64, mut each: impl FnMut(&str)) -> rusqlite::Result<()> {
        let mut st = self.conn.prepare_cached(q::USAGE_KEYS)?;
        let mut rows = st.query([after_id])?;
        while let Some(r) = rows.next()? {
            each(r.get_ref(0)?.as_str().unwrap_or(""));
        }
        Ok(())
    }

    /// Adds the sums of every row inserted since the last flush to `usage_rollup`, `usage_daily`
    /// and `usage_hourly` (see [`UsageWriter::flush_tally`]).
    pub(crate) fn flush(&mut self) -> rusqlite::Result<()> {
        let tally = std::mem::take(&mut self.tally);
        self.flush_tally(tally)
    }

    /// Adds `tally`'s sums (counted by the caller, on this writer's connection's rows) to
    /// `usage_rollup`, `usage_daily` and `usage_hourly`, each in its primary key's order (an upsert
    /// in key order walks the table's pages once rather than descending at random).
    pub(crate) fn flush_tally(&mut self, tally: Tally) -> rusqlite::Result<()> {
        let Tally {
            names,
            pending_sessions,
            pending_hours,
        } = tally;
        if pending_sessions.is_empty() && pending_hours.is_empty() {
            return Ok(());
        }
        let rank = names.ranks();
        let name = |id: u32| names.texts[id as usize].as_str();
        // Groups are sorted by their names' ranks (integers, not texts) and moved as indices (a
        // group's sums are 136 bytes).
        let sessions: Vec<([u32; 4], Sums)> = pending_sessions.into_iter().collect();
        let mut daily: HashMap<[u32; 3], Sums, BuildHasherDefault<Fx>> = HashMap::default();
        for ([day, project, _, model], s) in &sessions {
            daily.entry([*day, *project, *model]).or_default().add(s);
        }
        // usage_rollup's key is (session_id, day, project, model).
        let order = sorted(&sessions, |([day, project, session, model], _)| {
            [*session, *day, *project, *model].map(&rank)
        });
        let rows = order.iter().map(|&i| {
            let ([day, project, session, model], s) = &sessions[i];
            ([*day, *project, *session, *model].map(name), s)
        });
        InsertPair::prepare(self.conn, q::ROLLUP_ADD, GROUPS_PER_STATEMENT)?.insert_all(rows, rollup_params)?;
        let daily: Vec<([u32; 3], Sums)> = daily.into_iter().collect();
        let order = sorted(&daily, |(k, _)| k.map(&rank));
        let rows = order.iter().map(|&i| (daily[i].0.map(name), &daily[i].1));
        InsertPair::prepare(self.conn, q::DAILY_ADD, GROUPS_PER_STATEMENT)?.insert_all(rows, daily_params)?;
        // usage_hourly's projects and models by their usage_names ids (a few texts per import).
        let mut numbered: HashMap<u32, i64, BuildHasherDefault<Fx>> = HashMap::default();
        let (mut add_name, mut name_id) = (self.conn.prepare_cached(q::NAME_ADD)?, self.conn.prepare_cached(q::NAME_ID)?);
        for &(_, _, project, model) in pending_hours.keys() {
            for id in [project, model] {
                if let std::collections::hash_map::Entry::Vacant(slot) = numbered.entry(id) {
                    add_name.execute([name(id)])?;
                    slot.insert(name_id.query_row([name(id)], |r| r.get(0))?);
                }
            }
        }
        let hours: Vec<HourRow<'_>> = pending_hours
            .iter()
            .map(|(&(hour, at_hour, project, model), s)| {
                let hour = match hour {
                    Hour::Digits(digits) => HourValue::Digits(digits),
                    Hour::Named(id) => HourValue::Text(name(id)),
                };
                ((hour, at_hour, numbered[&project], numbered[&model]), s)
            })
            .collect();
        // Numbered hours first, as SQLite orders numbers before texts; then the odd ones' texts.
        let order = sorted(&hours, |((hour, at_hour, project, model), _)| {
            let hour = match *hour {
                HourValue::Digits(digits) => (false, digits, ""),
                HourValue::Text(text) => (true, 0, text),
            };
            (hour, *at_hour, *project, *model)
        });
        let rows = order.iter().map(|&i| hours[i]);
        InsertPair::prepare(self.conn, q::HOURLY_ADD, GROUPS_PER_STATEMENT)?.insert_all(rows, hourly_params)?;
        Ok(())
    }
}

/// The sums of `transcript` rows not yet added to the rollups, keyed by numbered texts: what a
/// [`UsageWriter`] flushes. Apart from the writer so that another thread can count them (the bulk
/// import does) and hand them over for [`UsageWriter::flush_tally`].
#[derive(Default)]
pub(crate) struct Tally {
    /// The texts the sums are keyed by, each held once.
    names: Names,
    /// Sums per (day, project, session, model): `usage_rollup`'s rows (`usage_daily`'s are their
    /// sums over sessions).
    pending_sessions: HashMap<[u32; 4], Sums, BuildHasherDefault<Fx>>,
    /// Sums per (hour, at_hour, project, model): `usage_hourly`'s rows.
    pending_hours: HashMap<HourKey, Sums, BuildHasherDefault<Fx>>,
}

impl Tally {
    /// Adds the sums of rows of source `transcript` inserted with [`UsageWriter::insert_unsummed`]
    /// of one UTC day (`YYYY-MM-DD`), project, session and model: `usage_rollup`'s key.
    pub(crate) fn add_session(&mut self, day: &str, project: &str, session: &str, model: &str, sums: &Sums) {
        if !sums.is_empty() {
            let key = [day, project, session, model].map(|name| self.names.id(name));
            self.pending_sessions.entry(key).or_default().add(sums);
        }
    }

    /// The number the sums are keyed by for `text` (a project or model the caller
    /// counts many rows of, looked up once).
    pub(crate) fn name(&mut self, text: &str) -> NameId {
        NameId(self.names.id(text))
    }

    /// Counts one row of source `transcript` inserted with [`UsageWriter::insert_unsummed`] in
    /// `usage_hourly`'s sums: its UTC hour (a number for a time of the stored form, see
    /// [`stored_form`]; else its first 13 characters), whether it is exactly on the hour, project
    /// and model. Rows are counted here one by one rather than grouped by their caller first: a
    /// transcript's responses are mostly an hour group each (722,229 groups for the bench's
    /// 900,000), so grouping only added a pass.
    pub(crate) fn count_hour(&mut self, project: NameId, model: NameId, usage: &TokenUsage, cost: Option<f64>, ts: &str) {
        let hour = match stored_form(ts) {
            Some((digits, _)) => Hour::Digits(digits),
            None => Hour::Named(self.names.id(sql_prefix(ts, HOUR_LEN))),
        };
        self.pending_hours
            .entry((hour, on_the_hour(ts), project.0, model.0))
            .or_default()
            .count(usage, cost, ts);
    }
}

/// The indices of `items` in the order of `key`.
fn sorted<T, K: Ord>(items: &[T], key: impl Fn(&T) -> K) -> Vec<usize> {
    let mut order: Vec<(K, usize)> = items.iter().enumerate().map(|(i, t)| (key(t), i)).collect();
    order.sort_unstable();
    order.into_iter().map(|(_, i)| i).collect()
}

/// `usage_hourly`'s key as the writer sums by it: (hour, at_hour, project, model), the project and
/// model numbered by [`Tally::name`].
type HourKey = (Hour, bool, u32, u32);

/// The length of a stored time's hour (`2026-11-20T09`).
pub(crate) const HOUR_LEN: usize = 13;

/// A `usage_hourly` row as the writer writes it: its key (the project and model by their
/// `usage_names` ids) and its sums.
type HourRow<'a> = ((HourValue<'a>, bool, i64, i64), &'a Sums);

/// A UTC hour in [`HourKey`]: a stored time's hour as the number its ten digits spell (as
/// `usage_hourly` keeps it), so that counting a row looks no text up (it was a fifth of the
/// import's hourly sums); an odd time's first 13 characters numbered as names are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Hour {
    Digits(u64),
    Named(u32),
}

/// An hour as `hourly_add.sql` binds it.
#[derive(Clone, Copy)]
enum HourValue<'a> {
    Digits(u64),
    Text(&'a str),
}

/// 2026112009 → `2026-11-20T09`: the text whose digits [`stored_form`] read.
pub(crate) fn hour_text(digits: u64) -> [u8; HOUR_LEN] {
    let mut text = *b"0000-00-00T00";
    let mut rest = digits;
    for at in (0..HOUR_LEN).rev().filter(|at| !matches!(at, 4 | 7 | 10)) {
        text[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    text
}

/// A text numbered by [`Tally::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameId(u32);

/// Texts (days, hours, projects, sessions, models) numbered in order of first use, so that the
/// pending sums are keyed by a few integers rather than by strings built, hashed and compared
/// per group.
#[derive(Default)]
struct Names {
    ids: HashMap<String, u32, BuildHasherDefault<Fx>>,
    texts: Vec<String>,
}

impl Names {
    /// Each id's place in the texts' order (as SQLite orders texts: bytewise).
    fn ranks(&self) -> impl Fn(u32) -> u32 {
        let mut by_text: Vec<u32> = (0..self.texts.len() as u32).collect();
        by_text.sort_unstable_by_key(|&id| self.texts[id as usize].as_str());
        let mut rank = vec![0u32; by_text.len()];
        for (place, id) in by_text.into_iter().enumerate() {
            rank[id as usize] = place as u32;
        }
        move |id: u32| rank[id as usize]
    }

    fn id(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = self.texts.len() as u32;
        self.ids.insert(text.to_string(), id);
        self.texts.push(text.to_string());
        id
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
pub(crate) struct SuspendedTriggers(Vec<String>);

/// The triggers [`SuspendedTriggers`] may drop (names are not bound parameters, so they are checked
/// against this list before they are put in a statement).
const SUSPENDABLE: [&str; 2] = ["usage_key_insert", "usage_rollup_insert"];

impl SuspendedTriggers {
    /// Drops the triggers; one that is not there (an older or damaged schema) is neither dropped
    /// nor restored.
    pub(crate) fn suspend(conn: &Connection) -> rusqlite::Result<SuspendedTriggers> {
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

    pub(crate) fn restore(self, conn: &Connection) -> rusqlite::Result<()> {
        for sql in self.0 {
            conn.execute_batch(&sql)?;
        }
        Ok(())
    }
}

/// Rebuilds `usage_rollup`, `usage_daily` and `usage_hourly` from `usage` (the repair path, and
/// the end of a `--rescan`).
pub(crate) fn rebuild_rollup(conn: &Connection) -> rusqlite::Result<()> {
    conn.prepare_cached(q::ROLLUP_CLEAR)?.execute([])?;
    conn.prepare_cached(q::ROLLUP_REBUILD)?.execute([])?;
    conn.prepare_cached(q::DAILY_CLEAR)?.execute([])?;
    conn.prepare_cached(q::DAILY_REBUILD)?.execute([])?;
    conn.prepare_cached(q::HOURLY_CLEAR)?.execute([])?;
    conn.prepare_cached(q::NAMES_REBUILD)?.execute([])?;
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
    fn hourly_and_daily_sums_match_a_rebuild_for_stored_and_odd_times() {
        assert_eq!(stored_form("2026-11-20T09:14:07.123Z"), Some((2026112009, 847_123)));
        assert_eq!(stored_time(2026112009, 847_123), "2026-11-20T09:14:07.123Z");
        assert_eq!(stored_form("0001-01-01T00:00:00.000Z"), Some((101_0100, 0)));
        assert_eq!(stored_time(101_0100, 0), "0001-01-01T00:00:00.000Z");
        assert_eq!(stored_form("2026-11-20T09:59:59.999Z"), Some((2026112009, 3_599_999)));
        for odd in [
            "2026-11-20T09:60:00.000Z",
            "2026-11-20T09:14:60.000Z",
            "2026-11-2xT09:14:00.000Z",
            "2026-11-20T09:14:00Z",
            "2026-11-20 09:14:00.000Z",
            "2026-11-20T09:14:00.000z",
            "2026-11-20T09:14:00.0000Z",
            "2026-11-20T09:14:00,000Z",
        ] {
            assert_eq!(stored_form(odd), None, "{odd}");
        }
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(DbKind::Home, &dir.path().join("h.db")).unwrap();
        let conn = store.conn();
        let mut w = UsageWriter::new(conn).unwrap();
        // Stored times, one exactly on the hour, times SQLite would order between them, and texts
        // that are no time at all: each hour's row is the same whichever way it was summed.
        let times = [
            ("a", "2026-11-20T09:14:00.000Z"),
            ("b", "2026-11-20T09:00:00.000Z"),
            ("c", "2026-11-20T09:59:59.999Z"),
            ("d", "2026-11-20T10:01:00.000Z"),
            ("e", "2026-11-20T09"),
            ("f", "2026-11-20T09:30"),
            ("g", "2026-11-20 09:30:00"),
            ("h", "not a time"),
            ("i", ""),
            ("j", "2026-11-20T0é:00:00.000Z"),
            ("l", "2026-1é-20T09:00:00.000Z"),
            ("m", "é"),
            ("k", "1999-01-01T23:00:00.000Z"),
            ("n", "2026-11-20T09:60:00.000Z"),
            ("o", "2026-11-20T09:14:00Z"),
        ];
        for (i, (key, ts)) in times.iter().enumerate() {
            let row = UsageRow {
                model: if i % 2 == 0 { "m1" } else { "m2" },
                cost_usd: Some(0.25),
                ..UsageRow::for_test(key, ts)
            };
            assert!(w.insert(&row).unwrap());
            // The same time from the spool, summed by the insert trigger rather than the writer.
            let key = format!("spool-{key}");
            let row = UsageRow {
                source: "spool",
                model: "m3",
                ..UsageRow::for_test(&key, ts)
            };
            assert!(w.insert(&row).unwrap());
        }
        w.flush().unwrap();
        // As stored (numbers or texts), and as the view shows them.
        let stored = |c: &Connection| -> Vec<(String, String, i64, i64, i64, String, String)> {
            let mut st = c
                .prepare("SELECT typeof(hour), hour, at_hour, model_id, responses, first_ms, last_ms FROM usage_hourly ORDER BY hour, 3, 4")
                .unwrap();
            st.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get::<_, rusqlite::types::Value>(1).map(|v| format!("{v:?}"))?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get::<_, rusqlite::types::Value>(5).map(|v| format!("{v:?}"))?,
                    r.get::<_, rusqlite::types::Value>(6).map(|v| format!("{v:?}"))?,
                ))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect()
        };
        let shown = |c: &Connection| -> Vec<(String, i64, String, i64, f64, String, String)> {
            let mut st = c
                .prepare("SELECT hour, at_hour, model, responses, cost_usd, first_ts, last_ts FROM cost_hourly_rows ORDER BY 1, 2, 3")
                .unwrap();
            st.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get::<_, Option<f64>>(4)?.unwrap_or(-1.0),
                    r.get(5)?,
                    r.get(6)?,
                ))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect()
        };
        let (summed, as_shown, days) = (stored(conn), shown(conn), rollup(conn));
        assert!(as_shown.iter().any(|h| h.0 == "2026-11-20T09" && h.1 == 1), "{as_shown:?}");
        assert!(
            as_shown
                .iter()
                .any(|h| h.0 == "2026-11-20T09" && h.2 == "m1" && h.5 == "2026-11-20T09:14:00.000Z" && h.6 == "2026-11-20T09:59:59.999Z"),
            "{as_shown:?}"
        );
        // A time not of the stored form keeps its own row, under its text.
        assert!(
            summed.iter().any(|h| h.0 == "text" && h.6.contains("2026-11-20T09:60:00.000Z")),
            "{summed:?}"
        );
        assert!(summed.iter().any(|h| h.0 == "integer" && h.5 == "Integer(840000)"), "{summed:?}");
        rebuild_rollup(conn).unwrap();
        assert_eq!(stored(conn), summed);
        assert_eq!(shown(conn), as_shown);
        assert_eq!(rollup(conn), days);
        // A row of another source inserted with an outer conflict clause of its own: the trigger
        // still numbers its names without conflict or renumbering.
        let names: Vec<(i64, String)> = {
            let mut st = conn.prepare("SELECT id, name FROM usage_names ORDER BY id").unwrap();
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        for (or, key) in [("OR ROLLBACK", "spool-or-rollback"), ("OR REPLACE", "spool-or-replace")] {
            let sql = q::USAGE_INSERT.replace("INSERT INTO usage", &format!("INSERT {or} INTO usage"));
            conn.execute_batch("BEGIN").unwrap();
            let n = conn
                .execute(
                    &sql,
                    params![
                        key,
                        "spool",
                        "p",
                        None::<String>,
                        "s",
                        "claude",
                        "2027-01-01T00:10:00.000Z",
                        "m3",
                        1,
                        0,
                        0,
                        0,
                        None::<f64>,
                        None::<String>,
                        None::<String>,
                        0
                    ],
                )
                .unwrap();
            conn.execute_batch("COMMIT").unwrap();
            assert_eq!(n, 1, "{or}");
        }
        let names_after: Vec<(i64, String)> = {
            let mut st = conn.prepare("SELECT id, name FROM usage_names ORDER BY id").unwrap();
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(names_after, names);
        conn.execute("DELETE FROM usage WHERE dedup_key LIKE 'spool-or-%'", []).unwrap();
        // The delete trigger takes a response back out of its numbered or text row; a row left
        // with none goes.
        let m3 = "SELECT responses FROM usage_hourly WHERE hour = 2026112009 AND at_hour = 0
                  AND model_id = (SELECT id FROM usage_names WHERE name = 'm3')";
        assert_eq!(conn.query_row(m3, [], |r| r.get::<_, i64>(0)).unwrap(), 2);
        conn.execute("DELETE FROM usage WHERE dedup_key IN ('spool-a', 'spool-h')", [])
            .unwrap();
        assert_eq!(conn.query_row(m3, [], |r| r.get::<_, i64>(0)).unwrap(), 1);
        assert_eq!(stored(conn).len(), summed.len() - 1);
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
