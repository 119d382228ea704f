//! Creating tlc's own folders and files with private modes.

use std::fs::{DirBuilder, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

/// Creates `dir` and any missing parents with mode 0700. An existing folder is left as it is.
pub(crate) fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Creates `path` empty with mode 0600 unless it already exists.
pub(crate) fn create_private_file(path: &Path) -> io::Result<()> {
    match OpenOptions::new().write(true).create_new(true).mode(0o600).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Whether the file system holding `db` has no space left (or no quota): SQLite reports some
/// writes that failed for want of space as a plain "disk I/O error". Probed by writing a small
/// file beside the database and removing it; called only on an I/O error.
pub(crate) fn no_space_left(db: &Path) -> bool {
    let Some(dir) = db.parent() else { return false };
    let probe = dir.join(format!(".tlc-space-probe-{}", std::process::id()));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&probe)
        .and_then(|mut f| {
            io::Write::write_all(&mut f, &[0u8; 64 * 1024])?;
            f.sync_all()
        });
    let _ = std::fs::remove_file(&probe);
    matches!(written, Err(e) if matches!(e.kind(), io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded))
}
