//! The one way tlc reads a file it did not write itself: configs, `.git/config` and the git
//! pointer files, transcripts, the price override file, the providers' settings, operator rules.
//!
//! Such a file may be anything its owner (or an agent working in the repository) made it: a
//! symlink to `/dev/zero`, a FIFO nobody writes, a device, a folder, a gigabyte. Read naively,
//! the first hangs the reader while it eats memory, the second blocks it forever. So every read
//! here opens the file without blocking (`O_NONBLOCK`; `O_NOFOLLOW` where a symlink is refused),
//! asks the open descriptor what it is (`fstat`: it must be a regular file, so nothing swapped in
//! between a check and the open is read), and reads at most a cap named for the kind of file.
//! Anything else is a [`ReadError`] naming the file; the caller treats the file as absent and
//! records the fault.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A config tier file (`config.toml`), and the price override file.
pub(crate) const CONFIG_CAP: u64 = 1024 * 1024;
/// A repository's `.git/config`.
pub(crate) const GIT_CONFIG_CAP: u64 = 1024 * 1024;
/// The one-line git pointer files: a worktree's `.git` file, `commondir`, `HEAD`.
pub(crate) const GIT_POINTER_CAP: u64 = 64 * 1024;
/// A repository's `packed-refs` (one line per ref: large only in repositories with very many).
pub(crate) const PACKED_REFS_CAP: u64 = 64 * 1024 * 1024;
/// A provider's settings file (`~/.claude/settings.json`, `~/.cursor/hooks.json`).
pub(crate) const SETTINGS_CAP: u64 = 16 * 1024 * 1024;
/// An operator rule file (`$TLC_HOME/rules/*.md`, `.tlc/harness/rules/*.md`): a frontmatter and
/// a short text, read on every acting hook while `rules.enabled` is on.
pub(crate) const RULE_CAP: u64 = 256 * 1024;

/// The password database, `/etc/passwd` (read for the login name when the environment has none).
pub(crate) const PASSWD_CAP: u64 = 16 * 1024 * 1024;

/// Whether the last component of the path may be a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// Followed (a dotfiles manager's symlinked config is fine): the target must still be a
    /// regular file.
    Follow,
    /// Refused (`O_NOFOLLOW`).
    Refuse,
}

/// Why a file was not read. Each names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    #[error("{path}: not a regular file ({what}); not read")]
    NotRegular { path: PathBuf, what: &'static str },
    #[error("{path}: {size} bytes, over the {limit} limit for this file; not read")]
    TooLarge { path: PathBuf, size: u64, limit: String },
    #[error("{path}: cannot read: {cause}")]
    Io { path: PathBuf, cause: std::io::Error },
}

impl ReadError {
    /// True when the file (or a folder on its path) does not exist.
    pub(crate) fn is_missing(&self) -> bool {
        matches!(self, ReadError::Io { cause, .. }
            if matches!(cause.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory))
    }

    /// The message without the path (for an error type that names the file itself).
    pub(crate) fn reason(&self) -> String {
        match self {
            ReadError::NotRegular { what, .. } => format!("not a regular file ({what}); not read"),
            ReadError::TooLarge { size, limit, .. } => format!("{size} bytes, over the {limit} limit for this file; not read"),
            ReadError::Io { cause, .. } => format!("cannot read: {cause}"),
        }
    }

    /// As an `io::Error`: the cause itself for an I/O error, else the reason.
    pub(crate) fn into_io(self) -> std::io::Error {
        match self {
            ReadError::Io { cause, .. } => cause,
            other => std::io::Error::other(other.reason()),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        match self {
            ReadError::NotRegular { path, .. } | ReadError::TooLarge { path, .. } | ReadError::Io { path, .. } => path,
        }
    }
}

/// What a file system entry is, in words, for a [`ReadError::NotRegular`].
pub(crate) fn describe(ft: std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a folder"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

/// Opens `path` for reading without blocking and returns it only if it is a regular file.
pub(crate) fn open_regular(path: &Path, links: Links) -> Result<File, ReadError> {
    open_regular_with(path, std::fs::OpenOptions::new().read(true), links)
}

/// [`open_regular`] with the caller's options (a file tlc appends to in a folder an agent can
/// write: created, or opened, without blocking and only if it is a regular file).
pub(crate) fn open_regular_with(path: &Path, options: &mut std::fs::OpenOptions, links: Links) -> Result<File, ReadError> {
    let io = |cause| ReadError::Io {
        path: path.to_path_buf(),
        cause,
    };
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
    if links == Links::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    let file = match options.custom_flags(flags).open(path) {
        Ok(f) => f,
        // ELOOP under O_NOFOLLOW: the last component is a symlink.
        Err(e) if links == Links::Refuse && e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(ReadError::NotRegular {
                path: path.to_path_buf(),
                what: "a symbolic link",
            })
        }
        Err(e) => return Err(io(e)),
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            what: describe(meta.file_type()),
        });
    }
    Ok(file)
}

/// Reads a whole regular file of at most `cap` bytes; `Ok(None)` when it does not exist.
pub(crate) fn read_capped(path: &Path, cap: u64, links: Links) -> Result<Option<Vec<u8>>, ReadError> {
    let file = match open_regular(path, links) {
        Ok(f) => f,
        Err(e) if e.is_missing() => return Ok(None),
        Err(e) => return Err(e),
    };
    let too_large = |size| ReadError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit: size_words(cap),
    };
    let size = file
        .metadata()
        .map_err(|cause| ReadError::Io {
            path: path.to_path_buf(),
            cause,
        })?
        .len();
    if size > cap {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // The file may grow between the fstat and the read: never read past the cap.
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|cause| ReadError::Io {
        path: path.to_path_buf(),
        cause,
    })?;
    if bytes.len() as u64 > cap {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

/// [`read_capped`] for a text file: invalid UTF-8 is an error naming the file.
pub(crate) fn read_capped_text(path: &Path, cap: u64, links: Links) -> Result<Option<String>, ReadError> {
    match read_capped(path, cap, links)? {
        None => Ok(None),
        Some(bytes) => String::from_utf8(bytes).map(Some).map_err(|e| ReadError::Io {
            path: path.to_path_buf(),
            cause: std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not UTF-8 text: {}", e.utf8_error())),
        }),
    }
}

/// [`read_capped_text`] following links, for a reader that treats any failure as "absent"
/// (a repository's `.git` files on the hook path: a FIFO planted at `.git/HEAD` is never
/// opened blocking).
pub(crate) fn read_text_or_none(path: &Path, cap: u64) -> Option<String> {
    read_capped_text(path, cap, Links::Follow).ok().flatten()
}

/// `1 MiB`, `64 KiB`, `12 bytes`.
pub(crate) fn size_words(bytes: u64) -> String {
    if bytes >= 1024 * 1024 && bytes.is_multiple_of(1024 * 1024) {
        format!("{} MiB", bytes / (1024 * 1024))
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_under_the_cap_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.toml");
        std::fs::write(&f, b"x = 1\n").unwrap();
        assert_eq!(read_capped(&f, 16, Links::Follow).unwrap().unwrap(), b"x = 1\n");
        assert!(matches!(
            read_capped(&f, 3, Links::Follow),
            Err(ReadError::TooLarge { size: 6, .. })
        ));
        assert!(read_capped(&dir.path().join("missing"), 16, Links::Follow).unwrap().is_none());
        assert!(matches!(
            read_capped(dir.path(), 16, Links::Follow),
            Err(ReadError::NotRegular { what: "a folder", .. })
        ));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert!(read_capped(&link, 16, Links::Follow).unwrap().is_some());
        assert!(matches!(
            read_capped(&link, 16, Links::Refuse),
            Err(ReadError::NotRegular {
                what: "a symbolic link",
                ..
            })
        ));
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(
            read_capped(&zero, 16, Links::Follow),
            Err(ReadError::NotRegular {
                what: "a character device",
                ..
            })
        ));
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let st = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(st.success());
        assert!(matches!(
            read_capped(&fifo, 16, Links::Follow),
            Err(ReadError::NotRegular { what: "a FIFO", .. })
        ));
    }

    #[test]
    fn sizes_read_as_words() {
        assert_eq!(size_words(1024 * 1024), "1 MiB");
        assert_eq!(size_words(64 * 1024), "64 KiB");
        assert_eq!(size_words(10), "10 bytes");
    }
}
