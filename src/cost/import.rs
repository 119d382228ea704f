//! `tlc obs import transcripts`: every Claude Code transcript under a `projects/` folder into the
//! home database's `usage` table, tagged with its project (the folder name under `projects/`).
//!
//! Idempotent twice over: `transcript_files` keeps how far each file was read, so a re-import
//! reads only new bytes; and every response carries its dedup key (`usage.dedup_key` is UNIQUE,
//! rows are `INSERT OR IGNORE`), so a file that shrank or was replaced (another inode, or its first
//! bytes changed) is read again from the top without counting anything twice.
//!
//! Throughput: worker threads read and scan files while this thread prices and inserts; rows are
//! committed in batches (one file is never split over two transactions) so that hooks writing to
//! the same database are never kept waiting long.

use super::catalog::{CachedResolver, CostError, PriceCatalog};
use super::rates::priced_cost;
use super::transcript::Fx;
use super::transcript::{scan_usage, UsageScan};
use super::usage::{UsageRow, UsageWriter};
use crate::store::queries::home::cost as q;
use rusqlite::{params, Connection};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The provider whose transcripts these are, and whose price plane is asked first.
pub const PROVIDER: &str = "claude";
/// `usage.source` of imported rows.
pub const SOURCE: &str = super::usage::ROLLED_UP_BY_WRITER;

/// How many leading bytes identify a file's content across imports.
const HEAD_BYTES: u64 = 4096;
/// Commit after this many rows or this much time, at a file boundary.
const BATCH_ROWS: usize = 100_000;
const BATCH_TIME: Duration = Duration::from_millis(1000);
/// Imports smaller than this always take the row-by-row path (see [`use_bulk_path`]).
const BULK_MIN_BYTES: u64 = 128 << 20;

/// What an import did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct ImportSummary {
    /// Transcript files found.
    pub files: u64,
    /// Files that had new bytes and were read.
    pub files_read: u64,
    /// Files read again from the top because they shrank or were replaced.
    pub files_restarted: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Responses found in the bytes read (after in-file dedup).
    pub responses: u64,
    /// Responses newly stored (the rest were already there).
    pub inserted: u64,
    /// Malformed lines skipped in the bytes read.
    pub malformed: u64,
    /// Newly stored responses whose model has no price.
    pub unpriced: u64,
}

/// The stored state of one file.
#[derive(Debug, Clone, Default)]
struct FileState {
    file_id: Option<String>,
    head_hash: Option<String>,
    offset: u64,
    malformed: u64,
    generations: u64,
}

/// One file to read, and from where.
struct Job {
    path: PathBuf,
    key: String,
    project: String,
    file_id: String,
    size: u64,
    prior: Option<FileState>,
}

struct Scanned {
    job_index: usize,
    start: u64,
    head_hash: String,
    scan: Result<UsageScan, String>,
    /// The 128-bit hash of each record's dedup key, computed on the worker thread.
    hashes: Vec<u128>,
}

/// Every `*.jsonl` under `dir`, with its project (first folder under `dir`), sorted.
pub fn find_transcripts(dir: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let meta = std::fs::metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !meta.is_dir() {
        return Err(format!("{}: not a folder", dir.display()));
    }
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
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

fn head_hash(path: &Path, len: u64) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut buf = Vec::with_capacity(len as usize);
    f.by_ref().take(len).read_to_end(&mut buf)?;
    Ok(format!("{}:{}", buf.len(), crate::hashing::sha256_hex(&buf)))
}

/// Where to start reading a file, given what was stored: 0 when it is new, shrank, is another
/// inode, or its first bytes changed; else the stored offset.
fn start_offset(job: &Job) -> std::io::Result<(u64, String)> {
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

/// The bytes of a file from an offset to its end, memory-mapped: reading 1 GB through `read` spent
/// a tenth of an import copying it. (A file truncated by another process while mapped would fault
/// the import; transcripts are only ever appended to or replaced, never truncated in place.)
struct FileTail {
    map: *mut libc::c_void,
    map_len: usize,
    skip: usize,
}

impl FileTail {
    fn open(path: &Path, start: u64) -> std::io::Result<Option<FileTail>> {
        use std::os::fd::AsRawFd;
        let f = std::fs::File::open(path)?;
        let len = f.metadata()?.len();
        if len <= start {
            return Ok(None);
        }
        // SAFETY: sysconf has no preconditions.
        let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096).max(1);
        let aligned = start - start % page;
        let map_len = usize::try_from(len - aligned).map_err(|_| std::io::Error::other("file too large to map"))?;
        // SAFETY: a fresh read-only private mapping of an open file descriptor; the result is
        // checked for MAP_FAILED and unmapped exactly once in Drop.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                f.as_raw_fd(),
                aligned as libc::off_t,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: advice on the mapping just made; failure is harmless.
        unsafe { libc::madvise(map, map_len, libc::MADV_SEQUENTIAL) };
        Ok(Some(FileTail {
            map,
            map_len,
            skip: (start - aligned) as usize,
        }))
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping is map_len readable bytes, alive as long as self.
        let all = unsafe { std::slice::from_raw_parts(self.map as *const u8, self.map_len) };
        &all[self.skip..]
    }
}

impl Drop for FileTail {
    fn drop(&mut self) {
        // SAFETY: unmapping the mapping made in open, once.
        unsafe { libc::munmap(self.map, self.map_len) };
    }
}

fn scan_from(path: &Path, start: u64, key: &str) -> std::io::Result<UsageScan> {
    match FileTail::open(path, start) {
        Ok(Some(tail)) => Ok(scan_usage(tail.bytes(), start, key)),
        Ok(None) => Ok(UsageScan::default()),
        // A file system that cannot map falls back to reading.
        Err(_) => {
            let mut f = std::fs::File::open(path)?;
            f.seek(SeekFrom::Start(start))?;
            let mut buf = Vec::new();
            f.read_to_end(&mut buf)?;
            Ok(scan_usage(&buf, start, key))
        }
    }
}

fn scan_job(job: &Job, index: usize, hasher: &KeyHasher) -> Scanned {
    let (start, head) = match start_offset(job) {
        Ok(v) => v,
        Err(e) => {
            return Scanned {
                job_index: index,
                start: 0,
                head_hash: String::new(),
                scan: Err(format!("{}: {e}", job.path.display())),
                hashes: Vec::new(),
            }
        }
    };
    let scan = scan_from(&job.path, start, &job.key).map_err(|e| format!("{}: {e}", job.path.display()));
    let hashes = scan
        .as_ref()
        .map(|s| s.records.iter().map(|r| hasher.hash(&r.dedup_key)).collect())
        .unwrap_or_default();
    Scanned {
        job_index: index,
        start,
        head_hash: head,
        scan,
        hashes,
    }
}

fn sq(path: &Path) -> impl Fn(rusqlite::Error) -> CostError + '_ {
    move |e| CostError::Sqlite {
        path: path.to_path_buf(),
        source: e,
    }
}

fn load_states(conn: &Connection, db: &Path) -> Result<HashMap<String, FileState>, CostError> {
    let mut st = conn.prepare_cached(q::TRANSCRIPT_FILES_ALL).map_err(sq(db))?;
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                FileState {
                    file_id: r.get(1)?,
                    head_hash: r.get(2)?,
                    offset: r.get::<_, i64>(3)?.max(0) as u64,
                    malformed: r.get::<_, i64>(4)?.max(0) as u64,
                    generations: r.get::<_, i64>(5)?.max(0) as u64,
                },
            ))
        })
        .map_err(sq(db))?;
    rows.collect::<Result<_, _>>().map_err(sq(db))
}

/// Imports every transcript under `dir` into the home database `conn` (at `db`), pricing each
/// new response with `catalog` as the `claude` provider. `progress(bytes_done, bytes_total)`.
pub fn import_transcripts(
    conn: &mut Connection,
    db: &Path,
    catalog: &PriceCatalog,
    dir: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ImportSummary, CostError> {
    let files = find_transcripts(dir).map_err(CostError::Unusable)?;
    // A bigger page cache keeps the dedup index's pages in memory through a large import, and
    // sorter threads build the bulk path's indexes on both cores.
    conn.execute_batch("PRAGMA cache_size = -131072; PRAGMA threads = 2")
        .map_err(sq(db))?;
    let states = load_states(conn, db)?;
    let mut summary = ImportSummary {
        files: files.len() as u64,
        ..ImportSummary::default()
    };
    let mut jobs = Vec::new();
    let mut total_bytes = 0u64;
    for (path, project) in files {
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()).display().to_string();
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        let file_id = format!("{}:{}", meta.dev(), meta.ino());
        let prior = states.get(&key).cloned();
        // Unchanged since the last import (same inode, same length): nothing to read.
        if prior
            .as_ref()
            .is_some_and(|p| p.offset == meta.len() && p.file_id.as_deref() == Some(file_id.as_str()))
        {
            continue;
        }
        total_bytes += meta.len().saturating_sub(prior.as_ref().map_or(0, |p| p.offset));
        jobs.push(Job {
            path,
            key,
            project,
            file_id,
            size: meta.len(),
            prior,
        });
    }
    progress(0, total_bytes);
    if jobs.is_empty() {
        return Ok(summary);
    }
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4);
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::sync_channel::<Scanned>(workers * 2);
    let mut resolver = CachedResolver::new(catalog, Some(PROVIDER));
    let now = crate::clock::now_stamp();
    let hasher = KeyHasher::default();
    std::thread::scope(|scope| -> Result<(), CostError> {
        for _ in 0..workers {
            let tx = tx.clone();
            let (jobs, next, hasher) = (&jobs, &next, &hasher);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                if tx.send(scan_job(job, i, hasher)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let result = write_all(
            conn,
            db,
            &jobs,
            rx,
            &hasher,
            &mut resolver,
            &now,
            &mut summary,
            progress,
            total_bytes,
        );
        // On an error the receiver is dropped here, so the workers stop at their next send.
        result
    })?;
    Ok(summary)
}

/// One file's scan waiting in a batch.
struct Pending {
    job_index: usize,
    start: u64,
    head_hash: String,
    scan: UsageScan,
    hashes: Vec<u128>,
}

/// A 128-bit hash of a dedup key (two independently seeded SipHashes): what the bulk path
/// compares instead of the key, so that the workers can hash in parallel.
#[derive(Default)]
struct KeyHasher(std::collections::hash_map::RandomState, std::collections::hash_map::RandomState);

impl KeyHasher {
    fn hash(&self, key: &str) -> u128 {
        (u128::from(self.0.hash_one(key)) << 64) | u128::from(self.1.hash_one(key))
    }
}

/// Keys already stored or inserted, by their [`KeyHasher`] hash, while the bulk path has the
/// unique index dropped. The hashes are uniform already, so the set uses a cheap hasher.
struct SeenKeys {
    keys: HashSet<u128, BuildHasherDefault<Fx>>,
}

impl SeenKeys {
    fn with_capacity(n: usize) -> SeenKeys {
        SeenKeys {
            keys: HashSet::with_capacity_and_hasher(n, BuildHasherDefault::default()),
        }
    }

    /// True when the key hashed to `h` was not seen before.
    fn insert(&mut self, h: u128) -> bool {
        self.keys.insert(h)
    }
}

/// Whether to take the bulk path: a large import into a home database holding few rows compared
/// with it. The bulk path keeps one transaction open for the whole import, drops the `usage`
/// indexes, inserts in arrival order, and rebuilds the indexes by sorting before it commits —
/// several times faster than maintaining two indexes row by row, at the price of holding the
/// write lock for the whole import (hooks wait, then record a fault) — so only when it pays.
/// `TLC_IMPORT_BULK_MIN_BYTES` moves the size threshold (tests force the bulk path with 0).
fn use_bulk_path(new_bytes: u64, stored_rows: u64) -> bool {
    let min = std::env::var("TLC_IMPORT_BULK_MIN_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(BULK_MIN_BYTES);
    // About 1.8 KB of transcript per response in Claude Code's files.
    new_bytes >= min && stored_rows <= new_bytes / 2000
}

#[allow(clippy::too_many_arguments)]
fn write_all(
    conn: &Connection,
    db: &Path,
    jobs: &[Job],
    rx: mpsc::Receiver<Scanned>,
    hasher: &KeyHasher,
    resolver: &mut CachedResolver<'_>,
    now: &str,
    summary: &mut ImportSummary,
    progress: &mut dyn FnMut(u64, u64),
    total_bytes: u64,
) -> Result<(), CostError> {
    let stored: i64 = conn
        .prepare_cached(q::USAGE_COUNT)
        .and_then(|mut s| s.query_row([], |r| r.get(0)))
        .map_err(sq(db))?;
    let mut seen = if use_bulk_path(total_bytes, stored.max(0) as u64) {
        // One transaction for the whole import; an error leaves it to roll back when the
        // connection closes, indexes included.
        conn.execute_batch("BEGIN IMMEDIATE").map_err(sq(db))?;
        // Sized for the rows stored plus about one response per 1.5 KB of new transcript.
        let mut seen = SeenKeys::with_capacity(stored.max(0) as usize + (total_bytes / 1500) as usize);
        {
            let mut st = conn.prepare_cached(q::USAGE_DEDUP_KEYS).map_err(sq(db))?;
            let mut rows = st.query([]).map_err(sq(db))?;
            while let Some(r) = rows.next().map_err(sq(db))? {
                seen.insert(hasher.hash(r.get_ref(0).map_err(sq(db))?.as_str().unwrap_or("")));
            }
        }
        for drop in [q::USAGE_DROP_DEDUP_INDEX, q::USAGE_DROP_TS_INDEX] {
            conn.prepare(drop).and_then(|mut s| s.execute([])).map_err(sq(db))?;
        }
        Some(seen)
    } else {
        None
    };
    let mut done_bytes = 0u64;
    let mut writer = UsageWriter::new(conn);
    let mut batch: Vec<Pending> = Vec::new();
    let mut batch_rows = 0usize;
    let mut batch_started = Instant::now();
    for scanned in rx {
        let scan = scanned.scan.map_err(CostError::Unusable)?;
        batch_rows += scan.records.len();
        batch.push(Pending {
            job_index: scanned.job_index,
            start: scanned.start,
            head_hash: scanned.head_hash,
            scan,
            hashes: scanned.hashes,
        });
        if batch_rows >= BATCH_ROWS || batch_started.elapsed() >= BATCH_TIME {
            write_batch(conn, db, jobs, &batch, &mut writer, resolver, seen.as_mut(), now, summary)?;
            for p in batch.drain(..) {
                done_bytes += jobs[p.job_index].size.saturating_sub(p.start);
            }
            progress(done_bytes, total_bytes);
            batch_rows = 0;
            batch_started = Instant::now();
        }
    }
    if !batch.is_empty() {
        write_batch(conn, db, jobs, &batch, &mut writer, resolver, seen.as_mut(), now, summary)?;
    }
    if seen.is_some() {
        for create in [q::USAGE_CREATE_DEDUP_INDEX, q::USAGE_CREATE_TS_INDEX] {
            conn.prepare(create).and_then(|mut s| s.execute([])).map_err(sq(db))?;
        }
        conn.execute_batch("COMMIT").map_err(sq(db))?;
    }
    progress(total_bytes, total_bytes);
    Ok(())
}

/// Writes one batch of files: their responses, their rollup sums and their file states; in its own
/// transaction, or inside the bulk path's one transaction when `seen` is given (the unique index is
/// dropped then, so `seen` is what keeps a response from being stored twice).
#[allow(clippy::too_many_arguments)]
fn write_batch(
    conn: &Connection,
    db: &Path,
    jobs: &[Job],
    batch: &[Pending],
    writer: &mut UsageWriter<'_>,
    resolver: &mut CachedResolver<'_>,
    mut seen: Option<&mut SeenKeys>,
    now: &str,
    summary: &mut ImportSummary,
) -> Result<(), CostError> {
    let own_tx = seen.is_none();
    if own_tx {
        conn.execute_batch("BEGIN IMMEDIATE").map_err(sq(db))?;
    }
    for p in batch {
        let job = &jobs[p.job_index];
        let session_fallback = job.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let mut inserted = 0u64;
        for (r, &h) in p.scan.records.iter().zip(&p.hashes) {
            if let Some(seen) = seen.as_deref_mut() {
                if !seen.insert(h) {
                    continue;
                }
            }
            let price = resolver.resolve(&r.model)?;
            let row = UsageRow {
                dedup_key: &r.dedup_key,
                source: SOURCE,
                project: &job.project,
                repo_path: None,
                session_id: if r.session_id.is_empty() {
                    session_fallback.as_str()
                } else {
                    r.session_id.as_str()
                },
                provider: Some(PROVIDER),
                ts: &r.ts,
                model: &r.model,
                usage: r.usage,
                cost_usd: price.map(|p| priced_cost(p.rates(), &r.usage)),
                cost_source: price.map(|p| p.source()),
                cost_pool: price.and_then(|p| p.entry.pool.as_deref()),
            };
            let new = writer.insert(&row).map_err(sq(db))?;
            inserted += u64::from(new);
            summary.unpriced += u64::from(new && row.cost_usd.is_none());
        }
        let restarted = job.prior.is_some() && p.start == 0;
        summary.files_read += 1;
        summary.files_restarted += u64::from(restarted);
        summary.bytes += p.scan.consumed;
        summary.responses += p.scan.records.len() as u64;
        summary.malformed += p.scan.malformed;
        summary.inserted += inserted;
        let base = if restarted {
            FileState::default()
        } else {
            job.prior.clone().unwrap_or_default()
        };
        conn.prepare_cached(q::TRANSCRIPT_FILE_UPSERT)
            .and_then(|mut s| {
                s.execute(params![
                    job.key,
                    job.project,
                    job.file_id,
                    p.head_hash,
                    (p.start + p.scan.consumed) as i64,
                    (base.malformed + p.scan.malformed) as i64,
                    (base.generations + inserted) as i64,
                    now
                ])
            })
            .map_err(sq(db))?;
    }
    writer.flush().map_err(sq(db))?;
    if own_tx {
        conn.execute_batch("COMMIT").map_err(sq(db))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bulk_path_is_for_large_imports_into_a_small_table() {
        assert!(use_bulk_path(2_000_000_000, 0));
        assert!(use_bulk_path(2_000_000_000, 900_000));
        assert!(!use_bulk_path(2_000_000_000, 2_000_000));
        assert!(!use_bulk_path(10_000_000, 0));
    }

    #[test]
    fn seen_keys_tell_new_from_repeated() {
        let (mut s, h) = (SeenKeys::with_capacity(4), KeyHasher::default());
        assert!(s.insert(h.hash("msg_1:req_1")));
        assert!(s.insert(h.hash("msg_1:req_2")));
        assert!(!s.insert(h.hash("msg_1:req_1")));
        assert_ne!(h.hash("a"), h.hash("b"));
    }
}
