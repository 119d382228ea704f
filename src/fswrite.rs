//! The one way tlc creates or replaces a file in a folder someone else may also write: a
//! provider's settings folder, a repository's `.tlc/`, the pin store, the state folders.
//!
//! Such a folder may hold what an agent (or any process of the operator's) planted there: a
//! symlink at the name tlc is about to write, pointing at a file outside, or at the temp name a
//! writer is known to use. Opened naively (`File::create`), the write goes through the link. So
//! every file made here is created new (`O_CREAT|O_EXCL`) without following a symlink
//! (`O_NOFOLLOW`): a name already taken, by anything, is never written through. A replacement
//! is written whole to such a temp file beside the target, synced, and renamed over it: a
//! rename replaces the directory entry (a planted link is replaced, its target untouched), and
//! a reader never sees half a file. It uses nothing of the crate.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Creates `path`, which must not exist in any form (a symlink there, dangling or not, is an
/// `AlreadyExists` error and is left as it is).
pub(crate) fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Opens `path` for writing (appending when `append`), creating it when it does not exist; a
/// symlink at `path`, or anything that is not a regular file, is refused (lock files, logs).
pub(crate) fn open_regular_for_write(path: &Path, mode: u32, append: bool) -> io::Result<File> {
    let file = OpenOptions::new()
        .write(true)
        .append(append)
        .create(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                io::Error::other("a symbolic link; tlc never writes through one")
            } else {
                e
            }
        })?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file; not written"));
    }
    Ok(file)
}

/// Opens the folder `dir` itself (to fsync an entry made in it, or to hold a lock on it):
/// `O_DIRECTORY`, so anything else at the name (a FIFO an open would wait on) is an error.
pub(crate) fn open_folder(dir: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(dir)
}

/// The prefix and suffix of the temp names a writer of `target` uses: `.<name>.tlc-` and
/// `.tmp`, with `<pid>-<unique>` between them.
pub(crate) fn temp_affixes(target: &Path) -> (String, &'static str) {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    (format!(".{name}.tlc-"), ".tmp")
}

/// The process id a temp name of [`temp_beside`] (or the older `.<name>.tlc-<pid>.tmp`) carries.
pub(crate) fn temp_pid(target: &Path, file_name: &str) -> Option<u32> {
    let (prefix, suffix) = temp_affixes(target);
    let middle = file_name.strip_prefix(&prefix)?.strip_suffix(suffix)?;
    middle.split('-').next()?.parse().ok()
}

/// A new temp file beside `target`, under a name that was free (created exclusively, so a name
/// someone planted is skipped, never opened).
pub(crate) fn temp_beside(target: &Path, mode: u32) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let (prefix, suffix) = temp_affixes(target);
    let mut last = None;
    for _ in 0..64 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let unique = nanos ^ COUNTER.fetch_add(1, Ordering::Relaxed).rotate_left(40) ^ (u64::from(std::process::id()) << 20);
        let path = dir.join(format!("{prefix}{}-{unique:016x}{suffix}", std::process::id()));
        match create_new(&path, mode) {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temp name")))
}

/// Replaces `target` with `bytes` (mode `mode`): written to a new temp file beside it, synced,
/// renamed over it, and the folder synced. On failure the temp file is removed and `target`
/// is as it was.
pub(crate) fn replace(target: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let (tmp, mut file) = temp_beside(target, mode)?;
    let written = (|| {
        file.write_all(bytes)?;
        // The create mode is filtered by the umask; the file gets exactly `mode`.
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        file.sync_all()?;
        std::fs::rename(&tmp, target)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Best effort: the rename is durable once its folder is.
        if let Ok(d) = open_folder(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// The permission bits of the regular file at `path` (never following a symlink), or `None`.
pub(crate) fn regular_mode(path: &Path) -> Option<u32> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.permissions().mode() & 0o7777)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert_eq!(create_new(&link, 0o600).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert!(open_regular_for_write(&link, 0o600, true).is_err());
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert!(create_new(&dangling, 0o600).is_err());
        assert!(!dir.path().join("nowhere").exists());
        // Replacing the link replaces the link, not its target.
        replace(&link, b"new", 0o640).unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
        assert_eq!(regular_mode(&link), Some(0o640));
    }

    #[test]
    fn temp_names_skip_planted_ones_and_carry_the_pid() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("settings.json");
        let (p, _f) = temp_beside(&target, 0o600).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(temp_pid(&target, &name), Some(std::process::id()));
        assert_eq!(temp_pid(&target, ".settings.json.tlc-42.tmp"), Some(42));
        assert_eq!(temp_pid(&target, ".other.tlc-42.tmp"), None);
        let (q, _g) = temp_beside(&target, 0o600).unwrap();
        assert_ne!(p, q);
    }
}
