//! Observation mode (issue 33, item 5; `observe.enabled`, `observe.rails`): the checker of a rail
//! that is switched off runs at the stop that ends a turn, and its reading is recorded as an
//! `observe.reading` event. It never decides and never blocks: a measurement that changed the
//! turn would change what it measures. An enforcing rail is not observed (its own outcomes
//! already count it).
//!
//! The reading separates the rule's prose from its checker, as the seed's table does:
//! `held-without-prose`, `held-with-prose`, `violated-without-prose`, `violated-with-prose`. The
//! prose is the rule told to the agent in words it read: an instruction file the provider loads
//! at the project's root that names the rule's markers ([`PROSE_FILES`], [`PROSE_MARKERS`]), or a
//! follow-up of the rule tlc itself sent this session (a recorded decision of rule `comments`).

use super::changes::{self, Head};
use super::turn::TurnStore;
use super::written;
use super::GateError;
use crate::config::Settings;
use crate::project::Project;
use rusqlite::Connection;
use serde_json::{Map, Value};

/// The rails with a checker observation can run. A name not listed records nothing, and `tlc
/// doctor` names it.
pub(crate) const OBSERVABLE: &[&str] = &["comments"];

/// The instruction files Claude Code and Cursor load from a project's root.
pub(crate) const PROSE_FILES: &[&str] = &["CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", "AGENTS.md", ".cursorrules"];

/// Words that state the comment rule: the markers it asks a comment to carry (any case).
pub(crate) const PROSE_MARKERS: &[&str] = &["why:", "hazard:", "invariant:"];

/// An instruction file bigger than this is not read.
const PROSE_FILE_CAP: u64 = 256 * 1024;

/// Whether `name` (any case, trimmed) is a rail with a checker.
pub(crate) fn has_checker(name: &str) -> bool {
    OBSERVABLE.iter().any(|r| r.eq_ignore_ascii_case(name.trim()))
}

/// Whether the rail named (one of [`OBSERVABLE`]) is enforcing now.
pub(crate) fn enforcing(s: &Settings, rail: &str) -> bool {
    match rail {
        "comments" => s.comments.enabled,
        _ => false,
    }
}

/// The rails observation records with these settings: named in `observe.rails`, with a checker,
/// and switched off. Empty when `observe.enabled` is off.
pub(crate) fn observed(s: &Settings) -> Vec<&'static str> {
    if !s.observe.enabled {
        return Vec::new();
    }
    OBSERVABLE
        .iter()
        .copied()
        .filter(|r| s.observe.rails.iter().any(|n| n.trim().eq_ignore_ascii_case(r)))
        .filter(|r| !enforcing(s, r))
        .collect()
}

/// The names in `observe.rails` that have no checker (trimmed, as written).
pub(crate) fn without_checker(s: &Settings) -> Vec<String> {
    s.observe
        .rails
        .iter()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty() && !has_checker(n))
        .collect()
}

/// One reading, ready to record.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reading {
    pub rail: &'static str,
    /// One of the seed's four readings.
    pub reading: &'static str,
    pub attrs: Map<String, Value>,
}

/// The seed's reading for a checker's verdict and the prose's presence.
pub(crate) fn reading(violated: bool, prose: bool) -> &'static str {
    match (violated, prose) {
        (false, false) => "held-without-prose",
        (false, true) => "held-with-prose",
        (true, false) => "violated-without-prose",
        (true, true) => "violated-with-prose",
    }
}

/// Where the comment rule's prose reached this session: the instruction files that name a
/// marker, and `tlc follow-up` when a decision of rule `comments` was recorded in it.
fn comment_prose(conn: &Connection, project: &Project, provider: &str, session: &str) -> rusqlite::Result<Vec<String>> {
    let root = project.root();
    let mut sources: Vec<String> = PROSE_FILES
        .iter()
        .filter(|f| {
            crate::fsread::read_text_or_none(&root.join(f), PROSE_FILE_CAP).is_some_and(|text| {
                let lower = text.to_lowercase();
                PROSE_MARKERS.iter().any(|m| lower.contains(m))
            })
        })
        .map(|f| f.to_string())
        .collect();
    if crate::obs::EventStore::new(conn).decisions_by_rule(provider, session, "comments")? > 0 {
        sources.push("tlc follow-up".into());
    }
    Ok(sources)
}

/// Runs the checkers of the observed rails over the turn that is ending. `None` for a rail that
/// had nothing to read (the turn added no line to a file its checker reads).
pub(crate) fn observe(
    conn: &Connection,
    project: &Project,
    jail: &crate::confine::LazyJail<'_>,
    s: &Settings,
    provider: &str,
    session: &str,
) -> Result<Vec<Reading>, GateError> {
    let rails = observed(s);
    if rails.is_empty() || !project.paths.in_git {
        return Ok(Vec::new());
    }
    let db = project.db_path();
    let sql = GateError::store(&db);
    let turn = TurnStore::new(conn).get(provider, session).map_err(&sql)?;
    let base = Head::from_stored(turn.as_ref().and_then(|t| t.base_head.as_deref()));
    let base = if base == Head::Unknown {
        changes::read_head(project.root())
    } else {
        base
    };
    let t = changes::Tree {
        root: project.root(),
        jail: jail.get(),
    };
    let start = changes::TurnStart {
        wall_ms: turn.as_ref().and_then(|t| t.base_wall_ms),
        deleted_before: turn.as_ref().map(|t| t.deleted_seen.clone()).unwrap_or_default(),
    };
    let changed = changes::changed_files_since(t, &base, &start)?;
    let mut out = Vec::new();
    for rail in rails {
        // Only `comments` has a checker (`OBSERVABLE`).
        let mode = written::comments::Mode::parse(&s.comments.mode);
        let settings = written::Settings {
            comments: Some(mode),
            ..written::Settings::default()
        };
        let found = written::run(t, &base, &changed, &settings)?;
        let Some(f) = found.into_iter().find(|f| f.rule == rail).filter(|f| f.checked > 0) else {
            continue;
        };
        let prose = comment_prose(conn, project, provider, session).map_err(&sql)?;
        let reading = reading(!f.findings.is_empty(), !prose.is_empty());
        let mut attrs = Map::new();
        attrs.insert("rail".into(), rail.into());
        attrs.insert("reading".into(), reading.into());
        attrs.insert("mode".into(), format!("{mode:?}").to_lowercase().into());
        attrs.insert("files_checked".into(), f.checked.into());
        attrs.insert("findings".into(), f.findings.len().into());
        // Where each finding is (`path:line`), never the comment's own text.
        let at: Vec<Value> = f
            .findings
            .iter()
            .filter_map(|x| {
                let mut parts = x.splitn(3, ':');
                Some(format!("{}:{}", parts.next()?, parts.next()?).into())
            })
            .collect();
        attrs.insert("at".into(), Value::Array(at));
        attrs.insert("prose".into(), Value::Array(prose.into_iter().map(Value::from).collect()));
        if let Some(t) = &turn {
            attrs.insert("turn".into(), t.turn.into());
        }
        out.push(Reading { rail, reading, attrs });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_readings_and_which_rails_are_observed() {
        assert_eq!(reading(false, false), "held-without-prose");
        assert_eq!(reading(false, true), "held-with-prose");
        assert_eq!(reading(true, false), "violated-without-prose");
        assert_eq!(reading(true, true), "violated-with-prose");
        let mut s = Settings::default();
        assert!(observed(&s).is_empty(), "off by default");
        s.observe.enabled = true;
        s.observe.rails = vec![" Comments ".into(), "duplication".into(), "".into()];
        assert_eq!(observed(&s), vec!["comments"]);
        assert_eq!(without_checker(&s), vec!["duplication".to_string()]);
        s.comments.enabled = true;
        assert!(observed(&s).is_empty(), "an enforcing rail is not observed");
    }
}
