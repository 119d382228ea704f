//! The follow-up a blocked stop sends the agent, in the protocol's shape:
//!
//! ```text
//! BLOCKED: <gate> failed (attempt n/max) [<category>].
//! TRIED: …
//! NEED: …
//! GAPS:
//! 1. [<gate>/<category>] summary
//! NEXT: …
//! OUTPUT (last N lines):
//! …
//! ```
//!
//! Progressive context shows more gaps and more output as attempts repeat; an identical failure
//! fingerprint on consecutive attempts gets a stagnation follow-up instead of the same text.

use super::runner::Finding;
use crate::hashing::sha256_hex;
use regex::Regex;
use std::sync::OnceLock;

/// Gaps and output lines shown at progressive level 1, 2 and 3.
pub(crate) const LEVEL_GAPS: [usize; 3] = [6, 10, 12];
pub(crate) const LEVEL_LINES: [usize; 3] = [40, 80, 120];

/// The progressive level of `attempt` (1-based): 1 without progressive context, else the attempt
/// capped at 3.
pub(crate) fn level(attempt: usize, progressive: bool) -> usize {
    if progressive {
        attempt.clamp(1, 3)
    } else {
        1
    }
}

fn patterns() -> &'static [(Regex, &'static str)] {
    static P: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    P.get_or_init(|| {
        [
            (r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?", "<time>"),
            (r"\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b", "<time>"),
            (
                r"\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|secs|seconds|m|min|mins|minutes|h)\b",
                "<duration>",
            ),
            (r"\b0x[0-9a-fA-F]+\b", "<hex>"),
            (r"\d{4,}", "<n>"),
        ]
        .into_iter()
        .filter_map(|(re, with)| Regex::new(re).ok().map(|r| (r, with)))
        .collect()
    })
}

/// `text` with timestamps, durations, addresses and long numbers replaced, so two runs of one
/// failure compare equal.
pub(crate) fn normalise(text: &str) -> String {
    let mut out = text.to_string();
    for (re, with) in patterns() {
        out = re.replace_all(&out, *with).into_owned();
    }
    out
}

/// The failure fingerprint: sha256 over the gate, the exit code, the changed files and the
/// normalised output tail.
pub(crate) fn fingerprint(gate: &str, exit_code: Option<i64>, files: &[String], output_tail: &str) -> String {
    let mut text = format!("{gate}\0{}\0", exit_code.map_or("none".into(), |c| c.to_string()));
    for f in files {
        text.push_str(f);
        text.push('\n');
    }
    text.push('\0');
    text.push_str(&normalise(output_tail));
    sha256_hex(text.as_bytes())
}

/// One numbered gap.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Gap {
    pub gate: String,
    pub category: String,
    pub summary: String,
}

impl Gap {
    pub(crate) fn from_findings(gate: &str, category: &str, findings: &[Finding]) -> Vec<Gap> {
        findings
            .iter()
            .map(|f| Gap {
                gate: gate.to_string(),
                category: category.to_string(),
                summary: match (&f.file, f.line) {
                    (Some(file), Some(line)) => format!("{file}:{line}: {}", f.summary),
                    (Some(file), None) => format!("{file}: {}", f.summary),
                    _ => f.summary.clone(),
                },
            })
            .collect()
    }

    pub(crate) fn line(&self, n: usize) -> String {
        format!("{n}. [{}/{}] {}", self.gate, self.category, self.summary)
    }
}

/// Everything one follow-up says.
#[derive(Debug, Clone, Default)]
pub(crate) struct FollowUp {
    /// `test`, `lint`, `docs`, `comments`, …
    pub gate: String,
    pub category: String,
    /// This attempt (1-based) and the loop budget.
    pub attempt: usize,
    pub max: usize,
    /// Overrides `<gate> failed` in the first line (`HARNESS_SHIP_CLAIM with no file diff`).
    pub headline: Option<String>,
    pub tried: String,
    pub need: String,
    pub gaps: Vec<Gap>,
    /// Gaps the previous attempt reported that this one no longer does (with gap feedback on).
    pub previous_gaps: Vec<Gap>,
    /// The attempt whose failure this one repeats exactly (stagnation).
    pub repeats_attempt: Option<usize>,
    /// With a repeat: the files whose content changed between that attempt's run and this one.
    pub changed_since: Vec<String>,
    pub fingerprint: Option<String>,
    /// One line of resolution history, already phrased as history.
    pub history: Option<String>,
    pub next: String,
    pub output_tail: String,
    pub level: usize,
    /// The `LESSONS:` block (docs/lessons.md), after `NEXT:`.
    pub lessons: Option<String>,
}

impl FollowUp {
    pub(crate) fn render(&self) -> String {
        let level = self.level.clamp(1, 3);
        let mut out = String::new();
        let category = if self.repeats_attempt.is_some() {
            "stagnation"
        } else {
            &self.category
        };
        match &self.headline {
            Some(h) => out.push_str(&format!("BLOCKED: {h}. (attempt {}/{}) [{category}]\n", self.attempt, self.max)),
            None => out.push_str(&format!(
                "BLOCKED: {} failed (attempt {}/{}) [{category}].\n",
                self.gate, self.attempt, self.max
            )),
        }
        if let Some(prev) = self.repeats_attempt {
            let fp = self.fingerprint.as_deref().map_or("?", |f| &f[..f.len().min(12)]);
            if self.changed_since.is_empty() {
                out.push_str(&format!(
                    "STAGNATION: this is the same failure as attempt {prev} (fingerprint {fp}): the change made since then did not alter the result. Repeating that approach will not help; change it.\n"
                ));
            } else {
                out.push_str(&format!(
                    "STAGNATION: this is the same failure as attempt {prev} (fingerprint {fp}), although {} changed since then. The failure may not come from what you changed: read the output below again, and if the command itself is at fault, tell the operator instead of changing more code.\n",
                    self.changed_since.join(", ")
                ));
            }
        }
        out.push_str(&format!("TRIED: {}\n", self.tried));
        out.push_str(&format!("NEED: {}\n", self.need));
        let shown = LEVEL_GAPS[level - 1];
        if !self.gaps.is_empty() {
            out.push_str("GAPS:\n");
            for (i, g) in self.gaps.iter().take(shown).enumerate() {
                out.push_str(&g.line(i + 1));
                out.push('\n');
            }
            if self.gaps.len() > shown {
                out.push_str(&format!("(and {} more)\n", self.gaps.len() - shown));
            }
        }
        if !self.previous_gaps.is_empty() {
            out.push_str("PREVIOUS_GAPS (reported by the attempt before, not now):\n");
            for (i, g) in self.previous_gaps.iter().take(shown).enumerate() {
                out.push_str(&g.line(i + 1));
                out.push('\n');
            }
        }
        if let Some(h) = &self.history {
            out.push_str(&format!("HISTORY: {h}\n"));
        }
        out.push_str(&format!("NEXT: {}\n", self.next));
        if let Some(lessons) = &self.lessons {
            out.push_str(lessons);
            out.push('\n');
        }
        if level >= 2 && self.repeats_attempt.is_none() {
            out.push_str("This gate has now failed more than once in this turn: do not repeat a fix that did not work.\n");
        }
        let tail = tail_lines(&self.output_tail, LEVEL_LINES[level - 1]);
        if !tail.is_empty() {
            out.push_str(&format!("OUTPUT (last {} lines):\n{tail}\n", tail.lines().count()));
        }
        out
    }
}

/// The last `n` lines of `text`, trailing blank lines dropped.
pub(crate) fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The one history line for a failure whose fingerprint was resolved before.
pub(crate) fn history_line(files: &[String], resolved_at: &str) -> String {
    format!(
        "this exact failure happened before (last resolved {resolved_at}); it passed again after changes to {}. That is history, not a list of files to edit: it may not apply this time.",
        files.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaps(n: usize) -> Vec<Gap> {
        (0..n)
            .map(|i| Gap {
                gate: "test".into(),
                category: "verification".into(),
                summary: format!("case {i} failed"),
            })
            .collect()
    }

    #[test]
    fn fingerprints_ignore_times_durations_and_long_numbers() {
        let files = vec!["src/a.rs".to_string()];
        let a = fingerprint(
            "test",
            Some(1),
            &files,
            "2026-11-29T13:56:42.123Z run 1234567 took 3.2s at 0x7ffd1234\n12:01:02 FAIL x",
        );
        let b = fingerprint(
            "test",
            Some(1),
            &files,
            "2026-12-01T01:02:03Z run 7654321 took 45ms at 0x7ffe9999\n23:59:59 FAIL x",
        );
        assert_eq!(a, b);
        assert_ne!(a, fingerprint("test", Some(1), &files, "FAIL y"));
        assert_ne!(
            a,
            fingerprint("lint", Some(1), &files, "2026-11-29T13:56:42.123Z run 1 took 3.2s FAIL x")
        );
        assert_ne!(fingerprint("test", Some(1), &files, "x"), fingerprint("test", Some(2), &files, "x"));
        assert_ne!(
            fingerprint("test", Some(1), &files, "x"),
            fingerprint("test", Some(1), &["src/b.rs".to_string()], "x")
        );
    }

    #[test]
    fn progressive_levels_show_more_gaps_and_output() {
        let output: String = (1..=200).map(|i| format!("line {i}\n")).collect();
        let mut f = FollowUp {
            gate: "test".into(),
            category: "verification".into(),
            attempt: 1,
            max: 5,
            tried: "`t` exited 1".into(),
            need: "the tests to pass".into(),
            gaps: gaps(20),
            next: "fix gap 1".into(),
            output_tail: output,
            ..FollowUp::default()
        };
        for (attempt, (g, lines)) in [(1, (6, 40)), (2, (10, 80)), (3, (12, 120)), (4, (12, 120))] {
            f.attempt = attempt;
            f.level = level(attempt, true);
            let text = f.render();
            assert!(
                text.starts_with(&format!(
                    "BLOCKED: test failed (attempt {attempt}/5) [verification].\nTRIED: `t` exited 1\nNEED: the tests to pass\nGAPS:\n"
                )),
                "{text}"
            );
            assert!(text.contains(&format!("\n{g}. [test/verification] case {} failed\n", g - 1)));
            assert!(!text.contains(&format!("\n{}. [test", g + 1)));
            assert!(
                text.contains(&format!("OUTPUT (last {lines} lines):\nline {}\n", 201 - lines)),
                "{attempt}"
            );
            assert!(text.contains("\nNEXT: fix gap 1\n"));
        }
        f.level = level(3, false);
        assert!(f.render().contains("OUTPUT (last 40 lines)"));
    }

    #[test]
    fn stagnation_names_the_repetition() {
        let f = FollowUp {
            gate: "test".into(),
            category: "verification".into(),
            attempt: 3,
            max: 5,
            repeats_attempt: Some(2),
            fingerprint: Some("abcdef0123456789".into()),
            tried: "t".into(),
            need: "n".into(),
            next: "x".into(),
            level: 3,
            ..FollowUp::default()
        };
        let text = f.render();
        assert!(text.starts_with("BLOCKED: test failed (attempt 3/5) [stagnation].\nSTAGNATION: this is the same failure as attempt 2 (fingerprint abcdef012345)"));
    }
}
