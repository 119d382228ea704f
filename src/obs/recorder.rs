//! `EventStore`: the only place the project database's sessions, events, decisions, tool spans,
//! state and transcript offsets are written by the hook path.

use super::event::{Event, Kind, Phase, Plane};
use crate::clock;
use crate::policy::Decision;
use crate::store::queries::project::obs as q;
use rusqlite::{params, Connection, OptionalExtension};

pub struct EventStore<'c> {
    conn: &'c Connection,
}

/// Where a transcript was read up to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TranscriptOffset {
    pub file_id: Option<String>,
    pub head_hash: Option<String>,
    pub offset: i64,
    pub malformed_lines: i64,
    pub generations: i64,
}

impl<'c> EventStore<'c> {
    pub fn new(conn: &'c Connection) -> EventStore<'c> {
        EventStore { conn }
    }

    /// Stores `ev` on `plane`: upserts its session, pairs a tool end with its start (setting the
    /// duration), and inserts the event row. Returns the new row id (`None` when an event with
    /// the same dedup key was already stored).
    pub fn record(&self, ev: &mut Event, plane: Plane) -> rusqlite::Result<Option<i64>> {
        let ts = clock::stamp(ev.ts);
        if let Some(session) = ev.session_id.clone() {
            let session = session.as_str();
            let ended = (ev.kind == Kind::SessionEnd).then(|| ts.clone());
            self.conn.prepare_cached(q::SESSION_UPSERT)?.execute(params![
                ev.provider,
                session,
                ts,
                ev.session_model,
                ev.cwd,
                ev.transcript_path,
                ended
            ])?;
            self.pair_span(ev, session)?;
            if ev.kind == Kind::SessionEnd {
                self.conn
                    .prepare_cached(q::SPANS_CLOSE_SESSION)?
                    .execute(params![ev.provider, session])?;
            }
        }
        let tokens = ev.tokens;
        let n = self.conn.prepare_cached(q::EVENT_INSERT)?.execute(params![
            ts,
            ev.provider,
            ev.kind.as_str(),
            plane.as_str(),
            ev.session_id,
            ev.trace_id,
            ev.span_id,
            ev.parent_span_id,
            ev.model,
            ev.tool,
            ev.phase.map(Phase::as_str),
            serde_json::to_string(&ev.attrs).unwrap_or_default(),
            ev.payload.as_deref(),
            ev.duration_ms,
            tokens.map(|t| t.input),
            tokens.map(|t| t.output),
            tokens.map(|t| t.cache_read),
            tokens.map(|t| t.cache_write),
            ev.cost_usd,
            ev.cost_source,
            ev.cost_pool,
            ev.dedup_key,
        ])?;
        Ok((n == 1).then(|| self.conn.last_insert_rowid()))
    }

    fn pair_span(&self, ev: &mut Event, session: &str) -> rusqlite::Result<()> {
        let (Some(phase), Some(key)) = (ev.phase, ev.pair_key.clone()) else {
            return Ok(());
        };
        let ms = clock::millis(ev.ts);
        match phase {
            Phase::Start => {
                let span = ev.span_id.get_or_insert_with(super::new_span_id).clone();
                self.conn
                    .prepare_cached(q::SPAN_OPEN)?
                    .execute(params![ev.provider, session, key, span, clock::stamp(ev.ts), ms])?;
            }
            Phase::End | Phase::Fail => {
                let open: Option<(String, i64)> = self
                    .conn
                    .prepare_cached(q::SPAN_FIND)?
                    .query_row(params![ev.provider, session, key], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()?;
                if let Some((span, started)) = open {
                    ev.duration_ms = Some((ms - started).max(0));
                    if ev.span_id.is_none() {
                        ev.span_id = Some(span.clone());
                    }
                    self.conn
                        .prepare_cached(q::SPAN_CLOSE)?
                        .execute(params![ev.provider, session, key, span])?;
                }
            }
        }
        Ok(())
    }

    /// Records the permission a hook answered for the action behind `event_id`.
    pub fn record_decision(
        &self,
        event_id: Option<i64>,
        ev: &Event,
        subject: &str,
        decision: &Decision,
        posture: &str,
        detail: Option<&str>,
    ) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::DECISION_INSERT)?.execute(params![
            event_id,
            clock::stamp(ev.ts),
            ev.provider,
            ev.session_id,
            subject,
            decision.permission.as_str(),
            posture,
            decision.rule,
            decision.reason,
            detail
        ])?;
        Ok(())
    }

    /// A value of the small operator state (`mode`, `paused`).
    pub fn state(&self, key: &str) -> rusqlite::Result<Option<String>> {
        self.conn.prepare_cached(q::STATE_GET)?.query_row([key], |r| r.get(0)).optional()
    }

    pub fn set_state(&self, key: &str, value: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::STATE_SET)?
            .execute(params![key, value, clock::now_stamp()])?;
        Ok(())
    }

    pub fn clear_state(&self, key: &str) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::STATE_DELETE)?.execute([key])?;
        Ok(())
    }

    /// The session's estimated cost so far and how many cost alerts it already has.
    pub fn session_cost(&self, provider: &str, session: &str) -> rusqlite::Result<(f64, i64)> {
        self.conn
            .prepare_cached(q::SESSION_COST)?
            .query_row(params![session, provider], |r| Ok((r.get(0)?, r.get(1)?)))
    }

    pub fn transcript_offset(&self, path: &str) -> rusqlite::Result<Option<TranscriptOffset>> {
        self.conn
            .prepare_cached(q::TRANSCRIPT_GET)?
            .query_row([path], |r| {
                Ok(TranscriptOffset {
                    file_id: r.get(0)?,
                    head_hash: r.get(1)?,
                    offset: r.get(2)?,
                    malformed_lines: r.get(3)?,
                    generations: r.get(4)?,
                })
            })
            .optional()
    }

    pub fn set_transcript_offset(&self, path: &str, provider: &str, session: Option<&str>, t: &TranscriptOffset) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::TRANSCRIPT_PUT)?.execute(params![
            path,
            provider,
            session,
            t.file_id,
            t.head_hash,
            t.offset,
            t.malformed_lines,
            t.generations,
            clock::now_stamp()
        ])?;
        Ok(())
    }
}
