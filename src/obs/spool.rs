//! The cross-repository spool in the home database: every record a project wrote, tagged with
//! the repository path and project name, so cost and history can be read across repositories.
//! [`Spool`] is the only writer of `spool` (and, through its trigger, `spool_rollup`) and the one
//! that prunes it.

use super::event::{Event, Plane, Tokens};
use crate::clock;
use crate::cost::usage::{UsageRow, UsageWriter};
use crate::cost::TokenUsage;
use crate::store::queries::home::spool as q;
use crate::store::PruneCount;
use rusqlite::{params, Connection};

/// The repository of the spool, borrowing a home-database connection (or a transaction on one).
pub struct Spool<'c> {
    conn: &'c Connection,
}

/// One `spool` row as stored.
#[derive(Debug, Clone, Default)]
pub struct SpoolRow<'a> {
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
    pub cost_usd: Option<f64>,
    /// The record, as JSON text.
    pub record: &'a str,
    pub dedup_key: Option<&'a str>,
}

/// One row of `tlc obs report --all-repos` (the `spool_repo_rollup` view).
#[derive(Debug, Clone, serde::Serialize)]
pub struct RepoRollup {
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
    pub fn new(conn: &'c Connection) -> Spool<'c> {
        Spool { conn }
    }

    /// Appends `ev` (already redacted) as written on `plane` in the repository at `repo_path`.
    /// A generation also enters the home `usage` table (through its one writer, `cost`'s
    /// [`UsageWriter`]), so cost reports count it once however many ways it arrived.
    pub fn append(&self, repo_path: &str, project: &str, ev: &Event, plane: Plane) -> rusqlite::Result<()> {
        let ts = clock::stamp(ev.ts);
        let record = serde_json::json!({
            "ts": ts,
            "provider": ev.provider,
            "kind": ev.kind.as_str(),
            "plane": plane.as_str(),
            "session_id": ev.session_id,
            "trace_id": ev.trace_id,
            "span_id": ev.span_id,
            "parent_span_id": ev.parent_span_id,
            "model": ev.model,
            "tool": ev.tool,
            "duration_ms": ev.duration_ms,
            "attrs": ev.attrs,
        })
        .to_string();
        let dedup = ev.dedup_key.as_ref().map(|k| format!("{repo_path}\u{0}{k}"));
        self.insert_row(&SpoolRow {
            ts: &ts,
            repo_path,
            project,
            stream: plane.as_str(),
            kind: Some(ev.kind.as_str()),
            provider: Some(&ev.provider),
            session_id: ev.session_id.as_deref(),
            model: ev.model.as_deref(),
            duration_ms: ev.duration_ms,
            input_tokens: ev.tokens.map(|t| t.input),
            output_tokens: ev.tokens.map(|t| t.output),
            cache_read_tokens: ev.tokens.map(|t| t.cache_read),
            cache_write_tokens: ev.tokens.map(|t| t.cache_write),
            cost_usd: ev.cost_usd,
            record: &record,
            dedup_key: dedup.as_deref(),
        })?;
        if let (Some(t), Some(key)) = (ev.tokens, ev.dedup_key.as_deref()) {
            // The same response imported from its transcript is keyed `<message.id>:<requestId>`;
            // a generation event's key carries a `gen:` prefix, dropped here so it counts once.
            let key = key.strip_prefix("gen:").unwrap_or(key);
            UsageWriter::new(self.conn)?.insert(&UsageRow {
                dedup_key: key,
                source: "spool",
                project,
                repo_path: Some(repo_path),
                session_id: ev.session_id.as_deref().unwrap_or(""),
                provider: Some(&ev.provider),
                ts: &ts,
                model: ev.model.as_deref().unwrap_or(""),
                usage: token_usage(t),
                cost_usd: ev.cost_usd,
                cost_source: ev.cost_source.as_deref(),
                cost_pool: ev.cost_pool.as_deref(),
            })?;
        }
        Ok(())
    }

    /// Inserts one spool row as it is; `false` when one with the same dedup key was already stored.
    pub fn insert_row(&self, row: &SpoolRow<'_>) -> rusqlite::Result<bool> {
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
        ])?;
        Ok(n == 1)
    }

    /// How many spool rows [`Spool::prune`] would drop at `cutoff` (a stamp).
    pub fn count_prunable(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE_COUNT)?.query_row([cutoff], |r| r.get(0))?;
        Ok(PruneCount { table: "spool", rows })
    }

    /// Drops the spool rows older than `cutoff` (the caller holds the transaction) and rebuilds
    /// the per-session sums, which cannot be taken back row by row (first and last times).
    pub fn prune(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE)?.execute([cutoff])? as i64;
        if rows > 0 {
            self.conn.prepare_cached(q::ROLLUP_CLEAR)?.execute([])?;
            self.conn.prepare_cached(q::ROLLUP_REBUILD)?.execute([])?;
        }
        Ok(PruneCount { table: "spool", rows })
    }

    /// One row per repository, the most recently active first.
    pub fn repo_rollup(&self) -> rusqlite::Result<Vec<RepoRollup>> {
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
    }
}
