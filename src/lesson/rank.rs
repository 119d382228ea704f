//! Ranking and injection: which lessons a session start or a blocked stop carries, and the text.
//!
//! Score = relevance × decayed confidence × `projectBoost` (project tier only), pinned first. A
//! session start carries active project and global lessons (never a candidate, never a core one);
//! a blocked stop also carries core lessons and candidates of the failing gate. A lesson that is
//! quarantined, stale ([`super::refs`]), past its `until` or before its `valid_from` is withheld.
//! An agent-written global lesson is withheld until the operator promotes it: an agent's words
//! reach another repository only by the operator's act. Each lesson renders as
//! `- [<gate>/<status>/<tier>] <instruction>` with its avoid / prefer / before-retrying lines, an
//! agent's with `/agent-written` in the brackets, so the reader never takes an agent's words for
//! the operator's; what the budget leaves out is counted.

use super::garden::{decayed, hours_since};
use super::{refs, Injection, Lesson, Tier};
use chrono::{DateTime, Utc};
use std::path::Path;

/// Session start or blocked stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Session,
    Retry,
}

impl Mode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Session => "session",
            Mode::Retry => "retry",
        }
    }
}

/// What the lessons are ranked against.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    pub mode: Mode,
    /// The failing gate (retry).
    pub gate: Option<String>,
    /// Its failure category.
    pub category: Option<String>,
    /// Text a token may match: the gaps.
    pub text: String,
    /// The failing gate run (retry), recorded with each injection.
    pub after_run: Option<i64>,
}

/// The budget: at most `max` lessons within `chars` characters (the whole block).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub max: usize,
    pub chars: usize,
    pub project_boost: f64,
    pub decay_lambda: f64,
}

impl Budget {
    pub(crate) fn from(s: &crate::config::Settings, mode: Mode) -> Budget {
        let l = &s.intelligence.lessons;
        let (max, chars) = match mode {
            Mode::Session => (l.max_inject_session, l.max_chars_session),
            Mode::Retry => (l.max_inject_retry, l.max_chars_retry),
        };
        Budget {
            max: usize::try_from(max).unwrap_or(0),
            chars: usize::try_from(chars).unwrap_or(0),
            project_boost: l.project_boost,
            decay_lambda: l.decay_lambda,
        }
    }
}

/// What is injected.
#[derive(Debug, Clone, Default)]
pub(crate) struct Selection {
    /// The `LESSONS:` block, `None` when nothing fits.
    pub text: Option<String>,
    pub injected: Vec<Injection>,
    /// Eligible lessons the budget left out.
    pub left_out: usize,
}

/// The lessons of all tiers with duplicates resolved: on a duplicate id the nearer tier wins.
pub(crate) fn merge(tiers: Vec<(Tier, Vec<Lesson>)>) -> Vec<(Tier, Lesson)> {
    let mut out: Vec<(Tier, Lesson)> = Vec::new();
    for (tier, lessons) in tiers {
        for l in lessons {
            match out.iter_mut().find(|(_, o)| o.id == l.id) {
                Some(slot) if slot.0 < tier => *slot = (tier, l),
                Some(_) => {}
                None => out.push((tier, l)),
            }
        }
    }
    out
}

/// Whether `l` may be injected in `ctx` at `now` (staleness aside).
pub(crate) fn eligible(tier: Tier, l: &Lesson, ctx: &Context, now: DateTime<Utc>) -> bool {
    let status_ok = match (ctx.mode, l.status.as_str()) {
        (_, "active") => ctx.mode == Mode::Retry || tier != Tier::Core,
        (Mode::Retry, "candidate") => l.gate.is_some() && l.gate == ctx.gate,
        _ => false,
    };
    let after =
        |t: &Option<String>, f: &dyn Fn(DateTime<Utc>) -> bool| t.as_deref().map(crate::clock::parse).is_some_and(|r| r.is_ok_and(f));
    // An agent's lesson in the global tier that the operator did not promote (one written with
    // `--global` from a session, before that was the operator's) reaches no repository.
    let unendorsed = tier == Tier::Global && l.by_agent() && l.promoted_at.is_none();
    status_ok && !unendorsed && !after(&l.until, &|u| u < now) && !after(&l.valid_from, &|v| v > now)
}

/// How well `l` fits `ctx` (1 for a lesson about nothing in particular).
pub(crate) fn relevance(l: &Lesson, ctx: &Context) -> f64 {
    let text = ctx.text.to_lowercase();
    let tokens = l.tokens.iter().filter(|t| text.contains(&t.to_lowercase())).count();
    let mut r = 1.0 + 0.5 * tokens as f64;
    match (&l.gate, &ctx.gate) {
        (Some(a), Some(b)) if a == b => r *= 2.0,
        (Some(_), Some(_)) => r *= 0.25,
        _ => {}
    }
    if l.category.is_some() && l.category == ctx.category {
        r *= 1.5;
    }
    r * (1.0 + 0.1 * l.priority as f64).max(0.1)
}

/// The score of an eligible lesson.
pub(crate) fn score(tier: Tier, l: &Lesson, ctx: &Context, budget: &Budget, now: DateTime<Utc>) -> f64 {
    let boost = if tier == Tier::Project { budget.project_boost } else { 1.0 };
    relevance(l, ctx) * decayed(l.confidence, budget.decay_lambda, hours_since(l.seen_at(), now)) * boost
}

/// What an agent-written lesson's brackets add: its origin, shown wherever it is injected.
pub(crate) const AGENT_WRITTEN: &str = "/agent-written";

/// One lesson as the agent reads it.
pub(crate) fn render(tier: Tier, l: &Lesson) -> String {
    let mut s = format!(
        "- [{}/{}/{}{}] {}",
        l.gate.as_deref().unwrap_or("any"),
        l.status,
        tier.as_str(),
        if l.by_agent() { AGENT_WRITTEN } else { "" },
        one_line(&l.instruction)
    );
    for (label, v) in [("avoid", &l.avoid), ("prefer", &l.prefer), ("before retrying", &l.check)] {
        if let Some(v) = v.as_deref().filter(|v| !v.trim().is_empty()) {
            s.push_str(&format!("\n  {label}: {}", one_line(v)));
        }
    }
    s
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

const HEADER: &str = "LESSONS:";

fn footer(n: usize) -> String {
    format!("({n} more left out of the budget: tlc lessons list)")
}

/// Ranks `all` (merged tiers) for `ctx` and fits the best into `budget`; `root` resolves refs.
pub(crate) fn select(all: &[(Tier, Lesson)], ctx: &Context, budget: &Budget, root: &Path, now: DateTime<Utc>) -> Selection {
    let mut ranked: Vec<(bool, f64, Tier, &Lesson)> = all
        .iter()
        .filter(|(tier, l)| eligible(*tier, l, ctx, now))
        .filter(|(_, l)| !refs::states(root, &l.refs).iter().any(|(_, s)| s.stale()))
        .map(|(tier, l)| (l.pinned, score(*tier, l, ctx, budget, now), *tier, l))
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.3.id.cmp(&b.3.id)));
    let mut sel = Selection::default();
    // The block's header, and room for the footer that counts what is left out.
    let reserve = HEADER.len() + 1 + footer(ranked.len()).chars().count() + 1;
    let room = budget.chars.saturating_sub(reserve);
    let mut used = 0;
    let mut lines = Vec::new();
    for (_, _, tier, l) in &ranked {
        let entry = render(*tier, l);
        let len = entry.chars().count() + 1;
        if sel.injected.len() < budget.max && used + len <= room {
            used += len;
            lines.push(entry);
            sel.injected.push(Injection {
                lesson_id: l.id.clone(),
                tier: *tier,
                mode: ctx.mode.as_str(),
                gate: ctx.gate.clone().or_else(|| l.gate.clone()),
                after_run: ctx.after_run,
            });
        } else {
            sel.left_out += 1;
        }
    }
    if !lines.is_empty() {
        let mut text = format!("{HEADER}\n{}", lines.join("\n"));
        if sel.left_out > 0 {
            text.push('\n');
            text.push_str(&footer(sel.left_out));
        }
        sel.text = Some(text);
    }
    sel
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(id: &str, gate: Option<&str>, status: &str, confidence: f64) -> Lesson {
        let mut l = super::super::core::lessons().remove(0);
        l.id = id.into();
        l.instruction = format!("lesson {id}");
        l.gate = gate.map(str::to_string);
        l.status = status.into();
        l.confidence = confidence;
        l.source = "manual".into();
        l.check = None;
        l
    }

    fn budget(max: usize, chars: usize) -> Budget {
        Budget {
            max,
            chars,
            project_boost: 1.5,
            decay_lambda: 0.02,
        }
    }

    #[test]
    fn the_nearer_tier_wins_and_the_budget_counts_what_it_leaves_out() {
        let merged = merge(vec![
            (Tier::Global, vec![l("a", None, "active", 0.9), l("b", None, "active", 0.9)]),
            (Tier::Project, vec![l("a", None, "active", 0.2)]),
        ]);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged.iter().find(|(_, x)| x.id == "a").unwrap().0, Tier::Project);
        let now = chrono::Utc::now();
        let dir = tempfile::tempdir().unwrap();
        let ctx = Context {
            mode: Mode::Session,
            gate: None,
            category: None,
            text: String::new(),
            after_run: None,
        };
        let many: Vec<(Tier, Lesson)> = (0..10)
            .map(|i| (Tier::Project, l(&format!("l{i}"), Some("test"), "active", 0.8)))
            .collect();
        let sel = select(&many, &ctx, &budget(5, 900), dir.path(), now);
        assert_eq!((sel.injected.len(), sel.left_out), (5, 5));
        let text = sel.text.unwrap();
        assert!(
            text.chars().count() <= 900 && text.starts_with("LESSONS:\n- [test/active/project] lesson "),
            "{text}"
        );
        assert!(text.ends_with("(5 more left out of the budget: tlc lessons list)"), "{text}");
        let tight = select(&many, &ctx, &budget(5, 120), dir.path(), now);
        assert!(tight.text.as_ref().unwrap().chars().count() <= 120, "{:?}", tight.text);
        assert_eq!(tight.injected.len() + tight.left_out, 10);
    }

    #[test]
    fn a_candidate_or_core_lesson_is_never_injected_at_session_start() {
        let now = chrono::Utc::now();
        let dir = tempfile::tempdir().unwrap();
        let mut all = vec![(Tier::Project, l("cand", Some("test"), "candidate", 0.9))];
        all.extend(super::super::core::lessons().into_iter().map(|c| (Tier::Core, c)));
        let session = Context {
            mode: Mode::Session,
            gate: None,
            category: None,
            text: String::new(),
            after_run: None,
        };
        assert!(select(&all, &session, &budget(5, 900), dir.path(), now).injected.is_empty());
        let retry = Context {
            mode: Mode::Retry,
            gate: Some("test".into()),
            ..session
        };
        let sel = select(&all, &retry, &budget(8, 1400), dir.path(), now);
        assert_eq!(sel.injected.len(), 4);
        assert_eq!(sel.injected[0].lesson_id, "cand");
    }

    #[test]
    fn an_agent_s_lesson_shows_its_origin_and_stays_out_of_the_global_tier_until_promoted() {
        let now = chrono::Utc::now();
        let dir = tempfile::tempdir().unwrap();
        let mut agent = l("agent-1", None, "active", 0.8);
        agent.origin = "agent".into();
        let session = Context {
            mode: Mode::Session,
            gate: None,
            category: None,
            text: String::new(),
            after_run: None,
        };
        let project = select(&[(Tier::Project, agent.clone())], &session, &budget(5, 900), dir.path(), now);
        assert_eq!(
            project.text.as_deref(),
            Some("LESSONS:\n- [any/active/project/agent-written] lesson agent-1")
        );
        let global = select(&[(Tier::Global, agent.clone())], &session, &budget(5, 900), dir.path(), now);
        assert!(global.injected.is_empty(), "not promoted: {:?}", global.text);
        agent.promoted_at = Some("2026-01-01T00:00:00.000Z".into());
        let promoted = select(&[(Tier::Global, agent)], &session, &budget(5, 900), dir.path(), now);
        assert_eq!(
            promoted.text.as_deref(),
            Some("LESSONS:\n- [any/active/global/agent-written] lesson agent-1")
        );
    }
}
