//! Which repository tlc is working in, and where its project state lives: inside the repository
//! (`.tlc/harness/state/`), or under the home for a guest repository tlc must never write into.

use crate::config::edit::{ConfigEdit, EditError};
use crate::config::scaffold::{self, ScaffoldOutcome};
use crate::config::Config;
use crate::fault::{Fault, Faults};
use crate::fsread::ReadError;
use crate::gitfiles::{Disk, Repo};
use crate::paths::Paths;
use std::path::{Path, PathBuf};

/// The repository and the location of its state.
#[derive(Debug, Clone)]
pub(crate) struct Project {
    pub paths: Paths,
    /// Nothing is written into the folder: the machine tier marks it as a guest, its `.tlc` leaves
    /// it, it holds the runtime home, or it is not a repository at all (see `outside`).
    pub guest: bool,
    /// The folder is not a git working tree and no `TLC_PROJECT_DIR` named it: an arbitrary
    /// folder (`/`, a home folder, wherever a hook happened to run), recorded under the home.
    pub outside: bool,
    /// The folder holding the project database.
    pub state_dir: PathBuf,
    /// Files met on the way that could not be read (a `.git/config` that is a FIFO): each named,
    /// for the hook to record as a fault.
    pub faults: Faults,
}

impl Project {
    /// Locates the project state for `paths` under `config`'s guest rules.
    pub(crate) fn locate(paths: &Paths, config: &Config) -> Project {
        let mut faults = Vec::new();
        // A hook run outside any repository never creates `.tlc` in whatever folder it ran in.
        let outside = !paths.in_git && !paths.root_named_by_operator();
        // A `.tlc` that leaves the repository is never written through: its state goes under the home.
        let guest = outside
            || paths.root_overlaps_home()
            || is_guest(paths, config, &mut faults)
            || crate::paths::escape_from(&paths.root).is_some();
        let state_dir = if guest {
            paths.guest_state_dir()
        } else {
            paths.project_state_dir()
        };
        Project {
            paths: paths.clone(),
            guest,
            outside,
            state_dir,
            faults,
        }
    }

    pub(crate) fn db_path(&self) -> PathBuf {
        self.state_dir.join("tlc.db")
    }

    pub(crate) fn root(&self) -> &Path {
        &self.paths.root
    }

    pub(crate) fn name(&self) -> String {
        self.paths.project_name()
    }

    /// Adopts the repository unless it is a guest (or its root holds the home) or not a git
    /// repository: `None` when adoption does not apply. Called by the hook path and every
    /// mutating command.
    pub(crate) fn adopt(&self) -> Option<ScaffoldOutcome> {
        self.adopt_noting(&mut Vec::new())
    }

    /// [`Project::adopt`], pushing on `faults` a git file it could not read (the hook records it).
    pub(crate) fn adopt_noting(&self, faults: &mut Faults) -> Option<ScaffoldOutcome> {
        if self.guest || !self.paths.in_git {
            return None;
        }
        // The common case on the hook path: already adopted. One lstat, no remote read.
        // (`locate` already made a `.tlc` that escapes the repository a guest.)
        let dest = self.paths.project_config();
        if std::fs::symlink_metadata(&dest).is_ok() {
            return Some(ScaffoldOutcome::Present(dest));
        }
        // An unreadable `.git/config` only loses the owner and repository names.
        let origin = origin_url(self.root()).unwrap_or_else(|e| {
            faults.push(Fault::Project(format!("{e}: adopted without the origin's owner and repository")));
            None
        });
        Some(scaffold::scaffold(&self.paths, origin.as_deref()))
    }

    /// Opens this repository's project config for an edit (it must exist; see
    /// [`scaffold::edit_project_config`]).
    pub(crate) fn edit_config(&self) -> Result<ConfigEdit, EditError> {
        scaffold::edit_project_config(&self.paths, self.guest)
    }
}

/// True when the machine tier lists the repository's path, or a pattern matching its origin URL.
/// A `.git/config` that cannot be read (see `fsread`) is a fault pushed on `faults`; with remote
/// patterns to match, the repository is then taken for a guest: tlc cannot tell, and a guest
/// must never be written into.
fn is_guest(paths: &Paths, config: &Config, faults: &mut Faults) -> bool {
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
        Ok(Some(url)) => guest.remotes.iter().any(|pat| crate::pathtext::wildcard_match(pat, &url)),
        Ok(None) => false,
        Err(e) => {
            faults.push(Fault::Project(format!(
                "{e}: taken for a guest (its origin cannot be matched against [guest] remotes)"
            )));
            true
        }
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

/// The `origin` remote's URL, read from the repository's git config without running git
/// (`gitfiles`); `None` when there is none. A `.git` file, `commondir` or `config` that cannot be
/// read (a FIFO, `/dev/zero`, oversized) is an error naming it, never a hang.
pub(crate) fn origin_url(root: &Path) -> Result<Option<String>, ReadError> {
    match Repo::at(&Disk, root)? {
        Some(repo) => repo.origin_url(),
        None => Ok(None),
    }
}
