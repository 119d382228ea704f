//! `tlc update` (issue 35): the source checkout this binary was built from, what its upstream
//! holds that it does not (commits, and the decision notes of `docs/decisions/` that came with
//! them), a fast-forward that never merges or throws work away, and the rebuild.
//!
//! Only git and cargo run here, as processes with the operator's own configuration; nothing is
//! fetched by tlc itself.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The folder of decision notes, relative to the checkout.
pub(crate) const DECISIONS_DIR: &str = "docs/decisions";

/// What stops an update; each names the checkout and the way out.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UpdateError {
    #[error("{dir}: not a git checkout ({detail}); tlc updates the checkout it was built from — reinstall from a clone (`git clone …` then `cargo build --release` there)")]
    NotACheckout { dir: String, detail: String },
    #[error("{dir}: branch {branch} has no upstream to update from; set one (`git -C {dir} branch --set-upstream-to origin/{branch}`) or reinstall from a clone")]
    NoUpstream { dir: String, branch: String },
    #[error("{dir}: `git {args}` failed: {detail}")]
    Git { dir: String, args: String, detail: String },
    #[error("{dir}: the checkout has {count} commit(s) that {upstream} does not, so it cannot fast-forward; tlc runs neither way out: reset to upstream (`git -C {dir} reset --hard {upstream}`, which throws those commits away) or reinstall from a fresh clone")]
    LocalCommits { dir: String, count: usize, upstream: String },
    #[error("{dir}: uncommitted changes to {files}; commit or stash them first (tlc never overwrites them)")]
    Uncommitted { dir: String, files: String },
    #[error("{dir}: `cargo build --release` failed ({detail}); the checkout is at the new revision, the old binary is unchanged")]
    Build { dir: String, detail: String },
}

/// A checkout and the upstream it follows.
#[derive(Debug, Clone)]
pub(crate) struct Checkout {
    pub dir: PathBuf,
    /// The upstream branch, as git names it (`origin/main`).
    pub upstream: String,
}

/// One commit an update would bring.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Commit {
    pub hash: String,
    pub date: String,
    pub subject: String,
}

/// One decision note an update would bring (a file added under `docs/decisions/`).
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Note {
    pub path: String,
    /// Its first heading, without the `#`.
    pub title: String,
    /// Its `migration:` line, when it has one: what to do that `doctor` cannot detect.
    pub migration: Option<String>,
}

/// What the upstream holds that the checkout does not, after a fetch.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Pending {
    pub dir: String,
    pub upstream: String,
    pub head: String,
    pub upstream_head: String,
    pub commits: Vec<Commit>,
    pub notes: Vec<Note>,
    /// Commits the checkout has that the upstream does not (an update refuses then).
    pub local_commits: usize,
}

fn git(dir: &Path, args: &[&str]) -> Result<String, UpdateError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| UpdateError::Git {
            dir: dir.display().to_string(),
            args: args.join(" "),
            detail: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(UpdateError::Git {
            dir: dir.display().to_string(),
            args: args.join(" "),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

/// The checkout at `dir` and its upstream; refused when it is not a git checkout or follows none.
pub(crate) fn locate(dir: &Path) -> Result<Checkout, UpdateError> {
    let shown = dir.display().to_string();
    if !dir.is_dir() {
        return Err(UpdateError::NotACheckout {
            dir: shown,
            detail: "no such folder".into(),
        });
    }
    let top = git(dir, &["rev-parse", "--show-toplevel"]).map_err(|e| UpdateError::NotACheckout {
        dir: shown.clone(),
        detail: match e {
            UpdateError::Git { detail, .. } => detail,
            other => other.to_string(),
        },
    })?;
    let dir = PathBuf::from(top);
    match git(&dir, &["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"]) {
        Ok(upstream) if !upstream.is_empty() => Ok(Checkout { dir, upstream }),
        _ => {
            let branch = git(&dir, &["rev-parse", "--abbrev-ref", "HEAD"]).unwrap_or_else(|_| "HEAD".into());
            Err(UpdateError::NoUpstream {
                dir: dir.display().to_string(),
                branch,
            })
        }
    }
}

/// Fetches the upstream's remote and says what it holds that the checkout does not. Moves no
/// branch and touches no file of the worktree.
pub(crate) fn fetch_pending(c: &Checkout) -> Result<Pending, UpdateError> {
    let remote = c.upstream.split_once('/').map_or(c.upstream.as_str(), |(r, _)| r);
    git(&c.dir, &["fetch", "--quiet", remote])?;
    pending(c)
}

/// What the (already fetched) upstream holds that the checkout does not.
pub(crate) fn pending(c: &Checkout) -> Result<Pending, UpdateError> {
    let head = git(&c.dir, &["rev-parse", "HEAD"])?;
    let upstream_head = git(&c.dir, &["rev-parse", &c.upstream])?;
    let range = format!("HEAD..{}", c.upstream);
    let commits = git(&c.dir, &["log", "--format=%H%x09%cs%x09%s", &range])?
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, '\t');
            Some(Commit {
                hash: parts.next()?.to_string(),
                date: parts.next()?.to_string(),
                subject: parts.next().unwrap_or_default().to_string(),
            })
        })
        .collect();
    let local = git(&c.dir, &["rev-list", "--count", &format!("{}..HEAD", c.upstream)])?;
    let notes = notes_between(&c.dir, "HEAD", &c.upstream)?;
    Ok(Pending {
        dir: c.dir.display().to_string(),
        upstream: c.upstream.clone(),
        head,
        upstream_head,
        commits,
        notes,
        local_commits: local.trim().parse().unwrap_or(0),
    })
}

/// The decision notes added between revisions `from` and `to` (as `to` has them), in name order.
pub(crate) fn notes_between(dir: &Path, from: &str, to: &str) -> Result<Vec<Note>, UpdateError> {
    let range = format!("{from}..{to}");
    let added = git(dir, &["diff", "--name-only", "--diff-filter=A", &range, "--", DECISIONS_DIR])?;
    let mut paths: Vec<&str> = added.lines().filter(|p| p.ends_with(".md") && !p.ends_with("/README.md")).collect();
    paths.sort_unstable();
    paths
        .into_iter()
        .map(|path| {
            let text = git(dir, &["show", &format!("{to}:{path}")])?;
            Ok(parse_note(path, &text))
        })
        .collect()
}

/// A note's title (its first heading) and its `migration:` line.
pub(crate) fn parse_note(path: &str, text: &str) -> Note {
    let title = text
        .lines()
        .find_map(|l| l.strip_prefix('#').map(|t| t.trim_start_matches('#').trim().to_string()))
        .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(path).to_string());
    let migration = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("migration:").map(|m| m.trim().to_string()))
        .filter(|m| !m.is_empty());
    Note {
        path: path.to_string(),
        title,
        migration,
    }
}

/// Fast-forwards the checkout to its upstream. Refuses, changing nothing, when the checkout has
/// commits the upstream does not, or uncommitted changes to tracked files.
pub(crate) fn fast_forward(c: &Checkout, p: &Pending) -> Result<(), UpdateError> {
    let dir = c.dir.display().to_string();
    if p.local_commits > 0 {
        return Err(UpdateError::LocalCommits {
            dir,
            count: p.local_commits,
            upstream: c.upstream.clone(),
        });
    }
    let changed = git(&c.dir, &["status", "--porcelain", "--untracked-files=no"])?;
    if !changed.trim().is_empty() {
        let files: Vec<&str> = changed.lines().map(|l| l.get(3..).unwrap_or(l)).take(5).collect();
        return Err(UpdateError::Uncommitted {
            dir,
            files: files.join(", "),
        });
    }
    git(&c.dir, &["merge", "--ff-only", "--quiet", &c.upstream]).map(drop)
}

/// Builds the checkout (`cargo build --release`, its output passed through to the operator) and
/// returns the binary it built.
pub(crate) fn build(c: &Checkout) -> Result<PathBuf, UpdateError> {
    let dir = c.dir.display().to_string();
    let status = Command::new("cargo")
        .args(["build", "--release"])
        .current_dir(&c.dir)
        .stdin(Stdio::null())
        .status()
        .map_err(|e| UpdateError::Build {
            dir: dir.clone(),
            detail: e.to_string(),
        })?;
    if !status.success() {
        return Err(UpdateError::Build {
            dir,
            detail: format!("exit status {}", status.code().map_or("killed".to_string(), |c| c.to_string())),
        });
    }
    built_binary(&c.dir).ok_or(UpdateError::Build {
        dir,
        detail: "it succeeded, but no target/…/release/tlc binary was found".into(),
    })
}

/// The release binary a build of `dir` left: the explicit target's (`.cargo/config.toml` names
/// one) or the host's, whichever is newer.
pub(crate) fn built_binary(dir: &Path) -> Option<PathBuf> {
    let candidates = [
        dir.join("target/x86_64-unknown-linux-gnu/release/tlc"),
        dir.join("target/release/tlc"),
    ];
    candidates
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_note_has_its_heading_as_title_and_an_optional_migration_line() {
        let n = super::parse_note(
            "docs/decisions/008-x.md",
            "# 008 — Evidence first\n\nmigration: re-run `tlc ship ledger` once\n\nWhy.\n",
        );
        assert_eq!(n.title, "008 — Evidence first");
        assert_eq!(n.migration.as_deref(), Some("re-run `tlc ship ledger` once"));
        let bare = super::parse_note("docs/decisions/009-y.md", "no heading\n");
        assert_eq!((bare.title.as_str(), bare.migration), ("009-y.md", None));
    }
}
