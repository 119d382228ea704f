//! Reading the record back: the session rollup, the event log and the decisions, all from the
//! views in `reports/`.

use crate::store::queries::project::obs as q;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use serde_json::{Map, Value};

/// `tlc obs report --json`: one session's rollup, with the field names operators script against.
#[derive(Debug, Serialize)]
pub(crate) struct SessionReport {
    pub session_id: String,
    pub provider: String,
    pub started_at: String,
    pub updated_at: String,
    pub models: Vec<String>,
    pub tools: Vec<ToolLine>,
    pub subagents: Vec<SubagentLine>,
    pub gates: GateCounts,
    pub denials: i64,
    pub prompts: i64,
    pub responses: i64,
    /// The model's API responses (`generation.end` events, one per call, tool calls included):
    /// what the token and cost totals sum.
    pub generations: i64,
    pub thoughts: i64,
    pub compactions: i64,
    pub shell: ShellCounts,
    pub gate_time: GateTime,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cache_read_tokens: i64,
    pub cache_write_tokens: i64,
    pub estimated_cost_usd: Option<f64>,
    pub cost_incomplete: bool,
    pub cost_alert_sent: bool,
    /// The context the session's last (re)start carried, in tokens, as the client reported it
    /// (Claude Code 2.1.332 and later, on a resume); `None` when no start reported one.
    pub context_tokens: Option<i64>,
    /// Interruptions (ask or deny) attributed by rule.
    pub interruptions: Vec<InterruptionLine>,
    /// Rails (rules other than `none`) that decided something.
    pub rails: Vec<RailLine>,
    /// The posture contracts the session's starts carried, and their length.
    pub contracts: Vec<ContractLine>,
    /// Observation mode's readings in the session (`observe.reading` events).
    pub observations: Vec<ObservationLine>,
    /// The session's stops by the rule that decided them (`stop_outcomes`).
    pub stops: Vec<StopLine>,
    /// The floor's denials by rule (not interruptions: the posture chose none of them).
    pub floor: Vec<FloorLine>,
}

/// One floor rule's denials in a session.
#[derive(Debug, Serialize)]
pub(crate) struct FloorLine {
    pub rule: String,
    pub denials: i64,
}

/// One rail's reading in observation mode, and how many turns read so (issue 33).
#[derive(Debug, Serialize)]
pub(crate) struct ObservationLine {
    pub rail: String,
    pub reading: String,
    pub count: i64,
}

/// Stops one rule decided one way.
#[derive(Debug, Serialize)]
pub(crate) struct StopLine {
    pub rule: String,
    pub outcome: String,
    pub count: i64,
}

/// The posture contract sent at a session's start (issue 33).
#[derive(Debug, Serialize)]
pub(crate) struct ContractLine {
    pub posture: String,
    pub sent: i64,
    /// Characters sent in all.
    pub chars: i64,
}

#[derive(Debug, Serialize)]
pub(crate) struct ToolLine {
    pub tool: String,
    pub calls: i64,
    pub ok: i64,
    pub fail: i64,
    pub total_ms: i64,
    /// Calls a rail denied, and calls it asked the operator about.
    pub denied: i64,
    pub asked: i64,
}

#[derive(Debug, Serialize)]
pub(crate) struct SubagentLine {
    #[serde(rename = "type")]
    pub subagent_type: String,
    pub started: i64,
    pub ended: i64,
    /// Tool calls made inside subagents of this type.
    #[serde(rename = "toolCalls")]
    pub tool_calls: i64,
}

#[derive(Debug, Serialize)]
pub(crate) struct GateCounts {
    pub pass: i64,
    pub fail: i64,
    /// Runs deferred because another session held the gate lock: neither a pass nor a failure.
    pub deferred: i64,
}

#[derive(Debug, Serialize)]
pub(crate) struct ShellCounts {
    pub allow: i64,
    pub ask: i64,
    pub deny: i64,
    /// rule → {allow, ask, deny}
    pub by_rule: Map<String, Value>,
}

#[derive(Debug, Serialize)]
pub(crate) struct GateTime {
    pub runs: i64,
    pub reused: i64,
    pub total_ms: i64,
    pub worst_ms: i64,
}

#[derive(Debug, Serialize)]
pub(crate) struct InterruptionLine {
    pub rule: String,
    pub subject: String,
    pub asks: i64,
    pub denials: i64,
    pub total: i64,
}

#[derive(Debug, Serialize)]
pub(crate) struct RailLine {
    pub rule: String,
    pub permission: String,
    pub count: i64,
}

/// Read-only access to the project database's reports.
pub(crate) struct Reports<'c> {
    conn: &'c Connection,
}

impl<'c> Reports<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Reports<'c> {
        Reports { conn }
    }

    /// The most recently active session, as (provider, session id).
    pub(crate) fn latest_session(&self) -> rusqlite::Result<Option<(String, String)>> {
        self.conn
            .prepare_cached(q::LATEST_SESSION)?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
    }

    /// The session whose id is `id` (the most recent such, whatever the provider), else those
    /// whose id starts with it: at most two, so the caller can refuse an ambiguous prefix.
    pub(crate) fn find_session(&self, id: &str) -> rusqlite::Result<Vec<(String, String)>> {
        let mut st = self.conn.prepare_cached(q::FIND_SESSION)?;
        let rows: Vec<(String, String, bool)> = st
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        if let Some((p, s, true)) = rows.first() {
            return Ok(vec![(p.clone(), s.clone())]);
        }
        Ok(rows.into_iter().map(|(p, s, _)| (p, s)).collect())
    }

    pub(crate) fn session(&self, provider: &str, session: &str) -> rusqlite::Result<Option<SessionReport>> {
        let row = self
            .conn
            .prepare_cached(q::REPORT_ROLLUP)?
            .query_row(params![session, provider], |r| {
                let models: Option<String> = r.get(5)?;
                Ok(SessionReport {
                    session_id: r.get(0)?,
                    provider: r.get(1)?,
                    started_at: r.get(2)?,
                    updated_at: r.get(3)?,
                    models: models.map(|m| m.split(',').map(str::to_string).collect()).unwrap_or_default(),
                    tools: Vec::new(),
                    subagents: Vec::new(),
                    prompts: r.get(6)?,
                    responses: r.get(7)?,
                    generations: r.get(10)?,
                    thoughts: r.get(8)?,
                    compactions: r.get(9)?,
                    denials: r.get(11)?,
                    shell: ShellCounts {
                        allow: r.get(12)?,
                        ask: r.get(13)?,
                        deny: r.get(14)?,
                        by_rule: Map::new(),
                    },
                    gates: GateCounts {
                        pass: r.get(15)?,
                        fail: r.get(16)?,
                        deferred: r.get(28)?,
                    },
                    gate_time: GateTime {
                        runs: r.get(17)?,
                        reused: r.get(18)?,
                        total_ms: r.get(19)?,
                        worst_ms: r.get(20)?,
                    },
                    input_tokens: r.get(21)?,
                    output_tokens: r.get(22)?,
                    cache_read_tokens: r.get(23)?,
                    cache_write_tokens: r.get(24)?,
                    estimated_cost_usd: r.get(25)?,
                    cost_incomplete: r.get(26)?,
                    cost_alert_sent: r.get(27)?,
                    context_tokens: r.get(29)?,
                    interruptions: Vec::new(),
                    rails: Vec::new(),
                    contracts: Vec::new(),
                    observations: Vec::new(),
                    stops: Vec::new(),
                    floor: Vec::new(),
                })
            })
            .optional()?;
        let Some(mut rep) = row else { return Ok(None) };
        let p = params![session, provider];
        rep.tools = self
            .conn
            .prepare_cached(q::REPORT_TOOLS)?
            .query_map(p, |r| {
                Ok(ToolLine {
                    tool: r.get(0)?,
                    calls: r.get(1)?,
                    ok: r.get(2)?,
                    fail: r.get(3)?,
                    total_ms: r.get(4)?,
                    denied: r.get(5)?,
                    asked: r.get(6)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        rep.subagents = self
            .conn
            .prepare_cached(q::REPORT_SUBAGENTS)?
            .query_map(p, |r| {
                Ok(SubagentLine {
                    subagent_type: r.get(0)?,
                    started: r.get(1)?,
                    ended: r.get(2)?,
                    tool_calls: r.get(3)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        rep.interruptions = self
            .conn
            .prepare_cached(q::REPORT_INTERRUPTIONS)?
            .query_map(p, |r| {
                Ok(InterruptionLine {
                    rule: r.get(0)?,
                    subject: r.get(1)?,
                    asks: r.get(2)?,
                    denials: r.get(3)?,
                    total: r.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        rep.rails = self
            .conn
            .prepare_cached(q::REPORT_RAILS)?
            .query_map(p, |r| {
                Ok(RailLine {
                    rule: r.get(0)?,
                    permission: r.get(1)?,
                    count: r.get(2)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        rep.floor = self
            .conn
            .prepare_cached(q::REPORT_FLOOR)?
            .query_map(p, |r| {
                Ok(FloorLine {
                    rule: r.get(0)?,
                    denials: r.get(1)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        rep.stops = self
            .conn
            .prepare_cached(q::REPORT_STOPS)?
            .query_map(p, |r| {
                Ok(StopLine {
                    rule: r.get(0)?,
                    outcome: r.get(1)?,
                    count: r.get(2)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        rep.contracts = self
            .conn
            .prepare_cached(q::REPORT_CONTRACTS)?
            .query_map(p, |r| {
                Ok(ContractLine {
                    posture: r.get(0)?,
                    sent: r.get(1)?,
                    chars: r.get(2)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        rep.observations = self
            .conn
            .prepare_cached(q::REPORT_OBSERVATIONS)?
            .query_map(p, |r| {
                Ok(ObservationLine {
                    rail: r.get(0)?,
                    reading: r.get(1)?,
                    count: r.get(2)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        let mut by_rule = Map::new();
        let mut st = self.conn.prepare_cached(q::REPORT_SHELL_BY_RULE)?;
        let rows = st.query_map(p, |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?)))?;
        for row in rows {
            let (rule, permission, n) = row?;
            let entry = by_rule
                .entry(rule)
                .or_insert_with(|| serde_json::json!({"allow": 0, "ask": 0, "deny": 0}));
            entry[permission.as_str()] = n.into();
        }
        rep.shell.by_rule = by_rule;
        Ok(Some(rep))
    }
}

/// One row of `tlc obs events`.
#[derive(Debug, Serialize)]
pub(crate) struct EventLine {
    pub id: i64,
    pub ts: String,
    pub provider: String,
    pub kind: String,
    pub plane: String,
    pub session_id: Option<String>,
    pub tool: Option<String>,
    pub duration_ms: Option<i64>,
    pub model: Option<String>,
    pub attrs: Value,
    /// A generation's tokens and estimated cost (null on every other kind of event).
    pub input_tokens: Option<i64>,
    pub output_tokens: Option<i64>,
    pub cache_read_tokens: Option<i64>,
    pub cache_write_tokens: Option<i64>,
    pub cost_usd: Option<f64>,
}

fn event_line(r: &rusqlite::Row<'_>) -> rusqlite::Result<EventLine> {
    let attrs: String = r.get(9)?;
    Ok(EventLine {
        id: r.get(0)?,
        ts: r.get(1)?,
        provider: r.get(2)?,
        kind: r.get(3)?,
        plane: r.get(4)?,
        session_id: r.get(5)?,
        tool: r.get(6)?,
        duration_ms: r.get(7)?,
        model: r.get(8)?,
        attrs: serde_json::from_str(&attrs).unwrap_or(Value::String(attrs)),
        input_tokens: r.get(10)?,
        output_tokens: r.get(11)?,
        cache_read_tokens: r.get(12)?,
        cache_write_tokens: r.get(13)?,
        cost_usd: r.get(14)?,
    })
}

/// One row of `tlc obs why`.
#[derive(Debug, Serialize)]
pub(crate) struct DecisionLine {
    pub id: i64,
    /// `decision` (a hook's, on a tool call, a command or a prompt) or `stop` (a stop's outcome).
    pub kind: String,
    pub ts: String,
    pub provider: String,
    pub session_id: Option<String>,
    pub subject: String,
    pub permission: String,
    /// The posture in force (none is recorded with a stop's outcome).
    pub posture: Option<String>,
    pub rule: String,
    pub reason: Option<String>,
    pub detail: Option<String>,
}

/// Hook faults recorded since a time: how many, the latest one's time and text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RecentFaults {
    pub count: i64,
    pub latest_at: Option<String>,
    pub latest: Option<String>,
}

impl Reports<'_> {
    /// The `hook.fault` events recorded at or after `since` (a stamp): the project database's
    /// answer to `doctor`'s "recent hook faults".
    pub(crate) fn recent_faults(&self, since: &str) -> rusqlite::Result<RecentFaults> {
        self.conn.prepare_cached(q::RECENT_FAULTS)?.query_row([since], |r| {
            Ok(RecentFaults {
                count: r.get(0)?,
                latest_at: r.get(1)?,
                latest: r.get(2)?,
            })
        })
    }

    /// The last `limit` events, oldest first, filtered by kind (or kind family), session and plane.
    pub(crate) fn events(
        &self,
        limit: i64,
        kind: Option<&str>,
        session: Option<&str>,
        plane: Option<&str>,
    ) -> rusqlite::Result<Vec<EventLine>> {
        let mut st = self.conn.prepare_cached(q::EVENTS_LIST)?;
        let rows = st.query_map(params![kind, session, plane, limit], event_line)?;
        rows.collect()
    }

    /// Signal events written after `after_id`.
    pub(crate) fn signal_after(&self, after_id: i64) -> rusqlite::Result<Vec<EventLine>> {
        let mut st = self.conn.prepare_cached(q::LIVE_AFTER)?;
        let rows = st.query_map([after_id], event_line)?;
        rows.collect()
    }

    pub(crate) fn max_event_id(&self) -> rusqlite::Result<i64> {
        self.conn.prepare_cached(q::MAX_EVENT_ID)?.query_row([], |r| r.get(0))
    }

    /// The last `limit` decisions, oldest first.
    pub(crate) fn decisions(&self, limit: i64, session: Option<&str>) -> rusqlite::Result<Vec<DecisionLine>> {
        let mut st = self.conn.prepare_cached(q::WHY_LIST)?;
        let rows = st.query_map(params![limit, session], |r| {
            Ok(DecisionLine {
                id: r.get(0)?,
                ts: r.get(1)?,
                provider: r.get(2)?,
                session_id: r.get(3)?,
                subject: r.get(4)?,
                permission: r.get(5)?,
                posture: r.get(6)?,
                rule: r.get(7)?,
                reason: r.get(8)?,
                detail: r.get(9)?,
                kind: r.get(10)?,
            })
        })?;
        rows.collect()
    }
}

/// One row of `tlc serve`'s session list: the columns of `session_rollup` a list shows.
#[derive(Debug, Serialize)]
pub(crate) struct SessionLine {
    pub session_id: String,
    pub provider: String,
    pub started_at: String,
    pub updated_at: String,
    pub ended_at: Option<String>,
    pub session_model: Option<String>,
    pub prompts: i64,
    pub generations: i64,
    pub denials: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cache_read_tokens: i64,
    pub cache_write_tokens: i64,
    pub estimated_cost_usd: Option<f64>,
    pub cost_incomplete: bool,
}

impl Reports<'_> {
    /// A page of sessions, last active first: `limit` of them after skipping `offset`, each with
    /// its `session_rollup` figures, read for those sessions only (`tlc serve`'s session list).
    pub(crate) fn sessions_page(&self, limit: i64, offset: i64) -> rusqlite::Result<Vec<SessionLine>> {
        let mut st = self.conn.prepare_cached(q::SESSIONS_PAGE)?;
        let rows = st.query_map(params![limit, offset], |r| {
            Ok(SessionLine {
                session_id: r.get(0)?,
                provider: r.get(1)?,
                started_at: r.get(2)?,
                updated_at: r.get(3)?,
                ended_at: r.get(4)?,
                session_model: r.get(5)?,
                prompts: r.get(6)?,
                generations: r.get(7)?,
                denials: r.get(8)?,
                input_tokens: r.get(9)?,
                output_tokens: r.get(10)?,
                cache_read_tokens: r.get(11)?,
                cache_write_tokens: r.get(12)?,
                estimated_cost_usd: r.get(13)?,
                cost_incomplete: r.get(14)?,
            })
        })?;
        rows.collect()
    }

    /// One session's last `limit` events on `plane`, oldest first: an indexed read whatever the
    /// size of the record (`events` with a session filter walks the plane's events instead).
    pub(crate) fn session_events(&self, provider: &str, session: &str, plane: &str, limit: i64) -> rusqlite::Result<Vec<EventLine>> {
        let mut st = self.conn.prepare_cached(q::SESSION_EVENTS)?;
        let rows = st.query_map(params![session, provider, plane, limit], event_line)?;
        rows.collect()
    }
}

/// One decision of a hook in a session, with the event it answered (`tlc serve`'s timeline puts
/// it beside that tool call, command or prompt).
#[derive(Debug, Serialize)]
pub(crate) struct SessionDecision {
    pub id: i64,
    pub event_id: Option<i64>,
    pub ts: String,
    pub subject: String,
    pub permission: String,
    pub posture: String,
    pub rule: String,
    pub reason: Option<String>,
    /// What it was about: the command or the file.
    pub detail: Option<String>,
}

/// A denial or a question the hooks answered, anywhere in the repository (`tlc serve`'s Policy
/// page).
#[derive(Debug, Serialize)]
pub(crate) struct InterruptionRecord {
    pub id: i64,
    pub ts: String,
    pub provider: String,
    pub session_id: Option<String>,
    pub subject: String,
    pub permission: String,
    pub posture: String,
    pub rule: String,
    pub reason: Option<String>,
    /// What it was about: the command or the file.
    pub detail: Option<String>,
    /// A floor rule's denial: kept out of the interruption rate (no posture chooses it).
    pub floor: bool,
}

impl Reports<'_> {
    /// One session's last `limit` events on every plane but the model's API calls, oldest first:
    /// the prompts, tool calls, stops and the rest a timeline tells.
    pub(crate) fn session_story(&self, provider: &str, session: &str, limit: i64) -> rusqlite::Result<Vec<EventLine>> {
        let mut st = self.conn.prepare_cached(q::SESSION_STORY)?;
        let rows = st.query_map(params![session, provider, limit], event_line)?;
        rows.collect()
    }

    /// One session's last `limit` decisions, oldest first.
    pub(crate) fn session_decisions(&self, provider: &str, session: &str, limit: i64) -> rusqlite::Result<Vec<SessionDecision>> {
        let mut st = self.conn.prepare_cached(q::SESSION_DECISIONS)?;
        let rows = st.query_map(params![session, provider, limit], |r| {
            Ok(SessionDecision {
                id: r.get(0)?,
                event_id: r.get(1)?,
                ts: r.get(2)?,
                subject: r.get(3)?,
                permission: r.get(4)?,
                posture: r.get(5)?,
                rule: r.get(6)?,
                reason: r.get(7)?,
                detail: r.get(8)?,
            })
        })?;
        rows.collect()
    }

    /// The last `limit` denials and questions of every session, newest first.
    pub(crate) fn recent_interruptions(&self, limit: i64) -> rusqlite::Result<Vec<InterruptionRecord>> {
        let mut st = self.conn.prepare_cached(q::RECENT_INTERRUPTIONS)?;
        let rows = st.query_map([limit], |r| {
            Ok(InterruptionRecord {
                id: r.get(0)?,
                ts: r.get(1)?,
                provider: r.get(2)?,
                session_id: r.get(3)?,
                subject: r.get(4)?,
                permission: r.get(5)?,
                posture: r.get(6)?,
                rule: r.get(7)?,
                reason: r.get(8)?,
                detail: r.get(9)?,
                floor: r.get(10)?,
            })
        })?;
        rows.collect()
    }
}
