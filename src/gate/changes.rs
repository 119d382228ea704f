//! What a turn changed: the turn's base (HEAD when the prompt arrived), and at Stop the files that
//! differ from it — commits made inside the turn, staged and unstaged changes, untracked files —
//! minus tlc's own state folder.
//!
//! HEAD is read from the repository's files (no git process: this runs on every prompt). The
//! changed files need git, which is spawned only when a rail that needs the diff is on; its
//! output is read NUL-separated, so names with newlines, deleted files and an unborn HEAD are
//! handled.

use super::GateError;
use crate::confine::Jail;
use crate::gitfiles;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// tlc's own folder: its config, rules, state and evidence are never the agent's change.
pub(crate) const TLC_PREFIX: &str = ".tlc/";

/// A repository's working tree as the stop checks ask git about it: its root, and the jail tlc's
/// git runs in (issue 51: the protected set read-only, the operator's `PATH`, none of the
/// session's `GIT_*` variables).
#[derive(Clone, Copy)]
pub(crate) struct Tree<'a> {
    pub root: &'a Path,
    pub jail: &'a Jail,
}

/// What HEAD is, read from the repository's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Head {
    /// A commit (hex object name).
    Commit(String),
    /// A branch with no commit yet.
    Unborn,
    /// Not readable from the files (a reftable, a broken ref): git has to say.
    Unknown,
}

impl Head {
    pub(crate) fn commit(&self) -> Option<&str> {
        match self {
            Head::Commit(c) => Some(c),
            _ => None,
        }
    }

    /// The stored form: the commit, `unborn`, or nothing.
    pub(crate) fn stored(&self) -> Option<String> {
        match self {
            Head::Commit(c) => Some(c.clone()),
            Head::Unborn => Some("unborn".into()),
            Head::Unknown => None,
        }
    }

    pub(crate) fn from_stored(s: Option<&str>) -> Head {
        match s {
            Some("unborn") => Head::Unborn,
            Some(c) if gitfiles::is_object_name(c) => Head::Commit(c.to_string()),
            _ => Head::Unknown,
        }
    }
}

/// Reads HEAD from the files of the repository at `root` (through `gitfiles`).
pub(crate) fn read_head(root: &Path) -> Head {
    let Ok(Some(repo)) = gitfiles::Repo::at(&gitfiles::Disk, root) else {
        return Head::Unknown;
    };
    match repo.head() {
        None => Head::Unknown,
        Some(gitfiles::Head::Detached(commit)) => Head::Commit(commit),
        Some(gitfiles::Head::Branch(name)) => match repo.resolve(&name) {
            gitfiles::Ref::Commit(commit) => Head::Commit(commit),
            gitfiles::Ref::Absent => Head::Unborn,
            gitfiles::Ref::Unknown => Head::Unknown,
        },
    }
}

/// `git` in the tree's root, in its jail, with paths printed as they are and nothing of the
/// repository's that runs code: no hooks, no file-system monitor, no untracked cache (which the
/// agent can write), no pager.
fn git(t: Tree<'_>) -> Command {
    let mut c = t.jail.command("git", t.root);
    c.arg("-C").arg(t.root);
    c.args(crate::sys::GIT_SAFE_CONFIG);
    c.args(["-c", "core.quotepath=off"]);
    c.env("GIT_PAGER", "cat")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(std::process::Stdio::null());
    c
}

/// The longest one git command of the gates may take: a status or diff of a large tree takes
/// seconds; a git blocked on a FIFO planted in `.git` must not hold the hook longer than this.
const GIT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);
/// The most of one git command's output the gates read (a diff of every added line included).
const GIT_OUTPUT_CAP: usize = 256 * 1024 * 1024;

fn run_git(t: Tree<'_>, args: &[&str]) -> Result<Vec<u8>, GateError> {
    let root = t.root;
    let failed = |cause: String| GateError::Git {
        root: root.to_path_buf(),
        command: args.first().copied().unwrap_or("").to_string(),
        cause,
    };
    if let Some(why) = gitfiles::would_block_git(root) {
        return Err(GateError::GitWouldBlock { why });
    }
    let ran = crate::sys::output_within(git(t).args(args), GIT_OUTPUT_CAP, GIT_WAIT).map_err(|e| failed(format!("cannot run git: {e}")))?;
    match ran {
        crate::sys::Bounded::Exited { status, stdout, .. } if status.success() => Ok(stdout),
        crate::sys::Bounded::Exited { stderr, .. } => Err(failed(String::from_utf8_lossy(&stderr).trim().to_string())),
        crate::sys::Bounded::TimedOut => Err(failed(format!("no answer within {} s", GIT_WAIT.as_secs()))),
        crate::sys::Bounded::TooLarge => Err(failed(format!(
            "more than {} of output",
            crate::fsread::size_words(GIT_OUTPUT_CAP as u64)
        ))),
    }
}

/// HEAD as git says it (for the cases the files cannot answer).
pub(crate) fn head_from_git(t: Tree<'_>) -> Head {
    match run_git(t, &["rev-parse", "--verify", "--quiet", "HEAD"]) {
        Ok(out) => {
            let s = String::from_utf8_lossy(&out).trim().to_string();
            if gitfiles::is_object_name(&s) {
                Head::Commit(s)
            } else {
                Head::Unborn
            }
        }
        Err(_) => Head::Unborn,
    }
}

/// One changed path and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    /// Present and differing from the base (or new and tracked).
    Modified,
    /// Not tracked by git.
    Untracked,
    /// Gone from the working tree.
    Deleted,
}

/// The files a turn changed, relative to the repository root, sorted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Changes {
    pub files: BTreeMap<String, ChangeKind>,
    /// HEAD now.
    pub head: Option<String>,
    /// Why the base was not the turn's own (none recorded): the diff is from HEAD.
    pub note: Option<String>,
    /// Every file found deleted, the turn's or not (the next turn's stop reads it: issue 52).
    pub deleted_all: Vec<String>,
}

impl Changes {
    pub(crate) fn paths(&self) -> Vec<String> {
        self.files.keys().cloned().collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Changed paths that still exist.
    pub(crate) fn present(&self) -> impl Iterator<Item = &str> {
        self.files
            .iter()
            .filter(|(_, k)| **k != ChangeKind::Deleted)
            .map(|(p, _)| p.as_str())
    }
}

/// Parses `git status --porcelain=v1 -z` into (path, kind). A rename or copy record carries its
/// source path as the next field; both count.
pub(crate) fn parse_status_z(out: &[u8]) -> Vec<(String, ChangeKind)> {
    let mut found = Vec::new();
    let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let Some(rec) = fields.next() {
        if rec.len() < 4 {
            continue;
        }
        let (x, y) = (rec[0], rec[1]);
        let path = String::from_utf8_lossy(&rec[3..]).into_owned();
        let kind = if x == b'?' {
            ChangeKind::Untracked
        } else if x == b'D' || y == b'D' {
            ChangeKind::Deleted
        } else {
            ChangeKind::Modified
        };
        if x == b'!' {
            continue;
        }
        found.push((path, kind));
        if matches!(x, b'R' | b'C') {
            if let Some(from) = fields.next() {
                found.push((String::from_utf8_lossy(from).into_owned(), ChangeKind::Deleted));
            }
        }
    }
    found
}

/// The status of one path (empty when it is unchanged from HEAD).
pub(crate) fn status_of(t: Tree<'_>, rel: &str) -> Result<Vec<(String, ChangeKind)>, GateError> {
    let out = run_git(
        t,
        &["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", rel],
    )?;
    Ok(parse_status_z(&out))
}

/// Splits NUL-separated names (`--name-only -z`, `ls-tree -z --name-only`).
pub(crate) fn parse_names_z(out: &[u8]) -> Vec<String> {
    out.split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect()
}

/// The files changed since `base` in the repository at `t.root`: the working tree and index
/// against HEAD, plus what commits made inside the turn changed (a git process more only when
/// HEAD moved). tlc's own `.tlc/` is never a change.
///
/// Nothing the agent can write in `.git` hides a change (issue 51): a file carrying the index's
/// `assume-unchanged` or `skip-worktree` flag is hashed and compared with its index entry whatever
/// the flag says, and untracked files are listed with the repository's `.gitignore` files and the
/// operator's global excludes only — never `.git/info/exclude`.
/// What the turn's start was (issue 52: "changed" means changed by this turn): its start on the
/// real clock, and the files a stop before it already found deleted.
#[derive(Debug, Clone, Default)]
pub(crate) struct TurnStart {
    /// Milliseconds since the epoch; `None`: unknown (every dirty file counts).
    pub wall_ms: Option<i64>,
    pub deleted_before: Vec<String>,
}

/// How far before the turn's start a ctime still counts as the turn's, on a file system that keeps
/// whole seconds (or FAT's two): its times are coarser than the clock, and must never hide a change
/// made in the turn's first moment.
const COARSE_CTIME_SLACK_MS: i64 = 2000;
/// The same on a file system with sub-second times: the kernel stamps files from a clock that may
/// lag the real one by a few ticks. Anything wider makes a file written by the previous session in
/// its last second count as this turn's when the next session starts at once.
const FINE_CTIME_SLACK_MS: i64 = 50;

/// The changes of [`changed_files`] that the turn made: a file still there whose ctime (the last
/// time its content or its entry changed, which no process can set back) is at or after the turn's
/// start, a file deleted that no earlier stop found deleted and whose folder changed since the
/// turn's start, and every file a commit made during the turn touched. Without a start every
/// change counts.
pub(crate) fn of_this_turn(root: &Path, mut changes: Changes, start: &TurnStart, committed: &BTreeSet<String>) -> Changes {
    use std::os::unix::fs::MetadataExt;
    let Some(since) = start.wall_ms else { return changes };
    let changed_since = |p: &Path| {
        p.symlink_metadata()
            .map(|m| {
                // A time with no fraction of a second is read as a coarse file system's (one in a
                // billion fine times is too, which only widens the window).
                let slack = if m.ctime_nsec() == 0 {
                    COARSE_CTIME_SLACK_MS
                } else {
                    FINE_CTIME_SLACK_MS
                };
                m.ctime().saturating_mul(1000) + m.ctime_nsec() / 1_000_000 >= since - slack
            })
            .ok()
    };
    changes.files.retain(|path, kind| {
        if committed.contains(path) {
            return true;
        }
        let at = root.join(path);
        match kind {
            // Deleting a file changes its folder: a folder unchanged since before the turn lost it
            // before the turn.
            ChangeKind::Deleted => !start.deleted_before.contains(path) && at.parent().and_then(&changed_since).unwrap_or(true),
            _ => changed_since(&at).unwrap_or(true),
        }
    });
    changes
}

pub(crate) fn changed_files(t: Tree<'_>, base: &Head) -> Result<Changes, GateError> {
    changed_files_since(t, base, &TurnStart::default())
}

/// [`changed_files`], of this turn only ([`of_this_turn`]).
pub(crate) fn changed_files_since(t: Tree<'_>, base: &Head, start: &TurnStart) -> Result<Changes, GateError> {
    let root = t.root;
    let head = read_head(root);
    let head = if head == Head::Unknown { head_from_git(t) } else { head };
    let mut changes = Changes {
        head: head.commit().map(str::to_string),
        ..Changes::default()
    };
    let status = run_git(t, &["status", "--porcelain=v1", "-z", "--untracked-files=no", "--no-renames"])?;
    for (path, kind) in parse_status_z(&status) {
        changes.files.insert(path, kind);
    }
    let mut listing: Vec<String> = vec![
        "ls-files".into(),
        "-z".into(),
        "-v".into(),
        "-s".into(),
        "--cached".into(),
        "--others".into(),
        "--exclude-per-directory=.gitignore".into(),
    ];
    if let Some(global) = global_excludes(t) {
        listing.push(format!("--exclude-from={}", global.display()));
    }
    let listing: Vec<&str> = listing.iter().map(String::as_str).collect();
    let entries = parse_ls_files_vs(&run_git(t, &listing)?);
    let mut flagged: Vec<(String, String)> = Vec::new();
    for e in entries {
        match e {
            Listed::Untracked(path) => {
                changes.files.entry(path).or_insert(ChangeKind::Untracked);
            }
            Listed::Flagged { path, object } => flagged.push((path, object)),
        }
    }
    for (path, kind) in flagged_changes(t, &flagged)? {
        changes.files.entry(path).or_insert(kind);
    }
    let committed: Vec<String> = match (base, &head) {
        (Head::Commit(b), Head::Commit(h)) if b != h => parse_names_z(&run_git(
            t,
            &["diff", "--no-ext-diff", "--name-only", "-z", "--no-renames", b, h, "--"],
        )?),
        (Head::Unborn, Head::Commit(h)) => parse_names_z(&run_git(t, &["ls-tree", "-r", "-z", "--name-only", h])?),
        (Head::Unknown, _) => {
            changes.note = Some("no base was recorded for this turn: the changes are counted from HEAD".into());
            Vec::new()
        }
        _ => Vec::new(),
    };
    let committed: BTreeSet<String> = committed.into_iter().collect();
    for path in &committed {
        let kind = if root.join(path).symlink_metadata().is_ok() {
            ChangeKind::Modified
        } else {
            ChangeKind::Deleted
        };
        changes.files.entry(path.clone()).or_insert(kind);
    }
    changes.files.retain(|p, _| !p.starts_with(TLC_PREFIX));
    changes.deleted_all = changes
        .files
        .iter()
        .filter(|(_, k)| **k == ChangeKind::Deleted)
        .map(|(p, _)| p.clone())
        .collect();
    Ok(of_this_turn(root, changes, start, &committed))
}

/// One entry of `git ls-files -z -v -s --cached --others` that matters to what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Listed {
    /// Not tracked (and not excluded by what the listing was given).
    Untracked(String),
    /// Tracked with `assume-unchanged` (a lowercase tag) or `skip-worktree` (`S`, `s`): git's own
    /// status does not look at the file; `object` is its index entry's blob.
    Flagged { path: String, object: String },
}

/// Parses `git ls-files -z -v -s --cached --others`: `? <path>` for an untracked file, `<tag>
/// <mode> <object> <stage>\t<path>` for an index entry.
pub(crate) fn parse_ls_files_vs(out: &[u8]) -> Vec<Listed> {
    let mut found = Vec::new();
    for rec in out.split(|b| *b == 0).filter(|r| r.len() > 2) {
        let tag = rec[0];
        let rest = &rec[2..];
        if tag == b'?' {
            found.push(Listed::Untracked(String::from_utf8_lossy(rest).into_owned()));
            continue;
        }
        let flagged = tag.is_ascii_lowercase() || tag == b'S';
        if !flagged {
            continue;
        }
        let Some(tab) = rest.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let meta = String::from_utf8_lossy(&rest[..tab]);
        let Some(object) = meta.split_whitespace().nth(1) else { continue };
        found.push(Listed::Flagged {
            path: String::from_utf8_lossy(&rest[tab + 1..]).into_owned(),
            object: object.to_string(),
        });
    }
    found
}

/// The flagged files whose working copy differs from their index entry (or is gone).
fn flagged_changes(t: Tree<'_>, flagged: &[(String, String)]) -> Result<Vec<(String, ChangeKind)>, GateError> {
    let mut out = Vec::new();
    let mut present: Vec<&(String, String)> = Vec::new();
    for f in flagged {
        match t.root.join(&f.0).symlink_metadata() {
            Ok(m) if m.is_file() => present.push(f),
            Ok(_) => out.push((f.0.clone(), ChangeKind::Modified)),
            Err(_) => out.push((f.0.clone(), ChangeKind::Deleted)),
        }
    }
    for chunk in present.chunks(512) {
        let mut args: Vec<&str> = vec!["hash-object", "--no-filters", "--"];
        args.extend(chunk.iter().map(|f| f.0.as_str()));
        let hashes = run_git(t, &args)?;
        let hashes: Vec<&[u8]> = hashes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).collect();
        for (f, h) in chunk.iter().zip(hashes) {
            if h != f.1.as_bytes() {
                out.push((f.0.clone(), ChangeKind::Modified));
            }
        }
    }
    Ok(out)
}

/// The operator's global excludes file, where git would read one: `core.excludesFile` of the
/// global config, else `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`). It is the
/// operator's (the home is outside the agent's reach), unlike the repository's `info/exclude`.
fn global_excludes(t: Tree<'_>) -> Option<std::path::PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(std::path::PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|h| !h.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let has_global_config =
        home.as_ref().is_some_and(|h| h.join(".gitconfig").is_file()) || xdg.as_ref().is_some_and(|x| x.join("git/config").is_file());
    if has_global_config {
        if let Ok(out) = run_git(t, &["config", "--global", "--path", "--get", "core.excludesFile"]) {
            let p = String::from_utf8_lossy(&out).trim().to_string();
            if !p.is_empty() {
                return Some(std::path::PathBuf::from(p)).filter(|p| p.is_file());
            }
        }
    }
    xdg.map(|x| x.join("git/ignore")).filter(|p| p.is_file())
}

/// The lines a turn added, per file: (1-based line number in the file now, text).
pub(crate) type AddedLines = BTreeMap<String, Vec<(usize, String)>>;

/// Most bytes of diff read for the writing checks.
const MAX_DIFF_BYTES: usize = 16 * 1024 * 1024;
/// Files larger than this are not read whole as "added".
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// The lines added by the turn to each of `files` (present ones): untracked files and every file
/// when the base is unborn count whole; tracked ones from `git diff -U0 <base>`.
pub(crate) fn added_lines(t: Tree<'_>, base: &Head, changes: &Changes, files: &[String]) -> Result<AddedLines, GateError> {
    let root = t.root;
    let mut added = AddedLines::new();
    let mut tracked = Vec::new();
    for f in files {
        match changes.files.get(f) {
            Some(ChangeKind::Deleted) | None => {}
            Some(ChangeKind::Untracked) => {
                if let Some(lines) = whole_file(root, f) {
                    added.insert(f.clone(), lines);
                }
            }
            Some(ChangeKind::Modified) => match base {
                Head::Commit(_) => tracked.push(f.clone()),
                _ => {
                    if let Some(lines) = whole_file(root, f) {
                        added.insert(f.clone(), lines);
                    }
                }
            },
        }
    }
    if let (Head::Commit(b), false) = (base, tracked.is_empty()) {
        let mut args: Vec<&str> = vec!["diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames", b, "--"];
        args.extend(tracked.iter().map(String::as_str));
        let mut out = run_git(t, &args)?;
        out.truncate(MAX_DIFF_BYTES);
        for (file, lines) in parse_unified_zero(&out) {
            if !lines.is_empty() {
                added.entry(file).or_default().extend(lines);
            }
        }
    }
    Ok(added)
}

fn whole_file(root: &Path, rel: &str) -> Option<Vec<(usize, String)>> {
    // A symlink, anything but a regular file, or a file over the cap has no lines to judge.
    let bytes = crate::fsread::read_capped(&root.join(rel), MAX_FILE_BYTES, crate::fsread::Links::Refuse)
        .ok()
        .flatten()?;
    if bytes.contains(&0) {
        return None;
    }
    Some(
        String::from_utf8_lossy(&bytes)
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.to_string()))
            .collect(),
    )
}

/// Parses `git diff -U0` output into the added lines of each new-side file.
pub(crate) fn parse_unified_zero(out: &[u8]) -> AddedLines {
    let mut added = AddedLines::new();
    let mut file: Option<String> = None;
    let mut line_no = 0usize;
    for raw in out.split(|b| *b == b'\n') {
        if let Some(rest) = raw.strip_prefix(b"+++ ") {
            file = if rest == b"/dev/null" {
                None
            } else {
                let name = unquote(rest);
                Some(name.strip_prefix("b/").map(str::to_string).unwrap_or(name))
            };
            continue;
        }
        if raw.starts_with(b"--- ") || raw.starts_with(b"diff --git ") {
            continue;
        }
        if let Some(rest) = raw.strip_prefix(b"@@ ") {
            line_no = hunk_new_start(rest).unwrap_or(0);
            continue;
        }
        if let (Some(text), Some(f)) = (raw.strip_prefix(b"+"), &file) {
            if line_no > 0 {
                added
                    .entry(f.clone())
                    .or_default()
                    .push((line_no, String::from_utf8_lossy(text).trim_end_matches('\r').to_string()));
                line_no += 1;
            }
        }
    }
    added
}

/// `-a,b +c,d @@` → c.
fn hunk_new_start(rest: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(rest).ok()?;
    let plus = text.split_whitespace().find(|t| t.starts_with('+'))?;
    plus[1..].split(',').next()?.parse().ok()
}

/// A path as git prints it in a diff header: bare, or C-quoted when it holds special bytes.
fn unquote(raw: &[u8]) -> String {
    let raw = raw.strip_suffix(b"\t").unwrap_or(raw);
    if raw.len() < 2 || raw[0] != b'"' || raw[raw.len() - 1] != b'"' {
        return String::from_utf8_lossy(raw).into_owned();
    }
    let inner = &raw[1..raw.len() - 1];
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let b = inner[i];
        if b != b'\\' || i + 1 >= inner.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let n = inner[i + 1];
        i += 2;
        match n {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'0'..=b'3' if inner.get(i..i + 2).is_some_and(|d| d.iter().all(|c| (b'0'..=b'7').contains(c))) => {
                out.push((n - b'0') * 64 + (inner[i] - b'0') * 8 + (inner[i + 1] - b'0'));
                i += 2;
            }
            other => out.push(other),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The content of `rel` at commit `base` (`None` when it did not exist there or git could not say).
pub(crate) fn file_at(t: Tree<'_>, base: &Head, rel: &str) -> Option<Vec<u8>> {
    let Head::Commit(b) = base else { return None };
    run_git(t, &["show", "--no-ext-diff", "--no-textconv", &format!("{b}:{rel}")]).ok()
}

/// Every file git tracks, plus `extra` (the turn's untracked files), for the duplication scan.
pub(crate) fn tracked_files(t: Tree<'_>) -> Result<BTreeSet<String>, GateError> {
    Ok(parse_names_z(&run_git(t, &["ls-files", "-z", "--cached"])?)
        .into_iter()
        .filter(|p| !p.starts_with(TLC_PREFIX))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_records_with_odd_names_renames_and_deletions() {
        let out = b" M src/a.rs\0?? new\nline.txt\0D  gone.rs\0R  to.rs\0from.rs\0 D wt-gone\0";
        let got = parse_status_z(out);
        assert_eq!(
            got,
            vec![
                ("src/a.rs".to_string(), ChangeKind::Modified),
                ("new\nline.txt".to_string(), ChangeKind::Untracked),
                ("gone.rs".to_string(), ChangeKind::Deleted),
                ("to.rs".to_string(), ChangeKind::Modified),
                ("from.rs".to_string(), ChangeKind::Deleted),
                ("wt-gone".to_string(), ChangeKind::Deleted),
            ]
        );
    }

    #[test]
    fn unified_zero_gives_new_side_line_numbers() {
        let out = b"diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -3,0 +4,2 @@ fn x\n+// one\n+let y = 2;\n@@ -10 +12 @@\n-old\n+new\ndiff --git a/x b/x\n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n+++ \"b/we\\tird\\303\\251.rs\"\n@@ -0,0 +1 @@\n+z\n";
        let a = parse_unified_zero(out);
        assert_eq!(
            a["src/a.rs"],
            vec![(4, "// one".to_string()), (5, "let y = 2;".to_string()), (12, "new".to_string())]
        );
        assert!(!a.contains_key("x"));
        assert_eq!(a["we\tirdé.rs"], vec![(1, "z".to_string())]);
    }

    #[test]
    fn head_is_read_from_loose_packed_and_unborn_refs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = root.join(".git");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(read_head(root), Head::Unborn);
        let sha = "0123456789abcdef0123456789abcdef01234567";
        std::fs::write(git.join("packed-refs"), format!("# pack-refs\n{sha} refs/heads/main\n")).unwrap();
        assert_eq!(read_head(root), Head::Commit(sha.into()));
        let sha2 = "1111111111111111111111111111111111111111";
        std::fs::write(git.join("refs/heads/main"), format!("{sha2}\n")).unwrap();
        assert_eq!(read_head(root), Head::Commit(sha2.into()));
        std::fs::write(git.join("HEAD"), format!("{sha}\n")).unwrap();
        assert_eq!(read_head(root), Head::Commit(sha.into()), "detached");
        std::fs::write(git.join("HEAD"), "ref: ../../etc/passwd\n").unwrap();
        assert_eq!(read_head(root), Head::Unknown);
        assert_eq!(read_head(&root.join("nowhere")), Head::Unknown);
        assert_eq!(Head::from_stored(Head::Unborn.stored().as_deref()), Head::Unborn);
    }
}
