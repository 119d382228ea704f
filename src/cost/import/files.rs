//! Files and offsets: which transcripts there are, how far each was read (`transcript_files`),
//! where to read on from, and the bytes from there to the end.

use super::{sq, CostError};
pub(crate) use crate::cost::error::ReadError;
use crate::store::queries::home::cost as q;
use rusqlite::{params, Connection};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// How many leading bytes identify a file's content across imports.
const HEAD_BYTES: u64 = 4096;

/// The stored state of one file.
#[derive(Debug, Clone, Default)]
pub(super) struct FileState {
    pub file_id: Option<String>,
    pub head_hash: Option<String>,
    pub offset: u64,
    pub malformed: u64,
    pub generations: u64,
    pub project: Option<String>,
}

/// One file to read, and from where.
pub(super) struct Job {
    pub path: PathBuf,
    /// The file's canonical path: its key in `transcript_files`.
    pub key: String,
    /// The first folder under the imported folder: Claude Code's slug of the session's working
    /// directory, the project when the transcript names no usable `cwd`.
    pub folder: String,
    pub file_id: String,
    pub size: u64,
    pub prior: Option<FileState>,
    /// Read from the top whatever was stored (`--rescan`), keeping the file's stored counts.
    pub rescan: bool,
    /// When the file was last written. Files are taken oldest first (then by path), so that the
    /// bulk path's two transactions cover successive spans of time: the second adds its
    /// `usage_hourly` sums after the first's rather than all through them (on the bench's 900,000
    /// responses, 0.36 s less in each of three interleaved pairs: 3.21–3.81 s against
    /// 3.57–4.18 s). A response found in two files (a
    /// resumed session copies earlier ones) is kept from the one the writer receives first:
    /// usually the older, though the scanning threads may deliver two files out of order.
    pub mtime: Option<std::time::SystemTime>,
}

impl Job {
    /// The bytes this job reads at most: from the stored offset to the end.
    pub(crate) fn new_bytes(&self) -> u64 {
        if self.rescan {
            return self.size;
        }
        self.size.saturating_sub(self.prior.as_ref().map_or(0, |p| p.offset))
    }
}

/// `transcript_files`, how far each transcript was imported: its one reader and writer.
pub(super) struct TranscriptFiles<'c> {
    conn: &'c Connection,
}

/// One file's row as the import records it, with the rows it read (totals, not increments).
pub(super) struct FileRow<'a> {
    /// The file's canonical path.
    pub path: &'a str,
    pub project: &'a str,
    pub file_id: &'a str,
    pub head_hash: &'a str,
    pub offset: u64,
    pub malformed: u64,
    pub generations: u64,
    pub imported_at: &'a str,
}

impl<'c> TranscriptFiles<'c> {
    pub(crate) fn new(conn: &'c Connection) -> TranscriptFiles<'c> {
        TranscriptFiles { conn }
    }

    /// Every file's stored state, by its path.
    pub(crate) fn all(&self) -> rusqlite::Result<HashMap<String, FileState>> {
        let mut st = self.conn.prepare_cached(q::TRANSCRIPT_FILES_ALL)?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                FileState {
                    file_id: r.get(1)?,
                    head_hash: r.get(2)?,
                    offset: r.get::<_, i64>(3)?.max(0) as u64,
                    malformed: r.get::<_, i64>(4)?.max(0) as u64,
                    generations: r.get::<_, i64>(5)?.max(0) as u64,
                    project: r.get(6)?,
                },
            ))
        })?;
        rows.collect()
    }

    /// Records how far one file was read, in the caller's transaction (with the file's rows).
    pub(crate) fn record(&self, row: &FileRow<'_>) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::TRANSCRIPT_FILE_UPSERT)?.execute(params![
            row.path,
            row.project,
            row.file_id,
            row.head_hash,
            row.offset as i64,
            row.malformed as i64,
            row.generations as i64,
            row.imported_at
        ])?;
        Ok(())
    }
}

/// Every `*.jsonl` under `dir`, with its project (first folder under `dir`), sorted.
pub(crate) fn find_transcripts(dir: &Path) -> Result<Vec<(PathBuf, String)>, ReadError> {
    let meta = std::fs::metadata(dir).map_err(ReadError::io(dir))?;
    if !meta.is_dir() {
        return Err(ReadError::NotAFolder(dir.to_path_buf()));
    }
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(ReadError::io(&d))?;
        for e in entries.flatten() {
            let p = e.path();
            let ft = match e.file_type() {
                Ok(t) => t,
                Err(_) => continue,
            };
            if ft.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                let rel = p.strip_prefix(dir).unwrap_or(&p);
                let project = if rel.components().count() > 1 {
                    rel.components()
                        .next()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .unwrap_or_default()
                } else {
                    String::new()
                };
                out.push((p, project));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The files under `dir` that have bytes not yet imported (every file when `rescan`), with what
/// was stored about each.
pub(super) fn jobs(conn: &Connection, db: &Path, dir: &Path, rescan: bool) -> Result<Found, CostError> {
    let files = find_transcripts(dir)?;
    let found = files.len() as u64;
    let states = TranscriptFiles::new(conn).all().map_err(sq(db))?;
    let mut jobs = Vec::new();
    let mut skipped = Vec::new();
    for (path, folder) in files {
        // Only a regular file is read, opened without blocking and never through a link: a
        // `*.jsonl` that is a FIFO would block the import forever, one linked to `/dev/zero`
        // would grow it without bound.
        let meta = match open_transcript(&path).and_then(|f| f.metadata().map_err(ReadError::io(&path))) {
            Ok(m) => m,
            Err(e) => {
                skipped.push(e.to_string());
                continue;
            }
        };
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()).display().to_string();
        let file_id = format!("{}:{}", meta.dev(), meta.ino());
        let prior = states.get(&key).cloned();
        // Unchanged since the last import (same inode, same length): nothing to read.
        if !rescan
            && prior
                .as_ref()
                .is_some_and(|p| p.offset == meta.len() && p.file_id.as_deref() == Some(file_id.as_str()))
        {
            continue;
        }
        jobs.push(Job {
            path,
            key,
            folder,
            file_id,
            size: meta.len(),
            prior,
            rescan,
            mtime: meta.modified().ok(),
        });
    }
    // Oldest first (by when each was last written): see `Job::mtime`.
    jobs.sort_by(|a, b| a.mtime.cmp(&b.mtime).then_with(|| a.path.cmp(&b.path)));
    Ok(Found { found, jobs, skipped })
}

/// The transcripts under a folder: how many there are, those with bytes to read, and those
/// skipped (each a sentence naming the file and why).
pub(super) struct Found {
    pub found: u64,
    pub jobs: Vec<Job>,
    pub skipped: Vec<String>,
}

/// Opens a transcript for reading: without blocking, not through a symlink, and only if it is a
/// regular file (checked on the open descriptor).
pub(super) fn open_transcript(path: &Path) -> Result<std::fs::File, ReadError> {
    crate::fsread::open_regular(path, crate::fsread::Links::Refuse).map_err(|e| match e {
        crate::fsread::ReadError::Io { path, cause } => ReadError::Io { path, cause },
        other => ReadError::Io {
            path: other.path().to_path_buf(),
            cause: std::io::Error::other(other.reason()),
        },
    })
}

fn head_hash(path: &Path, len: u64) -> std::io::Result<String> {
    let mut f = open_transcript(path).map_err(ReadError::into_io)?;
    let mut buf = Vec::with_capacity(len as usize);
    f.by_ref().take(len).read_to_end(&mut buf)?;
    Ok(format!("{}:{}", buf.len(), crate::hashing::sha256_hex(&buf)))
}

/// Where to start reading a file, given what was stored: 0 when it is new, shrank, is another
/// inode, or its first bytes changed; else the stored offset. With the hash of its head.
pub(super) fn start_offset(job: &Job) -> std::io::Result<(u64, String)> {
    if job.rescan {
        return Ok((0, head_hash(&job.path, HEAD_BYTES.min(job.size))?));
    }
    let Some(prior) = &job.prior else {
        return Ok((0, head_hash(&job.path, HEAD_BYTES.min(job.size))?));
    };
    if prior.file_id.as_deref() != Some(job.file_id.as_str()) || job.size < prior.offset {
        return Ok((0, head_hash(&job.path, HEAD_BYTES.min(job.size))?));
    }
    let stored_len = prior
        .head_hash
        .as_deref()
        .and_then(|h| h.split_once(':'))
        .and_then(|(n, _)| n.parse::<u64>().ok())
        .unwrap_or(0);
    let now = head_hash(&job.path, stored_len)?;
    if prior.head_hash.as_deref() != Some(now.as_str()) {
        return Ok((0, head_hash(&job.path, HEAD_BYTES.min(job.size))?));
    }
    // Keep identifying the file by the longest head seen so far.
    let head = if stored_len < HEAD_BYTES.min(job.size) {
        head_hash(&job.path, HEAD_BYTES.min(job.size))?
    } else {
        now
    };
    Ok((prior.offset, head))
}

/// Reads `path` from `start` to its end into `buf` (cleared first). A scanning thread keeps one
/// buffer for all its files, so after the first few files the read only copies from the page
/// cache into memory already in place. Plain reads rather than a memory map: a file truncated by
/// another process meanwhile reads short instead of faulting the import, and on the 1.65 GB bench
/// set they cost nothing measurable (interleaved, 6 imports each on a loaded machine: CPU time
/// 2.99 s against 3.08 s mapped, wall time within 3% either way).
///
/// At most up to `size`, the length the file had when the import listed it: a file another
/// process keeps appending to is read on by the next import, not chased now.
pub(super) fn read_tail(path: &Path, start: u64, size: u64, buf: &mut Vec<u8>) -> std::io::Result<()> {
    buf.clear();
    let mut f = open_transcript(path).map_err(ReadError::into_io)?;
    f.seek(SeekFrom::Start(start))?;
    f.take(size.saturating_sub(start)).read_to_end(buf)?;
    Ok(())
}

/// The project a transcript's responses are stored under. A file read on from where the last
/// import stopped keeps the project it was stored under (its new lines may not name a `cwd`).
pub(super) fn file_project(job: &Job, start: u64, cwd: Option<&str>) -> String {
    if start > 0 {
        if let Some(stored) = job.prior.as_ref().and_then(|p| p.project.clone()) {
            return stored;
        }
    }
    cwd.and_then(project_of_cwd).unwrap_or_else(|| job.folder.clone())
}

/// The project of a session that ran in `cwd`, named as the hooks name a repository in the spool:
/// the folder name of the git top level holding `cwd` when that folder exists on this machine, else
/// the name of `cwd` itself. `None` for a relative path or one without a name (the caller falls
/// back to Claude Code's folder slug). So `obs cost --by project` shows a repository once, whether
/// its responses were spooled by hooks or imported from transcripts.
pub(crate) fn project_of_cwd(cwd: &str) -> Option<String> {
    let dir = Path::new(cwd);
    if !dir.is_absolute() {
        return None;
    }
    let top = if dir.is_dir() { crate::paths::git_top_level(dir) } else { None };
    let named = top.as_deref().unwrap_or(dir);
    named.file_name().map(|n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn files_are_taken_oldest_first_then_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let projects = dir.path().join("projects");
        let folder = projects.join("-home-dev-p");
        std::fs::create_dir_all(&folder).unwrap();
        let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000);
        // (name, seconds after `base` it was last written)
        for (name, age) in [("a.jsonl", 30), ("b.jsonl", 10), ("c.jsonl", 20), ("d.jsonl", 10)] {
            let path = folder.join(name);
            std::fs::write(&path, "{}\n").unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(base + Duration::from_secs(age)).unwrap();
        }
        let db = dir.path().join("h.db");
        let store = crate::store::open_write(crate::store::DbKind::Home, &db).unwrap();
        let Found { found, jobs, .. } = jobs(store.conn(), &db, &projects, false).unwrap();
        assert_eq!(found, 4);
        let order: Vec<String> = jobs
            .iter()
            .map(|j| j.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(order, ["b.jsonl", "d.jsonl", "c.jsonl", "a.jsonl"]);
    }
}
