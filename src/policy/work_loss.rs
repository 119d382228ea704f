//! The work-loss rule: commands that discard work git cannot give back — uncommitted changes
//! (`git reset --hard`, `git checkout -- .`, `git restore`, `git switch --discard-changes`),
//! untracked files (`git clean -f`), stashes (`git stash drop|clear`), unmerged branches
//! (`git branch -D`), a dirty worktree (`git worktree remove --force`), modified files (`rm`).
//!
//! Unlike a word match, it asks the repository: such a command on a clean tree loses nothing and
//! passes; on a dirty one it is denied (solo, focus) or asked about (paired), naming what would be
//! lost and the safe way. The commands the floor saw run are classified by a pure function ([`risks_ran`]); the tree is
//! read ([`TreeState::read`]) only when one is seen, by a bounded `git status`.

use super::floor::Ran;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The programs that can lose work: the floor's walk records only the commands that run one (by
/// the program's name after quote removal and expansion, never by the line's spelling: `g\\it`
/// is git).
pub(crate) const MAY_LOSE: &[&str] = &["git", "rm", "shred", "unlink", "srm", "wipe", "find"];

/// The rule's name in decisions.
pub(crate) const RULE: &str = "work-loss";
/// Paths named in a message, at most.
const SHOWN: usize = 10;
/// How long the look at the tree may take, and how much of git's answer is read.
const GIT_WAIT: Duration = Duration::from_secs(3);
const GIT_OUTPUT_CAP: usize = 8 * 1024 * 1024;

/// What a command would throw away, before the tree is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Risk {
    /// Every uncommitted change to tracked files (`reset --hard`, `checkout -f`, `switch -f`).
    AllChanges { command: String },
    /// Uncommitted changes under these paths (`checkout -- p`, `restore p`, `rm p`; `removal`
    /// for `rm` and its kin, whose paths may be dropped before the tree is asked).
    ChangesUnder {
        command: String,
        paths: Vec<PathBuf>,
        removal: bool,
    },
    /// Untracked files under these paths (the repository when empty); `ignored` too with `-x`.
    Untracked {
        command: String,
        paths: Vec<PathBuf>,
        ignored: bool,
        /// `-d`: untracked folders go too.
        dirs: bool,
    },
    /// The stash (`drop`: its newest entry or the named one; `clear`: all).
    Stash { command: String },
    /// A branch whose commits no other ref holds.
    Branch { command: String, name: String },
    /// Any branch (a `git branch` argument only known at run time may be `-D` and a name).
    AnyBranch { command: String },
    /// A worktree removed with its changes.
    Worktree { command: String, path: PathBuf },
}

/// Every risk in `script`'s own commands, with relative paths taken from `cwd`.
#[cfg(test)]
pub(crate) fn risks(script: &super::shell::parse::Script, cwd: &Path) -> Vec<Risk> {
    use super::shell::invocation::invocation;
    let mut out = Vec::new();
    for cmd in &script.commands {
        let inv = invocation(cmd);
        let Some(program) = inv.program.as_deref() else { continue };
        let args = inv.arg_texts();
        let dynamic: Vec<bool> = inv.args.iter().map(|w| w.literal().is_none()).collect();
        out.extend(risks_of(program, args, &dynamic, Some(cwd), cwd));
    }
    out
}

/// Every risk in the commands a line runs, as the floor's walk saw them (through wrappers,
/// substitutions, `bash -c`, `find -exec`, `parallel`, …). A git command that runs outside
/// `root` works on another repository and is not this rule's; one whose folder is only known at
/// run time is judged against the project.
pub(crate) fn risks_ran(ran: &[Ran], root: &Path) -> Vec<Risk> {
    let mut out = Vec::new();
    for r in ran {
        let from = r.cwd.as_deref().unwrap_or(root);
        for risk in risks_of(&r.program, &r.args, &r.dynamic, r.cwd.as_deref(), root) {
            let inside = match &risk {
                Risk::Worktree { .. } => true,
                _ if r.program == "git" => git_base(&r.args, from).starts_with(root) || r.cwd.is_none(),
                _ => true,
            };
            if inside && !out.contains(&risk) {
                out.push(risk);
            }
        }
    }
    out
}

/// Whether a short-option cluster before `--` holds `c` (`-qf`, `-Dv`); the letters in `valued`
/// take the rest of their cluster as a value (`-bfix` names a branch `fix`).
fn cluster_has(rest: &[String], c: char, valued: &str) -> bool {
    for a in rest {
        if a == "--" {
            return false;
        }
        if a.starts_with('-') && !a.starts_with("--") {
            for ch in a.chars().skip(1) {
                if ch == c {
                    return true;
                }
                if valued.contains(ch) {
                    break;
                }
            }
        }
    }
    false
}

/// The folder a git command works in: its own, moved by `-C` (`-C dir`, `-Cdir`).
fn git_base(args: &[String], cwd: &Path) -> PathBuf {
    let mut base = cwd.to_path_buf();
    let mut k = 0;
    while k < args.len() {
        let a = args[k].as_str();
        if a == "-C" {
            if let Some(d) = args.get(k + 1) {
                base = crate::pathtext::normalize_in(&base, Path::new(d));
            }
            k += 2;
        } else if let Some(d) = a.strip_prefix("-C").filter(|d| !d.is_empty()) {
            base = crate::pathtext::normalize_in(&base, Path::new(d));
            k += 1;
        } else if matches!(a, "-c" | "--git-dir" | "--work-tree" | "--namespace") {
            k += 2;
        } else if a.starts_with('-') {
            k += 1;
        } else {
            break;
        }
    }
    base
}

/// The risks of one command: `program` with `args` (`dynamic`: which are only known at run
/// time), run in `cwd` (`None`: a folder only known at run time, where relative removals are
/// not judged here: the floor refuses them), with `root` the project.
fn risks_of(program: &str, args: &[String], dynamic: &[bool], cwd: Option<&Path>, root: &Path) -> Vec<Risk> {
    let mut out = Vec::new();
    let line = std::iter::once(program.to_string())
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    let abs = |base: &Path, p: &str| crate::pathtext::normalize_in(base, Path::new(p));
    match program {
        "git" => {
            let base = git_base(args, cwd.unwrap_or(root));
            let mut k = 0;
            while k < args.len() {
                match args[k].as_str() {
                    "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => k += 2,
                    a if a.starts_with('-') => k += 1,
                    _ => break,
                }
            }
            let Some(sub) = args.get(k) else { return out };
            let rest = &args[k + 1..];
            let rest_dynamic = dynamic.get(k + 1..).unwrap_or(&[]);
            let has = |flag: &str| rest.iter().take_while(|a| *a != "--").any(|a| a == flag);
            let short = |c: char| rest.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c));
            // Path operands: after `--` every word; before it, the words that are not options.
            let operands = |after_dashdash_only: bool| -> Vec<PathBuf> {
                let dd = rest.iter().position(|a| a == "--");
                let (before, after): (&[String], &[String]) = match dd {
                    Some(i) => (&rest[..i], &rest[i + 1..]),
                    None => (rest, &[]),
                };
                let before: &[String] = if after_dashdash_only { &[] } else { before };
                before
                    .iter()
                    .filter(|a| !a.starts_with('-'))
                    .chain(after.iter())
                    .map(|a| abs(&base, a))
                    .collect()
            };
            let from_file = rest
                .iter()
                .take_while(|a| *a != "--")
                .any(|a| a.starts_with("--pathspec-from-file"));
            let all = || Risk::AllChanges { command: line.clone() };
            match sub.as_str() {
                "reset" if has("--hard") || has("--merge") || has("--keep") => out.push(all()),
                "read-tree" if (has("--reset") || has("-m")) && (has("-u") || cluster_has(rest, 'u', "")) => out.push(all()),
                "checkout" if has("--force") || cluster_has(rest, 'f', "bBU") || from_file => out.push(all()),
                "checkout" => {
                    // Without `--`, a branch name is not a path: only operands that name a
                    // changed file count (see [`TreeState::loses`]).
                    let paths = operands(false);
                    if !paths.is_empty() {
                        out.push(Risk::ChangesUnder {
                            command: line.clone(),
                            paths,
                            removal: false,
                        });
                    }
                }
                "restore" => {
                    let staged_only = (has("--staged") || short('S')) && !(has("--worktree") || short('W'));
                    let mut paths = Vec::new();
                    let mut skip = false;
                    let mut after_dd = false;
                    for a in rest {
                        if skip {
                            skip = false;
                            continue;
                        }
                        if a == "--" && !after_dd {
                            after_dd = true;
                            continue;
                        }
                        if !after_dd && (a == "-s" || a == "--source") {
                            skip = true;
                            continue;
                        }
                        if after_dd || !a.starts_with('-') {
                            paths.push(abs(&base, a));
                        }
                    }
                    if !staged_only && from_file {
                        out.push(all());
                    } else if !staged_only && !paths.is_empty() {
                        out.push(Risk::ChangesUnder {
                            command: line.clone(),
                            paths,
                            removal: false,
                        });
                    }
                }
                "switch" if has("--force") || has("--discard-changes") || cluster_has(rest, 'f', "cC") => out.push(all()),
                "rm" if (has("--force") || cluster_has(rest, 'f', "")) && !has("--cached") => {
                    let paths = operands(false);
                    if !paths.is_empty() {
                        out.push(Risk::ChangesUnder {
                            command: line.clone(),
                            paths,
                            removal: false,
                        });
                    }
                }
                "clean" => {
                    let dry = has("-n") || has("--dry-run") || short('n');
                    let forced = has("-f") || has("--force") || short('f');
                    if forced && !dry {
                        let paths = operands(false);
                        out.push(Risk::Untracked {
                            command: line.clone(),
                            paths,
                            ignored: short('x') || short('X'),
                            dirs: short('d'),
                        });
                    }
                }
                "stash" if matches!(rest.first().map(String::as_str), Some("drop" | "clear")) => {
                    out.push(Risk::Stash { command: line.clone() })
                }
                "branch" => out.extend(branch_risks(&line, rest, rest_dynamic)),
                "update-ref" if has("-d") || has("--delete") => {
                    if let Some(name) = rest
                        .iter()
                        .find(|a| !a.starts_with('-'))
                        .and_then(|r| r.strip_prefix("refs/heads/"))
                    {
                        out.push(Risk::Branch {
                            command: line.clone(),
                            name: name.to_string(),
                        });
                    }
                }
                "worktree" if rest.first().map(String::as_str) == Some("remove") && (has("--force") || cluster_has(rest, 'f', "")) => {
                    if let Some(p) = rest[1..].iter().find(|a| !a.starts_with('-')) {
                        out.push(Risk::Worktree {
                            command: line.clone(),
                            path: abs(&base, p),
                        });
                    }
                }
                _ => {}
            }
        }
        "rm" | "shred" | "unlink" | "srm" | "wipe" => {
            let Some(cwd) = cwd else { return out };
            let paths: Vec<PathBuf> = args.iter().filter(|a| !a.starts_with('-')).map(|a| abs(cwd, a)).collect();
            if !paths.is_empty() {
                out.push(Risk::ChangesUnder {
                    command: line.clone(),
                    paths,
                    removal: true,
                });
            }
        }
        "find" => {
            let Some(cwd) = cwd else { return out };
            if let Some(paths) = find_removals(args, cwd) {
                out.push(Risk::ChangesUnder {
                    command: line.clone(),
                    paths,
                    removal: true,
                });
            }
        }
        _ => {}
    }
    out
}

/// `find … -delete` and `find … -exec rm {} \;`: the files it may remove, as patterns (a `*`
/// in them crosses folders) — under each starting point, those its `-name` tests select, or
/// every file when the expression is one the rule does not narrow (`!`, `-iname`, `-path`, …).
/// `None` when the command removes nothing.
fn find_removals(args: &[String], cwd: &Path) -> Option<Vec<PathBuf>> {
    const REMOVERS: &[&str] = &["rm", "shred", "unlink", "srm", "wipe"];
    let removes = args.iter().any(|a| a == "-delete")
        || args.windows(2).any(|p| {
            matches!(p[0].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") && REMOVERS.contains(&p[1].rsplit('/').next().unwrap_or(&p[1]))
        });
    if !removes {
        return None;
    }
    let first_test = args
        .iter()
        .position(|a| a.starts_with('-') || a == "!" || a == "(")
        .unwrap_or(args.len());
    let mut roots: Vec<PathBuf> = args[..first_test]
        .iter()
        .map(|r| crate::pathtext::normalize_in(cwd, Path::new(r)))
        .collect();
    if roots.is_empty() {
        roots.push(cwd.to_path_buf());
    }
    let expression = &args[first_test..];
    let exec_at = expression
        .iter()
        .position(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
        .unwrap_or(expression.len());
    let tests = &expression[..exec_at];
    let narrowing = tests.iter().all(|a| {
        !matches!(
            a.as_str(),
            "!" | "-not" | "-iname" | "-path" | "-ipath" | "-wholename" | "-regex" | "-iregex" | "-lname" | "-ilname"
        )
    });
    let names: Vec<&String> = tests.windows(2).filter(|p| p[0] == "-name").map(|p| &p[1]).collect();
    if !narrowing || names.is_empty() {
        return Some(roots);
    }
    Some(
        roots
            .iter()
            .flat_map(|r| {
                names
                    .iter()
                    .map(move |n| PathBuf::from(format!("{}/*{}", r.display().to_string().trim_end_matches('/'), n)))
            })
            .collect(),
    )
}

/// Whether a path operand is a pattern (`*.log`, `src/[ab].rs`): it is matched against the
/// changed files, not taken as a path.
pub(crate) fn is_pattern(p: &Path) -> bool {
    p.to_str().is_some_and(|t| t.contains(['*', '?', '[']))
}

/// `p` (a path, or a pattern per [`is_pattern`]) covers `file`: the file is `p`, under `p`, or
/// (for a pattern) the pattern matches it or a folder above it.
fn covers(p: &Path, file: &Path) -> bool {
    if !is_pattern(p) {
        return file.starts_with(p);
    }
    let (Some(pattern), Some(file)) = (p.to_str(), file.to_str()) else {
        return true;
    };
    let mut prefix_end = file.len();
    loop {
        if crate::policy::floor::shell_glob_match(pattern, &file[..prefix_end]) {
            return true;
        }
        match file[..prefix_end].rfind('/') {
            Some(0) | None => return false,
            Some(slash) => prefix_end = slash,
        }
    }
}

/// `git branch`'s risks: a forced delete (`-D`, `-d -f`, `--delete --force`) of each branch it
/// names; a forced rename or copy (`-M`, `-C`, `-m -f`) over the branch it overwrites; and an
/// argument that is a command's output, which may be `-D` and a name (any unmerged branch).
fn branch_risks(line: &str, rest: &[String], dynamic: &[bool]) -> Vec<Risk> {
    const VALUED: &[&str] = &[
        "--format",
        "--sort",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "-u",
        "--set-upstream-to",
        "--color",
        "--column",
    ];
    let mut out = Vec::new();
    let opts: Vec<&String> = rest.iter().take_while(|a| *a != "--").collect();
    let has = |f: &str| opts.iter().any(|a| *a == f);
    let force = has("--force") || cluster_has(rest, 'f', "u");
    let delete = has("--delete") || cluster_has(rest, 'd', "u");
    let mut names = Vec::new();
    let mut unknown = false;
    let mut k = 0;
    let mut after_dd = false;
    while k < rest.len() {
        let a = &rest[k];
        let dynamic = dynamic.get(k).copied().unwrap_or(false);
        if !after_dd && a == "--" {
            after_dd = true;
        } else if !after_dd && VALUED.contains(&a.as_str()) {
            k += 1;
        } else if dynamic && a.contains("$(…)") {
            // A command's output may be several words (`-D main`); a variable is most often
            // a new branch's name, and is left to the floor.
            unknown = true;
        } else if after_dd || !a.starts_with('-') {
            names.push(a.clone());
        }
        k += 1;
    }
    if cluster_has(rest, 'D', "u") || delete && force {
        // `git branch -D "$B"`: the branch is only known at run time.
        if rest.iter().zip(dynamic).any(|(a, d)| *d && !a.starts_with('-')) {
            unknown = true;
        }
        for name in &names {
            out.push(Risk::Branch {
                command: line.to_string(),
                name: name.clone(),
            });
        }
    }
    // `git branch -f NAME [START]` resets an existing branch to START (or HEAD).
    if force && !delete && !has("--move") && !has("--copy") && !"mMcC".chars().any(|l| cluster_has(rest, l, "u")) {
        if let Some(name) = names.first() {
            out.push(Risk::Branch {
                command: line.to_string(),
                name: name.clone(),
            });
        }
    }
    let overwrite = cluster_has(rest, 'M', "u")
        || cluster_has(rest, 'C', "u")
        || force && (has("--move") || has("--copy") || cluster_has(rest, 'm', "u") || cluster_has(rest, 'c', "u"));
    if overwrite {
        if let Some(target) = names.last() {
            out.push(Risk::Branch {
                command: line.to_string(),
                name: target.clone(),
            });
        }
    }
    if unknown {
        out.push(Risk::AnyBranch { command: line.to_string() });
    }
    out
}

/// What the working tree holds that git cannot give back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TreeState {
    pub root: PathBuf,
    /// Tracked files with uncommitted changes (staged or not), relative to the root.
    pub changed: Vec<String>,
    pub untracked: Vec<String>,
    pub ignored: Vec<String>,
}

impl TreeState {
    /// `git status --porcelain=v2 -z` in `root`, bounded in time and size; `None` when git does
    /// not answer (not a repository, a hang, too much output).
    pub(crate) fn read(root: &Path, with_ignored: bool) -> Option<TreeState> {
        let mut args = vec![
            "-c",
            "core.quotepath=off",
            "status",
            "--porcelain=v2",
            "-z",
            "--untracked-files=normal",
        ];
        if with_ignored {
            args.push("--ignored=matching");
        }
        let out = bounded_git(root, &args)?;
        Some(TreeState::parse(root, &out))
    }

    pub(crate) fn parse(root: &Path, out: &[u8]) -> TreeState {
        let mut s = TreeState {
            root: root.to_path_buf(),
            ..TreeState::default()
        };
        let mut records = out.split(|b| *b == 0).filter(|r| !r.is_empty());
        while let Some(r) = records.next() {
            let text = String::from_utf8_lossy(r);
            match r.first() {
                // `1 XY sub mH mI mW hH hI path`, `u XY …` (10 fields): the path is the last.
                Some(b'1') => s.changed.push(text.splitn(9, ' ').nth(8).unwrap_or("").to_string()),
                Some(b'u') => s.changed.push(text.splitn(11, ' ').nth(10).unwrap_or("").to_string()),
                // `2 XY sub mH mI mW hH hI Xscore path` then the original path.
                Some(b'2') => {
                    s.changed.push(text.splitn(10, ' ').nth(9).unwrap_or("").to_string());
                    records.next();
                }
                Some(b'?') => s.untracked.push(text[2..].to_string()),
                Some(b'!') => s.ignored.push(text[2..].to_string()),
                _ => {}
            }
        }
        s
    }

    fn under(&self, files: &[String], paths: &[PathBuf]) -> Vec<String> {
        files
            .iter()
            .filter(|f| {
                let abs = self.root.join(f.trim_end_matches('/'));
                paths.is_empty() || paths.iter().any(|p| covers(p, &abs))
            })
            .cloned()
            .collect()
    }

    /// What `risk` would lose here (empty: nothing).
    pub(crate) fn loses(&self, risk: &Risk) -> Vec<String> {
        match risk {
            Risk::AllChanges { .. } => self.changed.clone(),
            Risk::ChangesUnder { paths, .. } => self.under(&self.changed, paths),
            Risk::Untracked { paths, ignored, dirs, .. } => {
                // `--untracked-files=normal` lists an untracked folder as one `dir/` entry.
                let mut out = self.under(&self.untracked, paths);
                if *ignored {
                    out.extend(self.under(&self.ignored, paths));
                }
                if !dirs {
                    out.retain(|f| !f.ends_with('/'));
                }
                out
            }
            Risk::Stash { .. } | Risk::Branch { .. } | Risk::AnyBranch { .. } | Risk::Worktree { .. } => Vec::new(),
        }
    }
}

/// Runs git in `root` with stdout read up to [`GIT_OUTPUT_CAP`] and at most [`GIT_WAIT`], and never
/// on a FIFO planted in `.git`: the hook never waits on a slow or huge repository for long. Whether
/// git succeeded and its stdout; `None` when it did not run or did not finish.
fn run_git(root: &Path, args: &[&str]) -> Option<(bool, Vec<u8>)> {
    if crate::gitfiles::would_block_git(root).is_some() {
        return None;
    }
    match crate::sys::output_within(crate::sys::git(Some(root)).args(args), GIT_OUTPUT_CAP, GIT_WAIT).ok()? {
        crate::sys::Bounded::Exited { status, stdout, .. } => Some((status.success(), stdout)),
        _ => None,
    }
}

/// git's stdout when it succeeds (see [`run_git`]).
fn bounded_git(root: &Path, args: &[&str]) -> Option<Vec<u8>> {
    run_git(root, args).and_then(|(ok, stdout)| ok.then_some(stdout))
}

/// Whether git succeeds with `args` in `root` (see [`run_git`]).
fn git_ok(root: &Path, args: &[&str]) -> Option<bool> {
    run_git(root, args).map(|(ok, _)| ok)
}

/// What a command would lose, as the repository at `root` says: the command, the lost items and
/// the safe way; `None` when nothing would be lost.
pub(crate) fn assess(risks: &[Risk], root: &Path) -> Option<(String, Vec<String>, &'static str)> {
    let wants_ignored = risks.iter().any(|r| matches!(r, Risk::Untracked { ignored: true, .. }));
    let needs_tree = risks
        .iter()
        .any(|r| matches!(r, Risk::AllChanges { .. } | Risk::ChangesUnder { .. } | Risk::Untracked { .. }));
    let tree = if needs_tree { TreeState::read(root, wants_ignored) } else { None };
    for r in risks {
        let (command, lost, safe): (&String, Vec<String>, &'static str) = match r {
            Risk::AllChanges { command } | Risk::ChangesUnder { command, .. } => match &tree {
                Some(t) => (
                    command,
                    t.loses(r),
                    "Save them first with `git stash push` (or commit them), then run it",
                ),
                None if needs_tree => (
                    command,
                    vec!["(the working tree's state could not be read)".into()],
                    "Check `git status` first",
                ),
                None => continue,
            },
            Risk::Untracked { command, .. } => match &tree {
                Some(t) => (
                    command,
                    t.loses(r),
                    "Keep them first with `git stash push -u` (or add and commit them), then run it",
                ),
                None => (
                    command,
                    vec!["(the working tree's state could not be read)".into()],
                    "Check `git status` first",
                ),
            },
            Risk::Stash { command } => {
                let has_stash = git_ok(root, &["rev-parse", "--verify", "--quiet", "refs/stash"]);
                match has_stash {
                    Some(false) => continue,
                    _ => (
                        command,
                        vec!["stashed changes (`git stash list`)".into()],
                        "Apply them, or keep them on a branch with `git stash branch <name>`, first",
                    ),
                }
            }
            Risk::Branch { command, name } => {
                // A branch that does not exist loses nothing (git refuses).
                if git_ok(root, &["rev-parse", "--verify", "--quiet", &format!("refs/heads/{name}")]) == Some(false) {
                    continue;
                }
                let merged = git_ok(root, &["merge-base", "--is-ancestor", &format!("refs/heads/{name}"), "HEAD"]);
                let elsewhere =
                    bounded_git(root, &["branch", "-r", "--contains", &format!("refs/heads/{name}")]).is_some_and(|o| !o.is_empty());
                if merged == Some(true) || elsewhere {
                    continue;
                }
                (
                    command,
                    vec![format!("the commits of branch {name}, merged nowhere else")],
                    "Merge or push it first, or keep it",
                )
            }
            Risk::AnyBranch { command } => {
                let unmerged = bounded_git(root, &["branch", "--format=%(refname:short)", "--no-merged", "HEAD"]);
                let names: Vec<String> = match unmerged {
                    Some(o) => String::from_utf8_lossy(&o)
                        .lines()
                        .filter(|l| !l.is_empty())
                        .map(str::to_string)
                        .collect(),
                    None => vec!["(the branches could not be read)".into()],
                };
                if names.is_empty() {
                    continue;
                }
                (
                    command,
                    names
                        .into_iter()
                        .map(|n| format!("the commits of branch {n}, merged nowhere else"))
                        .collect(),
                    "Name the branch literally, and merge or push it first if it is to go",
                )
            }
            Risk::Worktree { command, path } => match TreeState::read(path, false) {
                Some(t) if t.changed.is_empty() && t.untracked.is_empty() => continue,
                Some(t) => (
                    command,
                    t.changed
                        .iter()
                        .chain(t.untracked.iter())
                        .map(|f| format!("{}/{f}", path.display()))
                        .collect(),
                    "Commit or stash them in that worktree first",
                ),
                None => continue,
            },
        };
        if !lost.is_empty() {
            return Some((command.clone(), lost, safe));
        }
    }
    None
}

/// The sentence naming what would be lost: at most [`SHOWN`] items and a count.
pub(crate) fn describe(command: &str, lost: &[String], safe: &str) -> String {
    let shown: Vec<&str> = lost.iter().take(SHOWN).map(String::as_str).collect();
    let more = lost.len().saturating_sub(SHOWN);
    let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!(
        "`{command}` would discard work git cannot give back: {}{tail} ({} in all). {safe}.",
        shown.join(", "),
        lost.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(cmd: &str) -> Vec<Risk> {
        risks(&crate::policy::shell::parse(cmd).unwrap(), Path::new("/repo"))
    }

    #[test]
    fn the_spelling_does_not_hide_work_loss() {
        for cmd in [
            "g\\it reset --hard",
            "g'i't reset --hard",
            "git reset --har",
            "{git,reset,--hard}",
            "git checkout --forc main",
            "rm -f *.txt",
            "find . -name '*.txt' -exec rm {} \\;",
            "find src -delete",
            "srm -z a.txt",
        ] {
            assert!(!r(cmd).is_empty(), "{cmd}");
        }
        for cmd in [
            "git reset --so HEAD",
            "git status --shor",
            "find . -name '*.txt' -print",
            "g''it status",
        ] {
            assert!(r(cmd).is_empty(), "{cmd}");
        }
        let tree = TreeState {
            root: "/repo".into(),
            changed: vec!["src/a.txt".into(), "src/b.rs".into()],
            ..TreeState::default()
        };
        let lost = |cmd: &str| r(cmd).iter().flat_map(|risk| tree.loses(risk)).collect::<Vec<_>>();
        assert_eq!(lost("find . -name '*.txt' -delete"), ["src/a.txt"]);
        assert_eq!(lost("rm -f src/*.rs"), ["src/b.rs"]);
        assert!(lost("find . -name '*.o' -delete").is_empty());
        assert!(lost("rm -f *.log").is_empty());
    }

    #[test]
    fn work_losing_commands_are_recognised_and_harmless_ones_are_not() {
        for cmd in [
            "git reset --hard",
            "git reset --hard HEAD~1",
            "git checkout -- .",
            "git checkout .",
            "git checkout -f main",
            "git restore src/a.rs",
            "git restore --worktree --staged .",
            "git switch --discard-changes main",
            "git clean -fd",
            "git clean -fdx",
            "git stash drop",
            "git stash clear",
            "git branch -D feature",
            "git worktree remove --force ../wt",
            "rm src/a.rs",
            "cd src && git -C .. reset --hard",
        ] {
            assert!(!r(cmd).is_empty(), "{cmd}");
        }
        for cmd in [
            "git reset HEAD~1",
            "git restore --staged .",
            "git clean -nd",
            "git stash list",
            "git branch -d merged",
            "git status",
            "git checkout main",
        ] {
            let risks = r(cmd);
            // `git checkout main` names a branch: a risk only if a changed file were called `main`.
            assert!(risks.iter().all(|x| matches!(x, Risk::ChangesUnder { .. })), "{cmd}: {risks:?}");
        }
    }

    /// Issue 29's aim against the peers' suites: the forms their tests name that this rule
    /// once missed (commands are facts; the table is ours).
    #[test]
    fn clusters_plumbing_and_branch_overwrites_are_work_loss() {
        let kind = |cmd: &str| -> Vec<&'static str> {
            r(cmd)
                .iter()
                .map(|x| match x {
                    Risk::AllChanges { .. } => "all",
                    Risk::ChangesUnder { .. } => "under",
                    Risk::Untracked { .. } => "untracked",
                    Risk::Stash { .. } => "stash",
                    Risk::Branch { .. } => "branch",
                    Risk::AnyBranch { .. } => "any-branch",
                    Risk::Worktree { .. } => "worktree",
                })
                .collect()
        };
        for (cmd, want) in [
            ("git checkout -qf main", "all"),
            ("git checkout -tf main", "all"),
            ("git switch -qf main", "all"),
            ("git checkout HEAD --pathspec-from-file=paths.txt", "all"),
            ("git restore --pathspec-from-file=paths.txt", "all"),
            ("git read-tree --reset -u HEAD", "all"),
            ("git read-tree -u --reset HEAD~3", "all"),
            ("git rm -f src/main.rs", "under"),
            ("git rm -rf src", "under"),
            ("git checkout -- -f", "under"),
            ("git branch -Dv feature", "branch"),
            ("git branch -f feature", "branch"),
            ("git branch --force feature", "branch"),
            ("git branch -M old existing", "branch"),
            ("git branch -C old existing", "branch"),
            ("git update-ref -d refs/heads/main", "branch"),
            ("git branch $(cat f)", "any-branch"),
            ("git worktree remove -f /tmp/wt", "worktree"),
            ("git -Crepo reset --hard", "all"),
        ] {
            assert!(kind(cmd).contains(&want), "{cmd}: {:?}", kind(cmd));
        }
        for cmd in [
            "git checkout -bfix",
            "git checkout -Bfeature main",
            "git switch -cfeature",
            "git switch -- -f",
            "git rm --cached -f a.txt",
            "git rm a.txt",
            "git branch -d feature",
            "git branch --format \"$(printf x)\"",
            "git branch $NEW",
            "git branch -m old new",
            "git update-ref refs/heads/x HEAD",
            "git read-tree HEAD",
        ] {
            assert!(kind(cmd).iter().all(|k| *k == "under"), "{cmd}: {:?}", kind(cmd));
        }
        // A git command in another folder works on another repository.
        let ran = |program: &str, args: &[&str], cwd: &str| crate::policy::floor::Ran {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            dynamic: vec![false; args.len()],
            cwd: Some(cwd.into()),
        };
        assert!(risks_ran(&[ran("git", &["reset", "--hard"], "/tmp")], Path::new("/repo")).is_empty());
        assert!(risks_ran(&[ran("git", &["-C", "/tmp", "reset", "--hard"], "/repo")], Path::new("/repo")).is_empty());
        assert!(!risks_ran(&[ran("git", &["reset", "--hard"], "/repo/src")], Path::new("/repo")).is_empty());
    }

    #[test]
    fn porcelain_v2_is_read_and_matched_against_paths() {
        let out = b"1 .M N... 100644 100644 100644 abc abc src/a.rs\0\
2 R. N... 100644 100644 100644 abc abc R100 new name.rs\0old.rs\0\
u UU N... 100644 100644 100644 100644 a b c conflict.rs\0? notes.txt\0? build/out.o\0! target/x\0";
        let t = TreeState::parse(Path::new("/repo"), out);
        assert_eq!(t.changed, ["src/a.rs", "new name.rs", "conflict.rs"]);
        assert_eq!(t.untracked, ["notes.txt", "build/out.o"]);
        assert_eq!(t.ignored, ["target/x"]);
        let all = &r("git reset --hard")[0];
        assert_eq!(t.loses(all).len(), 3);
        let src = &r("git checkout -- src")[0];
        assert_eq!(t.loses(src), ["src/a.rs"]);
        let main = &r("git checkout main")[0];
        assert!(t.loses(main).is_empty(), "a branch name names no changed file");
        let clean = &r("git clean -fd build")[0];
        assert_eq!(t.loses(clean), ["build/out.o"]);
        let folders = TreeState::parse(Path::new("/repo"), b"? notes.txt\0? .tlc/\0");
        assert_eq!(folders.loses(&r("git clean -f")[0]), ["notes.txt"], "no -d: untracked folders stay");
        assert_eq!(folders.loses(&r("git clean -fd")[0]).len(), 2);
        assert!(describe("git reset --hard", &t.changed, "save them").contains("src/a.rs, new name.rs, conflict.rs (3 in all)"));
    }
}
