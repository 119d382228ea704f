//! The stop checks on the hook path. Before the hook's own transaction (none is held while a
//! gate command runs), [`on_hook`] turns one event into a [`Pending`]: a decision, if any, and
//! the turn and stop-outcome rows to write inside that transaction.
//!
//! - session start: the first turn's base, and the previous session's open gaps as context;
//! - prompt: a new turn — its base (HEAD and time), attempt 0;
//! - agent response (Cursor): a ship claim in the text;
//! - file edited: the comment policy's early HEADS UP;
//! - stop: allowed without checks when paused, when Cursor's status is not `completed`, or when
//!   the turn's attempt is at `maxLoops` (`budget`); otherwise lint, test, the docs gate, the
//!   plan gate, the operator's `on: stop` rules (`rules.enabled`), empty-diff anti-ship, the ship
//!   gate, then the checks on what the turn wrote. The first that fails blocks with a follow-up.

use super::changes::{self, Changes, Head};
use super::followup::{self, FollowUp, Gap};
use super::inputs::{self, Inputs};
use super::plan::{self, Plan};
use super::ship::{self, LedgerRow};
use super::turn::{handoff_context, Outcome, StopOutcome, StopState, Turn, TurnStore};
use super::written;
use super::{Gate, GateError, GateRun, GateStore, RunRequest};
use crate::clock;
use crate::config::Config;
use crate::confine::LazyJail;
use crate::decision::{Decision, Permission};
use crate::fault::Fault;
use crate::obs::redact::Redactor;
use crate::pathtext::PathSet;
use crate::policy::OperatorState;
use crate::project::Project;
use rusqlite::Connection;
use std::time::Duration;

/// Gaps carried into a new session's context, and its character budget.
pub(crate) const HANDOFF_GAPS: usize = 5;
pub(crate) const HANDOFF_BUDGET: usize = 1500;

/// What the provider said at a stop, in neutral terms.
#[derive(Debug, Clone, Default)]
pub(crate) struct StopFacts {
    /// Claude Code: `stop_hook_active` false means the first stop of a turn.
    pub first_of_turn: Option<bool>,
    /// Cursor: `status` is `completed` (true when the provider has no status).
    pub completed: bool,
    /// The status as sent, for the record.
    pub status: Option<String>,
    /// Claude Code's `last_assistant_message`.
    pub last_response: Option<String>,
    /// Subagents still running as the turn stops, as the client names them (Claude Code 2.1.332
    /// and later run subagents in the background: `background_tasks`); empty when none is, or
    /// when the client does not say.
    pub running_subagents: Vec<String>,
    /// When the client stops waiting for this hook's answer, less a margin for recording it
    /// (`None`: it did not say). Gate commands are cut there, and the stop is held: a stop that
    /// cannot decide in time never lets the client move on silently (issue 51).
    pub deadline: Option<std::time::Instant>,
}

/// The rule of a stop whose checks wait for running subagents.
pub(crate) const SUBAGENTS_RUNNING: &str = "subagents-running";
/// The most stops of one turn deferred for running subagents. A deferred stop lets the turn end,
/// and the subagent's completion notice starts the next one, so a turn that needs a second wait
/// stopped again without a new prompt: it was blocked, or its client is not the one measured.
const SUBAGENT_DEFERRALS_PER_TURN: i64 = 1;
/// The rule of a Stop refused because git cannot be asked what the turn changed without hanging
/// (a FIFO or folder planted at `.git/HEAD`, the index or the config): a gate that cannot see the
/// diff does not let the turn through as if nothing changed.
pub(crate) const UNREADABLE_TREE: &str = "unreadable-tree";

/// The turn-relevant part of one hook event.
#[derive(Debug, Clone)]
pub(crate) enum TurnEvent {
    /// `fresh` is false when the session resumes or compacts: it is no new session to hand off to.
    SessionStart {
        fresh: bool,
    },
    Prompt,
    Stop(StopFacts),
    /// Assistant text (Cursor's afterAgentResponse).
    AgentResponse(String),
    /// A file an edit tool wrote (repository-relative or absolute).
    FileEdited(String),
    /// The session ended (lessons are gardened).
    SessionEnd,
}

/// One event as the stop checks see it.
#[derive(Debug, Clone)]
pub(crate) struct TurnFacts {
    pub provider: String,
    pub session: Option<String>,
    pub event: TurnEvent,
    pub transcript_path: Option<String>,
}

/// What an event decided, and the rows to write in the hook's transaction.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    pub decision: Option<Decision>,
    provider: String,
    session: String,
    turn: Option<i64>,
    begin: Option<(Option<String>, String, &'static str)>,
    claim: Option<(String, String)>,
    outcomes: Vec<StopOutcome>,
    stop_state: Option<StopState>,
    /// The session's plan as this event read it, to keep on its turn row.
    plan: Option<Plan>,
    at: String,
    lessons: super::lessons::LessonWrites,
    /// Observation-mode readings of this stop (`observe.reading` events).
    observations: Vec<super::observe::Reading>,
    /// The files this stop found deleted, kept on the turn row for the next turn's stop.
    deleted_seen: Option<Vec<String>>,
}

impl Pending {
    fn new(f: &TurnFacts) -> Pending {
        Pending {
            provider: f.provider.clone(),
            session: f.session.clone().unwrap_or_default(),
            at: clock::now_stamp(),
            ..Pending::default()
        }
    }

    /// The stop outcome this event recorded (the first, when a stop blocked on several rules).
    pub(crate) fn outcome(&self) -> Option<&StopOutcome> {
        self.outcomes.first()
    }

    /// Writes the turn and outcome rows (inside the hook's transaction).
    pub(crate) fn apply(&self, conn: &Connection) -> rusqlite::Result<()> {
        let st = TurnStore::new(conn);
        let (p, s) = (self.provider.as_str(), self.session.as_str());
        if let Some((head, at, source)) = &self.begin {
            if *source == "session-start" {
                st.first_base(p, s, head.as_deref(), at)?;
            } else {
                st.begin(p, s, head.as_deref(), at, source)?;
            }
        }
        if let Some((claim, at)) = &self.claim {
            st.set_claim(p, s, claim, at)?;
        }
        // The text the stop sent the agent goes with its first outcome (the rule that decided it).
        let sent = self.decision.as_ref().and_then(|d| d.follow_up.as_deref().or(d.context.as_deref()));
        for (i, o) in self.outcomes.iter().enumerate() {
            st.add_outcome(p, Some(s), self.turn, o, &self.at, if i == 0 { sent } else { None })?;
        }
        if let Some(state) = &self.stop_state {
            st.stop_update(p, s, state, &self.at)?;
        }
        if let Some(deleted) = &self.deleted_seen {
            st.set_deleted_seen(p, s, deleted)?;
        }
        for r in &self.observations {
            crate::obs::EventStore::new(conn).record_observation(p, s, r.attrs.clone())?;
        }
        if let Some(plan) = &self.plan {
            st.set_plan(p, s, plan, &self.at)?;
        }
        self.lessons.apply(conn, p, s, &self.at)
    }
}

/// Which stop rails are on, from the settings.
struct Rails {
    lint: Vec<String>,
    test: Vec<String>,
    docs: Vec<String>,
    ship: bool,
    anti_ship: bool,
    written: written::Settings,
    /// `planGate.windowMinutes` when the plan gate is on.
    plan: Option<i64>,
    /// `rules.enabled`: the operator's `on: stop` rules are read at the stop.
    rules: bool,
}

impl Rails {
    fn from(config: &Config) -> Rails {
        let s = &config.settings;
        let grind = |argv: &Vec<String>| if s.grind.enabled { argv.clone() } else { Vec::new() };
        Rails {
            lint: grind(&s.grind.lint_command),
            test: grind(&s.grind.test_command),
            docs: s.docs.command.clone(),
            ship: s.ship_gate.enabled,
            anti_ship: s.ship_gate.empty_diff_anti_ship,
            written: written::Settings {
                comments: s.comments.enabled.then(|| written::comments::Mode::parse(&s.comments.mode)),
                duplication: s.duplication.enabled.then(|| usize::try_from(s.duplication.min_run).unwrap_or(6)),
                supply_chain: s.supply_chain.enabled,
            },
            plan: s.plan_gate.enabled.then_some(s.plan_gate.window_minutes.max(1)),
            rules: s.rules.enabled,
        }
    }

    fn any(&self) -> bool {
        !self.lint.is_empty()
            || !self.test.is_empty()
            || !self.docs.is_empty()
            || self.ship
            || self.anti_ship
            || self.written.any()
            || self.plan.is_some()
            || self.rules
    }

    fn claims(&self) -> bool {
        self.ship || self.anti_ship
    }

    /// Whether the base needs HEAD even where the files cannot say (a reftable).
    fn need_diff(&self) -> bool {
        !self.lint.is_empty()
            || !self.test.is_empty()
            || !self.docs.is_empty()
            || self.claims()
            || self.written.any()
            || self.plan.is_some()
    }
}

/// The project's working tree as the stop checks ask git about it.
fn tree<'a>(project: &'a Project, jail: &'a LazyJail<'_>) -> changes::Tree<'a> {
    changes::Tree {
        root: project.root(),
        jail: jail.get(),
    }
}

fn base_head(project: &Project, jail: &LazyJail<'_>, rails: &Rails) -> Option<String> {
    if !project.paths.in_git {
        return None;
    }
    let head = changes::read_head(project.root());
    let head = if head == Head::Unknown && rails.need_diff() {
        changes::head_from_git(tree(project, jail))
    } else {
        head
    };
    head.stored()
}

/// Turns one hook event into its pending decision and rows. Never fails: a fault becomes a
/// `hook.fault` via `faults`, and the stop is let through.
///
/// `policy` is the session's baselined policy where a source diverged: `config` is then already
/// the baselined config, and its pause state stands in for the current one.
pub(crate) fn on_hook(
    conn: &mut Connection,
    project: &Project,
    jail: &LazyJail<'_>,
    config: &Config,
    facts: &TurnFacts,
    policy: &crate::policy::integrity::SessionPolicy,
    faults: &mut crate::fault::Faults,
) -> Pending {
    let mut p = Pending::new(facts);
    let rails = Rails::from(config);
    match &facts.event {
        TurnEvent::SessionStart { fresh } => {
            p.begin = Some((base_head(project, jail, &rails), p.at.clone(), "session-start"));
            if *fresh && config.settings.intelligence.progressive_handoff {
                match TurnStore::new(conn).previous(&p.provider, &p.session) {
                    Ok(Some(mut prev)) => {
                        if !config.settings.intelligence.failure_classification {
                            prev.last_category = None;
                        }
                        p.decision = handoff_context(&prev, HANDOFF_GAPS, HANDOFF_BUDGET).map(|c| Decision {
                            context: Some(c),
                            rule: "handoff".into(),
                            ..Decision::allow()
                        })
                    }
                    Ok(None) => {}
                    Err(e) => faults.push(Fault::Stop(format!("handoff not read: {e}"))),
                }
            }
            if *fresh && super::lessons::enabled(config) {
                if let Some(text) = super::lessons::for_session(conn, project, config, &mut p.lessons) {
                    let d = p.decision.get_or_insert_with(|| Decision {
                        rule: "lessons".into(),
                        ..Decision::allow()
                    });
                    d.context = Some(match d.context.take() {
                        Some(handoff) => format!("{handoff}\n\n{text}"),
                        None => text,
                    });
                }
            }
        }
        TurnEvent::SessionEnd => {
            if super::lessons::enabled(config) {
                super::lessons::on_session_end(config, &mut p.lessons);
            }
        }
        TurnEvent::Prompt => p.begin = Some((base_head(project, jail, &rails), p.at.clone(), "prompt")),
        TurnEvent::AgentResponse(text) => {
            if rails.claims() {
                if let Some(c) = ship::claim_in_text(text) {
                    p.claim = Some((c, p.at.clone()));
                }
            }
            if let Some(window) = rails.plan.filter(|_| text.contains("HARNESS_PLAN")) {
                match TurnStore::new(conn).plan(&p.provider, &p.session) {
                    Ok(stored) => {
                        let mut plan = stored.unwrap_or_default().within(&window_start(window));
                        plan.absorb(text, &p.at);
                        p.plan = Some(plan);
                    }
                    Err(e) => faults.push(Fault::Stop(format!("plan not read: {e}"))),
                }
            }
        }
        TurnEvent::FileEdited(path) => {
            let c = &config.settings.comments;
            if c.enabled && c.on_violation == "followup" && project.paths.in_git {
                p.decision = heads_up(conn, project, jail, facts, path, written::comments::Mode::parse(&c.mode));
            }
        }
        TurnEvent::Stop(stop) => {
            let paused = match policy.paused {
                Some(p) => Ok(p),
                None => OperatorState::new(conn).paused(),
            };
            let decided = match paused {
                Ok(true) if rails.any() => {
                    allow(
                        &mut p,
                        Outcome::Paused,
                        "paused",
                        0,
                        Some("stop checks are paused (`tlc resume`)".into()),
                    );
                    Ok(())
                }
                Ok(_) => {
                    let cx = StopContext {
                        project,
                        jail,
                        config,
                        rails: &rails,
                        policy,
                    };
                    decide_stop(conn, &cx, facts, stop, &mut p)
                }
                Err(e) => Err(GateError::store(&project.db_path())(e)),
            };
            if decided.is_ok() {
                intelligence(&mut p, &config.settings);
            }
            if !config.settings.intelligence.failure_classification {
                // Off: no category is kept, not even one a capped stop would carry over.
                if let Some(state) = p.stop_state.as_mut() {
                    state.category = None;
                }
            }
            if let (Some(d), Some(note)) = (p.decision.as_mut(), policy.note()) {
                if d.permission != crate::decision::Permission::Allow {
                    // The follow-up is what the agent reads of a block; the reason is the record's.
                    for text in [&mut d.follow_up, &mut d.reason].into_iter().flatten() {
                        text.push('\n');
                        text.push_str(&note);
                    }
                }
            }
            if decided.is_ok() && ends_the_turn(&p, stop) {
                match super::observe::observe(conn, project, jail, &config.settings, &p.provider, &p.session) {
                    Ok(readings) => p.observations = readings,
                    Err(e) => faults.push(Fault::Stop(format!("observation mode did not read this turn: {e}"))),
                }
            }
            if let Err(e) = decided {
                // Fail closed (issue 51): checks that could not run never let a turn through; the
                // loop budget still bounds how often the same fault holds it.
                p.lessons = Default::default();
                let e = e.to_string();
                faults.push(Fault::Stop(format!("stop checks failed, the stop was held: {e}")));
                p.decision = None;
                p.stop_state = None;
                p.outcomes.clear();
                let max = config.settings.grind.max_loops.max(1);
                let turn = TurnStore::new(conn).get(&p.provider, &p.session).ok().flatten();
                p.turn = turn.as_ref().map(|t| t.turn);
                let attempt = match stop.first_of_turn {
                    Some(true) => 0,
                    _ => turn.as_ref().map_or(0, |t| t.attempt),
                };
                if attempt >= max {
                    allow(
                        &mut p,
                        Outcome::Capped,
                        "budget",
                        attempt,
                        Some(format!(
                            "attempt {attempt} of grind.maxLoops = {max}: the stop checks failed ({e}) and the turn spent its loop budget"
                        )),
                    );
                } else {
                    finish_block(&mut p, vec![fault_block(config, &e, attempt + 1, max)], attempt + 1);
                }
            }
        }
    }
    for f in p.lessons.faults.drain(..) {
        faults.push(Fault::Stop(f));
    }
    p
}

/// The answer of a stop whose hook could not read or write the project's state (the database
/// locked or unwritable) while stop checks are on: held, naming why (issue 51: a check that cannot
/// run never lets the turn through). `None` when no stop check is configured, or the provider says
/// the turn did not complete (nothing is checked then either).
pub(crate) fn held_without_state(config: &Config, stop: &StopFacts, why: &str) -> Option<Decision> {
    if !Rails::from(config).any() || !stop.completed {
        return None;
    }
    let max = config.settings.grind.max_loops.max(1);
    let block = fault_block(config, why, 1, max);
    Some(Decision {
        permission: Permission::Deny,
        rule: block.rule.clone(),
        reason: Some(format!("BLOCKED: {}", block.headline)),
        user_note: None,
        follow_up: Some(block.text),
        context: None,
    })
}

/// Whether this stop lets a completed turn end: no block, and no wait for running subagents
/// (whose tree the next stop judges). Observation reads a turn once, where it ends.
fn ends_the_turn(p: &Pending, stop: &StopFacts) -> bool {
    stop.completed
        && p.decision.as_ref().is_none_or(|d| d.permission != Permission::Deny)
        && p.outcomes.first().is_none_or(|o| o.rule != SUBAGENTS_RUNNING)
}

/// Issue 33: a block's follow-up gets the budget line and the autopilot steps their switches ask for.
fn intelligence(p: &mut Pending, s: &crate::config::Settings) {
    let (Some(d), Some(state)) = (p.decision.as_mut(), p.stop_state.as_ref()) else {
        return;
    };
    let Some(text) = d.follow_up.as_mut().filter(|_| d.permission == Permission::Deny) else {
        return;
    };
    let max = s.grind.max_loops.max(1);
    if s.intelligence.budget_continue && state.attempt == max - 1 && !state.gaps.is_empty() {
        text.push('\n');
        text.push_str(&super::intelligence::budget_continue(state.attempt, max));
    }
    if s.intelligence.autopilot {
        text.push('\n');
        let rerunnable = [Gate::Lint, Gate::Test, Gate::Docs].iter().any(|g| g.rule() == state.rule);
        text.push_str(&super::intelligence::autopilot(&state.gaps, rerunnable));
    }
}

fn heads_up(
    conn: &Connection,
    project: &Project,
    jail: &LazyJail<'_>,
    facts: &TurnFacts,
    path: &str,
    mode: written::comments::Mode,
) -> Option<Decision> {
    let root = project.root();
    let rel = std::path::Path::new(path)
        .strip_prefix(root)
        .map(|r| r.to_string_lossy().into_owned())
        .unwrap_or_else(|_| path.to_string());
    if rel.starts_with('/') || rel.starts_with(changes::TLC_PREFIX) {
        return None;
    }
    let turn = TurnStore::new(conn)
        .get(&facts.provider, facts.session.as_deref().unwrap_or(""))
        .ok()
        .flatten();
    let base = Head::from_stored(turn.and_then(|t| t.base_head).as_deref());
    let base = if base == Head::Unknown { changes::read_head(root) } else { base };
    written::heads_up(tree(project, jail), &base, &rel, mode).map(|text| Decision {
        context: Some(text),
        rule: "comments".into(),
        ..Decision::allow()
    })
}

fn allow(p: &mut Pending, outcome: Outcome, rule: &str, attempt: i64, detail: Option<String>) {
    p.outcomes.push(StopOutcome {
        outcome,
        rule: rule.into(),
        attempt,
        fingerprint: None,
        detail,
    });
}

/// A block: the decision, the outcome row and the turn's new state.
struct Block {
    rule: String,
    fingerprint: Option<String>,
    text: String,
    headline: String,
    gaps: Vec<Gap>,
    next: String,
    /// The failure category the turn row keeps (`intelligence.failureClassification`).
    category: String,
}

/// What every stop-time check reads and none changes: the project, the jail tlc's children run
/// in, the config (the session's baselined one where its policy diverged), the rails that config
/// turns on, and the session's baselined policy.
#[derive(Clone, Copy)]
struct StopContext<'a, 'j> {
    project: &'a Project,
    jail: &'a LazyJail<'j>,
    config: &'a Config,
    rails: &'a Rails,
    policy: &'a crate::policy::integrity::SessionPolicy,
}

/// Which attempt a blocked stop is (1-based), of at most `grind.maxLoops`.
#[derive(Clone, Copy)]
struct Attempt {
    this: i64,
    max: i64,
}

/// What a gate's earlier runs in this turn say about a new failure: the turn, the last failure's
/// fingerprint, and the attempt that failed it.
struct Retry<'t> {
    turn: Option<&'t Turn>,
    last_fp: Option<&'t str>,
    previous_attempt: i64,
}

fn decide_stop(
    conn: &mut Connection,
    cx: &StopContext<'_, '_>,
    facts: &TurnFacts,
    stop: &StopFacts,
    p: &mut Pending,
) -> Result<(), GateError> {
    let StopContext {
        project,
        jail,
        config,
        rails,
        ..
    } = *cx;
    let s = &config.settings;
    let db = project.db_path();
    let sql = GateError::store(&db);
    if !rails.any() {
        allow(p, Outcome::Allow, "none", 0, None);
        return Ok(());
    }
    if !stop.completed {
        let status = stop.status.clone().unwrap_or_default();
        allow(
            p,
            Outcome::Allow,
            "not-completed",
            0,
            Some(format!("status {status:?}: the turn did not complete")),
        );
        return Ok(());
    }
    let turn = TurnStore::new(conn).get(&p.provider, &p.session).map_err(sql)?;
    p.turn = turn.as_ref().map(|t| t.turn);
    let mut attempt = turn.as_ref().map_or(0, |t| t.attempt);
    if stop.first_of_turn == Some(true) {
        // The provider says this is the turn's first stop: no earlier block of it counts.
        attempt = 0;
    }
    let max = s.grind.max_loops.max(1);
    let last_fp = turn.as_ref().and_then(|t| t.last_fingerprint.clone());
    if attempt >= max {
        allow(
            p,
            Outcome::Capped,
            "budget",
            attempt,
            Some(format!(
                "attempt {attempt} of grind.maxLoops = {max}: the turn spent its loop budget and may end"
            )),
        );
        p.stop_state = Some(StopState {
            attempt,
            fingerprint: last_fp,
            result: "capped".into(),
            rule: "budget".into(),
            category: turn.as_ref().and_then(|t| t.last_category.clone()),
            gaps: turn.map(|t| t.open_gaps).unwrap_or_default(),
            next_action: None,
        });
        return Ok(());
    }
    let this_attempt = attempt + 1;
    let base = Head::from_stored(turn.as_ref().and_then(|t| t.base_head.as_deref()));
    if s.intelligence.idle_turn_gate {
        if let Some(gaps) = idle_turn(conn, project, p, turn.as_ref(), &base).map_err(sql)? {
            let next = "work on gap 1 with your tools; a reply alone does not close a gap.".to_string();
            let block = Block {
                rule: super::intelligence::IDLE_TURN.into(),
                fingerprint: last_fp.clone(),
                text: super::intelligence::idle_turn_text(&gaps, this_attempt, max),
                headline: "idle turn with open gaps".into(),
                gaps,
                next,
                category: super::intelligence::IDLE_TURN.into(),
            };
            finish_block(p, vec![block], this_attempt);
            return Ok(());
        }
    }
    let base_at = turn.as_ref().map(|t| t.base_at.clone()).unwrap_or_default();
    let claim = if rails.claims() {
        find_claim(s, stop, turn.as_ref(), facts, &base_at)
    } else {
        None
    };
    if let Some(c) = &claim {
        let row = ledger_row(p, "claim", Some(c.clone()), None, Vec::new(), None);
        let key = format!(
            "claim:{}:{}:{}:{}",
            p.provider,
            p.session,
            p.turn.unwrap_or(0),
            crate::hashing::sha256_hex(c.as_bytes())
        );
        ship::append(conn, &row, Some(&key)).map_err(sql)?;
    }
    let plan = match rails.plan {
        Some(window) => {
            let (plan, changed) = read_plan(conn, stop, facts, p, &base_at, window).map_err(sql)?;
            if changed {
                p.plan = Some(plan.clone());
            }
            Some(plan)
        }
        None => None,
    };
    let plan = plan.filter(Plan::declared);
    let diff_needed = !rails.lint.is_empty()
        || !rails.test.is_empty()
        || !rails.docs.is_empty()
        || rails.written.any()
        || claim.is_some()
        || plan.is_some();
    if !diff_needed || !project.paths.in_git {
        // The operator's stop rules need no diff: they are read here too.
        let mut advice = Vec::new();
        if rails.rules {
            let blocks = operator_rules(conn, cx, p, Attempt { this: this_attempt, max }, &mut advice).map_err(sql)?;
            if !blocks.is_empty() {
                finish_block(p, blocks, this_attempt);
                return Ok(());
            }
        }
        if !advice.is_empty() {
            finish_allow(p, attempt, advice, None);
        } else if !diff_needed {
            allow(p, Outcome::Allow, "none", attempt, Some("no rail needed the diff".into()));
        } else {
            allow(
                p,
                Outcome::Allow,
                "no-git",
                attempt,
                Some(format!(
                    "{} is not a git checkout: the diff-based checks were skipped",
                    project.root().display()
                )),
            );
        }
        return Ok(());
    }
    if !stop.running_subagents.is_empty() {
        // A subagent still running can change the tree after the gates judged it: the checks wait
        // for the stop that follows its end (Claude Code starts a new turn with its completion
        // notice). An agent could keep a subagent alive to never be judged, so a wait is granted
        // only while it cannot be an escape (issue 53): never right after a block, at most
        // SUBAGENT_DEFERRALS_PER_TURN in a turn, and at most `grind.maxLoops` since the checks
        // last let a stop of the session through — a block does not start that count over.
        let store = TurnStore::new(conn);
        let after_block = attempt > 0
            || store
                .outcomes(&p.provider, &p.session, 1)
                .map_err(sql)?
                .first()
                .is_some_and(|(_, _, o)| o.outcome == Outcome::Block);
        let (since_judged, this_turn) = store
            .deferrals_since_judged(&p.provider, &p.session, p.turn, SUBAGENTS_RUNNING)
            .map_err(sql)?;
        if !after_block && this_turn < SUBAGENT_DEFERRALS_PER_TURN && since_judged < max {
            let names = stop.running_subagents.join(", ");
            let detail = format!(
                "{} subagent(s) still running ({names}): the tree is not final, so the stop checks wait for the next stop (deferral {} of grind.maxLoops = {max} since the checks last let a stop through)",
                stop.running_subagents.len(),
                since_judged + 1,
            );
            allow(p, Outcome::Deferred, SUBAGENTS_RUNNING, attempt, Some(detail.clone()));
            p.stop_state = Some(StopState {
                attempt,
                fingerprint: last_fp,
                result: "deferred".into(),
                rule: SUBAGENTS_RUNNING.into(),
                category: turn.as_ref().and_then(|t| t.last_category.clone()),
                gaps: turn.map(|t| t.open_gaps).unwrap_or_default(),
                next_action: None,
            });
            p.decision = Some(Decision {
                rule: SUBAGENTS_RUNNING.into(),
                context: Some(format!("tlc: {detail}")),
                ..Decision::allow()
            });
            return Ok(());
        }
    }
    let start = changes::TurnStart {
        wall_ms: turn.as_ref().and_then(|t| t.base_wall_ms),
        deleted_before: turn.as_ref().map(|t| t.deleted_seen.clone()).unwrap_or_default(),
    };
    let changes = match changes::changed_files_since(tree(project, jail), &base, &start) {
        Err(GateError::GitWouldBlock { why }) => {
            finish_block(p, vec![unreadable_tree_block(config, &why, this_attempt, max)], this_attempt);
            return Ok(());
        }
        changes => changes?,
    };
    p.deleted_seen = Some(changes.deleted_all.clone());
    let mut advice: Vec<(String, String)> = Vec::new();

    let gated = run_gates(conn, cx, p, &changes, this_attempt, stop.deadline, &mut advice)?;
    match gated {
        GatesResult::Deferred(rule, detail) => {
            allow(p, Outcome::Deferred, &rule, attempt, Some(detail));
            p.stop_state = Some(StopState {
                attempt,
                fingerprint: last_fp,
                result: "deferred".into(),
                rule,
                category: turn.as_ref().and_then(|t| t.last_category.clone()),
                gaps: turn.map(|t| t.open_gaps).unwrap_or_default(),
                next_action: None,
            });
            return Ok(());
        }
        GatesResult::Failed(run, gate) => {
            let lessons = if super::lessons::enabled(config) {
                if stagnates(attempt, last_fp.as_deref(), &run) {
                    let gaps = Gap::from_findings(gate.as_str(), run.category.as_deref().unwrap_or("verification"), &run.findings);
                    super::lessons::capture(&run, gate, &gaps, &p.session, &mut p.lessons);
                }
                super::lessons::for_retry(conn, project, config, &run, gate, &mut p.lessons)
            } else {
                None
            };
            let retry = Retry {
                turn: turn.as_ref(),
                last_fp: last_fp.as_deref(),
                previous_attempt: attempt,
            };
            let block = gate_block(conn, config, &run, gate, Attempt { this: this_attempt, max }, retry, lessons).map_err(sql)?;
            finish_block(p, vec![block], this_attempt);
            return Ok(());
        }
        GatesResult::Passed => {}
    }

    // The plan gate, before the ship checks: a turn whose scope is invalid produced evidence for
    // the wrong change.
    if let Some(plan) = &plan {
        let outside = plan.outside(&changes.paths());
        if !outside.is_empty() {
            finish_block(
                p,
                vec![plan_block(config, plan, &outside, &changes, this_attempt, max)],
                this_attempt,
            );
            return Ok(());
        }
        if let Some(note) = plan.capped_note() {
            advice.push((plan::RULE.into(), format!("tlc plan gate: {note}.")));
        }
    }

    // The operator's stop rules, after the lint, test and docs gates (a `gate(test) since HEAD`
    // can be satisfied by this turn's run) and the plan gate, before the ship checks.
    if rails.rules {
        let blocks = operator_rules(conn, cx, p, Attempt { this: this_attempt, max }, &mut advice).map_err(sql)?;
        if !blocks.is_empty() {
            finish_block(p, blocks, this_attempt);
            return Ok(());
        }
    }

    if let Some(c) = &claim {
        if let Some(block) = ship_check(conn, cx, p, c, &changes, &base_at, Attempt { this: this_attempt, max }).map_err(sql)? {
            finish_block(p, vec![block], this_attempt);
            return Ok(());
        }
    }

    if rails.written.any() && !changes.is_empty() {
        let found = written::run(tree(project, jail), &base, &changes, &rails.written)?;
        let mut blocks = Vec::new();
        for f in found {
            if let Some(note) = &f.note {
                advice.push((f.rule.to_string(), format!("{}: {note}", f.rule)));
            }
            if f.findings.is_empty() {
                continue;
            }
            blocks.push(written_block(config, &f, this_attempt, max, &changes));
        }
        if !blocks.is_empty() {
            finish_block(p, blocks, this_attempt);
            return Ok(());
        }
    }

    finish_allow(p, attempt, advice, changes.note.clone());
    Ok(())
}

/// A stop let through: `passed`, or advisory with the advice's text as context (the first
/// advice's rule names the outcome).
fn finish_allow(p: &mut Pending, attempt: i64, advice: Vec<(String, String)>, note: Option<String>) {
    let (outcome, rule) = match advice.first() {
        Some((rule, _)) => (Outcome::Advisory, rule.clone()),
        None => (Outcome::Allow, "passed".to_string()),
    };
    let context = (!advice.is_empty()).then(|| advice.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n\n"));
    allow(p, outcome, &rule, attempt, context.clone().or(note));
    if let Some(c) = context {
        p.decision = Some(Decision {
            context: Some(c),
            rule: rule.clone(),
            ..Decision::allow()
        });
    }
    p.stop_state = Some(StopState {
        attempt,
        fingerprint: None,
        result: outcome.as_str().into(),
        rule,
        gaps: Vec::new(),
        next_action: None,
        category: None,
    });
}

/// HEAD at a stop, in its stored form: from the repository's files, else from git (a stop may
/// run git); `None` outside a git checkout.
fn stop_head(project: &Project, jail: &LazyJail<'_>) -> Option<String> {
    if !project.paths.in_git {
        return None;
    }
    let head = changes::read_head(project.root());
    let head = if head == Head::Unknown {
        changes::head_from_git(tree(project, jail))
    } else {
        head
    };
    head.stored()
}

/// The operator's `on: stop` rules (`rules.enabled`; `policy::rules`): each whose proofs are
/// missing blocks (`deny`, `ask`: no host offers an ask at a stop; `follow-up`, framed as the
/// next action) or, for `warn`, adds its text to `advice` and lets the stop through.
fn operator_rules(
    conn: &Connection,
    cx: &StopContext<'_, '_>,
    p: &Pending,
    at: Attempt,
    advice: &mut Vec<(String, String)>,
) -> rusqlite::Result<Vec<Block>> {
    let (project, jail, config) = (cx.project, cx.jail, cx.config);
    let baselined = cx.policy.rules.as_ref();
    let Attempt { this: attempt, max } = at;
    use crate::policy::rules::{self, Scope, Trigger, Verdict};
    // A rule folder edited during the session is not obeyed: its baselined rules are.
    let set = match baselined {
        Some(set) => set.clone(),
        None => rules::load(&project.paths),
    };
    let at_stop: Vec<_> = set.active().into_iter().filter(|(_, s)| s.on == Trigger::Stop).collect();
    if at_stop.is_empty() {
        return Ok(Vec::new());
    }
    let head = stop_head(project, jail);
    let scope = Scope {
        root: project.root(),
        provider: &p.provider,
        session: Some(p.session.as_str()).filter(|s| !s.is_empty()),
        head: head.as_deref(),
        in_git: project.paths.in_git,
    };
    let mut blocks = Vec::new();
    for u in rules::unmet(conn, at_stop, &scope)? {
        if u.spec.otherwise == Verdict::Warn {
            advice.push((u.rule_name(), u.text(&scope)));
            continue;
        }
        let gaps: Vec<Gap> = u
            .missing
            .iter()
            .map(|m| Gap {
                gate: rules::RULE.into(),
                category: rules::RULE.into(),
                summary: format!("{m} (rule {})", u.file.name),
            })
            .collect();
        let follow_up = u.spec.otherwise == Verdict::FollowUp;
        let (headline, next) = if follow_up {
            (
                format!("next action, from operator rule {}", u.file.name),
                if u.body().is_empty() {
                    format!("produce the proofs operator rule {} names, then stop again.", u.file.name)
                } else {
                    format!("{}\n(then stop again: operator rule {} checks for it)", u.body(), u.file.name)
                },
            )
        } else {
            (
                format!("operator rule {} is not satisfied", u.file.name),
                format!(
                    "do what the rule asks so that tlc observes each missing proof, then stop again. The rule says:\n{}",
                    if u.body().is_empty() { "(no text)" } else { u.body() }
                ),
            )
        };
        let f = FollowUp {
            gate: rules::RULE.into(),
            category: rules::RULE.into(),
            attempt: attempt as usize,
            max: max as usize,
            headline: Some(headline.clone()),
            tried: u.headline(&scope),
            need: u.spec.require.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
            gaps: gaps.clone(),
            next: next.clone(),
            level: followup::level(attempt as usize, config.settings.intelligence.progressive_context),
            ..FollowUp::default()
        };
        blocks.push(Block {
            rule: u.rule_name(),
            fingerprint: Some(crate::hashing::sha256_hex(u.missing_line(&scope).as_bytes())),
            text: f.render(),
            headline,
            gaps,
            next,
            category: rules::RULE.into(),
        });
    }
    Ok(blocks)
}

/// The gaps of an idle turn: gaps open on the turn row, no tool, shell, MCP, file or subagent
/// event recorded since the turn's base, and HEAD where the base found it. `None` otherwise.
fn idle_turn(conn: &Connection, project: &Project, p: &Pending, turn: Option<&Turn>, base: &Head) -> rusqlite::Result<Option<Vec<Gap>>> {
    let Some(t) = turn.filter(|t| !t.open_gaps.is_empty()) else {
        return Ok(None);
    };
    if crate::obs::EventStore::new(conn).tool_events_since(&p.provider, &p.session, &t.base_at)? > 0 {
        return Ok(None);
    }
    if project.paths.in_git && *base != Head::Unknown && changes::read_head(project.root()) != *base {
        return Ok(None);
    }
    Ok(Some(t.open_gaps.clone()))
}

fn ledger_row(
    p: &Pending,
    outcome: &str,
    summary: Option<String>,
    detail: Option<String>,
    files: Vec<String>,
    evidence: Option<String>,
) -> LedgerRow {
    LedgerRow {
        id: 0,
        ts: p.at.clone(),
        session: Some(p.session.clone()),
        provider: Some(p.provider.clone()),
        outcome: outcome.into(),
        summary,
        detail,
        files,
        evidence_dir: evidence,
    }
}

/// The start of a window of `minutes` ending now.
fn window_start(minutes: i64) -> String {
    clock::stamp(clock::now() - chrono::Duration::minutes(minutes.max(1)))
}

/// The session's plan at this stop: what its turn row kept within the window, and the plan and
/// deviation lines of every assistant message since the turn's base (the transcript, through the
/// ship claims' reader) and of Claude's `last_assistant_message`; and whether that differs from
/// what the row holds (only then is it written).
fn read_plan(
    conn: &Connection,
    stop: &StopFacts,
    facts: &TurnFacts,
    p: &Pending,
    base_at: &str,
    window: i64,
) -> rusqlite::Result<(Plan, bool)> {
    let since = window_start(window);
    let stored = TurnStore::new(conn).plan(&p.provider, &p.session)?.unwrap_or_default();
    let mut plan = stored.clone().within(&since);
    let from = if base_at > since.as_str() { base_at } else { since.as_str() };
    if let Some(path) = facts.transcript_path.as_deref() {
        // `HARNESS_PLAN` finds the deviation lines too.
        ship::visit_assistant_text(std::path::Path::new(path), from, "HARNESS_PLAN", |t| plan.absorb(t, &p.at));
    }
    if let Some(text) = &stop.last_response {
        plan.absorb(text, &p.at);
    }
    let changed = plan != stored;
    Ok((plan, changed))
}

/// The plan gate's block: the files outside the plan, at most [`plan::SHOWN_FILES`] named.
fn plan_block(config: &Config, plan: &Plan, outside: &[String], changes: &Changes, attempt: i64, max: i64) -> Block {
    let mut tried = format!(
        "compared the {} file(s) this turn changed with HARNESS_PLAN ({}) and the deviations that give a reason: {} outside the plan: {}.",
        changes.paths().len(),
        plan::named(&plan.paths),
        outside.len(),
        plan::named(outside)
    );
    let refused = plan.refused();
    if !refused.is_empty() {
        tried.push_str(&format!(
            " Refused for want of a reason: HARNESS_PLAN_DEVIATION for {}.",
            refused.join(", ")
        ));
    }
    if let Some(note) = plan.capped_note() {
        tried.push_str(&format!(" Note: {note}."));
    }
    let gaps: Vec<Gap> = outside
        .iter()
        .take(plan::SHOWN_FILES)
        .map(|f| Gap {
            gate: "plan".into(),
            category: "plan-scope".into(),
            summary: format!("{f} is outside the declared plan"),
        })
        .collect();
    let next = "undo the changes outside the plan, or justify each in your reply with a line `HARNESS_PLAN_DEVIATION: <path> — <why it had to change>`, then stop again.".to_string();
    let f = FollowUp {
        gate: "plan".into(),
        category: "plan-scope".into(),
        attempt: attempt as usize,
        max: max as usize,
        headline: Some("changed files outside the declared plan".into()),
        tried,
        need: "each changed file covered by a HARNESS_PLAN path, or justified by `HARNESS_PLAN_DEVIATION: <path> — <reason>`; a deviation that only names the path is refused.".into(),
        gaps: gaps.clone(),
        next: next.clone(),
        level: followup::level(attempt as usize, config.settings.intelligence.progressive_context),
        ..FollowUp::default()
    };
    Block {
        rule: plan::RULE.into(),
        fingerprint: Some(crate::hashing::sha256_hex(outside.join("\n").as_bytes())),
        text: f.render(),
        headline: format!("{} changed file(s) outside the declared plan", outside.len()),
        gaps,
        next,
        category: "plan-scope".into(),
    }
}

/// The claim of this turn: Claude's last response when it sent one, else the claim Cursor's
/// response hook recorded in this turn, else the transcript's assistant text since the base.
fn find_claim(s: &crate::config::Settings, stop: &StopFacts, turn: Option<&Turn>, facts: &TurnFacts, base_at: &str) -> Option<String> {
    if let Some(text) = &stop.last_response {
        return ship::claim_in_text(text);
    }
    let window = chrono::Duration::minutes(s.ship_gate.claim_window_minutes.max(1));
    let since_window = clock::stamp(clock::now() - window);
    let since = if base_at > since_window.as_str() {
        base_at.to_string()
    } else {
        since_window
    };
    if let Some(t) = turn {
        if let (Some(c), Some(at)) = (&t.claim, &t.claim_at) {
            if at.as_str() >= since.as_str() {
                return Some(c.clone());
            }
        }
    }
    let path = facts.transcript_path.as_deref()?;
    ship::claim_in_transcript(std::path::Path::new(path), &since)
}

enum GatesResult {
    Passed,
    /// (rule, who held the lock)
    Deferred(String, String),
    Failed(Box<GateRun>, Gate),
}

fn run_gates(
    conn: &mut Connection,
    cx: &StopContext<'_, '_>,
    p: &Pending,
    changes: &Changes,
    attempt: i64,
    facts_deadline: Option<std::time::Instant>,
    advice: &mut Vec<(String, String)>,
) -> Result<GatesResult, GateError> {
    let (project, jail, config, rails) = (cx.project, cx.jail, cx.config, cx.rails);
    let s = &config.settings;
    let code = PathSet::new(&s.grind.code_paths);
    let tests = PathSet::new(&s.grind.test_paths);
    let files = changes.paths();
    let present: Vec<String> = changes.present().map(str::to_string).collect();
    let mut due: Vec<(Gate, Vec<String>)> = Vec::new();
    if !rails.lint.is_empty() && files.iter().any(|f| code.matches(f)) {
        let narrowed: Vec<String> = present.iter().filter(|f| code.matches(f)).cloned().collect();
        due.push((Gate::Lint, super::narrow::final_argv(&rails.lint, &s.grind.append_files, &narrowed)));
    }
    if !rails.test.is_empty() && files.iter().any(|f| code.matches(f) || tests.matches(f)) {
        let narrowed: Vec<String> = present.iter().filter(|f| code.matches(f) || tests.matches(f)).cloned().collect();
        due.push((Gate::Test, super::narrow::final_argv(&rails.test, &s.grind.append_files, &narrowed)));
    }
    if !rails.docs.is_empty() && !files.is_empty() {
        due.push((Gate::Docs, rails.docs.clone()));
    }
    if due.is_empty() {
        return Ok(GatesResult::Passed);
    }
    let db = project.db_path();
    let sql = GateError::store(&db);
    let redactor = s.secrets.redact_output.then(|| Redactor::new(&p.session));
    let mut locked = false;
    // A holder that keeps the lock through `grind.maxLoops` stops of this session in a row is not
    // waited for again: its lock is taken over and the stop is judged (a forged or stuck holder
    // would otherwise defer every gate for good).
    let max = s.grind.max_loops.max(1);
    let lock_deferrals = TurnStore::new(conn)
        .outcomes(&p.provider, &p.session, max)
        .map_err(sql)?
        .iter()
        .take_while(|(_, _, o)| o.outcome == super::turn::Outcome::Deferred && o.rule != SUBAGENTS_RUNNING)
        .count() as i64;
    let mut took_over: Option<String> = None;
    let result = (|| -> Result<GatesResult, GateError> {
        for (gate, argv) in due {
            let inputs = inputs::inputs(project.root(), &argv, changes.head.as_deref(), &files);
            let previous = GateStore::new(conn).latest_verdict(gate.as_str()).map_err(sql)?;
            let run = match reuse(previous.as_ref(), &inputs, gate, &argv, p, attempt, &files) {
                Some(r) => r,
                None => {
                    if !locked {
                        match GateStore::acquire(conn, Some(&p.provider), Some(&p.session), super::lock_wait()).map_err(sql)? {
                            Ok(()) => locked = true,
                            Err(holder) if lock_deferrals >= max => {
                                GateStore::take_over(conn, Some(&p.provider), Some(&p.session)).map_err(sql)?;
                                locked = true;
                                took_over = Some(format!(
                                    "[tlc: the gate lock was taken over from {} after {lock_deferrals} stop(s) of this session in a row deferred to it (grind.maxLoops = {max})]",
                                    holder.describe()
                                ));
                            }
                            Err(holder) => {
                                let detail = format!(
                                    "the gate lock is held by {}: the {} gate deferred",
                                    holder.describe(),
                                    gate.as_str()
                                );
                                let skipped = GateRun {
                                    provider: Some(p.provider.clone()),
                                    session_id: Some(p.session.clone()),
                                    attempt: Some(attempt),
                                    gate: gate.as_str().into(),
                                    command: argv.clone(),
                                    files: files.clone(),
                                    verdict: "skipped".into(),
                                    category: Some("deferred".into()),
                                    inputs_hash: inputs.hash.clone(),
                                    file_hashes: inputs.files.clone(),
                                    started_at: clock::now_stamp(),
                                    finished_at: Some(clock::now_stamp()),
                                    deferred_to: Some(holder.describe()),
                                    ..GateRun::default()
                                };
                                GateStore::new(conn).insert_run(&skipped).map_err(sql)?;
                                return Ok(GatesResult::Deferred(gate.rule().into(), detail));
                            }
                        }
                    }
                    // A neighbour may have produced this very verdict while the lock was waited for.
                    let previous = GateStore::new(conn).latest_verdict(gate.as_str()).map_err(sql)?;
                    match reuse(previous.as_ref(), &inputs, gate, &argv, p, attempt, &files) {
                        Some(r) => r,
                        None => {
                            let configured = Duration::from_secs(u64::try_from(s.grind.gate_timeout_seconds.max(1)).unwrap_or(300));
                            let left = facts_deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()));
                            let timeout = left.map_or(configured, |l| l.min(configured));
                            let req = RunRequest {
                                gate,
                                argv: argv.clone(),
                                root: project.root(),
                                jail: jail.get(),
                                timeout,
                                provider: Some(p.provider.clone()),
                                session: Some(p.session.clone()),
                                attempt: Some(attempt),
                                files: files.clone(),
                                inputs: inputs.clone(),
                            };
                            let mut run = super::execute(&req, redactor.as_ref());
                            if timeout < configured && run.category.as_deref() == Some("timeout") {
                                run.output_tail = super::runner::last_chars(
                                    &format!(
                                        "{}\n[tlc: cut after {} s, where the client stops waiting for this stop's answer; the stop is held, not let through]",
                                        run.output_tail,
                                        timeout.as_secs()
                                    ),
                                    super::runner::OUTPUT_TAIL_CHARS,
                                );
                            }
                            if let Some(note) = took_over.take() {
                                run.output_tail =
                                    super::runner::last_chars(&format!("{}\n{note}", run.output_tail), super::runner::OUTPUT_TAIL_CHARS);
                            }
                            run
                        }
                    }
                }
            };
            let mut run = run;
            run.id = GateStore::new(conn).insert_run(&run).map_err(sql)?;
            if run.passed() && rails.rules {
                // A proof for the operator's `gate(<name>)`, stamped with HEAD as the run saw it.
                crate::policy::rules::ProofStore::new(conn)
                    .stamp(
                        &clock::now_stamp(),
                        &p.provider,
                        Some(p.session.as_str()).filter(|s| !s.is_empty()),
                        crate::policy::rules::ProofKind::Gate,
                        gate.as_str(),
                        stop_head(project, jail).as_deref(),
                    )
                    .map_err(sql)?;
            }
            if run.passed() {
                if let Some(prev) = previous.as_ref().filter(|r| !r.passed() && !run.reused) {
                    let changed = inputs::changed_between(&prev.file_hashes, &run.file_hashes);
                    if !changed.is_empty() {
                        GateStore::new(conn).add_resolution(prev, &run, &changed).map_err(sql)?;
                    }
                }
                continue;
            }
            let category = run.category.clone().unwrap_or_default();
            if gate == Gate::Docs && s.docs.severity != "deny" {
                advice.push((
                    gate.rule().into(),
                    format!(
                        "tlc docs gate (warn): `{}` exited {}; the stop was let through. Its output:\n{}",
                        run.command.join(" "),
                        run.exit_code.map_or("without a code".into(), |c| c.to_string()),
                        followup::tail_lines(&run.output_tail, 40)
                    ),
                ));
                continue;
            }
            if category == "config" {
                let fp = run.fingerprint.clone().unwrap_or_default();
                // An earlier run with this fingerprint was reported already: once is enough.
                if GateStore::new(conn).fingerprint_seen(&fp, run.id).map_err(sql)? {
                    advice.push((gate.rule().into(), config_advice(gate, &run)));
                    continue;
                }
            }
            return Ok(GatesResult::Failed(Box::new(run), gate));
        }
        Ok(GatesResult::Passed)
    })();
    if locked {
        if let Err(e) = GateStore::new(conn).unlock() {
            return Err(GateError::Store { db, cause: e });
        }
    }
    result
}

/// A reused run: the latest verdict of this gate over the same inputs, recorded again.
fn reuse(
    previous: Option<&GateRun>,
    inputs: &Inputs,
    gate: Gate,
    argv: &[String],
    p: &Pending,
    attempt: i64,
    files: &[String],
) -> Option<GateRun> {
    let prev = previous?;
    let hash = inputs.hash.as_ref()?;
    if prev.inputs_hash.as_ref() != Some(hash) {
        return None;
    }
    let now = clock::now_stamp();
    Some(GateRun {
        id: 0,
        provider: Some(p.provider.clone()),
        session_id: Some(p.session.clone()),
        attempt: Some(attempt),
        gate: gate.as_str().into(),
        command: argv.to_vec(),
        files: files.to_vec(),
        reused: true,
        reused_from: Some(prev.reused_from.unwrap_or(prev.id)),
        started_at: now.clone(),
        finished_at: Some(now),
        duration_ms: 0,
        deferred_to: None,
        ..prev.clone()
    })
}

fn config_advice(gate: Gate, run: &GateRun) -> String {
    format!(
        "tlc: the {} gate command `{}` cannot run (config, not a code problem; it was reported once and no longer blocks). The operator fixes it with `{}`. Its output ends: {}",
        gate.as_str(),
        run.command.join(" "),
        gate.setter(),
        followup::tail_lines(&run.output_tail, 3)
    )
}

fn shown_files(files: &[String]) -> String {
    let mut s: Vec<String> = files.iter().take(8).cloned().collect();
    if files.len() > 8 {
        s.push(format!("and {} more", files.len() - 8));
    }
    s.join(", ")
}

/// Stagnation: this run's failure fingerprint is the previous attempt's.
fn stagnates(previous_attempt: i64, last_fp: Option<&str>, run: &GateRun) -> bool {
    previous_attempt > 0 && last_fp.is_some() && last_fp == run.fingerprint.as_deref()
}

fn gate_block(
    conn: &Connection,
    config: &Config,
    run: &GateRun,
    gate: Gate,
    at: Attempt,
    retry: Retry<'_>,
    lessons: Option<String>,
) -> rusqlite::Result<Block> {
    let Attempt { this: attempt, max } = at;
    let Retry {
        turn,
        last_fp,
        previous_attempt,
    } = retry;
    let s = &config.settings;
    let category = run.category.clone().unwrap_or_else(|| "verification".into());
    let argv = run.command.join(" ");
    let exit = run.exit_code.map_or("no exit code".to_string(), |c| format!("exit {c}"));
    let mut tried = match category.as_str() {
        "timeout" => format!(
            "`{argv}` ran past grind.gateTimeoutSeconds = {} s and was killed with its process group",
            s.grind.gate_timeout_seconds
        ),
        "config" => format!("`{argv}` could not run ({exit})"),
        _ => format!("`{argv}` failed ({exit}) in {} ms", run.duration_ms),
    };
    if run.reused {
        tried.push_str(" — the verdict of an identical earlier run (same HEAD, argv and changed files), reused without running it again");
    }
    tried.push_str(&format!("; changed files: {}.", shown_files(&run.files)));
    let (need, next) = match category.as_str() {
        "config" => (
            format!(
                "nothing from the code: the {} gate command itself cannot run, so this is not a code problem — do not edit code or tests for it. The operator fixes the command from a terminal: `{}`.",
                gate.as_str(),
                gate.setter()
            ),
            format!(
                "tell the operator that `{argv}` cannot run and that `{}` sets the right one; this stop will not block again for the same failure.",
                gate.setter()
            ),
        ),
        "timeout" => (
            format!("`{argv}` to finish within {} s.", s.grind.gate_timeout_seconds),
            "find what hangs (a test waiting on input, a server that never stops, an endless loop) and fix it; run the command yourself with a timeout before you stop again.".to_string(),
        ),
        _ => (
            format!("`{argv}` to pass. Fix what the output shows; do not delete, skip or weaken tests or checks to get there."),
            format!("fix gap 1 first, run `{argv}` yourself, and stop again only once it passes."),
        ),
    };
    let mut gaps = Gap::from_findings(gate.as_str(), &category, &run.findings);
    if gaps.is_empty() {
        gaps.push(Gap {
            gate: gate.as_str().into(),
            category: category.clone(),
            summary: format!("`{argv}` {exit}; see the output below"),
        });
    }
    let previous_gaps = if s.intelligence.gap_feedback && previous_attempt > 0 {
        turn.map(|t| {
            t.open_gaps
                .iter()
                .filter(|g| !gaps.iter().any(|n| n.summary == g.summary))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
    } else {
        Vec::new()
    };
    let history = match &run.fingerprint {
        Some(fp) => GateStore::new(conn)
            .resolution(fp)?
            .map(|(files, at)| followup::history_line(&files, &at)),
        None => None,
    };
    let repeats = stagnates(previous_attempt, last_fp, run).then_some(previous_attempt as usize);
    // Issue 52: the same failure although the code changed says so, for the command may be at fault.
    let changed_since = match repeats {
        Some(_) if !run.reused => GateStore::new(conn)
            .verdict_before(gate.as_str(), run.id)?
            .map(|prev| super::inputs::changed_between(&prev.file_hashes, &run.file_hashes))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let f = FollowUp {
        gate: gate.as_str().into(),
        category: category.clone(),
        attempt: attempt as usize,
        max: max as usize,
        headline: None,
        tried,
        need,
        gaps: gaps.clone(),
        previous_gaps,
        repeats_attempt: repeats,
        changed_since,
        fingerprint: run.fingerprint.clone(),
        history,
        next: next.clone(),
        output_tail: run.output_tail.clone(),
        level: followup::level(attempt as usize, s.intelligence.progressive_context),
        lessons,
    };
    let category = if repeats.is_some() { "stagnation".to_string() } else { category };
    Ok(Block {
        rule: gate.rule().into(),
        fingerprint: run.fingerprint.clone(),
        text: f.render(),
        headline: format!("{} failed [{category}]", gate.as_str()),
        gaps,
        next,
        category,
    })
}

fn ship_check(
    ledger: &Connection,
    cx: &StopContext<'_, '_>,
    p: &Pending,
    claim: &str,
    changes: &Changes,
    base_at: &str,
    at: Attempt,
) -> rusqlite::Result<Option<Block>> {
    let (project, config) = (cx.project, cx.config);
    let Attempt { this: attempt, max } = at;
    let s = &config.settings.ship_gate;
    let files = changes.paths();
    let evidence_dir = Some(s.evidence_dir.clone());
    let block = |rule: &str, headline: &str, tried: String, need: String, gaps: Vec<Gap>, next: String| {
        let f = FollowUp {
            gate: "ship".into(),
            category: "ship-evidence".into(),
            attempt: attempt as usize,
            max: max as usize,
            headline: Some(headline.to_string()),
            tried,
            need,
            gaps: gaps.clone(),
            next: next.clone(),
            level: 1,
            ..FollowUp::default()
        };
        Block {
            rule: rule.into(),
            fingerprint: None,
            text: f.render(),
            headline: headline.into(),
            gaps,
            next,
            category: "ship-evidence".into(),
        }
    };
    if s.empty_diff_anti_ship && files.is_empty() {
        let detail = "HARNESS_SHIP_CLAIM with no file diff".to_string();
        ship::append(
            ledger,
            &ledger_row(p, "challenge", Some(claim.into()), Some(detail.clone()), files, evidence_dir),
            None,
        )?;
        return Ok(Some(block(
            "empty-diff-anti-ship",
            "HARNESS_SHIP_CLAIM with no file diff",
            format!("read this turn's changes against its base: no file changed, yet the reply claims {claim:?}."),
            "either the change the claim describes, or no claim: omit the HARNESS_SHIP_CLAIM line when nothing was meant to change.".into(),
            vec![Gap {
                gate: "ship".into(),
                category: "ship-evidence".into(),
                summary: "a ship claim with an empty diff".into(),
            }],
            "make the change the claim describes, or answer again without the HARNESS_SHIP_CLAIM line.".into(),
        )));
    }
    if !s.enabled {
        return Ok(None);
    }
    let runtime = PathSet::new(&s.runtime_path_prefixes);
    let excludes = PathSet::new(&s.runtime_path_excludes);
    let runtime_files: Vec<String> = files
        .iter()
        .filter(|f| runtime.matches(f) && !excludes.matches(f))
        .cloned()
        .collect();
    if runtime_files.is_empty() {
        ship::append(
            ledger,
            &ledger_row(
                p,
                "pass",
                Some(claim.into()),
                Some("no runtime file changed".into()),
                files,
                evidence_dir,
            ),
            None,
        )?;
        return Ok(None);
    }
    let root = project.root();
    let newest = runtime_files
        .iter()
        .filter_map(|f| root.join(f).symlink_metadata().ok()?.modified().ok())
        .max()
        .or_else(|| clock::parse(base_at).ok().map(ship::system_time))
        .unwrap_or(std::time::UNIX_EPOCH);
    let max_age = Duration::from_secs(u64::try_from(s.evidence_max_age_hours.max(1)).unwrap_or(48) * 3600);
    match ship::find_evidence(root, &s.evidence_dir, newest, max_age, ship::system_time(clock::now())) {
        ship::Evidence::Found(path) => {
            let rel = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            ship::append(
                ledger,
                &ledger_row(
                    p,
                    "pass",
                    Some(claim.into()),
                    Some(format!("evidence {rel}")),
                    runtime_files,
                    evidence_dir,
                ),
                None,
            )?;
            Ok(None)
        }
        ship::Evidence::Missing(missing) => {
            ship::append(
                ledger,
                &ledger_row(
                    p,
                    "challenge",
                    Some(claim.into()),
                    Some(missing.clone()),
                    runtime_files.clone(),
                    evidence_dir,
                ),
                None,
            )?;
            Ok(Some(block(
                "ship-gate",
                "HARNESS_SHIP_CLAIM without fresh evidence",
                format!(
                    "looked for a PASS in {}/*/90-verdict.txt newer than the runtime files this turn changed ({}) and younger than {} h.",
                    s.evidence_dir,
                    shown_files(&runtime_files),
                    s.evidence_max_age_hours
                ),
                format!(
                    "evidence: run the verification, and write PASS (first word) to {}/<run>/90-verdict.txt after your last runtime change.",
                    s.evidence_dir
                ),
                vec![Gap {
                    gate: "ship".into(),
                    category: "ship-evidence".into(),
                    summary: missing,
                }],
                "verify the change, record the verdict, then claim again — or drop the claim if it is not ready.".into(),
            )))
        }
    }
}

fn written_block(config: &Config, f: &written::Found, attempt: i64, max: i64, changes: &Changes) -> Block {
    let gaps: Vec<Gap> = f
        .findings
        .iter()
        .map(|x| Gap {
            gate: f.rule.into(),
            category: f.rule.into(),
            summary: x.clone(),
        })
        .collect();
    let mut tried = format!("{}; changed files: {}.", f.tried, shown_files(&changes.paths()));
    if let Some(note) = &f.note {
        tried.push_str(&format!(" Note: {note}."));
    }
    let fu = FollowUp {
        gate: f.rule.into(),
        category: f.rule.into(),
        attempt: attempt as usize,
        max: max as usize,
        tried,
        need: f.need.clone(),
        gaps: gaps.clone(),
        next: f.next.clone(),
        level: followup::level(attempt as usize, config.settings.intelligence.progressive_context),
        ..FollowUp::default()
    };
    Block {
        rule: f.rule.into(),
        fingerprint: Some(crate::hashing::sha256_hex(f.findings.join("\n").as_bytes())),
        text: fu.render(),
        headline: format!("{} failed", f.rule),
        gaps,
        next: f.next.clone(),
        category: f.rule.into(),
    }
}

/// The Stop's answer when git would hang on a file planted in `.git` (see [`UNREADABLE_TREE`]).
fn unreadable_tree_block(config: &Config, why: &str, attempt: i64, max: i64) -> Block {
    let next = "restore the repository's git files (a regular `.git/HEAD`, index and config), then stop again.".to_string();
    let gap = Gap {
        gate: UNREADABLE_TREE.into(),
        category: UNREADABLE_TREE.into(),
        summary: why.to_string(),
    };
    let f = FollowUp {
        gate: UNREADABLE_TREE.into(),
        category: UNREADABLE_TREE.into(),
        attempt: attempt as usize,
        max: max as usize,
        headline: Some("git cannot say what this turn changed".into()),
        tried: format!("to ask git which files this turn changed, for the stop checks: {why}."),
        need: "a repository git can read without waiting; the stop checks run on its diff.".into(),
        gaps: vec![gap.clone()],
        next: next.clone(),
        level: followup::level(attempt as usize, config.settings.intelligence.progressive_context),
        ..FollowUp::default()
    };
    Block {
        rule: UNREADABLE_TREE.into(),
        fingerprint: Some(crate::hashing::sha256_hex(why.as_bytes())),
        text: f.render(),
        headline: format!("the stop checks cannot read the diff: {why}"),
        gaps: vec![gap],
        next,
        category: UNREADABLE_TREE.into(),
    }
}

/// The rule of a stop held because its checks could not run (git failed, the state could not be
/// read): an outcome `fault` is never an allow while stop checks are on.
pub(crate) const STOP_FAULT: &str = "fault";

/// The block of a stop whose checks failed to run: what failed, and that the operator fixes it.
fn fault_block(config: &Config, why: &str, attempt: i64, max: i64) -> Block {
    let next = "if your own work broke what the stop checks read (the repository's git files, tlc's state), restore it; otherwise tell the operator the stop checks cannot run and why, then stop again.".to_string();
    let gap = Gap {
        gate: STOP_FAULT.into(),
        category: STOP_FAULT.into(),
        summary: why.to_string(),
    };
    let f = FollowUp {
        gate: STOP_FAULT.into(),
        category: STOP_FAULT.into(),
        attempt: attempt as usize,
        max: max as usize,
        headline: Some("the stop checks could not run".into()),
        tried: format!("to run this repository's stop checks: {why}."),
        need: "stop checks that can run; a turn is not let through unchecked because a check failed to run.".into(),
        gaps: vec![gap.clone()],
        next: next.clone(),
        level: followup::level(attempt as usize, config.settings.intelligence.progressive_context),
        ..FollowUp::default()
    };
    Block {
        rule: STOP_FAULT.into(),
        fingerprint: Some(crate::hashing::sha256_hex(why.as_bytes())),
        text: f.render(),
        headline: format!("the stop checks could not run: {why}"),
        gaps: vec![gap],
        next,
        category: STOP_FAULT.into(),
    }
}

fn finish_block(p: &mut Pending, blocks: Vec<Block>, attempt: i64) {
    let text = blocks.iter().map(|b| b.text.as_str()).collect::<Vec<_>>().join("\n");
    let first = &blocks[0];
    for b in &blocks {
        p.outcomes.push(StopOutcome {
            outcome: Outcome::Block,
            rule: b.rule.clone(),
            attempt,
            fingerprint: b.fingerprint.clone(),
            detail: Some(b.headline.clone()),
        });
    }
    p.decision = Some(Decision {
        permission: Permission::Deny,
        rule: first.rule.clone(),
        reason: Some(format!("BLOCKED: {}", first.headline)),
        user_note: None,
        follow_up: Some(text),
        context: None,
    });
    p.stop_state = Some(StopState {
        attempt,
        fingerprint: first.fingerprint.clone(),
        result: "block".into(),
        rule: first.rule.clone(),
        gaps: blocks.iter().flat_map(|b| b.gaps.iter().cloned()).collect(),
        next_action: Some(first.next.clone()),
        category: Some(first.category.clone()),
    });
}
