//! The one format-preserving editor every config write goes through: it keeps the file's
//! comments and layout (toml_edit), refuses a file it cannot parse, and replaces the file
//! atomically so a reader never sees half a write.

use std::path::{Path, PathBuf};

/// Why a config file could not be edited. Each names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EditError {
    #[error("{path}: cannot read: {cause}")]
    Read { path: PathBuf, cause: std::io::Error },
    #[error("{path}{line}: TOML syntax error: {message}")]
    Syntax { path: PathBuf, line: String, message: String },
    #[error("{path}: cannot create: {cause}")]
    Create { path: PathBuf, cause: std::io::Error },
    #[error("{path}: cannot write: {cause}")]
    Write { path: PathBuf, cause: std::io::Error },
    /// The project config may not be written (a guest, a `.tlc` leaving the repository, no
    /// project config yet); the message says which.
    #[error("{0}")]
    NotWritable(String),
}

/// An open config file being edited.
pub(crate) struct ConfigEdit {
    path: PathBuf,
    original: Option<String>,
    pub doc: toml_edit::DocumentMut,
}

impl ConfigEdit {
    /// Opens `path` for editing; a missing file starts empty.
    pub(crate) fn open(path: &Path) -> Result<ConfigEdit, EditError> {
        let original = crate::fsread::read_capped_text(path, crate::fsread::CONFIG_CAP, crate::fsread::Links::Follow).map_err(|e| {
            EditError::Read {
                path: path.to_path_buf(),
                cause: e.into_io(),
            }
        })?;
        let doc = match &original {
            Some(t) => t.parse::<toml_edit::DocumentMut>().map_err(|e| EditError::Syntax {
                path: path.to_path_buf(),
                line: e
                    .span()
                    .map(|s| super::line_of(t, s.start))
                    .map(|l| format!(":{l}"))
                    .unwrap_or_default(),
                message: e.message().trim().to_string(),
            })?,
            None => toml_edit::DocumentMut::new(),
        };
        Ok(ConfigEdit {
            path: path.to_path_buf(),
            original,
            doc,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Sets a dotted key (`grind.testCommand`), creating its tables as needed.
    pub(crate) fn set(&mut self, dotted: &str, value: toml_edit::Value) {
        let parts: Vec<&str> = dotted.split('.').collect();
        let (last, tables) = parts.split_last().expect("a key has at least one part");
        let mut table = self.doc.as_table_mut();
        for t in tables {
            let entry = table.entry(t).or_insert_with(|| {
                let mut new = toml_edit::Table::new();
                new.set_implicit(true);
                toml_edit::Item::Table(new)
            });
            if !entry.is_table() {
                *entry = toml_edit::Item::Table(toml_edit::Table::new());
            }
            table = entry.as_table_mut().expect("made a table above");
        }
        match table.get_mut(last) {
            Some(item) if item.is_value() => {
                let decor = item.as_value().map(|v| v.decor().clone());
                let mut value = value;
                if let Some(decor) = decor {
                    *value.decor_mut() = decor;
                }
                *item = toml_edit::Item::Value(value);
            }
            _ => {
                table.insert(last, toml_edit::Item::Value(value));
            }
        }
    }

    /// Removes a dotted key or table; true when something was removed.
    pub(crate) fn remove(&mut self, dotted: &str) -> bool {
        let parts: Vec<&str> = dotted.split('.').collect();
        let (last, tables) = parts.split_last().expect("a key has at least one part");
        let mut table = self.doc.as_table_mut();
        for t in tables {
            match table.get_mut(t).and_then(|i| i.as_table_mut()) {
                Some(next) => table = next,
                None => return false,
            }
        }
        table.remove(last).is_some()
    }

    /// Whether the edit changes the file.
    pub(crate) fn changed(&self) -> bool {
        self.original.as_deref() != Some(self.doc.to_string().as_str())
    }

    /// The text that would be written.
    pub(crate) fn render(&self) -> String {
        self.doc.to_string()
    }

    /// Writes the file atomically (a temp file beside it, then rename), keeping its mode.
    /// Returns false when nothing changed and nothing was written.
    pub(crate) fn save(&self) -> Result<bool, EditError> {
        if !self.changed() {
            return Ok(false);
        }
        write_atomic(&self.path, self.render().as_bytes())?;
        Ok(true)
    }
}

/// A temp file older than this is stale whatever its process.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes the temp files that writers of `path` killed mid-write left beside it
/// ([`crate::fswrite::temp_beside`]): those whose process is gone (Linux's `/proc` says), or older than ten
/// minutes. Best effort; returns how many it removed.
pub(crate) fn remove_stale_temps(path: &Path) -> usize {
    let dir = path.parent().unwrap_or(Path::new("."));
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let proc_known = Path::new("/proc/self").exists();
    let mut removed = 0;
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = crate::fswrite::temp_pid(path, &file) else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let gone = proc_known && !Path::new(&format!("/proc/{pid}")).exists();
        let old = e
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP);
        let is_file = e.file_type().is_ok_and(|t| t.is_file());
        if is_file && (gone || old) && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Replaces `path` with `bytes` through a new temp file beside it and a rename
/// ([`crate::fswrite::replace`]: a symlink planted at a temp name, or at `path`, is never
/// written through), keeping the mode of the file it replaces (0600 for a new one).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), EditError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::store::create_private_dir(dir).map_err(|cause| EditError::Create {
        path: dir.to_path_buf(),
        cause,
    })?;
    remove_stale_temps(path);
    let mode = crate::fswrite::regular_mode(path).unwrap_or(0o600);
    crate::fswrite::replace(path, bytes, mode).map_err(|cause| EditError::Write {
        path: path.to_path_buf(),
        cause,
    })
}
