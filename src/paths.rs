//! Where things live: the runtime home, the project root, the state folders and databases.
//!
//! `TLC_HOME` (default `~/.tlc/harness`) holds the machine tier and the home database. The
//! project root is `TLC_PROJECT_DIR` when set, else the git top level of the working directory
//! (found by walking up to a `.git` entry, never by running git: this runs on every hook), else
//! the working directory itself. A hook whose provider names its project in the environment
//! (Claude Code's `CLAUDE_PROJECT_DIR`) starts from that folder instead: see [`Paths::for_hook`].

use std::path::{Path, PathBuf};

/// Why the locations could not be resolved.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PathsError {
    #[error("cannot read the working directory: {0}")]
    WorkingDirectory(std::io::Error),
    #[error("neither TLC_HOME nor HOME is set: cannot place the runtime home")]
    NoHome,
}

/// Where tlc's files are for one invocation: the runtime home and the project root.
#[derive(Debug, Clone)]
pub struct Paths {
    /// The runtime home (`TLC_HOME`).
    pub home: PathBuf,
    /// The project root.
    pub root: PathBuf,
    /// Whether `root` is a git working tree.
    pub in_git: bool,
}

impl Paths {
    /// Resolves every location from the environment and the process's working directory.
    pub(crate) fn from_env() -> Result<Paths, PathsError> {
        let cwd = std::env::current_dir().map_err(PathsError::WorkingDirectory)?;
        Self::from_env_at(&cwd)
    }

    /// Resolves every location for a hook of a provider that names its project folder in the
    /// environment variable `project_env`: when it is set to an existing folder, the project
    /// root is that folder's git top level (else the folder itself) — whatever the working
    /// directory and `TLC_PROJECT_DIR` say. Claude Code runs each hook in the agent's current
    /// shell folder, which a `cd` moves (into a subfolder, or a nested repository that must not
    /// be adopted), and sets `CLAUDE_PROJECT_DIR` to the folder it was started in.
    ///
    /// Otherwise the usual rules apply: `TLC_PROJECT_DIR`, then the working directory. The
    /// payload's own `cwd` is never used: it names the same folder as the hook's working
    /// directory, and a path inside a payload is data, not a place to write.
    pub(crate) fn for_hook(project_env: Option<&str>) -> Result<Paths, PathsError> {
        let cwd = std::env::current_dir().map_err(PathsError::WorkingDirectory)?;
        let named = project_env
            .and_then(std::env::var_os)
            .filter(|v| !v.is_empty())
            .map(|d| absolute(&cwd, Path::new(&d)))
            .filter(|d| d.is_dir());
        match named {
            Some(dir) => {
                let home = home_dir()?;
                let (root, in_git) = match git_top_level(&dir) {
                    Some(top) => (top, true),
                    None => (dir, false),
                };
                Ok(Paths { home, root, in_git })
            }
            None => Self::from_env_at(&cwd),
        }
    }

    /// Resolves every location as if the process ran in `cwd`.
    pub(crate) fn from_env_at(cwd: &Path) -> Result<Paths, PathsError> {
        let home = home_dir()?;
        let (root, in_git) = match std::env::var_os("TLC_PROJECT_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => {
                let dir = absolute(cwd, Path::new(&dir));
                let in_git = dir.join(".git").exists();
                (dir, in_git)
            }
            None => match git_top_level(cwd) {
                Some(top) => (top, true),
                None => (cwd.to_path_buf(), false),
            },
        };
        Ok(Paths { home, root, in_git })
    }

    /// True when `TLC_PROJECT_DIR` names this root: the operator chose the folder, git
    /// repository or not. Otherwise a root that is not a git working tree is wherever a process
    /// happened to run, and tlc writes nothing into it (see `Project::locate`).
    pub(crate) fn root_named_by_operator(&self) -> bool {
        let Some(dir) = std::env::var_os("TLC_PROJECT_DIR").filter(|v| !v.is_empty()) else {
            return false;
        };
        let dir = Path::new(&dir);
        dir == self.root || (!dir.is_absolute() && std::env::current_dir().is_ok_and(|cwd| cwd.join(dir) == self.root))
    }

    /// `$TLC_HOME/config.toml`, the machine tier.
    pub(crate) fn machine_config(&self) -> PathBuf {
        self.home.join("config.toml")
    }

    /// `$TLC_HOME/state/`.
    pub(crate) fn home_state_dir(&self) -> PathBuf {
        self.home.join("state")
    }

    /// `$TLC_HOME/state/tlc.db`.
    pub fn home_db(&self) -> PathBuf {
        self.home_state_dir().join("tlc.db")
    }

    /// `<root>/.tlc/harness/`.
    pub(crate) fn project_harness_dir(&self) -> PathBuf {
        self.root.join(".tlc").join("harness")
    }

    /// `<root>/.tlc/harness/config.toml`, the project tier.
    pub(crate) fn project_config(&self) -> PathBuf {
        self.project_harness_dir().join("config.toml")
    }

    /// `<root>/.tlc/harness/state/`.
    pub(crate) fn project_state_dir(&self) -> PathBuf {
        self.project_harness_dir().join("state")
    }

    /// The folder under the home that holds the state of a repository tlc must not write into
    /// (a guest), keyed by the repository's path.
    pub(crate) fn guest_state_dir(&self) -> PathBuf {
        let name = self.root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let slug: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let digest = crate::hashing::sha256_hex(self.root.to_string_lossy().as_bytes());
        self.home_state_dir().join("guests").join(format!("{slug}-{}", &digest[..12]))
    }

    /// True when the project tier would be the machine tier's own file (a "project" rooted at
    /// the folder that holds the runtime home): such a root is never adopted or written as a project.
    pub(crate) fn root_overlaps_home(&self) -> bool {
        let cfg = self.project_harness_dir();
        cfg == self.home || self.home.starts_with(&cfg) || self.project_state_dir() == self.home_state_dir()
    }

    /// The project's name: the root folder's name.
    pub(crate) fn project_name(&self) -> String {
        self.root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.root.display().to_string())
    }
}

/// `TLC_HOME`, else `$HOME/.tlc/harness`.
pub(crate) fn home_dir() -> Result<PathBuf, PathsError> {
    if let Some(h) = std::env::var_os("TLC_HOME").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(h);
        return Ok(if p.is_absolute() {
            p
        } else {
            std::env::current_dir().map(|c| c.join(&p)).unwrap_or(p)
        });
    }
    match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        Some(h) => Ok(PathBuf::from(h).join(".tlc").join("harness")),
        None => Err(PathsError::NoHome),
    }
}

/// The nearest ancestor of `start` (itself included) that holds a `.git` entry.
pub(crate) fn git_top_level(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

fn absolute(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// Why the project's `.tlc` tree may not be used: one of `.tlc`, `.tlc/harness`,
/// `.tlc/harness/state` or the config file is a symlink that leaves the repository (or cannot be
/// resolved). `None` when every part that exists stays inside. Costs one `lstat` when there is
/// no `.tlc` yet, so the hook path can ask on every event.
pub(crate) fn escape_from(root: &Path) -> Option<String> {
    let parts = [".tlc", ".tlc/harness", ".tlc/harness/state", ".tlc/harness/config.toml"];
    let mut canonical_root: Option<PathBuf> = None;
    for rel in parts {
        let p = root.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            // A missing part: nothing below it exists either (except through a symlink checked above).
            if rel == ".tlc" {
                return None;
            }
            continue;
        };
        if !meta.file_type().is_symlink() {
            continue;
        }
        let root_c = match &canonical_root {
            Some(r) => r.clone(),
            None => match std::fs::canonicalize(root) {
                Ok(r) => canonical_root.insert(r).clone(),
                Err(e) => return Some(format!("{}: cannot resolve the repository root: {e}", root.display())),
            },
        };
        match std::fs::canonicalize(&p) {
            Ok(target) if target.starts_with(&root_c) => {}
            Ok(target) => {
                return Some(format!(
                    "{} is a symlink to {}, outside the repository",
                    p.display(),
                    target.display()
                ))
            }
            Err(_) => return Some(format!("{} is a symlink that cannot be resolved", p.display())),
        }
    }
    None
}
