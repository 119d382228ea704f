//! tlc's own children — gate commands, the stop checks' git, the work-loss rule's git — run
//! confined (issue 51): under bubblewrap, with a list of paths mounted read-only over the same
//! file system (everything else as it is, so a test suite writes its caches and temp files as
//! usual), and with a fixed environment: the `PATH` an operator command recorded, not whoever
//! started tlc's, and none of the variables that make a program run other code than it would
//! (`GIT_*`, `LD_*`, `BASH_ENV`, `ENV`).
//!
//! The paths are the caller's to choose (`policy::boundary` names the protected set); this
//! module only builds the command. Where bubblewrap is not installed, a child runs with the same
//! environment but unconfined, and [`Jail::confined`] says so (`tlc status`, `tlc doctor`).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Variables no child of tlc inherits: each makes a program load or run code other than its own
/// (a shell's start-up file, a dynamic library, git's configuration, hooks or object store).
pub(crate) fn dropped(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with("GIT_") || name.starts_with("LD_") || matches!(name.as_ref(), "BASH_ENV" | "ENV" | "PROMPT_COMMAND")
}

/// How tlc starts its children.
#[derive(Debug, Clone)]
pub(crate) struct Jail {
    /// bubblewrap, when found on [`Jail::path`].
    bwrap: Option<PathBuf>,
    /// Paths mounted read-only inside (only those that exist: bubblewrap refuses a missing one).
    read_only: Vec<PathBuf>,
    /// The `PATH` children get and programs are looked up on.
    path: OsString,
}

impl Jail {
    /// A jail whose children see `read_only` read-only and run with `path` as their `PATH`;
    /// bubblewrap is looked up on that `PATH` (and in `/usr/bin`).
    pub(crate) fn new(read_only: Vec<PathBuf>, path: OsString) -> Jail {
        let mut read_only: Vec<PathBuf> = read_only.into_iter().filter(|p| p.symlink_metadata().is_ok()).collect();
        read_only.sort();
        read_only.dedup();
        let bwrap = find_on(&path, "bwrap").or_else(|| Some(PathBuf::from("/usr/bin/bwrap")).filter(|p| is_executable(p)));
        Jail { bwrap, read_only, path }
    }

    /// The same jail without bubblewrap (a test's, or a platform without it).
    #[cfg(test)]
    pub(crate) fn unconfined(path: OsString) -> Jail {
        Jail {
            bwrap: None,
            read_only: Vec::new(),
            path,
        }
    }

    /// The bubblewrap binary children run under.
    pub(crate) fn bwrap(&self) -> Option<&Path> {
        self.bwrap.as_deref()
    }

    /// The paths children see read-only.
    pub(crate) fn read_only(&self) -> &[PathBuf] {
        &self.read_only
    }

    /// Where `program` resolves: itself when it names a path, else the first executable on this
    /// jail's `PATH`.
    pub(crate) fn resolve(&self, program: &str) -> Option<PathBuf> {
        if program.is_empty() {
            return None;
        }
        if program.contains('/') {
            let p = PathBuf::from(program);
            return is_executable(&p).then_some(p);
        }
        find_on(&self.path, program)
    }

    /// A command that runs `program` (looked up on this jail's `PATH`) in `cwd`: under
    /// bubblewrap when there is one, with the fixed environment either way. The caller adds the
    /// program's arguments.
    pub(crate) fn command(&self, program: &str, cwd: &Path) -> Command {
        let resolved = self
            .resolve(program)
            .map_or_else(|| OsString::from(program), PathBuf::into_os_string);
        let mut c = match &self.bwrap {
            Some(bwrap) => {
                let mut c = Command::new(bwrap);
                c.args(["--dev-bind", "/", "/"]);
                for p in &self.read_only {
                    c.arg("--ro-bind").arg(p).arg(p);
                }
                c.arg("--die-with-parent").arg("--chdir").arg(cwd).arg("--").arg(&resolved);
                c
            }
            None => Command::new(&resolved),
        };
        c.current_dir(cwd).env_clear().envs(fixed_env(&self.path));
        c
    }
}

/// A jail made when first asked for: working out the protected set and reading the recorded
/// `PATH` is paid only by a hook that starts a child.
pub(crate) struct LazyJail<'a> {
    cell: std::cell::OnceCell<Jail>,
    make: Box<dyn Fn() -> Jail + 'a>,
}

impl<'a> LazyJail<'a> {
    pub(crate) fn new(make: impl Fn() -> Jail + 'a) -> LazyJail<'a> {
        LazyJail {
            cell: std::cell::OnceCell::new(),
            make: Box::new(make),
        }
    }

    pub(crate) fn get(&self) -> &Jail {
        self.cell.get_or_init(|| (self.make)())
    }
}

/// This process's environment without the [`dropped`] variables, with `path` as `PATH`.
fn fixed_env(path: &OsStr) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().filter(|(k, _)| !dropped(k) && k != "PATH").collect();
    env.push(("PATH".into(), path.to_os_string()));
    env
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first executable named `program` in the folders of `path`; relative folders are skipped
/// (a `PATH` entry such as `.` or `node_modules/.bin` names wherever a process happens to run).
fn find_on(path: &OsStr, program: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
}

/// `path` without its relative folders and those inside `project` (a folder the agent writes):
/// the `PATH` children get when no operator command recorded one.
pub(crate) fn path_outside(path: &OsStr, project: &Path) -> OsString {
    let kept: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|d| d.is_absolute() && !d.starts_with(project))
        .collect();
    std::env::join_paths(kept).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_drops_what_makes_a_program_run_other_code() {
        for v in [
            "GIT_DIR",
            "GIT_CONFIG_PARAMETERS",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "BASH_ENV",
            "ENV",
        ] {
            assert!(dropped(OsStr::new(v)), "{v}");
        }
        for v in ["HOME", "LANG", "CLAUDECODE", "TMPDIR", "GITHUB_TOKEN_X"] {
            assert!(!dropped(OsStr::new(v)), "{v}");
        }
    }

    #[test]
    fn relative_and_project_folders_leave_the_path() {
        let p = std::env::join_paths(["/usr/bin", ".", "/repo/bin", "node_modules/.bin", "/bin"]).unwrap();
        let kept = path_outside(&p, Path::new("/repo"));
        assert_eq!(kept, OsString::from("/usr/bin:/bin"));
        let j = Jail::unconfined(OsString::from("/usr/bin:/bin"));
        assert!(j.resolve("sh").is_some());
        assert!(j.resolve("tlc-no-such-program").is_none());
        assert!(j.bwrap().is_none());
    }

    #[test]
    fn a_confined_child_sees_the_listed_paths_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept");
        std::fs::create_dir(&kept).unwrap();
        let jail = Jail::new(
            vec![kept.clone(), dir.path().join("missing")],
            std::env::var_os("PATH").unwrap_or_default(),
        );
        assert_eq!(jail.read_only(), std::slice::from_ref(&kept), "a missing path is left out");
        if jail.bwrap().is_none() {
            eprintln!("bubblewrap is not installed: the confinement is not tested here");
            return;
        }
        let out = jail
            .command("sh", dir.path())
            .args(["-c", "touch kept/x; echo kept=$?; touch free; echo free=$?"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("kept=1"), "{text}");
        assert!(text.contains("free=0"), "{text}");
        assert!(dir.path().join("free").exists());
        assert!(!kept.join("x").exists());
    }
}
