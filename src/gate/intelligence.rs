//! The intelligence rails of a stop (issue 33, item 4), each honoured by its switch:
//!
//! - `intelligence.autopilot`: a blocked stop's follow-up ends with ordered `AUTOPILOT:` steps and
//!   one `NEXT_ACTION:`, built by tlc from the failing rule, its gaps and its category — never
//!   from anything the model wrote;
//! - `intelligence.budgetContinue`: the block at attempt `grind.maxLoops - 1`, with gaps open,
//!   says keep working and do not summarise;
//! - `intelligence.idleTurnGate` (rule `idle-turn`): a turn that ends with gaps open, no tool event
//!   recorded since its base and HEAD where it was, is blocked — counted from `events`, never from
//!   the reply's words.

use super::followup::Gap;

pub(crate) const IDLE_TURN: &str = "idle-turn";

/// Steps shown at most, one per gap.
const MAX_STEPS: usize = 5;

/// The `AUTOPILOT:` steps and `NEXT_ACTION:` line for a block of `rule` whose first gap has
/// `category`; `next` is tlc's own next step for that rule.
pub(crate) fn autopilot(rule: &str, gaps: &[Gap], next: &str) -> String {
    let category = gaps.first().map_or("verification", |g| g.category.as_str());
    let mut steps: Vec<String> = Vec::new();
    match category {
        "config" => {
            steps.push("Do not edit code or tests for this: the check's own command cannot run.".into());
            steps.push("Tell the operator which command fails and the key that sets it (NEED above).".into());
        }
        "timeout" => {
            steps.push("Find what hangs: a test waiting on input, a server that never stops, an endless loop.".into());
            steps.push("Fix it, and run the check yourself under a timeout.".into());
        }
        "plan-scope" => {
            steps.push("Keep to the declared plan: undo a change it does not cover, or justify it with `HARNESS_PLAN_DEVIATION: <path> — <reason>`.".into());
        }
        "stagnation" => {
            steps.push("The same failure as the attempt before: change approach, do not repeat the last change.".into());
        }
        _ => {}
    }
    for (i, g) in gaps.iter().take(MAX_STEPS).enumerate() {
        steps.push(format!("Close gap {}: [{}/{}] {}", i + 1, g.gate, g.category, one_line(&g.summary)));
    }
    if gaps.len() > MAX_STEPS {
        steps.push(format!("Close the other {} gaps listed above.", gaps.len() - MAX_STEPS));
    }
    if !matches!(category, "config" | "plan-scope") {
        steps.push(format!("Run the check behind `{rule}` yourself and read its result."));
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
    out.push_str(&format!("NEXT_ACTION: {}", one_line(next)));
    out
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
    fn autopilot_is_ordered_and_built_from_the_gaps() {
        let a = autopilot(
            "grind-test",
            &[gap("verification", "test adds_two FAILED"), gap("verification", "assert\nfailed")],
            "fix gap 1 first",
        );
        assert!(a.starts_with("AUTOPILOT:\n1. Close gap 1: [test/verification] test adds_two FAILED\n2. Close gap 2: [test/verification] assert failed\n3. Run"), "{a}");
        assert!(a.ends_with("NEXT_ACTION: fix gap 1 first"), "{a}");
        let c = autopilot("grind-test", &[gap("config", "cannot run")], "tell the operator");
        assert!(c.contains("1. Do not edit code") && !c.contains("Run the check"), "{c}");
        let many: Vec<Gap> = (0..9).map(|i| gap("verification", &format!("g{i}"))).collect();
        assert!(autopilot("r", &many, "n").contains("Close the other 4 gaps"));
    }

    #[test]
    fn idle_and_budget_texts() {
        let t = idle_turn_text(&[gap("verification", "x")], 1, 3);
        assert!(t.contains(IDLE_TURN) && t.contains("1. [test/verification] x"));
        assert!(budget_continue(2, 3).contains("do not summarise"));
    }
}
