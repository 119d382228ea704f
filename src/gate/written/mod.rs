//! The stop-time checks on what a turn wrote: comments, duplication and supply chain. Each is
//! diff-scoped against the turn's base through the same changed-files function as the gates,
//! and runs after them.

pub(crate) mod comments;
pub(crate) mod duplication;
pub(crate) mod supply;

use super::changes::{self, AddedLines, ChangeKind, Changes, Head};
use super::GateError;
use std::collections::BTreeSet;
use std::path::Path;

/// Which checks are on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    pub comments: Option<comments::Mode>,
    /// `minRun` when duplication is on.
    pub duplication: Option<usize>,
    pub supply_chain: bool,
}

impl Settings {
    pub(crate) fn any(&self) -> bool {
        self.comments.is_some() || self.duplication.is_some() || self.supply_chain
    }
}

/// What one check found.
#[derive(Debug, Clone, Default)]
pub(crate) struct Found {
    /// `comments`, `duplication`, `supply-chain`.
    pub rule: &'static str,
    pub findings: Vec<String>,
    pub tried: String,
    pub need: String,
    pub next: String,
    /// Said when the check could not cover everything (a scan bound, a manifest that did not parse).
    pub note: Option<String>,
    /// Files the check read (observation mode records a reading only when it read one).
    pub checked: usize,
}

/// Most findings named per check.
const MAX_FINDINGS: usize = 12;

/// Runs the enabled checks over the turn's changes. Every check is returned, with or without
/// findings; the caller blocks on those that have some.
pub(crate) fn run(t: changes::Tree<'_>, base: &Head, changes: &Changes, s: &Settings) -> Result<Vec<Found>, GateError> {
    let root = t.root;
    let present: Vec<String> = changes.present().map(str::to_string).collect();
    let mut wanted: Vec<String> = Vec::new();
    if s.comments.is_some() {
        wanted.extend(present.iter().filter(|p| comments::syntax_for(p).is_some()).cloned());
    }
    if s.duplication.is_some() {
        wanted.extend(present.iter().cloned());
    }
    wanted.sort();
    wanted.dedup();
    let added = if wanted.is_empty() {
        AddedLines::new()
    } else {
        changes::added_lines(t, base, changes, &wanted)?
    };
    let mut out = Vec::new();
    if let Some(mode) = s.comments {
        out.push(check_comments(root, &added, mode));
    }
    if let Some(min_run) = s.duplication {
        out.push(check_duplication(t, changes, &added, min_run)?);
    }
    if s.supply_chain {
        out.push(check_supply(t, base, changes));
    }
    Ok(out)
}

fn read_text(root: &Path, rel: &str) -> Option<String> {
    // A symlink, anything but a regular file, or a file over 2 MiB is not read.
    let bytes = crate::fsread::read_capped(&root.join(rel), 2 * 1024 * 1024, crate::fsread::Links::Refuse)
        .ok()
        .flatten()?;
    (!bytes.contains(&0)).then(|| String::from_utf8_lossy(&bytes).into_owned())
}

fn line_set(lines: &[(usize, String)]) -> BTreeSet<usize> {
    lines.iter().map(|(n, _)| *n).collect()
}

fn check_comments(root: &Path, added: &AddedLines, mode: comments::Mode) -> Found {
    let mut findings = Vec::new();
    let mut files = 0;
    for (path, lines) in added {
        let Some(text) = comments::syntax_for(path).and_then(|_| read_text(root, path)) else {
            continue;
        };
        files += 1;
        for v in comments::check_file(path, &text, &line_set(lines), mode) {
            findings.push(format!("{}:{}: {:?}: {}", v.file, v.line, v.text, v.why));
        }
    }
    let (need, next) = match mode {
        comments::Mode::Strict => (
            "no comment added by the agent: this repository's comments are the operator's to write (comments.mode = \"strict\").",
            "remove the comments listed; if one carries something a reader needs, say so in your reply for the operator to write.",
        ),
        comments::Mode::Resolvable => (
            "each added comment to state why:, hazard: or invariant:, in words a reader at HEAD can check without this session's transcript.",
            "restate each comment listed (do not just delete one that carries a reason); remove the ones that only narrate the code.",
        ),
        comments::Mode::Declared => (
            "each added comment to state why:, hazard: or invariant: — a comment that narrates what the next line does is noise.",
            "restate each comment listed with why:, hazard: or invariant:, or remove it.",
        ),
    };
    Found {
        rule: "comments",
        tried: format!("read the comment lines this turn added in {files} file(s) (mode {mode:?})").to_lowercase(),
        need: need.into(),
        next: next.into(),
        findings: findings.into_iter().take(MAX_FINDINGS).collect(),
        note: None,
        checked: files,
    }
}

fn check_duplication(t: changes::Tree<'_>, changes: &Changes, added: &AddedLines, min_run: usize) -> Result<Found, GateError> {
    let root = t.root;
    let mut texts: Vec<(String, String, BTreeSet<usize>)> = Vec::new();
    let mut bytes = 0usize;
    let mut bound = None;
    let mut push = |path: &str, lines: BTreeSet<usize>, texts: &mut Vec<(String, String, BTreeSet<usize>)>| -> bool {
        if texts.len() >= duplication::MAX_FILES || bytes >= duplication::MAX_BYTES {
            return false;
        }
        if let Some(t) = read_text(root, path) {
            if bytes + t.len() > duplication::MAX_BYTES {
                return false;
            }
            bytes += t.len();
            texts.push((path.to_string(), t, lines));
        }
        true
    };
    // The turn's own files first: the bounds never cut them.
    for (path, lines) in added {
        push(path, line_set(lines), &mut texts);
    }
    let tracked = changes::tracked_files(t)?;
    let total = tracked.len() + changes.files.values().filter(|k| **k == ChangeKind::Untracked).count();
    for path in tracked.iter().filter(|p| !added.contains_key(*p)) {
        if !push(path, BTreeSet::new(), &mut texts) {
            bound = Some(format!(
                "the scan stopped at {} of {} files ({} MB read; the bounds are {} files and {} MB): the rest were not compared",
                texts.len(),
                total,
                bytes / (1024 * 1024),
                duplication::MAX_FILES,
                duplication::MAX_BYTES / (1024 * 1024)
            ));
            break;
        }
    }
    let sources: Vec<duplication::Source<'_>> = texts
        .iter()
        .map(|(p, t, a)| duplication::Source {
            path: p,
            text: t,
            added: a,
        })
        .collect();
    let scan = duplication::scan(&sources, min_run, MAX_FINDINGS);
    Ok(Found {
        rule: "duplication",
        tried: format!(
            "compared the runs of {min_run}+ lines this turn added with {} files of the project",
            sources.len()
        ),
        need: "no run of lines that already exists elsewhere: reuse the existing code (call it, or move it where both sites can) instead of copying it.".into(),
        next: "for each copy listed, call or share the existing code instead of repeating it.".into(),
        findings: scan.duplicates.iter().map(duplication::Duplicate::describe).collect(),
        note: bound.or(scan.bound),
        checked: sources.len(),
    })
}

fn check_supply(t: changes::Tree<'_>, base: &Head, changes: &Changes) -> Found {
    let root = t.root;
    let changed = changes.paths();
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    let mut manifests = 0;
    for path in changes.present().filter(|p| supply::manifest_for(p).is_some()) {
        let Some(after) = read_text(root, path) else { continue };
        manifests += 1;
        let before = changes::file_at(t, base, path).map(|b| String::from_utf8_lossy(&b).into_owned());
        match supply::check_manifest(path, before.as_deref(), &after, &changed) {
            Ok(problems) => findings.extend(problems.iter().map(supply::Problem::describe)),
            Err(e) => notes.push(format!("{e}: not checked")),
        }
    }
    Found {
        rule: "supply-chain",
        tried: format!("read the dependency sections of {manifests} changed manifest(s) before and after this turn"),
        need: "every dependency this turn added to name a version, and its lockfile to move with it.".into(),
        next: "pin each dependency listed to a version and run the package manager so its lockfile records it.".into(),
        findings: findings.into_iter().take(MAX_FINDINGS).collect(),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        checked: manifests,
    }
}

/// The early, non-blocking warning for one edited file: its added comments that the stop will
/// refuse, or `None`.
pub(crate) fn heads_up(t: changes::Tree<'_>, base: &Head, rel: &str, mode: comments::Mode) -> Option<String> {
    let root = t.root;
    comments::syntax_for(rel)?;
    let mut changes = Changes::default();
    for (p, k) in changes::status_of(t, rel).ok()? {
        changes.files.insert(p, k);
    }
    if base.commit().is_some() && !changes.files.contains_key(rel) {
        // Committed inside the turn: the diff from the base still has it.
        changes.files.insert(rel.to_string(), ChangeKind::Modified);
    }
    let added = changes::added_lines(t, base, &changes, &[rel.to_string()]).ok()?;
    let lines = added.get(rel)?;
    let text = read_text(root, rel)?;
    let v = comments::check_file(rel, &text, &line_set(lines), mode);
    if v.is_empty() {
        return None;
    }
    let listed: Vec<String> = v.iter().map(|v| format!("line {}: {:?} ({})", v.line, v.text, v.why)).collect();
    Some(format!(
        "HEADS UP (comments policy): {rel} now has added comments the stop check will refuse — {}. Restate them with why:, hazard: or invariant:, or remove them, before you finish.",
        listed.join("; ")
    ))
}
