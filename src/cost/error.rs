//! What the cost domain fails with: the catalog's and the imports' errors, in one place that uses
//! nothing else of the domain (both the catalog and the transcript import return them).

use crate::store::StoreError;
use std::path::{Path, PathBuf};

/// Everything the catalog can fail with; each names the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum CostError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{path}: {source}")]
    Sqlite { path: PathBuf, source: rusqlite::Error },
    /// Input that cannot be used (a malformed price file, a bad download): exit 2.
    #[error("{0}")]
    Unusable(String),
    /// A transcripts folder or file the import cannot read: exit 2, as unusable input.
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// A transcripts folder or file the import could not read (it names which): the import stops,
/// its committed batches kept.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{}: not a folder", .0.display())]
    NotAFolder(PathBuf),
    #[error("{}: {cause}", path.display())]
    Io { path: PathBuf, cause: std::io::Error },
}

impl ReadError {
    pub(super) fn into_io(self) -> std::io::Error {
        match self {
            ReadError::Io { cause, .. } => cause,
            other => std::io::Error::other(other.to_string()),
        }
    }

    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReadError + '_ {
        move |cause| ReadError::Io {
            path: path.to_path_buf(),
            cause,
        }
    }
}
