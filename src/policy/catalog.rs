//! Every rail this tlc knows, with its switch and whether it acts: the one list `tlc status` and
//! `tlc doctor` print, so neither can call a rail "on" that does not act.

use super::floor::Rule;
use super::Posture;
use crate::config::Settings;

/// One rail as the operator should read it.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct RailState {
    pub rail: &'static str,
    /// `floor` (no switch), `always-on` (no switch) or `configurable`.
    pub kind: &'static str,
    /// The config key that switches it (`(none)` for the floor and the always-on checks).
    pub key: &'static str,
    /// The switch's value (always true for the floor and the always-on checks).
    pub on: bool,
    /// Whether this tlc enforces the rail on the hook path at all.
    pub enforced: bool,
    /// What else a switched-on, enforced rail needs before it can decide anything (the grind
    /// with no command to run), or `None`.
    pub needs: Option<&'static str>,
    /// `on && enforced` with nothing missing: the rail decides something now.
    pub acts: bool,
}

/// The switch of a rail no key turns off: the floor and the always-on checks.
pub(crate) const NO_SWITCH: &str = "(none)";

fn row(rail: &'static str, kind: &'static str, key: &'static str, on: bool, enforced: bool) -> RailState {
    RailState {
        rail,
        kind,
        key,
        on,
        enforced,
        needs: None,
        acts: on && enforced,
    }
}

/// `r`, acting only once `missing` is `None`.
fn needing(mut r: RailState, missing: Option<&'static str>) -> RailState {
    r.needs = missing;
    r.acts = r.acts && missing.is_none();
    r
}

/// The rails, given the loaded settings and the running posture.
pub(crate) fn rails(s: &Settings, posture: Posture) -> Vec<RailState> {
    let mut out: Vec<RailState> = Rule::ALL.iter().map(|r| row(r.as_str(), "floor", NO_SWITCH, true, true)).collect();
    out.push(row("policy integrity", "always-on", NO_SWITCH, true, true));
    out.push(row("edit collision", "always-on", NO_SWITCH, true, true));
    out.push(row(super::work_loss::RULE, "always-on", NO_SWITCH, true, true));
    out.push(row(
        "secret redaction",
        "configurable",
        "secrets.redactOutput",
        s.secrets.redact_output,
        true,
    ));
    out.push(row(
        "shell-catastrophic",
        "configurable",
        "shell.catastrophicAsk",
        s.shell.catastrophic_ask,
        true,
    ));
    out.push(row(
        "shell-stall",
        "configurable",
        "shell.stallDetection",
        s.shell.stall_detection,
        true,
    ));
    // Issue 34: untrusted content is framed on the after-tool events that carry context
    // (policy::untrusted); `untrusted-command` asks before a shell command only in enforce.
    out.push(row(
        "untrusted-content",
        "configurable",
        "untrustedContent.enabled",
        s.untrusted_content.enabled,
        true,
    ));
    out.push(row(
        "untrusted-command",
        "configurable",
        "untrustedContent.mode (enforce)",
        s.untrusted_content.enabled && s.untrusted_content.mode == "enforce",
        true,
    ));
    out.push(row(
        "shell-posture-paired",
        "configurable",
        "mode (paired)",
        posture == Posture::Paired,
        true,
    ));
    // The stop checks (issue 17, issue 18 item 6): each acts at Claude Code's Stop and Cursor's
    // stop (gate::stop), on what the turn changed.
    let grind_commands = !s.grind.lint_command.is_empty() || !s.grind.test_command.is_empty();
    out.push(needing(
        row("grind (lint/test gates)", "configurable", "grind.enabled", s.grind.enabled, true),
        (!grind_commands).then_some("a command to run: grind.lintCommand or grind.testCommand"),
    ));
    out.push(row("docs gate", "configurable", "docs.command", !s.docs.command.is_empty(), true));
    out.push(row("ship gate", "configurable", "shipGate.enabled", s.ship_gate.enabled, true));
    out.push(row(
        "empty-diff anti-ship",
        "configurable",
        "shipGate.emptyDiffAntiShip",
        s.ship_gate.empty_diff_anti_ship,
        true,
    ));
    // Issue 34: the plan gate acts at a stop (gate::plan); it needs the turn to declare a plan.
    out.push(row("plan gate", "configurable", "planGate.enabled", s.plan_gate.enabled, true));
    // Issue 34: the operator's rule files, on acting events (rails::operator_rule) and at a stop
    // (gate::stop); with no active rule file it decides nothing (`count_rules`).
    out.push(row(OPERATOR_RULES, "configurable", "rules.enabled", s.rules.enabled, true));
    out.push(row("comment policy", "configurable", "comments.enabled", s.comments.enabled, true));
    out.push(row(
        "duplication",
        "configurable",
        "duplication.enabled",
        s.duplication.enabled,
        true,
    ));
    out.push(row(
        "supply chain",
        "configurable",
        "supplyChain.enabled",
        s.supply_chain.enabled,
        true,
    ));
    // The subagent rails (issue 33): on a spawn, and on a read-only subagent's calls.
    out.push(row(
        "subagent-blocked-pattern",
        "always-on",
        "subagents.blockedPatterns",
        true,
        true,
    ));
    out.push(row(
        "subagent-model-required",
        "configurable",
        "subagents.requireModel",
        s.subagents.require_model,
        true,
    ));
    out.push(needing(
        row(
            "subagent-allowlist",
            "configurable",
            "subagents.enforceAllowlist",
            s.subagents.enforce_allowlist,
            true,
        ),
        s.subagents
            .allowed_models
            .iter()
            .all(|m| m.trim().is_empty())
            .then_some("a model in subagents.allowedModels (an empty list enforces nothing)"),
    ));
    out.push(row(
        "subagent-min-effort",
        "configurable",
        "subagents.minEffort",
        s.subagents.min_effort != "off",
        true,
    ));
    out.push(row(
        "subagent-parent-fast",
        "configurable",
        "subagents.blockParentFast",
        s.subagents.block_parent_fast,
        true,
    ));
    out.push(row(
        "subagent-read-only",
        "configurable",
        "subagents.readOnlyTypes",
        s.subagents.read_only_types.iter().any(|t| !t.trim().is_empty()),
        true,
    ));
    out.push(row(
        "idle turn gate",
        "configurable",
        "intelligence.idleTurnGate",
        s.intelligence.idle_turn_gate,
        true,
    ));
    // The intelligence rails of a stop (issue 33: gate::intelligence, gate::stop): each works on
    // a blocked stop, so each needs a stop rail that can block.
    let blocker = (!can_block_a_stop(s)).then_some(BLOCKING_STOP_RAIL);
    out.push(needing(
        row(
            "failure classification",
            "configurable",
            "intelligence.failureClassification",
            s.intelligence.failure_classification,
            true,
        ),
        blocker,
    ));
    out.push(needing(
        row(
            "autopilot",
            "configurable",
            "intelligence.autopilot",
            s.intelligence.autopilot,
            true,
        ),
        blocker,
    ));
    out.push(needing(
        row(
            "budget continue",
            "configurable",
            "intelligence.budgetContinue",
            s.intelligence.budget_continue,
            true,
        ),
        blocker.or((s.grind.max_loops < 2)
            .then_some("grind.maxLoops of 2 or more (it speaks at attempt grind.maxLoops - 1, a block's attempt is 1 or more)")),
    ));
    // Observation mode (gate::observe): records a reading of a rail that is off; it never decides.
    let observable = s.observe.rails.iter().any(|n| n.trim().eq_ignore_ascii_case("comments"));
    out.push(needing(
        row("observation", "configurable", "observe.enabled", s.observe.enabled, true),
        if !observable {
            Some("a rail with a checker in observe.rails (only comments has one)")
        } else if s.comments.enabled {
            Some("comments.enabled off: an enforcing rail is not observed")
        } else {
            None
        },
    ));
    // Injected at session start and in a blocked stop's follow-up (gate::lessons).
    out.push(row(
        "lessons",
        "configurable",
        "intelligence.lessons.enabled",
        s.intelligence.lessons.enabled,
        true,
    ));
    out
}

/// The operator rules' row.
pub(crate) const OPERATOR_RULES: &str = "operator rules";

/// The operator rules' row once the rule files are counted (`policy::rules::load`): switched on
/// with no active rule, it decides nothing, and says what it needs.
pub(crate) fn count_rules(rows: &mut [RailState], active: usize) {
    for r in rows.iter_mut().filter(|r| r.rail == OPERATOR_RULES) {
        *r = needing(
            r.clone(),
            (active == 0).then_some("an active rule file in $TLC_HOME/rules/ or .tlc/harness/rules/ (`tlc rules` lists them)"),
        );
    }
}

/// What the intelligence rails need when no stop rail can block.
const BLOCKING_STOP_RAIL: &str = "a stop rail that can block: grind.enabled with a command, docs.command with docs.severity = \"deny\", shipGate.enabled, shipGate.emptyDiffAntiShip, comments.enabled, duplication.enabled or supplyChain.enabled";

/// Whether some stop rail can block a stop (`gate::stop`'s rails; a docs gate that only warns
/// never blocks).
fn can_block_a_stop(s: &Settings) -> bool {
    let grind = s.grind.enabled && (!s.grind.lint_command.is_empty() || !s.grind.test_command.is_empty());
    grind
        || (!s.docs.command.is_empty() && s.docs.severity == "deny")
        || s.ship_gate.enabled
        || s.ship_gate.empty_diff_anti_ship
        || s.comments.enabled
        || s.duplication.enabled
        || s.supply_chain.enabled
}

/// The rails a stop runs (gate::stop), by name as [`rails`] lists them.
const STOP_RAILS: &[&str] = &[
    "grind (lint/test gates)",
    "docs gate",
    "ship gate",
    "empty-diff anti-ship",
    "plan gate",
    OPERATOR_RULES,
    "comment policy",
    "duplication",
    "supply chain",
    "idle turn gate",
];

/// The stop rails of `rails` that act now: what `tlc status` calls the stop checks. Empty on a
/// fresh install, where a stop is let through with nothing checked.
pub(crate) fn acting_stop_checks(rails: &[RailState]) -> Vec<&'static str> {
    rails
        .iter()
        .filter(|r| r.acts && STOP_RAILS.contains(&r.rail))
        .map(|r| r.rail)
        .collect()
}

/// Whether the rail waits only for another rail to be switched on (an intelligence rail with no
/// stop rail that can block): dormant, not misconfigured, so `tlc doctor` does not warn on it.
pub(crate) fn waits_for_a_stop_rail(r: &RailState) -> bool {
    r.needs == Some(BLOCKING_STOP_RAIL)
}

/// How a row reads in a table: what acts, what is off, what this tlc does not enforce yet.
pub(crate) fn acts_text(r: &RailState) -> String {
    if let (true, true, Some(missing)) = (r.on, r.enforced, r.needs) {
        return format!("no (switched on, but it needs {missing})");
    }
    match (r.on, r.enforced) {
        (true, true) => "yes",
        (false, true) => "no (switched off)",
        (true, false) => "no (switched on, but this tlc does not enforce it yet)",
        (false, false) => "no (off; not enforced by this tlc yet)",
    }
    .to_string()
}
