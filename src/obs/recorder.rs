//! `EventStore`: the only writer of the project database's `sessions`, `events`, `decisions`,
//! `open_spans`, `transcripts` and `ship_ledger` tables — for the hook, the JSONL import and the
//! mutating commands alike — and the one that prunes them.

use super::event::{Event, Kind, Phase, Plane, Tokens};
use crate::clock;
use crate::decision::Decision;
use crate::store::queries::project::obs as q;
use crate::store::PruneCount;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use std::path::Path;

// The `tlc_meta` facts the event store keeps besides the spool cursor (docs/schema.md#tlc_meta).
const META_HOOKS_REVISION: &str = "hooks.revision";
const META_HOOKS_REVISION_SINCE: &str = "hooks.revision_since";
const META_HOOKS_PREVIOUS_REVISION: &str = "hooks.previous_revision";
const META_HOOKS_PREVIOUS_REVISION_SINCE: &str = "hooks.previous_revision_since";
const META_UPDATE_SEEN: &str = "update.seen";

/// The repository of the event tables, borrowing a project-database connection (or a
/// transaction on one).
pub(crate) struct EventStore<'c> {
    conn: &'c Connection,
}

/// One `events` row as stored: what [`EventStore::record`] makes of an [`Event`], and what the
/// JSONL import makes of a line (whose kinds need not be this tlc's).
#[derive(Debug, Clone, Default)]
pub(crate) struct EventRow<'a> {
    pub ts: &'a str,
    pub provider: &'a str,
    pub kind: &'a str,
    pub plane: &'a str,
    pub session_id: Option<&'a str>,
    pub trace_id: Option<&'a str>,
    pub span_id: Option<&'a str>,
    pub parent_span_id: Option<&'a str>,
    pub model: Option<&'a str>,
    pub tool: Option<&'a str>,
    pub phase: Option<&'a str>,
    /// A JSON object, as text.
    pub attrs: &'a str,
    pub payload: Option<&'a str>,
    pub duration_ms: Option<i64>,
    pub tokens: Option<Tokens>,
    pub cost_usd: Option<f64>,
    pub cost_source: Option<&'a str>,
    pub cost_pool: Option<&'a str>,
    pub dedup_key: Option<&'a str>,
}

/// One `ship_ledger` row: a claim, challenge or pass of the ship gate at a stop, or of the JSONL
/// import.
#[derive(Debug, Clone)]
pub(crate) struct ShipRow<'a> {
    pub ts: &'a str,
    pub session_id: Option<&'a str>,
    pub provider: Option<&'a str>,
    pub outcome: &'a str,
    pub summary: Option<&'a str>,
    /// What the outcome was based on (the import: the whole line, as JSON text).
    pub detail: Option<&'a str>,
    /// A row whose key is already stored is not stored again.
    pub dedup_key: Option<&'a str>,
    /// The changed files the outcome was about.
    pub files: &'a [String],
    pub evidence_dir: Option<&'a str>,
}

/// One `events` row read back for the home spool (see [`EventStore::unspooled`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct StoredEvent {
    pub id: i64,
    pub ts: String,
    pub provider: String,
    pub kind: String,
    pub plane: String,
    pub session_id: Option<String>,
    pub trace_id: Option<String>,
    pub span_id: Option<String>,
    pub parent_span_id: Option<String>,
    pub model: Option<String>,
    pub tool: Option<String>,
    pub duration_ms: Option<i64>,
    /// A JSON object, as text.
    pub attrs: String,
    pub tokens: Option<Tokens>,
    pub cost_usd: Option<f64>,
    pub cost_source: Option<String>,
    pub cost_pool: Option<String>,
    pub dedup_key: Option<String>,
}

/// The tables [`EventStore::prune`] drops rows from, in the order of `prune_count.sql`'s columns.
const PRUNED: [&str; 5] = ["events", "decisions", "sessions", "ship_ledger", "open_spans"];

/// Where a transcript was read up to.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TranscriptOffset {
    pub file_id: Option<String>,
    pub head_hash: Option<String>,
    pub offset: i64,
    pub malformed_lines: i64,
    /// Lines longer than one hook's read (read whole, or skipped when longer still).
    pub oversize_lines: i64,
    pub generations: i64,
}

impl<'c> EventStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> EventStore<'c> {
        EventStore { conn }
    }

    /// Stores `ev` on `plane`: upserts its session, pairs a tool end with its start (setting the
    /// duration), and inserts the event row. Returns the new row id (`None` when an event with
    /// the same dedup key was already stored).
    pub(crate) fn record(&self, ev: &mut Event, plane: Plane) -> rusqlite::Result<Option<i64>> {
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
                ended,
                ev.session_model_fallback,
                ev.kind == Kind::SessionStart
            ])?;
            self.pair_span(ev, session)?;
            if ev.kind == Kind::SessionEnd {
                self.conn
                    .prepare_cached(q::SPANS_CLOSE_SESSION)?
                    .execute(params![ev.provider, session])?;
            }
        }
        let attrs = serde_json::to_string(&ev.attrs).unwrap_or_default();
        self.insert_row(&EventRow {
            ts: &ts,
            provider: &ev.provider,
            kind: ev.kind.as_str(),
            plane: plane.as_str(),
            session_id: ev.session_id.as_deref(),
            trace_id: ev.trace_id.as_deref(),
            span_id: ev.span_id.as_deref(),
            parent_span_id: ev.parent_span_id.as_deref(),
            model: ev.model.as_deref(),
            tool: ev.tool.as_deref(),
            phase: ev.phase.map(Phase::as_str),
            attrs: &attrs,
            payload: ev.payload.as_deref(),
            duration_ms: ev.duration_ms,
            tokens: ev.tokens,
            cost_usd: ev.cost_usd,
            cost_source: ev.cost_source.as_deref(),
            cost_pool: ev.cost_pool.as_deref(),
            dedup_key: ev.dedup_key.as_deref(),
        })
    }

    /// Inserts one event row as it is (no session, no span pairing). Returns the new row id
    /// (`None` when a row with the same dedup key was already stored).
    pub(crate) fn insert_row(&self, row: &EventRow<'_>) -> rusqlite::Result<Option<i64>> {
        let t = row.tokens;
        let n = self.conn.prepare_cached(q::EVENT_INSERT)?.execute(params![
            row.ts,
            row.provider,
            row.kind,
            row.plane,
            row.session_id,
            row.trace_id,
            row.span_id,
            row.parent_span_id,
            row.model,
            row.tool,
            row.phase,
            row.attrs,
            row.payload,
            row.duration_ms,
            t.map(|t| t.input),
            t.map(|t| t.output),
            t.map(|t| t.cache_read),
            t.map(|t| t.cache_write),
            row.cost_usd,
            row.cost_source,
            row.cost_pool,
            row.dedup_key,
            t.map(|t| t.cache_write_1h),
        ])?;
        Ok((n == 1).then(|| self.conn.last_insert_rowid()))
    }

    /// Notes that `session` of `provider` was seen at `ts` (the JSONL import's sessions: no
    /// working directory, transcript or end is known).
    pub(crate) fn touch_session(&self, provider: &str, session: &str, ts: &str, model: Option<&str>) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::SESSION_UPSERT)?.execute(params![
            provider,
            session,
            ts,
            model,
            None::<String>,
            None::<String>,
            None::<String>,
            None::<String>,
            false
        ])?;
        Ok(())
    }

    /// Notes that `session` of `provider` ended at `ts` (an imported session end).
    pub(crate) fn end_session(&self, provider: &str, session: &str, ts: &str) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::SESSION_UPSERT)?.execute(params![
            provider,
            session,
            ts,
            None::<String>,
            None::<String>,
            None::<String>,
            ts,
            None::<String>,
            false
        ])?;
        Ok(())
    }

    /// Stores one ship-ledger row; `false` when one with the same dedup key was already stored.
    pub(crate) fn insert_ship(&self, row: &ShipRow<'_>) -> rusqlite::Result<bool> {
        let n = self.conn.prepare_cached(q::SHIP_INSERT)?.execute(params![
            row.ts,
            row.session_id,
            row.provider,
            row.outcome,
            row.summary,
            row.detail,
            row.dedup_key,
            serde_json::to_string(row.files).unwrap_or_else(|_| "[]".into()),
            row.evidence_dir
        ])?;
        Ok(n == 1)
    }

    /// Records the `config.scaffolded` event for a project config the scaffold just wrote at
    /// `path`, by the hook (`by` = `hook`) or a command (its name).
    pub(crate) fn record_scaffolded(&self, provider: &str, session: Option<&str>, path: &Path, by: &str) -> rusqlite::Result<()> {
        let mut ev = Event::new(provider, Kind::ConfigScaffolded, clock::now());
        ev.session_id = session.map(str::to_string);
        ev.attrs.insert("path".into(), path.display().to_string().into());
        ev.attrs.insert("by".into(), by.into());
        // The audit copy: what was written and by whom (there is no provider payload behind it).
        ev.payload = Some(serde_json::to_string(&ev.attrs).unwrap_or_default());
        self.record(&mut ev, Plane::Signal)?;
        Ok(())
    }

    /// Records an operator-only command that ran (`command`, e.g. "`tlc mode focus`"), and where
    /// from: `tty` the terminal on its stdin (`None`: none), `checked` what the operator check
    /// established. It belongs to no session; the attestation records of the sessions it ran
    /// during list it.
    pub(crate) fn record_operator_command(&self, command: &str, tty: Option<&str>, checked: &str) -> rusqlite::Result<()> {
        let mut ev = Event::new("tlc", Kind::OperatorCommand, clock::now());
        ev.attrs.insert("command".into(), command.into());
        ev.attrs.insert("tty".into(), tty.map_or(Value::Null, Value::from));
        ev.attrs.insert("checked".into(), checked.into());
        ev.payload = Some(serde_json::to_string(&ev.attrs).unwrap_or_default());
        self.record(&mut ev, Plane::Signal)?;
        Ok(())
    }

    /// How many rows of each table [`EventStore::prune`] would drop at `cutoff` (a stamp).
    pub(crate) fn count_prunable(&self, cutoff: &str) -> rusqlite::Result<Vec<PruneCount>> {
        self.conn.query_row(q::PRUNE_COUNT, [cutoff], |r| {
            PRUNED
                .iter()
                .enumerate()
                .map(|(i, &table)| Ok(PruneCount { table, rows: r.get(i)? }))
                .collect()
        })
    }

    /// Drops every row older than `cutoff` from the tables it owns (the caller holds the
    /// transaction). Decisions go before their events, which would otherwise take them along
    /// uncounted.
    pub(crate) fn prune(&self, cutoff: &str) -> rusqlite::Result<Vec<PruneCount>> {
        let mut out = Vec::new();
        for (table, sql) in [
            ("decisions", q::PRUNE_DECISIONS),
            ("events", q::PRUNE_EVENTS),
            ("sessions", q::PRUNE_SESSIONS),
            ("ship_ledger", q::PRUNE_SHIP_LEDGER),
            ("open_spans", q::PRUNE_OPEN_SPANS),
        ] {
            let rows = self.conn.execute(sql, [cutoff])? as i64;
            out.push(PruneCount { table, rows });
        }
        self.conn.prepare_cached(q::SPOOL_CURSOR_PULL_BACK)?.execute([])?;
        Ok(out)
    }

    /// The revision of tlc this project's hooks ran, and since when: `(revision, since)`.
    pub(crate) fn hooks_revision(&self) -> rusqlite::Result<Option<(String, String)>> {
        let rev = self.meta(META_HOOKS_REVISION)?;
        let since = self.meta(META_HOOKS_REVISION_SINCE)?;
        Ok(rev.map(|r| (r, since.unwrap_or_default())))
    }

    /// Records `revision` as the one this project's hooks run, with the time, when it differs
    /// from the recorded one (the previous one is kept beside it). Called at session starts.
    pub(crate) fn note_hooks_revision(&self, revision: &str, at: &str) -> rusqlite::Result<()> {
        let recorded = self.hooks_revision()?;
        if recorded.as_ref().is_some_and(|(r, _)| r == revision) {
            return Ok(());
        }
        if let Some((r, since)) = recorded {
            self.set_meta(META_HOOKS_PREVIOUS_REVISION, &r)?;
            self.set_meta(META_HOOKS_PREVIOUS_REVISION_SINCE, &since)?;
        }
        self.set_meta(META_HOOKS_REVISION, revision)?;
        self.set_meta(META_HOOKS_REVISION_SINCE, at)
    }

    /// The revision this project's hooks ran before the current one, and since when.
    pub(crate) fn previous_hooks_revision(&self) -> rusqlite::Result<Option<(String, String)>> {
        let rev = self.meta(META_HOOKS_PREVIOUS_REVISION)?;
        let since = self.meta(META_HOOKS_PREVIOUS_REVISION_SINCE)?;
        Ok(rev.map(|r| (r, since.unwrap_or_default())))
    }

    /// The source revision `tlc update` last announced to this project (`None` before its first).
    pub(crate) fn update_seen(&self) -> rusqlite::Result<Option<String>> {
        self.meta(META_UPDATE_SEEN)
    }

    /// Records the source revision `tlc update` announced to this project up to.
    pub(crate) fn set_update_seen(&self, revision: &str) -> rusqlite::Result<()> {
        self.set_meta(META_UPDATE_SEEN, revision)
    }

    fn meta(&self, key: &str) -> rusqlite::Result<Option<String>> {
        self.conn.prepare_cached(q::META_GET)?.query_row([key], |r| r.get(0)).optional()
    }

    fn set_meta(&self, key: &str, value: &str) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::META_SET)?.execute([key, value])?;
        Ok(())
    }

    /// The id of the last event row the home spool is known to hold.
    pub(crate) fn spool_cursor(&self) -> rusqlite::Result<i64> {
        self.conn.prepare_cached(q::SPOOL_CURSOR_GET)?.query_row([], |r| r.get(0))
    }

    /// Moves the spool cursor to `through` (never back). Called only after the home database
    /// committed every row up to it.
    pub(crate) fn advance_spool_cursor(&self, through: i64) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::SPOOL_CURSOR_ADVANCE)?.execute([through])?;
        Ok(())
    }

    /// Event rows in all, and how many of them lie past the spool cursor (not yet known to be in
    /// the home spool).
    pub(crate) fn spool_backlog(&self) -> rusqlite::Result<(i64, i64)> {
        self.conn
            .prepare_cached(q::SPOOL_PENDING)?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
    }

    /// Event rows after `after`, oldest first, at most `limit`.
    pub(crate) fn unspooled(&self, after: i64, limit: i64) -> rusqlite::Result<Vec<StoredEvent>> {
        self.stored(q::UNSPOOLED, after, limit)
    }

    /// Generation rows after `after`, oldest first, at most `limit`.
    pub(crate) fn generations_after(&self, after: i64, limit: i64) -> rusqlite::Result<Vec<StoredEvent>> {
        self.stored(q::GENERATIONS_AFTER, after, limit)
    }

    /// The id up to which every generation is in the home `usage` table.
    pub(crate) fn usage_cursor(&self) -> rusqlite::Result<i64> {
        self.conn.prepare_cached(q::USAGE_CURSOR_GET)?.query_row([], |r| r.get(0))
    }

    /// Moves the usage cursor to `through` (never back), once the home database committed the rows.
    pub(crate) fn advance_usage_cursor(&self, through: i64) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::USAGE_CURSOR_ADVANCE)?.execute([through])?;
        Ok(())
    }

    fn stored(&self, sql: &str, after: i64, limit: i64) -> rusqlite::Result<Vec<StoredEvent>> {
        let mut st = self.conn.prepare_cached(sql)?;
        let rows = st.query_map(params![after, limit], |r| {
            let tokens = match (r.get::<_, Option<i64>>(13)?, r.get::<_, Option<i64>>(14)?) {
                (None, None) => None,
                (input, output) => Some(Tokens {
                    input: input.unwrap_or(0),
                    output: output.unwrap_or(0),
                    cache_read: r.get::<_, Option<i64>>(15)?.unwrap_or(0),
                    cache_write: r.get::<_, Option<i64>>(16)?.unwrap_or(0),
                    cache_write_1h: r.get::<_, Option<i64>>(21)?.unwrap_or(0),
                }),
            };
            Ok(StoredEvent {
                id: r.get(0)?,
                ts: r.get(1)?,
                provider: r.get(2)?,
                kind: r.get(3)?,
                plane: r.get(4)?,
                session_id: r.get(5)?,
                trace_id: r.get(6)?,
                span_id: r.get(7)?,
                parent_span_id: r.get(8)?,
                model: r.get(9)?,
                tool: r.get(10)?,
                duration_ms: r.get(11)?,
                attrs: r.get(12)?,
                tokens,
                cost_usd: r.get(17)?,
                cost_source: r.get(18)?,
                cost_pool: r.get(19)?,
                dedup_key: r.get(20)?,
            })
        })?;
        rows.collect()
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
                    // The provider's own figure for the tool's time wins over hook-to-hook time.
                    if ev.duration_ms.is_none() {
                        ev.duration_ms = Some((ms - started).max(0));
                    }
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
    pub(crate) fn record_decision(
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

    /// Records a decision read from elsewhere (an imported record), for the event `event_id`.
    pub(crate) fn insert_decision_row(&self, event_id: i64, d: &DecisionRow<'_>) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::DECISION_INSERT)?.execute(params![
            event_id,
            d.ts,
            d.provider,
            d.session_id,
            d.subject,
            d.permission,
            d.posture,
            d.rule,
            d.reason,
            d.detail
        ])?;
        Ok(())
    }

    /// The session's estimated cost so far and how many cost alerts it already has.
    pub(crate) fn session_cost(&self, provider: &str, session: &str) -> rusqlite::Result<(f64, i64)> {
        self.conn
            .prepare_cached(q::SESSION_COST)?
            .query_row(params![session, provider], |r| Ok((r.get(0)?, r.get(1)?)))
    }

    pub(crate) fn transcript_offset(&self, path: &str) -> rusqlite::Result<Option<TranscriptOffset>> {
        self.conn
            .prepare_cached(q::TRANSCRIPT_GET)?
            .query_row([path], |r| {
                Ok(TranscriptOffset {
                    file_id: r.get(0)?,
                    head_hash: r.get(1)?,
                    offset: r.get(2)?,
                    malformed_lines: r.get(3)?,
                    generations: r.get(4)?,
                    oversize_lines: r.get(5)?,
                })
            })
            .optional()
    }

    /// Up to `limit` main transcripts of live sessions of `provider` seen since `since` (a stored
    /// time stamp), other than `except`, with the session each belongs to.
    pub(crate) fn live_transcripts(
        &self,
        except: &str,
        provider: &str,
        limit: i64,
        since: &str,
    ) -> rusqlite::Result<Vec<(String, Option<String>, TranscriptOffset)>> {
        let mut stmt = self.conn.prepare_cached(q::TRANSCRIPTS_LIVE)?;
        let rows = stmt.query_map(params![except, provider, limit, since], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                TranscriptOffset {
                    file_id: r.get(2)?,
                    head_hash: r.get(3)?,
                    offset: r.get(4)?,
                    malformed_lines: r.get(5)?,
                    generations: r.get(6)?,
                    oversize_lines: r.get(7)?,
                },
            ))
        })?;
        rows.collect()
    }

    /// The kind and `attrs.turn_id` of the latest event that shows or ends a response in the
    /// session's thread `agent` (`None`: the main thread; else the subagent whose events carry it
    /// as their parent span), when it is among the newest rows.
    pub(crate) fn latest_hook_event(
        &self,
        provider: &str,
        session: &str,
        agent: Option<&str>,
    ) -> rusqlite::Result<Option<(String, Option<String>)>> {
        self.conn
            .prepare_cached(q::LATEST_HOOK_EVENT)?
            .query_row(params![session, provider, agent], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
    }

    /// How many tool, shell, MCP, file and subagent events the session recorded at or after `since`.
    pub(crate) fn tool_events_since(&self, provider: &str, session: &str, since: &str) -> rusqlite::Result<i64> {
        self.conn
            .prepare_cached(q::TOOL_EVENTS_SINCE)?
            .query_row(params![provider, session, since], |r| r.get(0))
    }

    /// How many decisions of `rule` the session recorded.
    pub(crate) fn decisions_by_rule(&self, provider: &str, session: &str, rule: &str) -> rusqlite::Result<i64> {
        self.conn
            .prepare_cached(q::DECISIONS_BY_RULE)?
            .query_row(params![provider, session, rule], |r| r.get(0))
    }

    /// Records one observation-mode reading (`observe.reading`): never a decision, and on no
    /// decision's event.
    pub(crate) fn record_observation(
        &self,
        provider: &str,
        session: &str,
        attrs: serde_json::Map<String, serde_json::Value>,
    ) -> rusqlite::Result<Option<i64>> {
        let mut ev = Event::new(provider, Kind::ObserveReading, clock::now());
        ev.session_id = (!session.is_empty()).then(|| session.to_string());
        ev.attrs = attrs;
        self.record(&mut ev, Plane::Signal)
    }

    /// The model recorded for the session (`sessions.model`), if any.
    pub(crate) fn session_model(&self, provider: &str, session: &str) -> rusqlite::Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached(q::SESSION_MODEL)?
            .query_row(params![provider, session], |r| r.get::<_, Option<String>>(0))
            .optional()?
            .flatten())
    }

    pub(crate) fn set_transcript_offset(
        &self,
        path: &str,
        provider: &str,
        session: Option<&str>,
        t: &TranscriptOffset,
    ) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::TRANSCRIPT_PUT)?.execute(params![
            path,
            provider,
            session,
            t.file_id,
            t.head_hash,
            t.offset,
            t.malformed_lines,
            t.generations,
            clock::now_stamp(),
            t.oversize_lines
        ])?;
        Ok(())
    }
}

/// A decision as an imported record states it.
#[derive(Debug, Clone)]
pub(crate) struct DecisionRow<'a> {
    pub ts: &'a str,
    pub provider: &'a str,
    pub session_id: Option<&'a str>,
    pub subject: &'a str,
    pub permission: &'a str,
    pub posture: &'a str,
    pub rule: &'a str,
    pub reason: Option<&'a str>,
    pub detail: Option<&'a str>,
}
