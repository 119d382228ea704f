//! The rails after the floor, one module each, every one with a `check` entry that
//! [`super::decide::ORDER`] runs in its place: edit collision and work loss (always on), the
//! subagent rails (`subagent-read-only` and the spawn rails, `subagent.rs`), the shell rails `shell-stall`, `shell-catastrophic` and `shell-posture-paired`, and the operator's rules (`operator_rule.rs`). What they share:
//! the build folders and the ask (the commands of a line, `sh -c` strings included, are
//! [`crate::policy::shell::walk::Commands`]).

pub mod catastrophic;
pub(crate) mod collision;
pub(crate) mod operator_rule;
pub mod paired;
pub(crate) mod read_only;
pub(crate) mod stall;
pub(crate) mod subagent;
pub(crate) mod untrusted;
pub(crate) mod work_loss;

use crate::decision::{Decision, Permission};
use std::path::Path;

pub(crate) const CATASTROPHIC: &str = "shell-catastrophic";
pub(crate) const PAIRED: &str = "shell-posture-paired";
pub(crate) const STALL: &str = "shell-stall";

/// The three things at stake that make `paired` ask (the seed's wording).
pub(crate) const LEAVES_MACHINE: &str = "It leaves the machine: what it sends or fetches is out of this session's reach once it runs.";
pub(crate) const OVERWRITES: &str =
    "It can overwrite or remove a path that already exists, and the harness cannot know whether that path holds work.";
pub(crate) const CHANGES_REACH: &str = "It changes who can reach a path — the one change that appears in no diff.";

/// How many characters of a normalised command the stall rail compares.
pub(crate) const STALL_PREFIX_CHARS: usize = 300;

/// Folders whose whole content is rebuilt by a build: cleaning them loses nothing.
const BUILD_DIRS: &[&str] = &[
    "build",
    "dist",
    "target",
    "out",
    "node_modules",
    ".next",
    ".nuxt",
    "coverage",
    "__pycache__",
    ".cache",
    ".gradle",
    ".tox",
    "venv",
    ".venv",
    "bin",
    "obj",
];

fn ask(rule: &str, reason: String) -> Decision {
    Decision {
        permission: Permission::Ask,
        rule: rule.to_string(),
        reason: Some(format!("{reason}\nrule={rule}")),
        user_note: None,
        follow_up: None,
        context: None,
    }
}

/// Whether `p` is inside a build folder of the project at `root` (only the part below the root
/// counts: a project that itself lives under a `target/` folder is not a build folder).
pub(super) fn in_build_dir(p: &Path, root: &Path) -> bool {
    let Ok(rel) = crate::pathtext::normalize(p).strip_prefix(root).map(Path::to_path_buf) else {
        return false;
    };
    rel.components()
        .any(|c| BUILD_DIRS.contains(&c.as_os_str().to_string_lossy().as_ref()))
}
