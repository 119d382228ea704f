//! Turns and their handoff: per session, the current turn's base and attempt, what its last stop
//! left open, and every stop outcome with the rule that decided it. [`TurnStore`] is the only
//! place their SQL runs.

use super::followup::Gap;
use crate::store::queries::project::gate as q;
use crate::store::PruneCount;
use rusqlite::{params, Connection, OptionalExtension};

/// How a stop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Outcome {
    Allow,
    Block,
    /// Let through with advice (a config fault already reported, a docs warning).
    Advisory,
    /// Let through because the turn spent its loop budget.
    Capped,
    Paused,
    /// Let through because another session held the gate lock.
    Deferred,
}

impl Outcome {
    /// The stored name back (the table's CHECK allows no other; anything else reads as `allow`,
    /// as a stop that was let through).
    fn parse(name: &str) -> Outcome {
        match name {
            "block" => Outcome::Block,
            "advisory" => Outcome::Advisory,
            "capped" => Outcome::Capped,
            "paused" => Outcome::Paused,
            "deferred" => Outcome::Deferred,
            _ => Outcome::Allow,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outcome::Allow => "allow",
            Outcome::Block => "block",
            Outcome::Advisory => "advisory",
            Outcome::Capped => "capped",
            Outcome::Paused => "paused",
            Outcome::Deferred => "deferred",
        }
    }
}

/// One stop outcome, as recorded.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct StopOutcome {
    pub outcome: Outcome,
    pub rule: String,
    /// The turn's attempt this stop was (1-based for a block).
    pub attempt: i64,
    pub fingerprint: Option<String>,
    pub detail: Option<String>,
}

/// One stop of a session as the timeline shows it: when, which turn, its outcome, and the text it
/// sent the agent (a block's follow-up, a let-through stop's advice; `None` when it sent none or
/// was recorded before V14 kept it).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct StopRecord {
    pub id: i64,
    pub ts: String,
    pub turn: Option<i64>,
    #[serde(flatten)]
    pub stop: StopOutcome,
    pub follow_up: Option<String>,
}

/// A session's turn row.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub(crate) struct Turn {
    pub provider: String,
    pub session_id: String,
    /// Prompts seen in this session.
    pub turn: i64,
    /// HEAD when the turn began (`unborn`, or none when it could not be read).
    pub base_head: Option<String>,
    pub base_at: String,
    /// `prompt`, `session-start` or `stop` (no base was recorded).
    pub base_source: String,
    /// Consecutive blocked stops of this turn.
    pub attempt: i64,
    pub last_fingerprint: Option<String>,
    pub last_result: Option<String>,
    pub last_rule: Option<String>,
    pub open_gaps: Vec<Gap>,
    pub next_action: Option<String>,
    pub claim: Option<String>,
    pub claim_at: Option<String>,
    pub updated_at: String,
    /// The category of the failure the last stop left open (`intelligence.failureClassification`):
    /// `verification`, `config`, `timeout`, `stagnation`, `ship-evidence`, a written check's rule,
    /// `idle-turn`; `None` when it passed or the switch was off.
    pub last_category: Option<String>,
    /// The turn's start on the real clock (ms since the epoch; `None` in a row older than V14).
    pub base_wall_ms: Option<i64>,
    /// The files the session's latest stop found deleted.
    pub deleted_seen: Vec<String>,
}

impl Turn {
    fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Turn> {
        Ok(Turn {
            provider: r.get(0)?,
            session_id: r.get(1)?,
            turn: r.get(2)?,
            base_head: r.get(3)?,
            base_at: r.get(4)?,
            base_source: r.get(5)?,
            attempt: r.get(6)?,
            last_fingerprint: r.get(7)?,
            last_result: r.get(8)?,
            last_rule: r.get(9)?,
            open_gaps: serde_json::from_str(&r.get::<_, String>(10)?).unwrap_or_default(),
            next_action: r.get(11)?,
            claim: r.get(12)?,
            claim_at: r.get(13)?,
            updated_at: r.get(14)?,
            last_category: r.get(15)?,
            base_wall_ms: r.get(16)?,
            deleted_seen: serde_json::from_str(&r.get::<_, String>(17)?).unwrap_or_default(),
        })
    }
}

/// What a stop leaves on the turn row.
#[derive(Debug, Clone, Default)]
pub(crate) struct StopState {
    pub attempt: i64,
    pub fingerprint: Option<String>,
    pub result: String,
    pub rule: String,
    pub gaps: Vec<Gap>,
    pub next_action: Option<String>,
    /// The failure category to keep, already `None` when classification is off.
    pub category: Option<String>,
}

/// Now on the machine's real clock, in milliseconds since the epoch: what a file's ctime is
/// compared with (never `TLC_NOW`, which the file system does not know).
pub(crate) fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

pub(crate) struct TurnStore<'c> {
    conn: &'c Connection,
}

impl<'c> TurnStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> TurnStore<'c> {
        TurnStore { conn }
    }

    pub(crate) fn get(&self, provider: &str, session: &str) -> rusqlite::Result<Option<Turn>> {
        self.conn
            .prepare_cached(q::TURN_GET)?
            .query_row([provider, session], Turn::from_row)
            .optional()
    }

    /// The most recently updated turn row, of one session when named.
    pub(crate) fn latest(&self, session: Option<&str>) -> rusqlite::Result<Option<Turn>> {
        self.conn
            .prepare_cached(q::TURN_LATEST)?
            .query_row([session], Turn::from_row)
            .optional()
    }

    /// The latest other session's turn row.
    pub(crate) fn previous(&self, provider: &str, session: &str) -> rusqlite::Result<Option<Turn>> {
        self.conn
            .prepare_cached(q::TURN_PREVIOUS_OPEN)?
            .query_row([provider, session], Turn::from_row)
            .optional()
    }

    /// A new turn begins (a prompt): its base, attempt 0, no claim. After a deferred stop the
    /// turn keeps the base it had: nothing judged what that turn changed.
    pub(crate) fn begin(&self, provider: &str, session: &str, head: Option<&str>, at: &str, source: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::TURN_BEGIN)?
            .execute(params![provider, session, head, at, source, wall_ms()])?;
        Ok(())
    }

    /// The files a stop found deleted, for the next turn's stop.
    pub(crate) fn set_deleted_seen(&self, provider: &str, session: &str, deleted: &[String]) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::TURN_DELETED_SEEN)?.execute(params![
            provider,
            session,
            serde_json::to_string(deleted).unwrap_or_else(|_| "[]".into())
        ])?;
        Ok(())
    }

    /// The first turn's base at session start, unless the session already has one.
    pub(crate) fn first_base(&self, provider: &str, session: &str, head: Option<&str>, at: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::TURN_FIRST_BASE)?
            .execute(params![provider, session, head, at, "session-start", wall_ms()])?;
        Ok(())
    }

    pub(crate) fn set_claim(&self, provider: &str, session: &str, claim: &str, at: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::TURN_CLAIM)?
            .execute(params![provider, session, claim, at])?;
        Ok(())
    }

    /// The session's plan as stored (not yet limited to its window); `None` without a turn row.
    pub(crate) fn plan(&self, provider: &str, session: &str) -> rusqlite::Result<Option<super::plan::Plan>> {
        self.conn
            .prepare_cached(q::TURN_PLAN_GET)?
            .query_row([provider, session], |r| {
                let paths: Option<String> = r.get(0)?;
                let deviations: String = r.get(3)?;
                Ok(super::plan::Plan {
                    paths: paths.and_then(|p| serde_json::from_str(&p).ok()).unwrap_or_default(),
                    at: r.get(1)?,
                    named: usize::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                    deviations: serde_json::from_str(&deviations).unwrap_or_default(),
                })
            })
            .optional()
    }

    /// Stores the session's plan and deviations on its turn row (when it has one).
    pub(crate) fn set_plan(&self, provider: &str, session: &str, plan: &super::plan::Plan, at: &str) -> rusqlite::Result<()> {
        let paths = plan
            .declared()
            .then(|| serde_json::to_string(&plan.paths).unwrap_or_else(|_| "[]".into()));
        self.conn.prepare_cached(q::TURN_PLAN_SET)?.execute(params![
            provider,
            session,
            paths,
            plan.at,
            i64::try_from(plan.named).unwrap_or(i64::MAX),
            serde_json::to_string(&plan.deviations).unwrap_or_else(|_| "[]".into()),
            at
        ])?;
        Ok(())
    }

    pub(crate) fn stop_update(&self, provider: &str, session: &str, s: &StopState, at: &str) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::TURN_STOP_UPDATE)?.execute(params![
            provider,
            session,
            s.attempt,
            s.fingerprint,
            s.result,
            s.rule,
            serde_json::to_string(&s.gaps).unwrap_or_else(|_| "[]".into()),
            s.next_action,
            at,
            s.category
        ])?;
        Ok(())
    }

    pub(crate) fn add_outcome(
        &self,
        provider: &str,
        session: Option<&str>,
        turn: Option<i64>,
        o: &StopOutcome,
        at: &str,
        sent: Option<&str>,
    ) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::OUTCOME_INSERT)?.execute(params![
            at,
            provider,
            session,
            turn,
            o.attempt,
            o.outcome.as_str(),
            o.rule,
            o.fingerprint,
            o.detail,
            sent
        ])?;
        Ok(())
    }

    /// How many stop outcomes and turn rows [`TurnStore::prune`] would drop at `cutoff`.
    pub(crate) fn count_prunable(&self, cutoff: &str) -> rusqlite::Result<Vec<PruneCount>> {
        self.conn.prepare_cached(q::TURN_PRUNE_COUNT)?.query_row([cutoff], |r| {
            Ok(vec![
                PruneCount {
                    table: "stop_outcomes",
                    rows: r.get(0)?,
                },
                PruneCount {
                    table: "turns",
                    rows: r.get(1)?,
                },
            ])
        })
    }

    /// Drops the stop outcomes before `cutoff`, and the turn rows nothing touched since (the
    /// caller holds the transaction).
    pub(crate) fn prune(&self, cutoff: &str) -> rusqlite::Result<Vec<PruneCount>> {
        let outcomes = self.conn.prepare_cached(q::PRUNE_OUTCOMES)?.execute([cutoff])? as i64;
        let turns = self.conn.prepare_cached(q::PRUNE_TURNS)?.execute([cutoff])? as i64;
        Ok(vec![
            PruneCount {
                table: "stop_outcomes",
                rows: outcomes,
            },
            PruneCount {
                table: "turns",
                rows: turns,
            },
        ])
    }

    /// A session's last `limit` stops, oldest first, each with the text it sent the agent
    /// (`tlc serve`'s session timeline).
    pub(crate) fn session_stops(&self, provider: &str, session: &str, limit: i64) -> rusqlite::Result<Vec<StopRecord>> {
        let mut stmt = self.conn.prepare_cached(q::OUTCOMES_OF_SESSION)?;
        let rows = stmt.query_map(params![provider, session, limit], |r| {
            let outcome: String = r.get(4)?;
            Ok(StopRecord {
                id: r.get(0)?,
                ts: r.get(1)?,
                turn: r.get(2)?,
                stop: StopOutcome {
                    attempt: r.get(3)?,
                    outcome: Outcome::parse(&outcome),
                    rule: r.get(5)?,
                    fingerprint: r.get(6)?,
                    detail: r.get(7)?,
                },
                follow_up: r.get(8)?,
            })
        })?;
        rows.collect()
    }

    /// A session's latest stop outcomes, newest first: (ts, turn, outcome).
    /// The session's stops deferred by `rule` since the checks last let one of its stops through,
    /// and how many of those were in `turn`: (since, in the turn).
    pub(crate) fn deferrals_since_judged(
        &self,
        provider: &str,
        session: &str,
        turn: Option<i64>,
        rule: &str,
    ) -> rusqlite::Result<(i64, i64)> {
        self.conn
            .prepare_cached(q::SUBAGENT_DEFERRALS)?
            .query_row(params![provider, session, turn, rule], |r| Ok((r.get(0)?, r.get(1)?)))
    }

    pub(crate) fn outcomes(&self, provider: &str, session: &str, limit: i64) -> rusqlite::Result<Vec<(String, Option<i64>, StopOutcome)>> {
        let mut stmt = self.conn.prepare_cached(q::OUTCOMES_LIST)?;
        let rows = stmt.query_map(params![provider, session, limit], |r| {
            let outcome: String = r.get(3)?;
            Ok((
                r.get(0)?,
                r.get(1)?,
                StopOutcome {
                    attempt: r.get(2)?,
                    outcome: Outcome::parse(&outcome),
                    rule: r.get(4)?,
                    fingerprint: r.get(5)?,
                    detail: r.get(6)?,
                },
            ))
        })?;
        rows.collect()
    }
}

/// The handoff a new session starts with: the previous session's open gaps (at most `max_gaps`,
/// the rest counted), phrased as history, within `budget` characters.
pub(crate) fn handoff_context(previous: &Turn, max_gaps: usize, budget: usize) -> Option<String> {
    if previous.open_gaps.is_empty() {
        return None;
    }
    let category = previous
        .last_category
        .as_deref()
        .map(|c| format!(" (failure category: {c})"))
        .unwrap_or_default();
    let mut text = format!(
        "tlc handoff (history): the previous session ({}, {}) ended its last turn with these gaps open at {}{category}. Only the next run of the gate says whether they still hold:\n",
        previous.provider, previous.session_id, previous.updated_at
    );
    let mut shown = 0;
    for (i, g) in previous.open_gaps.iter().take(max_gaps).enumerate() {
        let line = format!("{}\n", g.line(i + 1));
        if text.chars().count() + line.chars().count() > budget {
            break;
        }
        text.push_str(&line);
        shown += 1;
    }
    let rest = previous.open_gaps.len() - shown;
    if rest > 0 {
        text.push_str(&format!("(and {rest} more)\n"));
    }
    if let Some(next) = &previous.next_action {
        let line = format!("Its last follow-up said: NEXT: {next}\n");
        if text.chars().count() + line.chars().count() <= budget {
            text.push_str(&line);
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(i: usize) -> Gap {
        Gap {
            gate: "test".into(),
            category: "verification".into(),
            summary: format!("case {i}"),
        }
    }

    #[test]
    fn turns_begin_count_and_keep_the_handoff() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(crate::store::DbKind::Project, &dir.path().join("t.db")).unwrap();
        let conn = store.conn();
        let st = TurnStore::new(conn);
        st.first_base("claude", "s1", Some("abc"), "2026-01-01T00:00:00.000Z").unwrap();
        st.first_base("claude", "s1", Some("zzz"), "2026-01-01T00:00:01.000Z").unwrap();
        let t = st.get("claude", "s1").unwrap().unwrap();
        assert_eq!((t.base_head.as_deref(), t.turn), (Some("abc"), 0));
        st.stop_update(
            "claude",
            "s1",
            &StopState {
                attempt: 2,
                result: "block".into(),
                rule: "grind-test".into(),
                gaps: vec![gap(1)],
                ..StopState::default()
            },
            "2026-01-01T00:00:02.000Z",
        )
        .unwrap();
        st.begin("claude", "s1", Some("def"), "2026-01-01T00:00:03.000Z", "prompt").unwrap();
        let t = st.get("claude", "s1").unwrap().unwrap();
        assert_eq!(
            (t.attempt, t.turn, t.base_head.as_deref()),
            (0, 1, Some("def")),
            "the first prompt is turn 1"
        );
        assert_eq!(t.open_gaps, vec![gap(1)], "the handoff stays until a stop replaces it");
        assert_eq!(st.previous("cursor", "other").unwrap().unwrap().session_id, "s1");
        assert!(st.previous("claude", "s1").unwrap().is_none());
    }

    #[test]
    fn a_turn_after_a_deferred_stop_keeps_the_unjudged_turn_s_base() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(crate::store::DbKind::Project, &dir.path().join("t.db")).unwrap();
        let st = TurnStore::new(store.conn());
        st.begin("claude", "s1", Some("abc"), "2026-01-01T00:00:00.000Z", "prompt").unwrap();
        let deferred = StopState {
            result: "deferred".into(),
            rule: "subagents-running".into(),
            ..StopState::default()
        };
        st.stop_update("claude", "s1", &deferred, "2026-01-01T00:00:01.000Z").unwrap();
        st.begin("claude", "s1", Some("def"), "2026-01-01T00:00:02.000Z", "prompt").unwrap();
        let t = st.get("claude", "s1").unwrap().unwrap();
        assert_eq!(
            (t.turn, t.base_head.as_deref(), t.base_at.as_str()),
            (2, Some("abc"), "2026-01-01T00:00:00.000Z"),
            "nothing judged the first turn's changes: the second turn keeps its base"
        );
        let judged = StopState {
            result: "block".into(),
            rule: "grind-test".into(),
            ..StopState::default()
        };
        st.stop_update("claude", "s1", &judged, "2026-01-01T00:00:03.000Z").unwrap();
        st.begin("claude", "s1", Some("ghi"), "2026-01-01T00:00:04.000Z", "prompt").unwrap();
        let t = st.get("claude", "s1").unwrap().unwrap();
        assert_eq!((t.turn, t.base_head.as_deref()), (3, Some("ghi")), "a judged stop ends the carry");
    }

    #[test]
    fn the_handoff_context_is_history_bounded_by_count_and_budget() {
        let t = Turn {
            provider: "claude".into(),
            session_id: "s1".into(),
            open_gaps: (1..=7).map(gap).collect(),
            updated_at: "2026-01-01T00:00:00.000Z".into(),
            ..Turn::default()
        };
        let text = handoff_context(&t, 5, 2000).unwrap();
        assert!(text.contains("(history)"));
        assert!(text.contains("5. [test/verification] case 5\n"));
        assert!(!text.contains("case 6"));
        assert!(text.contains("(and 2 more)"));
        let short = handoff_context(&t, 5, 260).unwrap();
        assert!(short.chars().count() < 300);
        assert!(handoff_context(&Turn::default(), 5, 2000).is_none());
    }
}
