//! `ShipStore`: the one place `ship_cursor` (and the database's `instance` in `tlc_meta`) is read
//! and written, and where the streams' rows are read.

use super::{Source, Stream, STREAMS};
use crate::store::queries::project::ship as q;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{Map, Value};

pub(crate) struct ShipStore<'c> {
    conn: &'c Connection,
}

/// A row of the `spans` stream.
#[derive(Debug, Clone, Default)]
pub(crate) struct SpanRow {
    pub id: i64,
    pub ts: String,
    pub provider: String,
    pub kind: String,
    pub session_id: Option<String>,
    pub span_id: Option<String>,
    pub parent_span_id: Option<String>,
    pub model: Option<String>,
    pub tool: Option<String>,
    pub phase: Option<String>,
    pub duration_ms: Option<i64>,
    pub input_tokens: Option<i64>,
    pub output_tokens: Option<i64>,
    pub cache_read_tokens: Option<i64>,
    pub cache_write_tokens: Option<i64>,
    pub cost_usd: Option<f64>,
    pub cost_source: Option<String>,
    pub dedup_key: Option<String>,
    pub attrs: String,
    /// The start of a subagent (its `subagent.start`) or of a session (its first sight).
    pub started_at: Option<String>,
}

/// A row of the `token_usage` stream.
#[derive(Debug, Clone, Default)]
pub(crate) struct UsageRow {
    pub id: i64,
    pub ts: String,
    pub provider: String,
    pub model: Option<String>,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cache_read_tokens: i64,
    pub cache_write_tokens: i64,
}

/// A row of a log stream: the columns every log query returns.
#[derive(Debug, Clone, Default)]
pub(crate) struct LogRow {
    pub id: i64,
    pub ts: String,
    pub provider: Option<String>,
    pub session_id: Option<String>,
    pub span_id: Option<String>,
    pub kind: String,
    pub rule: Option<String>,
    pub verdict: Option<String>,
    pub severity: String,
    /// Attributes always sent (nulls dropped).
    pub attrs: Map<String, Value>,
    /// Payload texts, sent only with `ship.includePayloads` (nulls dropped).
    pub payload: Map<String, Value>,
}

/// One read of a stream.
#[derive(Debug, Clone)]
pub(crate) enum Rows {
    Spans(Vec<SpanRow>),
    Usage(Vec<UsageRow>),
    Logs(Vec<LogRow>),
}

impl Rows {
    pub(crate) fn ids(&self) -> Vec<i64> {
        match self {
            Rows::Spans(r) => r.iter().map(|x| x.id).collect(),
            Rows::Usage(r) => r.iter().map(|x| x.id).collect(),
            Rows::Logs(r) => r.iter().map(|x| x.id).collect(),
        }
    }
}

/// A cursor and what happened to its stream last, for `--status`.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct CursorRow {
    pub url: String,
    pub stream: String,
    pub last_id: i64,
    /// When a request was last acknowledged, and how many records it held.
    pub sent_at: Option<String>,
    pub sent_records: Option<i64>,
    /// When a request last failed, and why.
    pub error_at: Option<String>,
    pub error: Option<String>,
    /// When the collector last rejected records of an acknowledged request, and its message.
    pub partial_at: Option<String>,
    pub partial: Option<String>,
    /// Records the collector rejected in all.
    pub rejected: i64,
}

fn object(text: Option<String>) -> Map<String, Value> {
    match text.and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
        Some(Value::Object(m)) => m.into_iter().filter(|(_, v)| !v.is_null()).collect(),
        _ => Map::new(),
    }
}

impl<'c> ShipStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> ShipStore<'c> {
        ShipStore { conn }
    }

    /// This database's random id (made by its migration).
    pub(crate) fn instance(&self) -> rusqlite::Result<String> {
        Ok(self
            .conn
            .query_row(q::INSTANCE, [], |r| r.get::<_, String>(0))
            .optional()?
            .unwrap_or_default())
    }

    /// The last id of `stream` the collector at `url` acknowledged (0 before the first).
    pub(crate) fn cursor(&self, url: &str, stream: &str) -> rusqlite::Result<i64> {
        Ok(self
            .conn
            .query_row(q::CURSOR_GET, params![url, stream], |r| r.get(0))
            .optional()?
            .unwrap_or(0))
    }

    /// Up to `limit` rows of `stream` after id `after`, oldest first.
    pub(crate) fn read(&self, stream: &Stream, after: i64, limit: i64) -> rusqlite::Result<Rows> {
        match stream.source {
            Source::Spans => {
                let mut stmt = self.conn.prepare_cached(q::SPANS_AFTER)?;
                let rows = stmt.query_map(params![after, limit], |r| {
                    Ok(SpanRow {
                        id: r.get(0)?,
                        ts: r.get(1)?,
                        provider: r.get(2)?,
                        kind: r.get(3)?,
                        session_id: r.get(4)?,
                        span_id: r.get(5)?,
                        parent_span_id: r.get(6)?,
                        model: r.get(7)?,
                        tool: r.get(8)?,
                        phase: r.get(9)?,
                        duration_ms: r.get(10)?,
                        input_tokens: r.get(11)?,
                        output_tokens: r.get(12)?,
                        cache_read_tokens: r.get(13)?,
                        cache_write_tokens: r.get(14)?,
                        cost_usd: r.get(15)?,
                        cost_source: r.get(16)?,
                        dedup_key: r.get(17)?,
                        attrs: r.get(18)?,
                        started_at: r.get(19)?,
                    })
                })?;
                Ok(Rows::Spans(rows.collect::<rusqlite::Result<_>>()?))
            }
            Source::TokenUsage => {
                let mut stmt = self.conn.prepare_cached(q::TOKEN_USAGE_AFTER)?;
                let rows = stmt.query_map(params![after, limit], |r| {
                    Ok(UsageRow {
                        id: r.get(0)?,
                        ts: r.get(1)?,
                        provider: r.get(2)?,
                        model: r.get(3)?,
                        input_tokens: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                        output_tokens: r.get::<_, Option<i64>>(5)?.unwrap_or(0),
                        cache_read_tokens: r.get::<_, Option<i64>>(6)?.unwrap_or(0),
                        cache_write_tokens: r.get::<_, Option<i64>>(7)?.unwrap_or(0),
                    })
                })?;
                Ok(Rows::Usage(rows.collect::<rusqlite::Result<_>>()?))
            }
            Source::Logs(sql) => {
                let mut stmt = self.conn.prepare_cached(sql)?;
                let rows = stmt.query_map(params![after, limit], |r| {
                    Ok(LogRow {
                        id: r.get(0)?,
                        ts: r.get(1)?,
                        provider: r.get(2)?,
                        session_id: r.get(3)?,
                        span_id: r.get(4)?,
                        kind: r.get(5)?,
                        rule: r.get(6)?,
                        verdict: r.get(7)?,
                        severity: r.get(8)?,
                        attrs: object(r.get(9)?),
                        payload: object(r.get(10)?),
                    })
                })?;
                Ok(Rows::Logs(rows.collect::<rusqlite::Result<_>>()?))
            }
        }
    }

    /// After the collector at `url` acknowledged `records` records of `stream` up to row
    /// `last_id`: the cursor moves there. With no record (rows that made none) it only moves.
    pub(crate) fn acknowledged(&self, url: &str, stream: &str, last_id: i64, records: i64, now: &str) -> rusqlite::Result<()> {
        if records == 0 {
            self.conn
                .prepare_cached(q::CURSOR_ADVANCE)?
                .execute(params![url, stream, last_id])?;
        } else {
            self.conn
                .prepare_cached(q::CURSOR_ACKNOWLEDGED)?
                .execute(params![url, stream, last_id, records, now])?;
        }
        Ok(())
    }

    /// A request of `stream` to `url` that failed; the cursor stays.
    pub(crate) fn failed(&self, url: &str, stream: &str, now: &str, error: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::CURSOR_ERROR)?
            .execute(params![url, stream, now, error])?;
        Ok(())
    }

    /// A partial success: the collector at `url` rejected `rejected` records for good.
    pub(crate) fn partial(&self, url: &str, stream: &str, now: &str, rejected: i64, message: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::CURSOR_PARTIAL)?
            .execute(params![url, stream, now, rejected, message])?;
        Ok(())
    }

    pub(crate) fn cursors(&self) -> rusqlite::Result<Vec<CursorRow>> {
        let mut stmt = self.conn.prepare_cached(q::CURSOR_LIST)?;
        let rows = stmt.query_map([], |r| {
            Ok(CursorRow {
                url: r.get(0)?,
                stream: r.get(1)?,
                last_id: r.get(2)?,
                sent_at: r.get(3)?,
                sent_records: r.get(4)?,
                error_at: r.get(5)?,
                error: r.get(6)?,
                partial_at: r.get(7)?,
                partial: r.get(8)?,
                rejected: r.get(9)?,
            })
        })?;
        rows.collect()
    }

    /// The highest id of each table a stream reads.
    pub(crate) fn table_max_ids(&self) -> rusqlite::Result<Vec<(String, i64)>> {
        let mut stmt = self.conn.prepare_cached(q::TABLE_MAX_IDS)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect()
    }

    /// After a prune: every cursor past the highest id its table kept is pulled back to that id,
    /// so that the rows SQLite numbers next (from that highest id on) are sent.
    pub(crate) fn clamp_after_prune(&self) -> rusqlite::Result<()> {
        let max = self.table_max_ids()?;
        for stream in STREAMS {
            let kept = max.iter().find(|(t, _)| t == stream.table).map_or(0, |(_, m)| *m);
            self.conn.prepare_cached(q::CURSOR_CLAMP)?.execute(params![stream.name, kept])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{in_memory, DbKind};

    fn generation(conn: &Connection, ts: &str) -> i64 {
        conn.execute(
            "INSERT INTO events (ts, provider, kind, plane, session_id, model, input_tokens, output_tokens) \
             VALUES (?1, 'claude', 'generation.end', 'signal', 's1', 'm', 1, 2)",
            [ts],
        )
        .unwrap();
        conn.last_insert_rowid()
    }

    fn spans() -> &'static Stream {
        STREAMS.iter().find(|s| s.name == "spans").unwrap()
    }

    #[test]
    fn a_prune_that_drops_the_newest_rows_pulls_the_cursor_back_so_reused_ids_are_sent() {
        let conn = in_memory(DbKind::Project).unwrap();
        let store = ShipStore::new(&conn);
        for ts in ["2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z", "2026-01-03T00:00:00.000Z"] {
            generation(&conn, ts);
        }
        store.acknowledged("http://c/v1/traces", "spans", 3, 3, "now").unwrap();
        // Everything older than the cutoff goes; SQLite then numbers the next row 1 again.
        conn.execute("DELETE FROM events WHERE ts < '2026-02-01'", []).unwrap();
        store.clamp_after_prune().unwrap();
        assert_eq!(store.cursor("http://c/v1/traces", "spans").unwrap(), 0);
        let id = generation(&conn, "2026-03-01T00:00:00.000Z");
        assert_eq!(id, 1, "SQLite reuses the id");
        assert_eq!(store.read(spans(), 0, 10).unwrap().ids(), vec![1]);

        // Rows kept below the cursor: it stops at the highest kept id, not lower.
        for d in 2..=5 {
            generation(&conn, &format!("2026-03-0{d}T00:00:00.000Z"));
        }
        store.acknowledged("http://c/v1/traces", "spans", 5, 5, "now").unwrap();
        conn.execute("DELETE FROM events WHERE id >= 4", []).unwrap();
        store.clamp_after_prune().unwrap();
        assert_eq!(store.cursor("http://c/v1/traces", "spans").unwrap(), 3);
        let unchanged = ShipStore::new(&conn).cursor("http://c/v1/traces", "decisions").unwrap();
        assert_eq!(unchanged, 0);
    }

    #[test]
    fn a_cursor_never_moves_back_on_an_acknowledgement() {
        let conn = in_memory(DbKind::Project).unwrap();
        let store = ShipStore::new(&conn);
        store.acknowledged("u", "spans", 9, 1, "t1").unwrap();
        store.acknowledged("u", "spans", 4, 1, "t2").unwrap();
        assert_eq!(store.cursor("u", "spans").unwrap(), 9);
        assert_eq!(store.instance().unwrap().len(), 32, "the migration gave the database an id");
    }
}
