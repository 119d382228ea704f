//! The intelligence rails of a stop (issue 33, item 4), each honoured by its switch:
//!
//! - `intelligence.autopilot`: a blocked stop's follow-up ends with ordered `AUTOPILOT:` steps,
//!   built by tlc from the failing gaps' category — never from anything the model wrote;
//! - `intelligence.budgetContinue`: the block at attempt `grind.maxLoops - 1`, with gaps open,
//!   says keep working and do not summarise;
//! - `intelligence.idleTurnGate` (rule `idle-turn`): a turn that ends with gaps open, no tool event
//!   recorded since its base and HEAD where it was, is blocked — counted from `events`, never from
//!   the reply's words.

use super::followup::Gap;

pub(crate) const IDLE_TURN: &str = "idle-turn";

/// Steps shown at most, one per gap.
const MAX_STEPS: usize = 5;

/// The `AUTOPILOT:` steps for a block whose first gap has its category: what to do, in order,
/// built by tlc from the category and from whether a command can be run again — never from
/// anything the model wrote. The gaps themselves are listed once, above it (issue 52: the steps
/// used to repeat them, and named the rule by its internal name), and the block's own `NEXT:` is
/// the next action, so it is not said twice.
pub(crate) fn autopilot(gaps: &[Gap], rerunnable: bool) -> String {
    let category = gaps.first().map_or("verification", |g| g.category.as_str());
    let mut steps: Vec<String> = Vec::new();
    match category {
        "config" => {
            steps.push("Do not edit code or tests for this: the check's own command cannot run.".into());
            steps.push("Tell the operator which command fails and how they set it (NEED above).".into());
        }
        "timeout" => {
            steps.push("Find what hangs: a test waiting on input, a server that never stops, an endless loop.".into());
            steps.push("Fix it, and run the command yourself under a timeout.".into());
        }
        "plan-scope" => {
            steps.push("Keep to the declared plan: undo a change it does not cover, or justify it with `HARNESS_PLAN_DEVIATION: <path> — <reason>`.".into());
        }
        "stagnation" => {
            steps.push("The same failure as the attempt before: change approach, do not repeat the last change.".into());
        }
        _ => {}
    }
    if !gaps.is_empty() && category != "config" {
        steps.push(if gaps.len() == 1 {
            "Close the gap listed above.".into()
        } else {
            format!("Close the {} gaps listed above, gap 1 first.", gaps.len())
        });
    }
    if rerunnable && !matches!(category, "config" | "plan-scope") {
        steps.push("Run the command TRIED names yourself and read its result.".into());
    }
    steps.push(if category == "plan-scope" {
        "Stop again once every changed file is in the plan or justified.".into()
    } else {
        "Stop again only when it passes.".into()
    });
    let mut out = String::from("AUTOPILOT:\n");
    for (i, s) in steps.iter().enumerate() {
        out.push_str(&format!("{}. {s}\n", i + 1));
    }
    out.trim_end().to_string()
}

/// The budget line: this block is attempt `attempt` of `max`, with work open.
pub(crate) fn budget_continue(attempt: i64, max: i64) -> String {
    format!(
        "BUDGET: attempt {attempt} of grind.maxLoops = {max}, and the work above is still open. Keep working on it now: do not summarise, do not hand off, do not end the turn with a report."
    )
}

/// The follow-up of an idle turn: `gaps` were open and nothing was done about them.
pub(crate) fn idle_turn_text(gaps: &[Gap], attempt: i64, max: i64) -> String {
    let mut s = format!(
        "BLOCKED: idle turn (attempt {attempt}/{max}) [{IDLE_TURN}].\nTRIED: nothing this turn: tlc recorded no tool call, no edit and no commit since the turn began, and these gaps are still open.\nGAPS:\n"
    );
    for (i, g) in gaps.iter().take(MAX_STEPS).enumerate() {
        s.push_str(&format!("{}. [{}/{}] {}\n", i + 1, g.gate, g.category, one_line(&g.summary)));
    }
    s.push_str("NEXT: work on gap 1 with your tools (read, edit, run the check); a reply alone does not close a gap.");
    s
}

fn one_line(s: &str) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 200 {
        format!("{}…", flat.chars().take(200).collect::<String>())
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(category: &str, summary: &str) -> Gap {
        Gap {
            gate: "test".into(),
            category: category.into(),
            summary: summary.into(),
        }
    }

    #[test]
    fn autopilot_is_ordered_and_names_no_gap_or_rule_twice() {
        let a = autopilot(
            &[gap("verification", "test adds_two FAILED"), gap("verification", "assert\nfailed")],
            true,
        );
        assert_eq!(
            a,
            "AUTOPILOT:\n1. Close the 2 gaps listed above, gap 1 first.\n2. Run the command TRIED names yourself and read its result.\n3. Stop again only when it passes."
        );
        assert!(
            !a.contains("adds_two") && !a.contains("grind-") && !a.contains("NEXT_ACTION"),
            "{a}"
        );
        let c = autopilot(&[gap("config", "cannot run")], true);
        assert!(c.contains("1. Do not edit code") && !c.contains("Run the command"), "{c}");
        let p = autopilot(&[gap("plan-scope", "x")], false);
        assert!(
            p.ends_with("Stop again once every changed file is in the plan or justified."),
            "{p}"
        );
    }

    #[test]
    fn idle_and_budget_texts() {
        let t = idle_turn_text(&[gap("verification", "x")], 1, 3);
        assert!(t.contains(IDLE_TURN) && t.contains("1. [test/verification] x"));
        assert!(budget_continue(2, 3).contains("do not summarise"));
    }
}
