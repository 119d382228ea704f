//! The stop checks' side of lessons (docs/lessons.md), with `intelligence.lessons.enabled` on:
//! a fresh session start carries the ranked active lessons after the handoff; a blocked stop's
//! follow-up carries a `LESSONS:` block after `NEXT:`; a stagnating gate (the same fingerprint on
//! consecutive attempts) writes a candidate lesson; a session's end gardens the project's lessons
//! (`gardenOnSessionEnd`). Every write happens in [`LessonWrites::apply`], inside the hook's
//! transaction; reads of the home database (the global tier) are read-only and never create it.

use super::followup::Gap;
use super::{Gate, GateRun};
use crate::clock;
use crate::config::Config;
use crate::lesson::rank::{self, Budget, Context, Mode};
use crate::lesson::{core, garden, Injection, Lesson, LessonStore, Mined, Tier};
use crate::obs::redact::Redactor;
use crate::project::Project;
use crate::store::{self, DbKind};
use rusqlite::Connection;

/// What a hook event writes of lessons, in its transaction.
#[derive(Debug, Default)]
pub(crate) struct LessonWrites {
    capture: Option<Mined>,
    injected: Vec<Injection>,
    garden: Option<garden::Rules>,
    /// Lessons that could not be read (each becomes a `hook.fault`).
    pub faults: Vec<String>,
}

impl LessonWrites {
    pub(crate) fn apply(&self, conn: &Connection, provider: &str, session: &str, at: &str) -> rusqlite::Result<()> {
        let st = LessonStore::new(conn, DbKind::Project);
        if let Some(m) = &self.capture {
            st.capture(m, session, at)?;
        }
        if !self.injected.is_empty() {
            st.record_injections(provider, session, &self.injected, at)?;
        }
        if let Some(rules) = &self.garden {
            let now = clock::parse(at).unwrap_or_else(|_| clock::now());
            for t in garden::plan(&st.list()?, now, rules) {
                st.apply(&t, at)?;
            }
        }
        Ok(())
    }
}

pub(crate) fn enabled(config: &Config) -> bool {
    config.settings.intelligence.lessons.enabled
}

/// Every tier's lessons, duplicates resolved: the project's (from `conn`), the global ones (the
/// home database, read-only; none when it does not exist) and the core ones.
fn load(conn: &Connection, project: &Project, faults: &mut Vec<String>) -> Vec<(Tier, Lesson)> {
    let mut tiers = vec![(Tier::Core, core::lessons())];
    let home = project.paths.home_db();
    match store::open_read(DbKind::Home, &home) {
        Ok(Some(s)) => match LessonStore::new(s.conn(), DbKind::Home).list() {
            Ok(l) => tiers.push((Tier::Global, l)),
            Err(e) => faults.push(format!("global lessons not read from {}: {e}", home.display())),
        },
        Ok(None) => {}
        Err(e) => faults.push(format!("global lessons not read: {e}")),
    }
    match LessonStore::new(conn, DbKind::Project).list() {
        Ok(l) => tiers.push((Tier::Project, l)),
        Err(e) => faults.push(format!("project lessons not read from {}: {e}", project.db_path().display())),
    }
    rank::merge(tiers)
}

/// A fresh session start's lessons: the text to put after the handoff.
pub(crate) fn for_session(conn: &Connection, project: &Project, config: &Config, w: &mut LessonWrites) -> Option<String> {
    let all = load(conn, project, &mut w.faults);
    let ctx = Context {
        mode: Mode::Session,
        gate: None,
        category: None,
        text: String::new(),
        after_run: None,
    };
    let sel = rank::select(
        &all,
        &ctx,
        &Budget::from(&config.settings, Mode::Session),
        project.root(),
        clock::now(),
    );
    w.injected.extend(sel.injected);
    sel.text
}

/// A blocked stop's lessons, ranked against the failing gate and its gaps.
pub(crate) fn for_retry(
    conn: &Connection,
    project: &Project,
    config: &Config,
    run: &GateRun,
    gate: Gate,
    w: &mut LessonWrites,
) -> Option<String> {
    let all = load(conn, project, &mut w.faults);
    let category = run.category.clone();
    let gaps = Gap::from_findings(gate.as_str(), category.as_deref().unwrap_or(""), &run.findings);
    let ctx = Context {
        mode: Mode::Retry,
        gate: Some(gate.as_str().into()),
        category,
        text: gaps.iter().map(|g| g.summary.as_str()).collect::<Vec<_>>().join("\n"),
        after_run: Some(run.id),
    };
    let sel = rank::select(
        &all,
        &ctx,
        &Budget::from(&config.settings, Mode::Retry),
        project.root(),
        clock::now(),
    );
    w.injected.extend(sel.injected);
    sel.text
}

/// A stagnating gate's lesson: its gate, category, gaps and output, redacted.
pub(crate) fn capture(run: &GateRun, gate: Gate, gaps: &[Gap], session: &str, w: &mut LessonWrites) {
    let Some(fingerprint) = run.fingerprint.clone() else { return };
    let r = Redactor::new(session);
    let redact = |s: &str| r.redact_str(s).unwrap_or_else(|| s.to_string());
    w.capture = Some(Mined {
        gate: gate.as_str().into(),
        category: run.category.clone().unwrap_or_else(|| "verification".into()),
        fingerprint,
        gaps: gaps.iter().map(|g| redact(&g.summary)).collect(),
        output: crate::lesson::signal(&redact(&run.output_tail)),
    });
}

/// A session's end: garden the project's lessons when `gardenOnSessionEnd`.
pub(crate) fn on_session_end(config: &Config, w: &mut LessonWrites) {
    if config.settings.intelligence.lessons.garden_on_session_end {
        w.garden = Some(garden::Rules::from(&config.settings));
    }
}
