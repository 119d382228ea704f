//! The cross-repository spool in the home database: every record a project wrote, tagged with
//! the repository path and project name, so cost and history can be read across repositories.
//! [`Spool`] is the only writer of `spool` (and, through its trigger, `spool_rollup`) and the one
//! that prunes it.

use super::event::Tokens;
use super::recorder::{EventStore, StoredEvent};
use crate::cost::usage::{UsageRow, UsageWriter};
use crate::cost::TokenUsage;
use crate::store::queries::home::spool as q;
use crate::store::PruneCount;
use rusqlite::{params, Connection};

/// The repository of the spool, borrowing a home-database connection (or a transaction on one).
pub(crate) struct Spool<'c> {
    conn: &'c Connection,
}

/// One `spool` row as stored.
#[derive(Debug, Clone, Default)]
pub(crate) struct SpoolRow<'a> {
    pub ts: &'a str,
    pub repo_path: &'a str,
    pub project: &'a str,
    /// The plane the record was written on (`signal`, `debug`, `audit`), or an imported stream.
    pub stream: &'a str,
    pub kind: Option<&'a str>,
    pub provider: Option<&'a str>,
    pub session_id: Option<&'a str>,
    pub model: Option<&'a str>,
    pub duration_ms: Option<i64>,
    pub input_tokens: Option<i64>,
    pub output_tokens: Option<i64>,
    pub cache_read_tokens: Option<i64>,
    pub cache_write_tokens: Option<i64>,
    pub cache_write_1h_tokens: Option<i64>,
    pub cost_usd: Option<f64>,
    /// The record, as JSON text.
    pub record: &'a str,
    pub dedup_key: Option<&'a str>,
}

/// One row of `tlc obs report --all-repos` (the `spool_repo_rollup` view).
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct RepoRollup {
    pub repo_path: String,
    pub project: String,
    pub sessions: i64,
    pub events: i64,
    pub prompts: i64,
    pub tool_fails: i64,
    pub denials: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cost_usd: Option<f64>,
    pub last_at: String,
}

impl<'c> Spool<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Spool<'c> {
        Spool { conn }
    }

    /// Appends one project event row (already redacted when it was recorded) of the repository
    /// at `repo_path`; `false` when the spool already held it. A generation also enters the home
    /// `usage` table (through its one writer, `cost`'s [`UsageWriter`]), so cost reports count it
    /// once however many ways it arrived. Sending a row twice is harmless: every row has a dedup
    /// key (the event's own, else its row id and time).
    pub(crate) fn append(&self, repo_path: &str, project: &str, ev: &StoredEvent) -> rusqlite::Result<bool> {
        let attrs = serde_json::from_str::<serde_json::Value>(&ev.attrs).unwrap_or_else(|_| serde_json::json!({}));
        let record = serde_json::json!({
            "ts": ev.ts,
            "provider": ev.provider,
            "kind": ev.kind,
            "plane": ev.plane,
            "session_id": ev.session_id,
            "trace_id": ev.trace_id,
            "span_id": ev.span_id,
            "parent_span_id": ev.parent_span_id,
            "model": ev.model,
            "tool": ev.tool,
            "duration_ms": ev.duration_ms,
            "attrs": attrs,
        })
        .to_string();
        let dedup = match &ev.dedup_key {
            Some(k) => format!("{repo_path}\u{0}{k}"),
            None => format!("{repo_path}\u{0}row:{}@{}", ev.id, ev.ts),
        };
        let inserted = self.insert_row(&SpoolRow {
            ts: &ev.ts,
            repo_path,
            project,
            stream: &ev.plane,
            kind: Some(&ev.kind),
            provider: Some(&ev.provider),
            session_id: ev.session_id.as_deref(),
            model: ev.model.as_deref(),
            duration_ms: ev.duration_ms,
            input_tokens: ev.tokens.map(|t| t.input),
            output_tokens: ev.tokens.map(|t| t.output),
            cache_read_tokens: ev.tokens.map(|t| t.cache_read),
            cache_write_tokens: ev.tokens.map(|t| t.cache_write),
            cache_write_1h_tokens: ev.tokens.map(|t| t.cache_write_1h),
            cost_usd: ev.cost_usd,
            record: &record,
            dedup_key: Some(&dedup),
        })?;
        self.usage(repo_path, project, ev)?;
        Ok(inserted)
    }

    /// A generation's usage into the home `usage` table, keyed as the same response imported
    /// from its transcript is (`<message.id>:<requestId>`; a generation event's key carries a `gen:`
    /// prefix, dropped here), so it counts once however many ways it arrives. Nothing for an event
    /// without tokens or a key.
    pub(crate) fn usage(&self, repo_path: &str, project: &str, ev: &StoredEvent) -> rusqlite::Result<bool> {
        let (Some(t), Some(key)) = (ev.tokens, ev.dedup_key.as_deref()) else {
            return Ok(false);
        };
        let key = key.strip_prefix("gen:").unwrap_or(key);
        UsageWriter::new(self.conn)?.insert(&UsageRow {
            dedup_key: key,
            source: "spool",
            project,
            repo_path: Some(repo_path),
            session_id: ev.session_id.as_deref().unwrap_or(""),
            provider: Some(&ev.provider),
            ts: &ev.ts,
            model: ev.model.as_deref().unwrap_or(""),
            usage: token_usage(t),
            cost_usd: ev.cost_usd,
            cost_source: ev.cost_source.as_deref(),
            cost_pool: ev.cost_pool.as_deref(),
        })
    }

    /// Spool rows of one repository (for `doctor`).
    pub(crate) fn repo_count(&self, repo_path: &str) -> rusqlite::Result<i64> {
        self.conn.prepare_cached(q::REPO_COUNT)?.query_row([repo_path], |r| r.get(0))
    }

    /// Inserts one spool row as it is; `false` when one with the same dedup key was already stored.
    pub(crate) fn insert_row(&self, row: &SpoolRow<'_>) -> rusqlite::Result<bool> {
        let n = self.conn.prepare_cached(q::APPEND)?.execute(params![
            row.ts,
            row.repo_path,
            row.project,
            row.stream,
            row.kind,
            row.provider,
            row.session_id,
            row.model,
            row.duration_ms,
            row.input_tokens,
            row.output_tokens,
            row.cache_read_tokens,
            row.cache_write_tokens,
            row.cost_usd,
            row.record,
            row.dedup_key,
            row.cache_write_1h_tokens,
        ])?;
        Ok(n == 1)
    }

    /// How many spool rows [`Spool::prune`] would drop at `cutoff` (a stamp).
    pub(crate) fn count_prunable(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE_COUNT)?.query_row([cutoff], |r| r.get(0))?;
        Ok(PruneCount { table: "spool", rows })
    }

    /// Drops the spool rows older than `cutoff` (the caller holds the transaction) and rebuilds
    /// the per-session sums, which cannot be taken back row by row (first and last times).
    pub(crate) fn prune(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE)?.execute([cutoff])? as i64;
        if rows > 0 {
            self.conn.prepare_cached(q::ROLLUP_CLEAR)?.execute([])?;
            self.conn.prepare_cached(q::ROLLUP_REBUILD)?.execute([])?;
        }
        Ok(PruneCount { table: "spool", rows })
    }

    /// One row per repository, the most recently active first.
    pub(crate) fn repo_rollup(&self) -> rusqlite::Result<Vec<RepoRollup>> {
        let mut st = self.conn.prepare_cached(q::REPO_ROLLUP)?;
        let rows = st.query_map([], |r| {
            Ok(RepoRollup {
                repo_path: r.get(0)?,
                project: r.get(1)?,
                sessions: r.get(2)?,
                events: r.get(3)?,
                prompts: r.get(4)?,
                tool_fails: r.get(5)?,
                denials: r.get(6)?,
                input_tokens: r.get(7)?,
                output_tokens: r.get(8)?,
                cost_usd: r.get(9)?,
                last_at: r.get(10)?,
            })
        })?;
        rows.collect()
    }
}

/// The counts as `usage` stores them. `as` round-trips every i64, so a count is stored exactly as
/// the record had it (an imported line may carry anything).
fn token_usage(t: Tokens) -> TokenUsage {
    let n = |v: i64| v as u64;
    TokenUsage {
        input: n(t.input),
        output: n(t.output),
        cache_read: n(t.cache_read),
        cache_write: n(t.cache_write),
        cache_write_1h: n(t.cache_write_1h),
    }
}

/// What the home spool lacks of one project database: the rows to send, and how far the cursor
/// may move once the home database committed them.
#[derive(Debug, Default)]
pub(crate) struct Backlog {
    pub rows: Vec<StoredEvent>,
    /// Every row up to this id is among `rows` or was sent before.
    pub through: i64,
    /// The cursor when the backlog was read.
    pub from: i64,
}

/// Reads what the spool lacks from a project database: the rows past the spool cursor, at most
/// `limit` of them, and also — when the limit cut them off — the rows from `own_from` on (a
/// hook's own rows are sent at once even behind a long backlog; the cursor then stops at the
/// backlog's end, and they are sent again, harmlessly, when it gets there).
pub(crate) fn backlog(project: &Connection, limit: i64, own_from: Option<i64>) -> rusqlite::Result<Backlog> {
    let es = EventStore::new(project);
    let from = es.spool_cursor()?;
    let mut rows = es.unspooled(from, limit)?;
    let through = rows.last().map_or(from, |r| r.id);
    if rows.len() as i64 >= limit {
        if let Some(own) = own_from.filter(|own| *own > through) {
            rows.extend(es.unspooled(own - 1, limit)?);
        }
    }
    Ok(Backlog { rows, through, from })
}

impl Spool<'_> {
    /// Sends a backlog (in the caller's home transaction); returns how many rows were new here.
    pub(crate) fn send(&self, repo_path: &str, project: &str, backlog: &Backlog) -> rusqlite::Result<usize> {
        let mut new = 0;
        for ev in &backlog.rows {
            new += usize::from(self.append(repo_path, project, ev)?);
        }
        Ok(new)
    }
}

/// Which database a catch-up failed on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CatchUpError {
    #[error("project database: {0}")]
    Project(rusqlite::Error),
    #[error("home database: {0}")]
    Home(rusqlite::Error),
}

/// What [`catch_up`] sent.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub(crate) struct CaughtUp {
    /// Rows read past the cursor and sent.
    pub sent: u64,
    /// Of those, rows the spool did not hold yet (the rest a hook had sent before it was killed).
    pub new: u64,
    /// The cursor before and after.
    pub from: i64,
    pub through: i64,
}

/// Sends everything past the spool cursor of `project` to the spool of `home`, a batch per home
/// transaction, moving the cursor after each commit.
pub(crate) fn catch_up(
    project: &Connection,
    home: &mut Connection,
    repo_path: &str,
    name: &str,
    batch: i64,
) -> Result<CaughtUp, CatchUpError> {
    let mut done = CaughtUp::default();
    let mut first = true;
    loop {
        let pending = backlog(project, batch, None).map_err(CatchUpError::Project)?;
        if first {
            done.from = pending.from;
            done.through = pending.from;
            first = false;
        }
        if pending.rows.is_empty() {
            return Ok(done);
        }
        let tx = home
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(CatchUpError::Home)?;
        let new = Spool::new(&tx).send(repo_path, name, &pending).map_err(CatchUpError::Home)?;
        tx.commit().map_err(CatchUpError::Home)?;
        EventStore::new(project)
            .advance_spool_cursor(pending.through)
            .map_err(CatchUpError::Project)?;
        done.sent += pending.rows.len() as u64;
        done.new += new as u64;
        done.through = pending.through;
    }
}
