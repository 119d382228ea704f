//! The plan gate (`planGate.enabled`): a turn declares the paths it means to change with the
//! protocol line `HARNESS_PLAN: <paths>` and justifies a change outside them with
//! `HARNESS_PLAN_DEVIATION: <path> — <reason>`, each at the start of a line of assistant text —
//! read like ship claims (`ship::visit_assistant_text`, Claude's `last_assistant_message`,
//! Cursor's response text), never from a tool result or input. A deviation without a reason is
//! refused: restating the file just touched would make the gate a formality. Plan and deviations
//! stay on the session's `turns` row for `planGate.windowMinutes`; paths match with
//! [`PathSet`]. At a stop, a changed file that no plan path covers and no accepted deviation
//! justifies blocks (rule [`RULE`]). A turn that declares no plan is not gated.

use crate::pathtext::PathSet;

pub(crate) const RULE: &str = "plan-gate";
pub(crate) const PLAN_MARKER: &str = "HARNESS_PLAN:";
pub(crate) const DEVIATION_MARKER: &str = "HARNESS_PLAN_DEVIATION:";
/// Paths a plan keeps; the rest of a longer plan is counted, and the follow-up says so.
pub(crate) const MAX_PLAN_PATHS: usize = 500;
/// Deviations kept for a plan's window.
pub(crate) const MAX_DEVIATIONS: usize = 500;
/// A longer path or reason is cut to this many characters.
const MAX_ENTRY_CHARS: usize = 400;
/// Files a follow-up names; the rest are counted.
pub(crate) const SHOWN_FILES: usize = 10;

/// One `HARNESS_PLAN_DEVIATION` line: a refused one has no reason.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Deviation {
    pub path: String,
    pub reason: Option<String>,
    pub at: String,
}

/// A session's plan, as the `turns` row keeps it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Plan {
    /// The declared paths, at most [`MAX_PLAN_PATHS`].
    pub paths: Vec<String>,
    /// When a plan line was last read.
    pub at: Option<String>,
    /// Distinct paths the plan lines named, kept or not.
    pub named: usize,
    pub deviations: Vec<Deviation>,
}

fn cut(text: &str) -> String {
    text.chars().take(MAX_ENTRY_CHARS).collect()
}

/// `rest` as a deviation: the path, and the reason after a dash (`—`, `–`, ` -- ` or ` - `).
fn deviation(rest: &str) -> Option<(String, Option<String>)> {
    let rest = rest.trim();
    let split = ["—", "–", " -- ", " - "]
        .iter()
        .filter_map(|sep| rest.find(sep).map(|i| (i, sep.len())))
        .min();
    let (path, reason) = match split {
        Some((i, n)) => (rest[..i].trim(), rest[i + n..].trim()),
        None => (rest, ""),
    };
    let path = path.trim_matches(['`', '"', '\'']);
    if path.is_empty() {
        return None;
    }
    let reason = reason.trim_end_matches('.');
    // Naming the path again, or nothing, is no reason.
    let given = !reason.is_empty() && reason.trim_matches(['`', '"', '\'']) != path;
    Some((cut(path), given.then(|| cut(reason))))
}

impl Plan {
    /// Reads the plan and deviation lines of one assistant text, read at `at`.
    pub(crate) fn absorb(&mut self, text: &str, at: &str) {
        for line in text.lines() {
            let line = line.trim_end_matches('\r');
            if let Some(rest) = line.strip_prefix(DEVIATION_MARKER) {
                if let Some((path, reason)) = deviation(rest) {
                    let known = self.deviations.iter().any(|d| d.path == path && d.reason == reason);
                    if !known && self.deviations.len() < MAX_DEVIATIONS {
                        self.deviations.push(Deviation {
                            path,
                            reason,
                            at: at.to_string(),
                        });
                    }
                }
            } else if let Some(rest) = line.strip_prefix(PLAN_MARKER) {
                let mut any = false;
                for raw in rest.split(|c: char| c == ',' || c.is_whitespace()) {
                    let path = raw.trim_matches(['`', '"', '\'']);
                    if path.is_empty() {
                        continue;
                    }
                    any = true;
                    let path = cut(path);
                    if self.paths.contains(&path) {
                        continue;
                    }
                    self.named += 1;
                    if self.paths.len() < MAX_PLAN_PATHS {
                        self.paths.push(path);
                    }
                }
                if any {
                    self.at = Some(at.to_string());
                }
            }
        }
    }

    /// The plan as it stands at `since` (the window's start): an older plan is gone, and so are
    /// older deviations.
    pub(crate) fn within(mut self, since: &str) -> Plan {
        if self.at.as_deref().is_none_or(|at| at < since) {
            self.paths.clear();
            self.at = None;
            self.named = 0;
        }
        self.deviations.retain(|d| d.at.as_str() >= since);
        self
    }

    pub(crate) fn declared(&self) -> bool {
        !self.paths.is_empty()
    }

    /// How many named paths the cap left out.
    pub(crate) fn dropped(&self) -> usize {
        self.named.saturating_sub(self.paths.len())
    }

    /// The note a capped plan carries.
    pub(crate) fn capped_note(&self) -> Option<String> {
        (self.dropped() > 0).then(|| {
            format!(
                "the plan named {} paths; only the first {} are kept ({} left out), so a file under a path left out counts as outside the plan",
                self.named,
                self.paths.len(),
                self.dropped()
            )
        })
    }

    /// The changed `files` that no plan path covers and no deviation with a reason justifies.
    pub(crate) fn outside(&self, files: &[String]) -> Vec<String> {
        let plan = PathSet::new(&self.paths);
        let justified: Vec<String> = self
            .deviations
            .iter()
            .filter(|d| d.reason.is_some())
            .map(|d| d.path.clone())
            .collect();
        let justified = PathSet::new(&justified);
        files
            .iter()
            .filter(|f| !plan.matches(f) && !justified.matches(f))
            .cloned()
            .collect()
    }

    /// Deviations refused for want of a reason whose path no accepted one covers.
    pub(crate) fn refused(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for d in self.deviations.iter().filter(|d| d.reason.is_none()) {
            let accepted = self.deviations.iter().any(|a| a.reason.is_some() && a.path == d.path);
            if !accepted && !out.contains(&d.path.as_str()) {
                out.push(&d.path);
            }
        }
        out
    }
}

/// At most [`SHOWN_FILES`] of `files`, and a count of the rest.
pub(crate) fn named(files: &[String]) -> String {
    let mut s: Vec<String> = files.iter().take(SHOWN_FILES).cloned().collect();
    if files.len() > SHOWN_FILES {
        s.push(format!("and {} more", files.len() - SHOWN_FILES));
    }
    s.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: &str = "2026-01-01T00:00:00.000Z";

    fn files(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_plan_covers_its_paths_and_only_a_reasoned_deviation_justifies_more() {
        let mut p = Plan::default();
        p.absorb("I will change these.\nHARNESS_PLAN: src/a/**, docs/x.md\n", AT);
        assert_eq!(p.paths, files(&["src/a/**", "docs/x.md"]));
        let changed = files(&["src/a/one.rs", "src/a/deep/two.rs", "docs/x.md", "src/b.txt"]);
        assert_eq!(p.outside(&changed), files(&["src/b.txt"]));
        p.absorb("HARNESS_PLAN_DEVIATION: src/b.txt\n", AT);
        p.absorb("HARNESS_PLAN_DEVIATION: src/b.txt — src/b.txt\n", AT);
        assert_eq!(p.outside(&changed), files(&["src/b.txt"]), "no reason, no justification");
        assert_eq!(p.refused(), vec!["src/b.txt"]);
        p.absorb("HARNESS_PLAN_DEVIATION: src/b.txt — the call site moved with the type\n", AT);
        assert!(p.outside(&changed).is_empty());
        assert!(p.refused().is_empty());
        for line in [
            "HARNESS_PLAN_DEVIATION: c.rs -- renamed with b",
            "HARNESS_PLAN_DEVIATION: d.rs - moved",
            "HARNESS_PLAN_DEVIATION: e.rs – en dash",
        ] {
            p.absorb(line, AT);
        }
        assert!(p.outside(&files(&["c.rs", "d.rs", "e.rs"])).is_empty());
    }

    #[test]
    fn only_a_line_that_starts_with_the_marker_counts() {
        let mut p = Plan::default();
        p.absorb("I will write HARNESS_PLAN: src/ later\n  HARNESS_PLAN: indented\n", AT);
        assert!(!p.declared());
        p.absorb("HARNESS_PLAN:\n", AT);
        assert!(!p.declared(), "an empty plan declares nothing");
    }

    #[test]
    fn a_huge_plan_is_capped_and_says_so() {
        let mut p = Plan::default();
        let line: Vec<String> = (0..10_000).map(|i| format!("src/f{i}.rs")).collect();
        p.absorb(&format!("HARNESS_PLAN: {}", line.join(", ")), AT);
        assert_eq!(p.paths.len(), MAX_PLAN_PATHS);
        assert_eq!(p.named, 10_000);
        let note = p.capped_note().unwrap();
        assert!(note.contains("named 10000 paths") && note.contains("first 500"), "{note}");
        assert_eq!(p.outside(&files(&["src/f9999.rs"])), files(&["src/f9999.rs"]));
    }

    #[test]
    fn a_plan_older_than_the_window_is_gone() {
        let mut p = Plan::default();
        p.absorb("HARNESS_PLAN: src/\nHARNESS_PLAN_DEVIATION: x — y", AT);
        let later = p.clone().within("2026-01-01T00:00:00.000Z");
        assert!(later.declared() && later.deviations.len() == 1);
        let gone = p.within("2026-01-01T02:00:00.000Z");
        assert!(!gone.declared() && gone.deviations.is_empty());
    }
}
