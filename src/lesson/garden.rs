//! The garden: a lesson's lifecycle as a pure function of its row, the time and the settings.
//!
//! Rules, applied in this order to each lesson (a later rule sees what an earlier one made of it),
//! with idle time counted from `last_seen` (or when it was added), never from the last injection:
//!
//! 1. candidate → active once seen in `promoteHitCount` distinct sessions; confidence raised to
//!    at least [`PROMOTED_CONFIDENCE`];
//! 2. active → quarantine when idle over [`QUARANTINE_DAYS`] with `sessions` under
//!    `promoteHitCount` (a pinned lesson is never quarantined);
//! 3. quarantine → pruned after [`PRUNE_QUARANTINED_DAYS`] idle days;
//! 4. pruned when `confidence × exp(−decayLambda × hours idle)` < [`DECAY_FLOOR`], not
//!    quarantined and `hits` < 2 (a hand-written lesson is exempt);
//! 5. pruned past `until`.
//!
//! A pinned lesson is never pruned.

use super::Lesson;
use chrono::{DateTime, Utc};

pub(crate) const PROMOTED_CONFIDENCE: f64 = 0.7;
pub(crate) const QUARANTINE_DAYS: f64 = 90.0;
pub(crate) const PRUNE_QUARANTINED_DAYS: f64 = 180.0;
pub(crate) const DECAY_FLOOR: f64 = 0.05;

/// The settings the garden reads (`intelligence.lessons.*`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    pub promote_hit_count: i64,
    /// Per hour.
    pub decay_lambda: f64,
}

impl Rules {
    pub(crate) fn from(s: &crate::config::Settings) -> Rules {
        Rules {
            promote_hit_count: s.intelligence.lessons.promote_hit_count.max(1),
            decay_lambda: s.intelligence.lessons.decay_lambda.max(0.0),
        }
    }
}

/// Where a transition leads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum To {
    Status(&'static str),
    Pruned,
}

impl To {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            To::Status(s) => s,
            To::Pruned => "pruned",
        }
    }
}

/// One transition the garden makes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct Transition {
    pub id: String,
    pub from: String,
    #[serde(serialize_with = "to_str")]
    pub to: To,
    /// The confidence after the transition.
    pub confidence: f64,
    pub reason: String,
}

fn to_str<S: serde::Serializer>(to: &To, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(to.as_str())
}

/// Hours between `at` (a stored stamp) and `now`; 0 when `at` is unreadable or in the future.
pub(crate) fn hours_since(at: &str, now: DateTime<Utc>) -> f64 {
    match crate::clock::parse(at) {
        Ok(t) => ((now - t).num_milliseconds() as f64 / 3_600_000.0).max(0.0),
        Err(_) => 0.0,
    }
}

/// The confidence decayed over the idle hours.
pub(crate) fn decayed(confidence: f64, lambda: f64, hours: f64) -> f64 {
    confidence * (-lambda * hours).exp()
}

/// The transitions of one lesson, in order.
pub(crate) fn plan_one(l: &Lesson, now: DateTime<Utc>, rules: &Rules) -> Vec<Transition> {
    let mut out = Vec::new();
    let hours = hours_since(l.seen_at(), now);
    let days = hours / 24.0;
    let mut status = l.status.clone();
    let mut confidence = l.confidence;
    let mut step = |status: &mut String, to: To, confidence: f64, reason: String| {
        out.push(Transition {
            id: l.id.clone(),
            from: status.clone(),
            to,
            confidence,
            reason,
        });
        *status = to.as_str().to_string();
    };
    if status == "candidate" && l.sessions >= rules.promote_hit_count {
        confidence = confidence.max(PROMOTED_CONFIDENCE);
        let reason = format!("seen in {} sessions (promoteHitCount {})", l.sessions, rules.promote_hit_count);
        step(&mut status, To::Status("active"), confidence, reason);
    }
    if status == "active" && !l.pinned && days > QUARANTINE_DAYS && l.sessions < rules.promote_hit_count {
        let reason = format!(
            "idle {days:.0} days (over {QUARANTINE_DAYS}) and seen in {} sessions (under {})",
            l.sessions, rules.promote_hit_count
        );
        step(&mut status, To::Status("quarantine"), confidence, reason);
    }
    if l.pinned {
        return out;
    }
    if status == "quarantine" && days > PRUNE_QUARANTINED_DAYS {
        let reason = format!("quarantined and idle {days:.0} days (over {PRUNE_QUARANTINED_DAYS})");
        step(&mut status, To::Pruned, confidence, reason);
        return out;
    }
    if status != "quarantine" && l.source != "manual" && l.hits < 2 {
        let d = decayed(confidence, rules.decay_lambda, hours);
        if d < DECAY_FLOOR {
            let reason = format!(
                "decayed confidence {d:.4} under {DECAY_FLOOR} ({confidence} × exp(−{} × {hours:.0} h)), {} hit(s)",
                rules.decay_lambda, l.hits
            );
            step(&mut status, To::Pruned, confidence, reason);
            return out;
        }
    }
    if let Some(until) = &l.until {
        if crate::clock::parse(until).is_ok_and(|u| u < now) {
            step(&mut status, To::Pruned, confidence, format!("past its until {until}"));
        }
    }
    out
}

/// The transitions of every lesson, in order.
pub(crate) fn plan(lessons: &[Lesson], now: DateTime<Utc>, rules: &Rules) -> Vec<Transition> {
    lessons.iter().flat_map(|l| plan_one(l, now, rules)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(status: &str, source: &str, seen_days_ago: f64, hits: i64, sessions: i64, confidence: f64, pinned: bool) -> Lesson {
        let now = crate::clock::parse("2026-12-01T00:00:00Z").unwrap();
        let seen = crate::clock::stamp(now - chrono::Duration::minutes((seen_days_ago * 1440.0) as i64));
        Lesson {
            id: "l".into(),
            instruction: "x".into(),
            gate: Some("test".into()),
            tokens: vec![],
            avoid: None,
            prefer: None,
            check: None,
            refs: vec![],
            until: None,
            source: source.into(),
            category: None,
            status: status.into(),
            confidence,
            hits,
            sessions,
            priority: 0,
            pinned,
            valid_from: None,
            fingerprint: None,
            first_seen: Some(seen.clone()),
            last_seen: Some(seen.clone()),
            last_accessed: None,
            created_at: seen.clone(),
            updated_at: seen,
            origin: "operator".into(),
            promoted_at: None,
        }
    }

    /// (case, lesson, expected `from→to` steps)
    #[test]
    fn the_garden_rules_as_a_table() {
        let rules = Rules {
            promote_hit_count: 2,
            decay_lambda: 0.02,
        };
        let now = crate::clock::parse("2026-12-01T00:00:00Z").unwrap();
        let mut past_until = lesson("active", "manual", 1.0, 0, 0, 0.8, false);
        past_until.until = Some("2026-11-30".into());
        let mut pinned_past_until = past_until.clone();
        pinned_past_until.pinned = true;
        let cases: Vec<(&str, Lesson, Vec<&str>)> = vec![
            (
                "a fresh candidate stays",
                lesson("candidate", "mined", 0.0, 1, 1, 0.4, false),
                vec![],
            ),
            (
                "a candidate seen in 2 sessions is promoted",
                lesson("candidate", "mined", 0.0, 2, 2, 0.5, false),
                vec!["candidate→active"],
            ),
            (
                "a mined candidate with 1 hit idle 7 days decays away",
                lesson("candidate", "mined", 7.0, 1, 1, 0.4, false),
                vec!["candidate→pruned"],
            ),
            (
                "a mined candidate idle 2 days stays",
                lesson("candidate", "mined", 2.0, 1, 1, 0.4, false),
                vec![],
            ),
            (
                "a hand-written lesson idle 7 days is exempt from decay",
                lesson("active", "manual", 7.0, 0, 0, 0.8, false),
                vec![],
            ),
            (
                "a hand-written lesson idle 100 days is quarantined",
                lesson("active", "manual", 100.0, 0, 0, 0.8, false),
                vec!["active→quarantine"],
            ),
            (
                "a lesson seen in 2 sessions idle 100 days stays",
                lesson("active", "mined", 100.0, 2, 2, 0.7, false),
                vec![],
            ),
            (
                "a pinned lesson idle 200 days stays",
                lesson("active", "manual", 200.0, 0, 0, 0.8, true),
                vec![],
            ),
            (
                "a quarantined lesson idle 200 days is pruned",
                lesson("quarantine", "manual", 200.0, 0, 0, 0.8, false),
                vec!["quarantine→pruned"],
            ),
            (
                "a quarantined lesson idle 120 days stays",
                lesson("quarantine", "manual", 120.0, 0, 0, 0.8, false),
                vec![],
            ),
            (
                "an active lesson idle 200 days is quarantined and pruned",
                lesson("active", "manual", 200.0, 0, 0, 0.8, false),
                vec!["active→quarantine", "quarantine→pruned"],
            ),
            ("a lesson past its until is pruned", past_until, vec!["active→pruned"]),
            ("a pinned lesson past its until stays", pinned_past_until, vec![]),
        ];
        for (name, l, want) in cases {
            let got: Vec<String> = plan_one(&l, now, &rules)
                .iter()
                .map(|t| format!("{}→{}", t.from, t.to.as_str()))
                .collect();
            assert_eq!(got, want, "{name}");
        }
        let promoted = plan_one(&lesson("candidate", "mined", 0.0, 2, 2, 0.5, false), now, &rules);
        assert_eq!(promoted[0].confidence, PROMOTED_CONFIDENCE);
    }
}
