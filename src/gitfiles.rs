//! What tlc reads of a repository's `.git` without running git: where the git directory is (a
//! `.git` folder, or a worktree's or submodule's `.git` file naming it, and its `commondir`),
//! HEAD (a branch or a detached commit), a ref (loose, then `packed-refs`), the remotes' names,
//! and the `origin` URL in `config`. The one reader of these files: the project's adoption and
//! guest check, the turn's base HEAD at every prompt and stop, and the floor's "are these commits
//! pushed?" all go through it.
//!
//! Every file is read through [`crate::fsread`]'s limits (a regular file, never opened blocking,
//! at most a cap per kind: a FIFO planted at `.git/HEAD` is refused, not waited on), from the
//! disk ([`Disk`]) or from whatever a caller's [`Files`] says (the floor's in-memory world in its
//! table tests). Symlinks are followed, as git follows them: the target must still be a regular
//! file under the cap. A ref name that leaves `refs/` (`..`) is never read, and a repository whose
//! refs are a reftable is not read at all ([`Ref::Unknown`]: git has to say).

use crate::fsread::{ReadError, GIT_CONFIG_CAP, GIT_POINTER_CAP, PACKED_REFS_CAP};
use std::path::{Path, PathBuf};

/// Where the files come from.
pub(crate) trait Files {
    /// Whether `p` is a folder (a link to one included).
    fn is_dir(&self, p: &Path) -> bool;
    /// A regular file's text of at most `cap` bytes; `Ok(None)` when nothing is at `p`.
    fn text(&self, p: &Path, cap: u64) -> Result<Option<String>, ReadError>;
    /// The names in the folder `dir` (none when it is not one).
    fn names_in(&self, dir: &Path) -> Vec<String>;
}

/// The file system, through `fsread`.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Disk;

impl Files for Disk {
    fn is_dir(&self, p: &Path) -> bool {
        p.is_dir()
    }

    fn text(&self, p: &Path, cap: u64) -> Result<Option<String>, ReadError> {
        crate::fsread::read_capped_text(p, cap, crate::fsread::Links::Follow)
    }

    fn names_in(&self, dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default()
    }
}

/// What HEAD names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Head {
    /// A symbolic ref (`ref: refs/heads/main`): the ref's full name.
    Branch(String),
    /// A detached HEAD: the commit's object name.
    Detached(String),
}

/// What a ref resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ref {
    /// A commit's object name.
    Commit(String),
    /// Neither a loose ref nor a line of `packed-refs` (an unborn branch, a remote without it).
    Absent,
    /// Not answerable from the files: a reftable, a ref holding something else than an object
    /// name, a name outside `refs/`.
    Unknown,
}

impl Ref {
    pub(crate) fn commit(&self) -> Option<&str> {
        match self {
            Ref::Commit(c) => Some(c),
            _ => None,
        }
    }
}

/// A repository's git directory and its common directory (they differ in a linked worktree:
/// HEAD is the worktree's own, the refs, `packed-refs` and `config` are shared).
pub(crate) struct Repo<'f> {
    files: &'f dyn Files,
    dir: PathBuf,
    common: PathBuf,
}

impl std::fmt::Debug for Repo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("dir", &self.dir)
            .field("common", &self.common)
            .finish()
    }
}

/// What a folder's `.git` entry says.
enum Entry<'f> {
    Repo(Repo<'f>),
    /// No `.git` entry here.
    Nothing,
    /// A `.git` file that names no git directory.
    NotARepository,
}

impl<'f> Repo<'f> {
    /// The repository whose working tree has its top at `root`: `Ok(None)` when `root` holds no
    /// `.git`, or a `.git` file naming no git directory. A `.git` file or `commondir` that cannot
    /// be read is an error naming it.
    pub(crate) fn at(files: &'f dyn Files, root: &Path) -> Result<Option<Repo<'f>>, ReadError> {
        Ok(match entry(files, root)? {
            Entry::Repo(r) => Some(r),
            Entry::Nothing | Entry::NotARepository => None,
        })
    }

    /// The nearest repository at or above `start` (as git finds it from a working directory).
    pub(crate) fn above(files: &'f dyn Files, start: &Path) -> Result<Option<Repo<'f>>, ReadError> {
        let mut dir = Some(start);
        while let Some(d) = dir {
            match entry(files, d)? {
                Entry::Repo(r) => return Ok(Some(r)),
                Entry::NotARepository => return Ok(None),
                Entry::Nothing => dir = d.parent(),
            }
        }
        Ok(None)
    }

    /// The common git directory: where the repository's `config` and `hooks/` are (a linked
    /// worktree's own git directory holds neither).
    pub(crate) fn common_dir(&self) -> &Path {
        &self.common
    }

    /// HEAD, when it is a form git writes: a symbolic ref inside `refs/`, or an object name.
    /// `None` for anything else, and for a HEAD that is missing or cannot be read.
    pub(crate) fn head(&self) -> Option<Head> {
        let text = self.files.text(&self.dir.join("HEAD"), GIT_POINTER_CAP).ok().flatten()?;
        let text = text.trim();
        if is_object_name(text) {
            return Some(Head::Detached(text.to_string()));
        }
        let name = text.strip_prefix("ref:")?.trim();
        is_ref_name(name).then(|| Head::Branch(name.to_string()))
    }

    /// What the ref `name` (`refs/heads/main`) points at: its loose file (in the worktree's git
    /// directory, then the common one), else its line in `packed-refs`. A loose ref or a
    /// `packed-refs` that cannot be read counts as absent, as git's own lookup falls through.
    pub(crate) fn resolve(&self, name: &str) -> Ref {
        if !is_ref_name(name) || self.files.is_dir(&self.common.join("reftable")) {
            return Ref::Unknown;
        }
        let dirs: &[&PathBuf] = if self.dir == self.common {
            &[&self.dir]
        } else {
            &[&self.dir, &self.common]
        };
        for d in dirs {
            if let Ok(Some(v)) = self.files.text(&d.join(name), GIT_POINTER_CAP) {
                let v = v.trim();
                return if is_object_name(v) {
                    Ref::Commit(v.to_string())
                } else {
                    Ref::Unknown
                };
            }
        }
        self.packed_refs()
            .iter()
            .find(|(_, r)| r == name)
            .map_or(Ref::Absent, |(sha, _)| Ref::Commit(sha.clone()))
    }

    /// The names of the remotes that have remote-tracking refs (loose or packed), sorted.
    pub(crate) fn remotes(&self) -> Vec<String> {
        let mut names = self.files.names_in(&self.common.join("refs").join("remotes"));
        for (_, r) in self.packed_refs() {
            if let Some((remote, _)) = r.strip_prefix("refs/remotes/").and_then(|r| r.split_once('/')) {
                names.push(remote.to_string());
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// The `origin` remote's URL in the repository's `config`; `None` when there is none. A
    /// `config` that cannot be read is an error naming it.
    pub(crate) fn origin_url(&self) -> Result<Option<String>, ReadError> {
        let Some(text) = self.files.text(&self.common.join("config"), GIT_CONFIG_CAP)? else {
            return Ok(None);
        };
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
                        return Ok(Some(v.trim().to_string()));
                    }
                }
            }
        }
        Ok(None)
    }

    /// `packed-refs`' (object name, ref name) lines; none when it is missing or unreadable.
    fn packed_refs(&self) -> Vec<(String, String)> {
        let Ok(Some(text)) = self.files.text(&self.common.join("packed-refs"), PACKED_REFS_CAP) else {
            return Vec::new();
        };
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with('^'))
            .filter_map(|l| {
                let (sha, name) = l.split_once(' ')?;
                is_object_name(sha).then(|| (sha.to_string(), name.trim().to_string()))
            })
            .collect()
    }
}

/// The `.git` entry of the folder `d`.
fn entry<'f>(files: &'f dyn Files, d: &Path) -> Result<Entry<'f>, ReadError> {
    let dot = d.join(".git");
    let dir = if files.is_dir(&dot) {
        dot
    } else {
        // A linked worktree or a submodule: `.git` is a file naming the git directory, relative
        // to the folder that holds it.
        let Some(text) = files.text(&dot, GIT_POINTER_CAP)? else {
            return Ok(Entry::Nothing);
        };
        let Some(named) = text.lines().find_map(|l| l.trim_start().strip_prefix("gitdir:")) else {
            return Ok(Entry::NotARepository);
        };
        d.join(named.trim())
    };
    // `commondir` is relative to the git directory (`join` keeps an absolute one as it is).
    let common = files
        .text(&dir.join("commondir"), GIT_POINTER_CAP)?
        .map(|c| dir.join(c.trim()))
        .unwrap_or_else(|| dir.clone());
    Ok(Entry::Repo(Repo { files, dir, common }))
}

/// Why git run in `root` would block or misbehave on what is planted in its git directory: HEAD,
/// `index`, `config` or `packed-refs` that exists and is not a regular file (a FIFO, a device, a
/// folder; a symlink counts as what it points at). git opens these blocking, so a FIFO at
/// `.git/HEAD` would hold every git command, and the hook with it. `None`: nothing of the kind
/// (or no repository at all: git says what it says).
pub(crate) fn would_block_git(root: &Path) -> Option<String> {
    let repo = Repo::above(&Disk, root).ok().flatten()?;
    let files = [
        repo.dir.join("HEAD"),
        repo.dir.join("index"),
        repo.common.join("config"),
        repo.common.join("packed-refs"),
    ];
    files.iter().find_map(|p| {
        let ft = std::fs::metadata(p).ok()?.file_type();
        (!ft.is_file()).then(|| format!("{} is {}: git would block on it", p.display(), crate::fsread::describe(ft)))
    })
}

/// A full ref name git could have written: inside `refs/`, no `..` that would leave it.
fn is_ref_name(name: &str) -> bool {
    name.starts_with("refs/") && !name.split('/').any(|c| c == ".." || c == "." || c.is_empty())
}

/// A SHA-1 or SHA-256 object name in hex.
pub(crate) fn is_object_name(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
    const SHA2: &str = "1111111111111111111111111111111111111111";

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn head_and_refs_are_read_loose_then_packed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = root.join(".git");
        write(&git.join("HEAD"), "ref: refs/heads/main\n");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        let repo = Repo::at(&Disk, root).unwrap().unwrap();
        assert_eq!(repo.head(), Some(Head::Branch("refs/heads/main".into())));
        assert_eq!(repo.resolve("refs/heads/main"), Ref::Absent, "unborn");
        write(
            &git.join("packed-refs"),
            &format!("# pack-refs with: peeled fully-peeled sorted\n{SHA} refs/heads/main\n^{SHA2}\n{SHA2} refs/remotes/up/main\n"),
        );
        assert_eq!(repo.resolve("refs/heads/main"), Ref::Commit(SHA.into()));
        write(&git.join("refs/heads/main"), &format!("{SHA2}\n"));
        assert_eq!(repo.resolve("refs/heads/main"), Ref::Commit(SHA2.into()), "loose before packed");
        write(&git.join("refs/heads/odd"), "ref: refs/heads/main\n");
        assert_eq!(repo.resolve("refs/heads/odd"), Ref::Unknown);
        write(&git.join("refs/remotes/origin/main"), &format!("{SHA}\n"));
        assert_eq!(repo.remotes(), vec!["origin".to_string(), "up".to_string()]);
        write(&git.join("HEAD"), &format!("{SHA}\n"));
        assert_eq!(repo.head(), Some(Head::Detached(SHA.into())));
        for bad in ["ref: ../../etc/passwd\n", "ref: refs/../../x\n", "ref: HEAD\n", "garbage\n"] {
            write(&git.join("HEAD"), bad);
            assert_eq!(repo.head(), None, "{bad:?}");
        }
        assert_eq!(repo.resolve("refs/heads/../../config"), Ref::Unknown);
        std::fs::create_dir_all(git.join("reftable")).unwrap();
        assert_eq!(repo.resolve("refs/heads/main"), Ref::Unknown, "a reftable is git's to read");
        assert!(Repo::at(&Disk, &root.join("nowhere")).unwrap().is_none());
    }

    #[test]
    fn a_worktree_file_and_commondir_lead_to_the_shared_refs_and_config() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        let git = main.join(".git");
        write(
            &git.join("config"),
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/widgets.git\n",
        );
        write(&git.join("refs/heads/feature"), &format!("{SHA}\n"));
        let wt_git = git.join("worktrees/wt");
        write(&wt_git.join("HEAD"), "ref: refs/heads/feature\n");
        write(&wt_git.join("commondir"), "../..\n");
        let wt = dir.path().join("wt");
        write(&wt.join(".git"), &format!("gitdir: {}\n", wt_git.display()));
        let sub = wt.join("src/deep");
        std::fs::create_dir_all(&sub).unwrap();

        let repo = Repo::above(&Disk, &sub).unwrap().unwrap();
        assert_eq!(repo.head(), Some(Head::Branch("refs/heads/feature".into())));
        assert_eq!(repo.resolve("refs/heads/feature"), Ref::Commit(SHA.into()));
        assert_eq!(repo.origin_url().unwrap().as_deref(), Some("git@github.com:acme/widgets.git"));
        // A relative gitdir is relative to the folder holding the `.git` file.
        write(&wt.join(".git"), "gitdir: ../main/.git/worktrees/wt\n");
        let repo = Repo::at(&Disk, &wt).unwrap().unwrap();
        assert_eq!(repo.resolve("refs/heads/feature"), Ref::Commit(SHA.into()));
        // A `.git` file naming nothing is no repository, and the walk up stops there.
        write(&wt.join(".git"), "not a pointer\n");
        assert!(Repo::above(&Disk, &sub).unwrap().is_none());
        assert!(Repo::at(&Disk, &dir.path().join("elsewhere")).unwrap().is_none());
    }

    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = root.join(".git");
        std::fs::create_dir_all(&git).unwrap();
        let fifo = |p: &Path| {
            let st = std::process::Command::new("mkfifo").arg(p).status().unwrap();
            assert!(st.success());
        };
        fifo(&git.join("HEAD"));
        fifo(&git.join("packed-refs"));
        fifo(&git.join("config"));
        let repo = Repo::at(&Disk, root).unwrap().unwrap();
        assert_eq!(repo.head(), None);
        assert_eq!(repo.resolve("refs/heads/main"), Ref::Absent);
        assert!(repo.remotes().is_empty());
        let err = repo.origin_url().unwrap_err();
        assert!(err.to_string().contains("config: not a regular file (a FIFO)"), "{err}");
        std::os::unix::fs::symlink("/dev/zero", git.join("commondir")).unwrap();
        let err = Repo::at(&Disk, root).unwrap_err();
        assert!(
            err.to_string().contains("commondir: not a regular file (a character device)"),
            "{err}"
        );
        std::fs::remove_file(git.join("commondir")).unwrap();
        std::fs::remove_dir_all(&git).unwrap();
        fifo(&git);
        let err = Repo::at(&Disk, root).unwrap_err();
        assert!(err.to_string().contains(".git: not a regular file (a FIFO)"), "{err}");
    }
}
