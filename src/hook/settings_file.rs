//! A provider's settings file as tlc reads and writes it (`tlc install`, `tlc uninstall`, and a
//! hook that adds a newly adopted repository to the client's sandbox): read without following a
//! link out of the provider's folder, locked against another tlc, rewritten through a temp file
//! and a rename after a backup, and never over a hand edit made since it was read.

use super::settings_text;
use std::path::{Path, PathBuf};

/// Why a settings file was left as it was: it is not usable input (not JSON, a value of the
/// wrong shape: exit 2), or writing it was refused (a link out of the folder, a hand edit, a
/// lock held: exit 1). Each message names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SettingsFileError {
    #[error("{0}")]
    Unusable(String),
    #[error("{0}")]
    Refused(String),
}

impl SettingsFileError {
    pub(crate) fn unusable(message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(SettingsFileError::Unusable(message.into()))
    }

    pub(crate) fn refused(message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(SettingsFileError::Refused(message.into()))
    }
}

/// How long an install waits for another tlc writing the same settings folder.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// A provider's settings file as read: its text (empty when there is no file), its value, and
/// the file a write replaces (the file itself, or the target of a symlink that stays inside
/// the provider's folder). Held open, it holds the folder's lock.
pub(crate) struct Settings {
    /// The file as the provider names it (`~/.claude/settings.json`).
    pub(crate) path: PathBuf,
    /// The regular file a write replaces.
    target: PathBuf,
    pub(crate) text: String,
    pub(crate) value: serde_json::Value,
    pub(crate) existed: bool,
    /// An exclusive advisory lock on the provider's folder, so two tlc runs never interleave a
    /// read-modify-write of its files.
    _lock: Option<std::fs::File>,
}

impl Settings {
    /// Reads `path` (in the provider's folder `dir`) without writing anything.
    pub(crate) fn read(dir: &Path, path: &Path) -> anyhow::Result<Settings> {
        Settings::open(dir, path, false)
    }

    /// Takes the folder's lock (creating the folder when it does not exist yet), then reads.
    pub(crate) fn read_locked(dir: &Path, path: &Path) -> anyhow::Result<Settings> {
        Settings::open(dir, path, true)
    }

    fn open(dir: &Path, path: &Path, lock: bool) -> anyhow::Result<Settings> {
        let lock = if lock { Some(lock_folder(dir)?) } else { None };
        let target = write_target(dir, path)?;
        let (text, existed) = read_text(&target)?;
        let value = if text.trim().is_empty() {
            serde_json::json!({})
        } else {
            serde_json::from_str(&text)
                .map_err(|e| SettingsFileError::unusable(format!("{}: not valid JSON ({e}); left as it is", path.display())))?
        };
        Ok(Settings {
            path: path.to_path_buf(),
            target,
            text,
            value,
            existed,
            _lock: lock,
        })
    }

    /// The text to write for `after`: this file's text with only what differs from what it
    /// holds changed (see `hook::settings_text`).
    pub(crate) fn text_for(&self, after: &serde_json::Value) -> anyhow::Result<String> {
        settings_text::rewrite(&self.text, &self.value, after)
            .map_err(|e| SettingsFileError::unusable(format!("{}: {e}; left as it is", self.path.display())))
    }

    /// Writes `text`, first copying what was there to `<file>.tlc-backup` when there is no backup
    /// yet: one backup per file, holding the file as it was before tlc first changed it (a later
    /// run — `install --statusline` after `install --claude`, a session adding its repository to
    /// the sandbox — never overwrites the operator's original). The file is read again first: a hand
    /// edit made since it was read is never overwritten (the run is refused and says so). Both
    /// files are replaced through new temp files and a rename, never written through a link.
    pub(crate) fn write(&self, text: &str) -> anyhow::Result<Option<PathBuf>> {
        let (now, _) = read_text(&self.target)?;
        if now != self.text {
            return Err(SettingsFileError::refused(format!(
                "{}: changed while tlc was editing it (a hand edit?); nothing was written — run the command again",
                self.path.display()
            )));
        }
        let mode = crate::fswrite::regular_mode(&self.target).unwrap_or(0o600);
        if mode & 0o200 == 0 && self.existed {
            return Err(SettingsFileError::refused(format!(
                "{}: read-only (mode {mode:o}); left as it is",
                self.path.display()
            )));
        }
        let backup = if self.existed {
            let name = format!(
                "{}.tlc-backup",
                self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
            );
            let b = self.path.with_file_name(name);
            let kept = match std::fs::symlink_metadata(&b) {
                Ok(m) if !m.is_file() => {
                    return Err(SettingsFileError::refused(format!(
                        "{}: the backup {} is {}, not a file tlc wrote; nothing was written",
                        self.path.display(),
                        b.display(),
                        crate::fsread::describe(m.file_type())
                    )))
                }
                Ok(_) => true,
                Err(_) => false,
            };
            if !kept {
                crate::fswrite::replace(&b, self.text.as_bytes(), mode)
                    .map_err(|e| SettingsFileError::refused(format!("{}: cannot back up to {}: {e}", self.path.display(), b.display())))?;
            }
            Some(b)
        } else {
            None
        };
        if let Some(dir) = self.target.parent() {
            crate::store::create_private_dir(dir)
                .map_err(|e| SettingsFileError::refused(format!("{}: cannot create: {e}", dir.display())))?;
        }
        crate::fswrite::replace(&self.target, text.as_bytes(), mode)
            .map_err(|e| SettingsFileError::refused(format!("{}: cannot write: {e}", self.path.display())))?;
        Ok(backup)
    }
}

/// The file a write of `path` replaces: `path` itself (there or not yet), or the target of a
/// symlink when that target is a regular file inside the provider's folder `dir`. A link that
/// leaves the folder, dangles, or names anything but a regular file is refused.
fn write_target(dir: &Path, path: &Path) -> anyhow::Result<PathBuf> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(SettingsFileError::refused(format!("{}: cannot read: {e}", path.display()))),
    };
    if meta.is_file() {
        return Ok(path.to_path_buf());
    }
    if !meta.file_type().is_symlink() {
        return Err(SettingsFileError::refused(format!(
            "{}: {}, not a file; left as it is",
            path.display(),
            crate::fsread::describe(meta.file_type())
        )));
    }
    let refuse = |why: String| SettingsFileError::refused(format!("{}: a symbolic link {why}; left as it is", path.display()));
    let target = std::fs::canonicalize(path).map_err(|e| refuse(format!("that does not resolve ({e})")))?;
    let inside = std::fs::canonicalize(dir).is_ok_and(|d| target.starts_with(d));
    if !inside {
        return Err(refuse(format!("to {}, outside {}", target.display(), dir.display())));
    }
    if !std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_file()) {
        return Err(refuse(format!("to {}, which is not a regular file", target.display())));
    }
    Ok(target)
}

/// The text of the regular file `path`, and whether it exists.
fn read_text(path: &Path) -> anyhow::Result<(String, bool)> {
    use crate::fsread::{read_capped_text, Links, SETTINGS_CAP};
    match read_capped_text(path, SETTINGS_CAP, Links::Refuse) {
        Ok(Some(text)) => Ok((text, true)),
        Ok(None) => Ok((String::new(), false)),
        Err(e) => Err(SettingsFileError::refused(e.to_string())),
    }
}

/// An exclusive advisory lock on the folder `dir` (created when missing), waiting at most
/// [`LOCK_WAIT`] for another holder.
fn lock_folder(dir: &Path) -> anyhow::Result<std::fs::File> {
    crate::store::create_private_dir(dir).map_err(|e| SettingsFileError::refused(format!("{}: cannot create: {e}", dir.display())))?;
    let folder =
        crate::fswrite::open_folder(dir).map_err(|e| SettingsFileError::refused(format!("{}: cannot open: {e}", dir.display())))?;
    let start = std::time::Instant::now();
    loop {
        match folder.try_lock() {
            Ok(()) => return Ok(folder),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(SettingsFileError::refused(format!(
                    "{}: another tlc has held its lock for {} s; nothing was written",
                    dir.display(),
                    LOCK_WAIT.as_secs()
                )))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(SettingsFileError::refused(format!("{}: cannot lock: {e}", dir.display()))),
        }
    }
}

/// A unified diff of `path` from `before` to `after` (what a run would write).
pub(crate) fn diff(path: &Path, before: &str, after: &str) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string()
}
