//! Which repository tlc is working in, and where its project state lives: inside the repository
//! (`.tlc/harness/state/`), or under the home for a guest repository tlc must never write into.

use crate::config::edit::{ConfigEdit, EditError};
use crate::config::scaffold::{self, ScaffoldOutcome};
use crate::config::Config;
use crate::paths::Paths;
use std::path::{Path, PathBuf};

/// The repository and the location of its state.
#[derive(Debug, Clone)]
pub struct Project {
    pub paths: Paths,
    /// The machine tier marks this repository as a guest: nothing is written into it.
    pub guest: bool,
    /// The folder holding the project database.
    pub state_dir: PathBuf,
}

impl Project {
    /// Locates the project state for `paths` under `config`'s guest rules.
    pub fn locate(paths: &Paths, config: &Config) -> Project {
        // A `.tlc` that leaves the repository is never written through: its state goes under the home.
        let guest = paths.root_overlaps_home() || is_guest(paths, config) || crate::paths::escape_from(&paths.root).is_some();
        let state_dir = if guest {
            paths.guest_state_dir()
        } else {
            paths.project_state_dir()
        };
        Project {
            paths: paths.clone(),
            guest,
            state_dir,
        }
    }

    pub fn db_path(&self) -> PathBuf {
        self.state_dir.join("tlc.db")
    }

    pub fn root(&self) -> &Path {
        &self.paths.root
    }

    pub fn name(&self) -> String {
        self.paths.project_name()
    }

    /// Adopts the repository unless it is a guest (or its root holds the home) or not a git
    /// repository: `None` when adoption does not apply. Called by the hook path and every
    /// mutating command.
    pub fn adopt(&self) -> Option<ScaffoldOutcome> {
        if self.guest || !self.paths.in_git {
            return None;
        }
        // The common case on the hook path: already adopted. One lstat, no remote read.
        // (`locate` already made a `.tlc` that escapes the repository a guest.)
        let dest = self.paths.project_config();
        if std::fs::symlink_metadata(&dest).is_ok() {
            return Some(ScaffoldOutcome::Present(dest));
        }
        let origin = origin_url(self.root());
        Some(scaffold::scaffold(&self.paths, origin.as_deref()))
    }

    /// Opens this repository's project config for an edit (it must exist; see
    /// [`scaffold::edit_project_config`]).
    pub fn edit_config(&self) -> Result<ConfigEdit, EditError> {
        scaffold::edit_project_config(&self.paths, self.guest)
    }
}

/// True when the machine tier lists the repository's path, or a pattern matching its origin URL.
pub fn is_guest(paths: &Paths, config: &Config) -> bool {
    let guest = &config.settings.guest;
    if guest.paths.is_empty() && guest.remotes.is_empty() {
        return false;
    }
    let root = canonical(&paths.root);
    if guest.paths.iter().any(|p| canonical(Path::new(&expand_home(p))) == root) {
        return true;
    }
    if guest.remotes.is_empty() {
        return false;
    }
    match origin_url(&paths.root) {
        Some(url) => guest.remotes.iter().any(|pat| glob_match(pat, &url)),
        None => false,
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn expand_home(p: &str) -> String {
    match (p.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => p.to_string(),
    }
}

/// The `origin` remote's URL, read from the repository's git config without running git.
pub fn origin_url(root: &Path) -> Option<String> {
    let git = root.join(".git");
    let config_path = if git.is_dir() {
        git.join("config")
    } else {
        // A worktree or submodule: `.git` is a file naming the git directory.
        let text = std::fs::read_to_string(&git).ok()?;
        let dir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim().to_string();
        let dir = if Path::new(&dir).is_absolute() {
            PathBuf::from(dir)
        } else {
            root.join(dir)
        };
        let common = std::fs::read_to_string(dir.join("commondir")).ok().map(|c| dir.join(c.trim()));
        common.unwrap_or(dir).join("config")
    };
    let text = std::fs::read_to_string(config_path).ok()?;
    let mut in_origin = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_origin = l.replace(' ', "") == "[remote\"origin\"]";
            continue;
        }
        if in_origin {
            if let Some((k, v)) = l.split_once('=') {
                if k.trim() == "url" {
                    return Some(v.trim().to_string());
                }
            }
        }
    }
    None
}

/// `*` matches any run of characters; everything else matches itself.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0usize, 0usize, None::<usize>, 0usize);
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("*github.com/acme/*", "git@github.com/acme/widgets.git"));
        assert!(glob_match("https://x/*", "https://x/y"));
        assert!(!glob_match("https://x/*", "https://y/x"));
        assert!(glob_match("exact", "exact"));
        assert!(!glob_match("exact", "exactly"));
    }
}
