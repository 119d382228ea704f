//! The core tier: a few general gate lessons compiled in, read-only, offered at stop retries only
//! (never at session start). A project or global lesson of the same id replaces one.

use super::Lesson;

/// (id, instruction, avoid, check)
const CORE: &[(&str, &str, Option<&str>, Option<&str>)] = &[
    (
        "core-first-error",
        "Fix the first error the gate output reports before the ones after it: later errors often follow from it.",
        None,
        Some("read the output from its first error, not its last line"),
    ),
    (
        "core-run-the-gate",
        "Run the gate's own command yourself before stopping again; an approximation of its steps can pass where it fails.",
        Some("stopping again on a fix you have not run"),
        None,
    ),
    (
        "core-keep-the-checks",
        "Make the failing check pass by fixing the code it exercises; never delete, skip or weaken a test or check to get there.",
        Some("deleting, skipping or loosening a test or check"),
        None,
    ),
];

/// The core lessons, as rows of tier `core` (active, confidence 0.5, never decayed).
pub(crate) fn lessons() -> Vec<Lesson> {
    CORE.iter()
        .map(|(id, instruction, avoid, check)| Lesson {
            id: (*id).into(),
            instruction: (*instruction).into(),
            gate: None,
            tokens: Vec::new(),
            avoid: avoid.map(str::to_string),
            prefer: None,
            check: check.map(str::to_string),
            refs: Vec::new(),
            until: None,
            source: "core".into(),
            category: None,
            status: "active".into(),
            confidence: 0.5,
            hits: 0,
            sessions: 0,
            priority: 0,
            pinned: false,
            valid_from: None,
            fingerprint: None,
            first_seen: None,
            last_seen: None,
            last_accessed: None,
            created_at: String::new(),
            updated_at: String::new(),
            origin: super::Origin::Tlc.as_str().into(),
            promoted_at: None,
        })
        .collect()
}

/// True when `id` is a core lesson's.
pub(crate) fn is_core(id: &str) -> bool {
    CORE.iter().any(|(c, ..)| *c == id)
}
