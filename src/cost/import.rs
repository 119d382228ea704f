//! `tlc obs import transcripts`: every Claude Code transcript under a `projects/` folder into the
//! home database's `usage` table, tagged with its project (see [`project_of_cwd`]).
//!
//! Idempotent twice over: `transcript_files` keeps how far each file was read, so a re-import
//! reads only new bytes; and every response carries its dedup key, stored once (the insert looks
//! it up in `usage_key`, see `usage_insert.sql`; the bulk path checks the keys it read), so a file
//! that shrank or was replaced (another inode, or its first bytes changed) is read again from the
//! top without counting anything twice.
//!
//! Throughput: worker threads read, scan and group files; this thread prices and inserts (see
//! [`write_batch`]). Rows are committed in batches (one file is never split over two
//! transactions) so that hooks writing to the same database are never kept waiting long, except
//! on the bulk path (see [`use_bulk_path`]).

#![allow(unsafe_code)] // TEMP: removed by the import restructure
use super::catalog::{CachedResolver, CostError, PriceCatalog, ResolvedPrice};
use super::rates::priced_cost;
use super::transcript::Fx;
use super::transcript::{scan_usage, UsageScan};
use super::usage::{Sums, SuspendedTriggers, UsageRow, UsageWriter};
use crate::store::queries::home::cost as q;
use rusqlite::{params, Connection};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex, PoisonError};
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
/// The bulk path writes a chunk whenever at least this many responses are waiting once it has
/// taken everything the scanning threads have sent: the first chunk goes in early, later ones grow
/// to what was scanned while the one before was written.
const BULK_CHUNK_ROWS: usize = 25_000;
/// Scanning threads wait while this many responses are scanned but not yet written. This bounds
/// the import's memory (a whole 1.65 GB set held 425 MB in one batch; imports of it now peak at
/// 210–260 MB), yet lets the scan go on while the writer works: with a bound of a few files, the
/// two sat idle by turns and the import took 4.6–5.0 s instead of 4.3 s.
const IN_FLIGHT_ROWS: usize = 300_000;
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

impl ImportSummary {
    /// Adds another import's counts to these.
    pub fn add(&mut self, o: &ImportSummary) {
        self.files += o.files;
        self.files_read += o.files_read;
        self.files_restarted += o.files_restarted;
        self.bytes += o.bytes;
        self.responses += o.responses;
        self.inserted += o.inserted;
        self.malformed += o.malformed;
        self.unpriced += o.unpriced;
    }
}

/// The stored state of one file.
#[derive(Debug, Clone, Default)]
struct FileState {
    file_id: Option<String>,
    head_hash: Option<String>,
    offset: u64,
    malformed: u64,
    generations: u64,
    project: Option<String>,
}

/// One file to read, and from where.
struct Job {
    path: PathBuf,
    key: String,
    /// The first folder under the imported folder: Claude Code's slug of the session's working
    /// directory, the project when the transcript names no usable `cwd`.
    folder: String,
    file_id: String,
    size: u64,
    prior: Option<FileState>,
}

struct Scanned {
    job_index: usize,
    start: u64,
    head_hash: String,
    scan: Result<(UsageScan, Grouped), String>,
    project: String,
}

impl Scanned {
    /// Responses found: what this scan adds to the [`RowGate`].
    fn rows(&self) -> usize {
        self.scan.as_ref().map_or(0, |(scan, _)| scan.records.len())
    }
}

/// One file's records grouped by what the rollup keys on, worked out on the scanning thread so
/// that the writer, the one thread that cannot be parallel, hashes nothing per row.
#[derive(Default)]
struct Grouped {
    /// The file's distinct models, in order of first appearance.
    models: Vec<String>,
    /// The file's distinct (day, session, model index) groups.
    groups: Vec<Group>,
    /// Per record (same order as the scan's): its group, index order and key hash.
    rows: Vec<RowKey>,
}

struct Group {
    day: String,
    session: String,
    model: usize,
}

#[derive(Clone, Copy)]
struct RowKey {
    /// Where the key goes in `usage_key` (see [`tail_order`]).
    tail: u128,
    /// A 128-bit hash of the dedup key (see [`KeyHasher`]).
    hash: u128,
    group: u32,
}

/// `substr(key, -16)`: the key's last 16 characters, as `usage_key` holds it. SQLite's `substr`
/// reads a text only up to its first NUL character, so this does too.
fn key_tail(key: &str) -> &str {
    let key = memchr::memchr(0, key.as_bytes()).map_or(key, |nul| &key[..nul]);
    let b = key.as_bytes();
    match b.len().checked_sub(16) {
        None => key,
        // 16 ASCII bytes are 16 characters: the common case, without walking characters.
        Some(at) if b[at..].is_ascii() => &key[at..],
        Some(_) => key.char_indices().rev().nth(15).map_or(key, |(at, _)| &key[at..]),
    }
}

/// The first 16 bytes of `tail`, big-endian and zero-padded: two tails whose values differ here
/// are ordered as SQLite orders them (bytewise).
fn order_prefix(tail: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    let n = tail.len().min(16);
    b[..n].copy_from_slice(&tail[..n]);
    u128::from_be_bytes(b)
}

/// Where `key` goes in `usage_key`, as far as 16 bytes tell (see [`order_prefix`]). Only the
/// speed of an import depends on it: keys in this order are added by a sweep over the table's
/// pages rather than a descent per key.
fn tail_order(key: &str) -> u128 {
    order_prefix(key_tail(key).as_bytes())
}

/// The `usage_key` rows of the responses the bulk path stored, added in one sorted pass at the end:
/// their tails in one buffer, so that 900,000 of them are a few allocations.
#[derive(Default)]
struct NewKeys {
    tails: Vec<u8>,
    /// (order prefix of the tail, tail's start in `tails`, its length, the row's id)
    rows: Vec<(u128, usize, u8, i64)>,
}

impl NewKeys {
    fn push(&mut self, key: &str, id: i64) {
        let tail = key_tail(key).as_bytes();
        // 16 characters are at most 64 bytes.
        self.rows.push((order_prefix(tail), self.tails.len(), tail.len() as u8, id));
        self.tails.extend_from_slice(tail);
    }

    fn tail(&self, start: usize, len: u8) -> &str {
        // Every tail was pushed whole from a str, so the range is in the buffer and is UTF-8.
        std::str::from_utf8(&self.tails[start..start + usize::from(len)]).unwrap_or_default()
    }

    /// The rows in `usage_key`'s order: (tail, id).
    fn sorted(&mut self) -> impl Iterator<Item = (&str, i64)> {
        let mut rows = std::mem::take(&mut self.rows);
        rows.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| self.tail(a.1, a.2).cmp(self.tail(b.1, b.2)))
                .then(a.3.cmp(&b.3))
        });
        let keys: &NewKeys = self;
        rows.into_iter().map(move |(_, start, len, id)| (keys.tail(start, len), id))
    }
}

/// What the bulk path keeps across its chunks.
struct BulkState {
    /// The keys stored or inserted so far, by [`KeyHasher`] hash.
    seen: SeenKeys,
    /// The last id given to a row.
    last_id: i64,
    keys: NewKeys,
    triggers: SuspendedTriggers,
}

/// Groups `scan`'s records; `fallback_session` stands for a record without a session id.
fn group_records(scan: &UsageScan, fallback_session: &str, hasher: &KeyHasher) -> Grouped {
    let mut out = Grouped::default();
    let mut models: HashMap<&str, usize> = HashMap::new();
    let mut groups: HashMap<(&str, &str, usize), u32> = HashMap::new();
    out.rows.reserve(scan.records.len());
    for r in &scan.records {
        let next_model = models.len();
        let model = *models.entry(r.model.as_str()).or_insert_with(|| {
            out.models.push(r.model.clone());
            next_model
        });
        let day = r.ts.get(..10).unwrap_or(&r.ts);
        let session = if r.session_id.is_empty() {
            fallback_session
        } else {
            r.session_id.as_str()
        };
        let next_group = groups.len() as u32;
        let group = *groups.entry((day, session, model)).or_insert_with(|| {
            out.groups.push(Group {
                day: day.to_string(),
                session: session.to_string(),
                model,
            });
            next_group
        });
        out.rows.push(RowKey {
            tail: tail_order(&r.dedup_key),
            hash: hasher.hash(&r.dedup_key),
            group,
        });
    }
    out
}

/// Every record of the batch as (tail order, file, record index), in the index's order.
fn in_index_order(batch: &[Pending]) -> Vec<(u128, u32, u32)> {
    let mut order: Vec<(u128, u32, u32)> = batch
        .iter()
        .enumerate()
        .flat_map(|(file, p)| p.grouped.rows.iter().enumerate().map(move |(i, k)| (k.tail, file as u32, i as u32)))
        .collect();
    order.sort_unstable();
    order
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
                project: String::new(),
            }
        }
    };
    let fallback_session = job.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let scan = scan_from(&job.path, start, &job.key).map_err(|e| format!("{}: {e}", job.path.display()));
    let project = match &scan {
        Ok(s) => file_project(job, start, s),
        Err(_) => String::new(),
    };
    Scanned {
        job_index: index,
        start,
        head_hash: head,
        scan: scan.map(|scan| {
            let grouped = group_records(&scan, &fallback_session, hasher);
            (scan, grouped)
        }),
        project,
    }
}

/// The project a transcript's responses are stored under. A file read on from where the last
/// import stopped keeps the project it was stored under (its new lines may not name a `cwd`).
fn file_project(job: &Job, start: u64, scan: &UsageScan) -> String {
    if start > 0 {
        if let Some(stored) = job.prior.as_ref().and_then(|p| p.project.clone()) {
            return stored;
        }
    }
    scan.cwd.as_deref().and_then(project_of_cwd).unwrap_or_else(|| job.folder.clone())
}

/// The project of a session that ran in `cwd`, named as the hooks name a repository in the spool:
/// the folder name of the git top level holding `cwd` when that folder exists on this machine, else
/// the name of `cwd` itself. `None` for a relative path or one without a name (the caller falls
/// back to Claude Code's folder slug). So `obs cost --by project` shows a repository once, whether
/// its responses were spooled by hooks or imported from transcripts.
pub fn project_of_cwd(cwd: &str) -> Option<String> {
    let dir = Path::new(cwd);
    if !dir.is_absolute() {
        return None;
    }
    let top = if dir.is_dir() { crate::paths::git_top_level(dir) } else { None };
    let named = top.as_deref().unwrap_or(dir);
    named.file_name().map(|n| n.to_string_lossy().into_owned())
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
                    project: r.get(6)?,
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
    keep_freed_memory();
    // The pages being changed at any time are few (appended rows, keys added in order); a 16 MiB
    // cache holds them (64 and 128 MiB measured no faster on 900,000 responses, and cost memory).
    conn.execute_batch("PRAGMA cache_size = -16384").map_err(sq(db))?;
    let states = load_states(conn, db)?;
    let mut summary = ImportSummary {
        files: files.len() as u64,
        ..ImportSummary::default()
    };
    let mut jobs = Vec::new();
    let mut total_bytes = 0u64;
    for (path, folder) in files {
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
            folder,
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
    // Unbounded: the gate bounds what is waiting, by responses rather than by files.
    let (tx, rx) = mpsc::channel::<Scanned>();
    let gate = RowGate::new();
    let mut resolver = CachedResolver::new(catalog, Some(PROVIDER));
    let now = crate::clock::now_stamp();
    let hasher = KeyHasher::default();
    let result = std::thread::scope(|scope| -> Result<(), CostError> {
        // Closed however this closure ends (an error or a panic included), before the scope
        // waits for the workers: they stop at the gate or at their next send.
        let _close = CloseOnDrop(&gate);
        for _ in 0..workers {
            let tx = tx.clone();
            let (jobs, next, hasher, gate) = (&jobs, &next, &hasher, &gate);
            scope.spawn(move || loop {
                if !gate.wait_for_room() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let scanned = scan_job(job, i, hasher);
                gate.add(scanned.rows());
                if tx.send(scanned).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        write_all(
            conn,
            db,
            &jobs,
            rx,
            &gate,
            &hasher,
            &mut resolver,
            &now,
            &mut summary,
            progress,
            total_bytes,
        )
    });
    if result.is_err() && !conn.is_autocommit() {
        // The bulk path's open transaction, with the insert triggers set aside: rolled back here,
        // not left to whoever uses this connection next.
        let _ = conn.execute_batch("ROLLBACK");
    }
    result?;
    Ok(summary)
}

/// Asks glibc's allocator to keep memory it frees for reuse instead of handing it back to the
/// kernel. An import allocates and frees a few hundred MB of batches over and over; returning it
/// made the kernel unmap and fault in fresh zeroed pages each time (interleaved runs: 2.62–2.66 s
/// against 2.70–2.81 s, system time 1.04 s against 1.17 s). Process-wide, so only for a command
/// that ends with the import; the memory goes back at exit.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's thresholds; it has no memory-safety
    // preconditions, and a refused setting (return 0) leaves the defaults.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

/// One file's scan waiting in a batch.
struct Pending {
    job_index: usize,
    start: u64,
    head_hash: String,
    scan: UsageScan,
    grouped: Grouped,
    project: String,
}

/// Whether to take the bulk path: a large import into a home database holding few rows compared
/// with it. The bulk path writes the import in two transactions (see [`commit_midway`]), in chunks
/// of at least [`BULK_CHUNK_ROWS`] written while the scanning threads go on. It tells new responses
/// from stored and repeated ones itself (a set of key hashes: the stored keys read under its write
/// lock, then every key it inserts), so that it appends many rows per statement, and it sets the
/// insert triggers aside (adding the rollup sums and `usage_key` rows itself). The price is
/// holding the write lock for most of the import (hooks wait, then record a fault), so only when
/// it pays. `TLC_IMPORT_BULK_MIN_BYTES` moves the size threshold (tests force the bulk path with 0).
fn use_bulk_path(new_bytes: u64, stored_rows: u64) -> bool {
    let min = std::env::var("TLC_IMPORT_BULK_MIN_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(BULK_MIN_BYTES);
    // About 1.8 KB of transcript per response in Claude Code's files.
    new_bytes >= min && stored_rows <= new_bytes / 2000
}

/// A 128-bit hash of a dedup key (two independently seeded SipHashes), computed on the scanning
/// threads: what the bulk path's set of seen keys holds instead of the keys.
#[derive(Default)]
struct KeyHasher(std::collections::hash_map::RandomState, std::collections::hash_map::RandomState);

impl KeyHasher {
    fn hash(&self, key: &str) -> u128 {
        (u128::from(self.0.hash_one(key)) << 64) | u128::from(self.1.hash_one(key))
    }
}

/// Closes a [`RowGate`] when dropped.
struct CloseOnDrop<'g>(&'g RowGate);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The keys the bulk path knows are stored, by their [`KeyHasher`] hash (uniform already, so the
/// set hashes them cheaply).
type SeenKeys = HashSet<u128, BuildHasherDefault<Fx>>;

/// How many scanned responses are waiting to be written; scanning threads wait at
/// [`IN_FLIGHT_ROWS`], and stop once the writer has closed the gate.
struct RowGate {
    state: Mutex<GateState>,
    freed: Condvar,
}

#[derive(Default)]
struct GateState {
    rows: usize,
    closed: bool,
}

impl RowGate {
    fn new() -> RowGate {
        RowGate {
            state: Mutex::new(GateState::default()),
            freed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until fewer than [`IN_FLIGHT_ROWS`] are waiting; false once the gate is closed.
    fn wait_for_room(&self) -> bool {
        let mut state = self.lock();
        while state.rows >= IN_FLIGHT_ROWS && !state.closed {
            state = self.freed.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        !state.closed
    }

    fn add(&self, n: usize) {
        self.lock().rows += n;
    }

    fn release(&self, n: usize) {
        let mut state = self.lock();
        state.rows = state.rows.saturating_sub(n);
        self.freed.notify_all();
    }

    /// The writer is done, or failed: no thread waits for room any more.
    fn close(&self) {
        self.lock().closed = true;
        self.freed.notify_all();
    }
}

#[allow(clippy::too_many_arguments)]
fn write_all(
    conn: &Connection,
    db: &Path,
    jobs: &[Job],
    rx: mpsc::Receiver<Scanned>,
    gate: &RowGate,
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
    let bulk = use_bulk_path(total_bytes, stored.max(0) as u64);
    let mut bulk_state = None;
    if bulk {
        let seen = SeenKeys::with_capacity_and_hasher(stored.max(0) as usize + (total_bytes / 1500) as usize, Default::default());
        bulk_state = Some(begin_bulk(conn, db, hasher, seen, i64::MIN)?);
    }
    // The bulk path commits once when about this much has been read, and a second connection
    // checkpoints that first transaction while the rest is scanned and written, so that the
    // import's last step copies only the rest into the database (see [`commit_midway`]).
    let midway = total_bytes / 5 * 3;
    let mut checkpointer: Option<std::thread::JoinHandle<()>> = None;
    // On the bulk path a chunk is everything scanned so far, once it is at least `chunk` responses;
    // `TLC_IMPORT_BULK_CHUNK_ROWS` lets tests write the chunks small.
    let chunk = std::env::var("TLC_IMPORT_BULK_CHUNK_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(BULK_CHUNK_ROWS)
        // A chunk waits for responses the gate would never let in past IN_FLIGHT_ROWS.
        .clamp(1, IN_FLIGHT_ROWS);
    let mut done_bytes = 0u64;
    let mut writer = UsageWriter::new(conn).map_err(sq(db))?;
    let mut batch: Vec<Pending> = Vec::new();
    let mut batch_rows = 0usize;
    let mut batch_started = Instant::now();
    // Files already written are freed on a thread of their own: four strings a response, a tenth
    // of this thread's time, and this thread is the one the import waits for.
    let (freed, to_free) = mpsc::channel::<Vec<Pending>>();
    let freer = std::thread::spawn(move || to_free.into_iter().for_each(drop));
    let mut open = true;
    while open {
        let mut next = rx.recv().ok();
        open = next.is_some();
        while let Some(scanned) = next.take() {
            let (scan, grouped) = scanned.scan.map_err(CostError::Unusable)?;
            batch_rows += scan.records.len();
            done_bytes += jobs[scanned.job_index].size.saturating_sub(scanned.start);
            batch.push(Pending {
                job_index: scanned.job_index,
                start: scanned.start,
                head_hash: scanned.head_hash,
                scan,
                grouped,
                project: scanned.project,
            });
            progress(done_bytes, total_bytes);
            if bulk {
                match rx.try_recv() {
                    Ok(more) => next = Some(more),
                    Err(mpsc::TryRecvError::Empty) => {}
                    Err(mpsc::TryRecvError::Disconnected) => open = false,
                }
            }
        }
        let due = if bulk {
            batch_rows >= chunk
        } else {
            batch_rows >= BATCH_ROWS || batch_started.elapsed() >= BATCH_TIME
        };
        if (due || !open) && !batch.is_empty() {
            write_batch(conn, db, jobs, &batch, &mut writer, resolver, bulk_state.as_mut(), now, summary)?;
            let _ = freed.send(std::mem::take(&mut batch));
            gate.release(batch_rows);
            batch_rows = 0;
            batch_started = Instant::now();
            if open && checkpointer.is_none() && done_bytes >= midway {
                if let Some(state) = bulk_state.take() {
                    let (next, started) = commit_midway(conn, db, &mut writer, hasher, state)?;
                    bulk_state = Some(next);
                    checkpointer = Some(started);
                }
            }
        }
    }
    drop(freed);
    let _ = freer.join();
    if let Some(state) = bulk_state {
        end_bulk(conn, db, &mut writer, state)?;
        if let Some(done) = checkpointer {
            // Before the commit, whose own checkpoint then finds the first transaction copied
            // already (and is not skipped for a checkpoint in progress).
            let _ = done.join();
        }
        conn.execute_batch("COMMIT").map_err(sq(db))?;
    }
    progress(total_bytes, total_bytes);
    Ok(())
}

/// Starts a bulk transaction: takes the write lock, adds the keys of rows stored after `after_id`
/// to `seen`, and sets the insert triggers aside.
fn begin_bulk(conn: &Connection, db: &Path, hasher: &KeyHasher, mut seen: SeenKeys, after_id: i64) -> Result<BulkState, CostError> {
    // An error from here to the commit leaves the transaction to roll back when the connection
    // closes, the set-aside triggers with it.
    conn.execute_batch("BEGIN IMMEDIATE").map_err(sq(db))?;
    {
        let mut st = conn.prepare_cached(q::USAGE_KEYS).map_err(sq(db))?;
        let mut rows = st.query([after_id]).map_err(sq(db))?;
        while let Some(r) = rows.next().map_err(sq(db))? {
            seen.insert(hasher.hash(r.get_ref(0).map_err(sq(db))?.as_str().unwrap_or("")));
        }
    }
    let last_id: i64 = conn
        .prepare_cached(q::USAGE_MAX_ID)
        .and_then(|mut s| s.query_row([], |r| r.get(0)))
        .map_err(sq(db))?;
    Ok(BulkState {
        seen,
        last_id,
        keys: NewKeys::default(),
        triggers: SuspendedTriggers::suspend(conn).map_err(sq(db))?,
    })
}

/// Ends a bulk transaction short of its commit: adds the `usage_key` rows of the rows it stored,
/// in one sorted pass, and restores the triggers. Returns what the next transaction starts from
/// (the keys seen, the last id).
fn end_bulk(conn: &Connection, db: &Path, writer: &mut UsageWriter<'_>, mut state: BulkState) -> Result<(SeenKeys, i64), CostError> {
    let expected = state.keys.rows.len() as u64;
    let added = writer.insert_keys(state.keys.sorted()).map_err(sq(db))?;
    if added != expected {
        return Err(CostError::Unusable(format!(
            "{}: stored {added} of {expected} response keys; this transaction of the import was rolled back",
            db.display()
        )));
    }
    state.triggers.restore(conn).map_err(sq(db))?;
    Ok((state.seen, state.last_id))
}

/// Commits the bulk path's first transaction without checkpointing it here, starts a thread that
/// checkpoints it on a connection of its own while this one goes on, and begins the second
/// transaction. Copying the WAL into the database file (and the two fsyncs around it) was a
/// fifth of an import of 900,000 responses, all of it after the scan; this way about three
/// fifths of it overlap the scan. The cost is a second commit: between the two, hooks may
/// write, so the second transaction reads the keys they stored and numbers its rows on from
/// theirs; an error in the second leaves the first committed, which is consistent (each file's
/// read offset is committed with its rows).
fn commit_midway(
    conn: &Connection,
    db: &Path,
    writer: &mut UsageWriter<'_>,
    hasher: &KeyHasher,
    state: BulkState,
) -> Result<(BulkState, std::thread::JoinHandle<()>), CostError> {
    let (seen, last_id) = end_bulk(conn, db, writer, state)?;
    let autocheckpoint: i64 = conn.pragma_query_value(None, "wal_autocheckpoint", |r| r.get(0)).map_err(sq(db))?;
    conn.pragma_update(None, "wal_autocheckpoint", 0).map_err(sq(db))?;
    conn.execute_batch("COMMIT").map_err(sq(db))?;
    conn.pragma_update(None, "wal_autocheckpoint", autocheckpoint).map_err(sq(db))?;
    let path = db.to_path_buf();
    let checkpointer = std::thread::spawn(move || {
        // A checkpoint that fails or is skipped here costs nothing but time: the final
        // commit's checkpoint copies whatever is left.
        // The one place a command holds two connections to one database at once.
        if let Ok(second) = crate::store::open_write(crate::store::DbKind::Home, &path) {
            let _ = second.checkpoint_passive();
        }
    });
    let next = begin_bulk(conn, db, hasher, seen, last_id)?;
    Ok((next, checkpointer))
}

/// Writes one batch of files: their responses, their rollup sums and their file states: on the
/// bulk path (`bulk` given) inside the transaction [`write_all`] holds, else in a transaction of
/// its own.
///
/// The bulk path appends its rows in file order under ids it numbers itself, and keeps their keys
/// for `usage_key`, added in one sorted pass at the end. The other path inserts in `usage_key`'s
/// order (see [`tail_order`]), so that the key trigger adds each batch by a sweep over the table's
/// pages rather than a random descent per row.
#[allow(clippy::too_many_arguments)]
fn write_batch(
    conn: &Connection,
    db: &Path,
    jobs: &[Job],
    batch: &[Pending],
    writer: &mut UsageWriter<'_>,
    resolver: &mut CachedResolver<'_>,
    bulk: Option<&mut BulkState>,
    now: &str,
    summary: &mut ImportSummary,
) -> Result<(), CostError> {
    let in_bulk = bulk.is_some();
    if !in_bulk {
        conn.execute_batch("BEGIN IMMEDIATE").map_err(sq(db))?;
    }
    for p in batch {
        for model in &p.grouped.models {
            resolver.resolve(model)?;
        }
    }
    let prices: Vec<Vec<Option<&ResolvedPrice>>> = batch
        .iter()
        .map(|p| p.grouped.models.iter().map(|m| resolver.resolved(m)).collect())
        .collect();
    let row_at = |file: usize, i: usize| {
        let p = &batch[file];
        let r = &p.scan.records[i];
        let g = &p.grouped.groups[p.grouped.rows[i].group as usize];
        let price = prices[file][g.model];
        UsageRow {
            dedup_key: &r.dedup_key,
            source: SOURCE,
            project: &p.project,
            repo_path: None,
            session_id: &g.session,
            provider: Some(PROVIDER),
            ts: &r.ts,
            model: &p.grouped.models[g.model],
            usage: r.usage,
            cost_usd: price.map(|p| priced_cost(p.rates(), &r.usage)),
            cost_source: price.map(|p| p.source()),
            cost_pool: price.and_then(|p| p.entry.pool.as_deref()),
        }
    };
    let mut sums: Vec<Vec<Sums>> = batch.iter().map(|p| vec![Sums::default(); p.grouped.groups.len()]).collect();
    let mut inserted = vec![0u64; batch.len()];
    let mut count = |file: usize, i: usize, row: &UsageRow<'_>| {
        sums[file][batch[file].grouped.rows[i].group as usize].count(&row.usage, row.cost_usd);
        inserted[file] += 1;
        summary.unpriced += u64::from(row.cost_usd.is_none());
    };
    if let Some(bulk) = bulk {
        let BulkState { seen, last_id, keys, .. } = bulk;
        let new: Vec<(usize, usize)> = batch
            .iter()
            .enumerate()
            .flat_map(|(file, p)| p.grouped.rows.iter().enumerate().map(move |(i, k)| (file, i, k.hash)))
            .filter(|&(_, _, hash)| seen.insert(hash))
            .map(|(file, i, _)| (file, i))
            .collect();
        let mut rows = 0u64;
        let stored = writer
            .insert_new(new.iter().map(|&(file, i)| {
                let row = row_at(file, i);
                count(file, i, &row);
                *last_id += 1;
                keys.push(row.dedup_key, *last_id);
                rows += 1;
                (*last_id, row)
            }))
            .map_err(sq(db))?;
        if stored != rows {
            return Err(CostError::Unusable(format!(
                "{}: stored {stored} of {rows} new responses; this transaction of the import was rolled back",
                db.display()
            )));
        }
    } else {
        for &(_, file, i) in &in_index_order(batch) {
            let (file, i) = (file as usize, i as usize);
            let row = row_at(file, i);
            if writer.insert_unsummed(&row).map_err(sq(db))? {
                count(file, i, &row);
            }
        }
    }
    for (p, sums) in batch.iter().zip(&sums) {
        for (g, s) in p.grouped.groups.iter().zip(sums) {
            writer.add(&g.day, &p.project, &g.session, &p.grouped.models[g.model], s);
        }
    }
    let mut upsert = conn.prepare_cached(q::TRANSCRIPT_FILE_UPSERT).map_err(sq(db))?;
    for (p, &inserted) in batch.iter().zip(&inserted) {
        let job = &jobs[p.job_index];
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
        upsert
            .execute(params![
                job.key,
                p.project,
                job.file_id,
                p.head_hash,
                (p.start + p.scan.consumed) as i64,
                (base.malformed + p.scan.malformed) as i64,
                (base.generations + inserted) as i64,
                now
            ])
            .map_err(sq(db))?;
    }
    writer.flush().map_err(sq(db))?;
    if !in_bulk {
        conn.execute_batch("COMMIT").map_err(sq(db))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_tails_are_sqlites_and_new_keys_sort_as_usage_key_does() {
        let keys = [
            "msg_01b6d1e29b6f68bbff53af00:req_011c2ce67ed4d57b1e2feb89",
            "msg_01b6d1e29b6f68bbff53af00:req_2",
            "msg_01b6d1e29b6f68bbff53af00:req_10",
            "req_10",
            "",
            "a",
            "Z",
            "/t/a.jsonl@120",
            "/t/b.jsonl@120",
            "msg_01b6d1e29b6f\u{0}x",
            "msg_01b6d1e29b6f68bbff53af00:req_0\u{0}11c2ce67ed4d57b1e2feb89",
            "\u{0}",
            "/home/é/sessiön-ü.jsonl@9",
            "/x/ééééééééééééééééé",
            "/y/ééééééééééééééééé",
            "8f2c5d3b9a1e4f60b7c2d9e8a1f3b5c7d9e0f1a2b3c4d5e6f708192a3b4c5d6e",
        ];
        let conn = crate::store::in_memory(crate::store::DbKind::Home).unwrap();
        conn.execute_batch("CREATE TABLE k (key TEXT, id INTEGER);").unwrap();
        let mut new = NewKeys::default();
        for (id, k) in keys.iter().enumerate().rev() {
            conn.execute("INSERT INTO k VALUES (?1, ?2)", rusqlite::params![k, id as i64])
                .unwrap();
            let tail: String = conn.query_row("SELECT substr(?1, -16)", [k], |r| r.get(0)).unwrap();
            assert_eq!(key_tail(k), tail, "{k}");
            new.push(k, id as i64);
        }
        let mut st = conn.prepare("SELECT substr(key, -16), id FROM k ORDER BY 1, 2").unwrap();
        let by_sqlite: Vec<(String, i64)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let ours: Vec<(String, i64)> = new.sorted().map(|(t, id)| (t.to_string(), id)).collect();
        assert_eq!(ours, by_sqlite);
    }

    #[test]
    fn the_second_bulk_transaction_counts_what_hooks_stored_after_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.db");
        let store = crate::store::open_write(crate::store::DbKind::Home, &db).unwrap();
        let conn = store.conn();
        let hasher = KeyHasher::default();
        let mut writer = UsageWriter::new(conn).unwrap();
        let row = |key| UsageRow::for_test(key, "2026-11-20T01:00:00.000Z");
        let mut state = begin_bulk(conn, &db, &hasher, SeenKeys::default(), i64::MIN).unwrap();
        assert_eq!(state.last_id, 0);
        for key in ["msg_a:req_a", "msg_b:req_b"] {
            assert!(state.seen.insert(hasher.hash(key)));
            state.last_id += 1;
            state.keys.push(key, state.last_id);
            writer.insert_new([(state.last_id, row(key))]).unwrap();
        }
        let (next, checkpointer) = commit_midway(conn, &db, &mut writer, &hasher, state).unwrap();
        checkpointer.join().unwrap();
        // The first transaction is committed, its keys in `usage_key`, its triggers restored.
        let other_store = crate::store::open_write(crate::store::DbKind::Home, &db).unwrap();
        let other = other_store.conn();
        let keys: i64 = other.query_row("SELECT count(*) FROM usage_key", [], |r| r.get(0)).unwrap();
        assert_eq!(keys, 2);
        // The second began under the write lock, so a hook's row has to wait for it; its keys and
        // ids are those of the first.
        assert!(next.seen.contains(&hasher.hash("msg_b:req_b")));
        assert_eq!(next.last_id, 2);
        end_bulk(conn, &db, &mut writer, next).unwrap();
        conn.execute_batch("COMMIT").unwrap();
        // A hook stores a response between two bulk transactions: the next one knows its key and
        // numbers its own rows after it.
        let hook_row = include_str!("../../queries/home/cost/usage_insert.sql");
        other
            .execute(
                hook_row,
                rusqlite::params![
                    "msg_h:req_h",
                    "spool",
                    "p",
                    "/r",
                    "s",
                    "claude",
                    "2026-11-20T02:00:00.000Z",
                    "m",
                    1,
                    2,
                    3,
                    4,
                    0.1,
                    "x",
                    None::<String>
                ],
            )
            .unwrap();
        let again = begin_bulk(conn, &db, &hasher, SeenKeys::default(), 2).unwrap();
        assert!(again.seen.contains(&hasher.hash("msg_h:req_h")));
        assert!(!again.seen.contains(&hasher.hash("msg_a:req_a")));
        assert_eq!(again.last_id, 3);
        drop(again);
        conn.execute_batch("ROLLBACK").unwrap();
        let integrity: String = other.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(integrity, "ok");
        let rows: i64 = other.query_row("SELECT count(*) FROM usage_key", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 3);
    }

    #[test]
    fn the_bulk_path_is_for_large_imports_into_a_small_table() {
        assert!(use_bulk_path(2_000_000_000, 0));
        assert!(use_bulk_path(2_000_000_000, 900_000));
        assert!(!use_bulk_path(2_000_000_000, 2_000_000));
        assert!(!use_bulk_path(10_000_000, 0));
    }
}
