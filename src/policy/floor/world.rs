//! What the floor may know of the machine, behind one trait: the engine itself reads no file and
//! runs nothing, so it is tested by tables over an in-memory world ([`Virtual`]) and runs on the
//! hook over the real one ([`Disk`]). Every question is cheap and bounded: a path's resolution, its
//! kind, a small text file (a `.git` pointer, a script the command runs), a folder's names.

#[cfg(test)]
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most of a script file the floor reads to see what it runs.
pub(crate) const SCRIPT_CAP: u64 = 1024 * 1024;

/// The machine as the floor sees it.
pub(crate) trait World: Send + Sync + std::fmt::Debug {
    /// The path with every symlink resolved, when it exists.
    fn canonicalize(&self, p: &Path) -> Option<PathBuf>;
    /// Whether the path's last component is a symlink.
    fn is_symlink(&self, p: &Path) -> bool;
    /// Whether anything (a link included) is at the path.
    fn exists(&self, p: &Path) -> bool;
    /// What is at the path, its last component not followed: `None` for nothing, `Some(true)` for
    /// a symlink, `Some(false)` for anything else (one question where two would cost twice).
    fn entry(&self, p: &Path) -> Option<bool> {
        self.exists(p).then(|| self.is_symlink(p))
    }
    fn is_dir(&self, p: &Path) -> bool;
    fn is_block_device(&self, p: &Path) -> bool;
    /// A regular file's text, at most `cap` bytes; `None` for anything else.
    fn read_text(&self, p: &Path, cap: u64) -> Option<String>;
    /// The names in a folder.
    fn names_in(&self, dir: &Path) -> Vec<String>;
    /// `~user`'s home folder.
    fn user_home(&self, user: &str) -> Option<PathBuf>;
}

/// The real file system, read without blocking and within `fsread`'s limits.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Disk;

impl World for Disk {
    fn canonicalize(&self, p: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(p).ok()
    }

    fn is_symlink(&self, p: &Path) -> bool {
        std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
    }

    fn exists(&self, p: &Path) -> bool {
        std::fs::symlink_metadata(p).is_ok()
    }

    fn entry(&self, p: &Path) -> Option<bool> {
        std::fs::symlink_metadata(p).ok().map(|m| m.file_type().is_symlink())
    }

    fn is_dir(&self, p: &Path) -> bool {
        p.is_dir()
    }

    fn is_block_device(&self, p: &Path) -> bool {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device())
    }

    fn read_text(&self, p: &Path, cap: u64) -> Option<String> {
        crate::fsread::read_text_or_none(p, cap)
    }

    fn names_in(&self, dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default()
    }

    fn user_home(&self, user: &str) -> Option<PathBuf> {
        let passwd = crate::fsread::read_text_or_none(Path::new("/etc/passwd"), crate::fsread::PASSWD_CAP)?;
        passwd.lines().find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() >= 6 && f[0] == user && f[5].starts_with('/')).then(|| PathBuf::from(f[5]))
        })
    }
}

/// A world held in memory: the files, folders and links a test declares, nothing else.
#[cfg(test)]
#[derive(Debug, Default, Clone)]
pub(crate) struct Virtual {
    pub files: BTreeMap<PathBuf, String>,
    pub dirs: Vec<PathBuf>,
    pub links: BTreeMap<PathBuf, PathBuf>,
    pub block_devices: Vec<PathBuf>,
    pub homes: BTreeMap<String, PathBuf>,
}

#[cfg(test)]
impl Virtual {
    fn resolve_links(&self, p: &Path) -> PathBuf {
        let mut out = PathBuf::new();
        for c in p.components() {
            out.push(c);
            let mut hops = 0;
            while let Some(t) = self.links.get(&out) {
                out = if t.is_absolute() {
                    t.clone()
                } else {
                    out.parent().unwrap_or(Path::new("/")).join(t)
                };
                hops += 1;
                if hops > 8 {
                    break;
                }
            }
        }
        out
    }
}

#[cfg(test)]
impl World for Virtual {
    fn canonicalize(&self, p: &Path) -> Option<PathBuf> {
        let r = self.resolve_links(p);
        self.exists(&r).then_some(r)
    }

    fn is_symlink(&self, p: &Path) -> bool {
        self.links.contains_key(p)
    }

    fn exists(&self, p: &Path) -> bool {
        self.files.contains_key(p) || self.is_dir(p) || self.links.contains_key(p) || self.block_devices.iter().any(|d| d == p)
    }

    /// A declared folder, or any folder above something declared (as on a real disk).
    fn is_dir(&self, p: &Path) -> bool {
        self.dirs.iter().any(|d| d.starts_with(p))
            || self
                .files
                .keys()
                .chain(self.links.keys())
                .chain(self.block_devices.iter())
                .any(|f| f.starts_with(p) && f != p)
    }

    fn is_block_device(&self, p: &Path) -> bool {
        self.block_devices.iter().any(|d| d == p)
    }

    fn read_text(&self, p: &Path, cap: u64) -> Option<String> {
        self.files.get(&self.resolve_links(p)).filter(|t| t.len() as u64 <= cap).cloned()
    }

    fn names_in(&self, dir: &Path) -> Vec<String> {
        let mut out: Vec<String> = self
            .files
            .keys()
            .chain(self.dirs.iter())
            .filter_map(|f| f.strip_prefix(dir).ok())
            .filter_map(|rest| rest.components().next())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    fn user_home(&self, user: &str) -> Option<PathBuf> {
        self.homes.get(user).cloned()
    }
}
