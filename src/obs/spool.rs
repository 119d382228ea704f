//! The cross-repository spool in the home database: every record a project wrote, tagged with
//! the repository path and project name, so cost and history can be read across repositories.

use super::event::{Event, Plane};
use crate::clock;
use crate::store::queries::home::spool as q;
use rusqlite::{params, Connection};

pub struct Spool<'c> {
    conn: &'c Connection,
}

impl<'c> Spool<'c> {
    pub fn new(conn: &'c Connection) -> Spool<'c> {
        Spool { conn }
    }

    /// Appends `ev` (already redacted) as written on `plane` in the repository at `repo_path`.
    /// A generation also enters the home `usage` table, so cost reports count it once however
    /// many ways it arrived.
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
        });
        let t = ev.tokens;
        let dedup = ev.dedup_key.as_ref().map(|k| format!("{repo_path}\u{0}{k}"));
        self.conn.prepare_cached(q::APPEND)?.execute(params![
            ts,
            repo_path,
            project,
            plane.as_str(),
            ev.kind.as_str(),
            ev.provider,
            ev.session_id,
            ev.model,
            ev.duration_ms,
            t.map(|t| t.input),
            t.map(|t| t.output),
            t.map(|t| t.cache_read),
            t.map(|t| t.cache_write),
            ev.cost_usd,
            record.to_string(),
            dedup,
        ])?;
        if let (Some(t), Some(key)) = (t, ev.dedup_key.as_deref()) {
            // The same response imported from its transcript is keyed `<message.id>:<requestId>`;
            // a generation event's key carries a `gen:` prefix, dropped here so it counts once.
            let key = key.strip_prefix("gen:").unwrap_or(key);
            self.conn.prepare_cached(q::USAGE_INSERT)?.execute(params![
                key,
                "spool",
                project,
                repo_path,
                ev.session_id.as_deref().unwrap_or(""),
                ev.provider,
                ts,
                ev.model.as_deref().unwrap_or(""),
                t.input,
                t.output,
                t.cache_read,
                t.cache_write,
                ev.cost_usd,
                ev.cost_source,
                ev.cost_pool,
            ])?;
        }
        Ok(())
    }
}
