//! `tlc obs import transcripts`: every Claude Code transcript under a `projects/` folder into the
//! home database's `usage` table, tagged with its project (see [`project_of_cwd`]).
//!
//! Idempotent twice over: `transcript_files` keeps how far each file was read, so a re-import
//! reads only new bytes; and every response carries its dedup key, stored once (the insert looks
//! it up in `usage_key`, see `usage_insert.sql`; the bulk path checks the keys it read), so a file
//! that shrank or was replaced (another inode, or its first bytes changed) is read again from the
//! top without counting anything twice.
//!
//! The parts, in the order an import runs them:
//!
//! - [`files`]: which files there are, how far each was read, where to read on from;
//! - [`scan`]: the scanning threads, which read, scan and group files, bounded by a gate;
//! - [`write`]: the writer (this thread), which prices and stores batches of files through
//! - [`rows`], the row path (batches committed one by one, so hooks writing to the same database
//!   never wait long), or [`bulk`], the bulk path (a large import into a small table: two long
//!   transactions with the triggers set aside);
//! - [`count`], the thread that counts the bulk path's rollup sums and frees what was written.
//!
//! One [`Import`] value carries what they share; [`Options`] are what the command chooses.

mod batch;
mod bulk;
mod count;
mod files;
mod rows;
mod scan;
mod write;

pub(crate) use files::find_transcripts;

use super::catalog::{CachedResolver, CostError, PriceCatalog};
use rusqlite::Connection;
use scan::{CloseOnDrop, KeyHasher, RowGate, Scanned, Workers};
use std::path::Path;
use std::sync::atomic::AtomicUsize;
use std::sync::mpsc;

/// The provider whose transcripts these are, and whose price plane is asked first.
pub(crate) const PROVIDER: &str = "claude";
/// `usage.source` of imported rows.
pub(crate) const SOURCE: &str = super::usage::ROLLED_UP_BY_WRITER;

/// How an import runs. Speed only: the rows stored are the same whatever the options.
#[derive(Debug, Clone)]
pub struct Options {
    /// Imports of at least this many new bytes, into a `usage` table that holds few rows compared
    /// with what they bring, take the bulk path (see `bulk`). Default 128 MiB.
    pub bulk_min_bytes: u64,
    /// The bulk path writes a chunk whenever at least this many responses are waiting once it has
    /// taken everything the scanning threads have sent: the first chunk goes in early, later ones
    /// grow to what was scanned while the one before was written. Default 25,000.
    pub bulk_chunk_rows: usize,
    /// Ask the allocator to keep the memory the import frees (see [`crate::sys::keep_freed_memory`]).
    /// An import allocates and frees a few hundred MB of batches over and over; returning it made
    /// the kernel unmap and fault in fresh zeroed pages each time (interleaved runs: 2.62–2.66 s
    /// against 2.70–2.81 s, system time 1.04 s against 1.17 s). Process-wide and for the rest of
    /// the process, so only for a command that ends with the import. Default off.
    pub keep_freed_memory: bool,
    /// Read every file from the top, even those read to their end (`--rescan`): a response
    /// already stored gets the 1-hour part of its cache writes, and its cost priced again with it
    /// and today's catalog, when either differs (rows stored before the split was kept, or priced
    /// from an older catalog); new ones are stored as usual. Takes the row path; the rollups are rebuilt from `usage` at the end. Default off.
    pub rescan: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            bulk_min_bytes: 128 << 20,
            bulk_chunk_rows: 25_000,
            keep_freed_memory: false,
            rescan: false,
        }
    }
}

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
    /// Stored responses given their 1-hour cache writes by a `--rescan`.
    pub refilled: u64,
    /// Responses stored with a token count refused (outside `0..2^53`), that count as 0.
    pub rejected: u64,
    /// `*.jsonl` entries not read because they are not regular files (a FIFO, a device, a
    /// socket, a folder, a symbolic link) or could not be opened.
    pub skipped: u64,
    /// Each skipped entry: its path and why.
    pub skipped_files: Vec<String>,
}

impl ImportSummary {
    /// Adds another import's counts to these.
    pub(crate) fn add(&mut self, o: &ImportSummary) {
        self.files += o.files;
        self.files_read += o.files_read;
        self.files_restarted += o.files_restarted;
        self.bytes += o.bytes;
        self.responses += o.responses;
        self.inserted += o.inserted;
        self.malformed += o.malformed;
        self.unpriced += o.unpriced;
        self.refilled += o.refilled;
        self.skipped += o.skipped;
        self.rejected += o.rejected;
        self.skipped_files.extend(o.skipped_files.iter().cloned());
    }
}

/// Imports into one home database, pricing each new response with `catalog` as the `claude`
/// provider.
pub struct Import<'a> {
    conn: &'a mut Connection,
    db: &'a Path,
    catalog: &'a PriceCatalog<'a>,
    options: Options,
}

/// What an import of `dir` would read now: the files with bytes not yet imported and those bytes.
/// Reads the stored offsets and the files' sizes only (the check `obs cost` makes, ~0.03 s for
/// thousands of files), so it works on a read-only connection; `conn` `None` is a home without a
/// database, where every transcript is new.
pub(crate) fn pending(conn: Option<&Connection>, db: &Path, dir: &Path) -> Result<(u64, u64), CostError> {
    let jobs = match conn {
        Some(conn) => files::jobs(conn, db, dir, false)?
            .jobs
            .iter()
            .map(files::Job::new_bytes)
            .collect::<Vec<_>>(),
        None => find_transcripts(dir)?
            .iter()
            .filter_map(|(p, _)| std::fs::symlink_metadata(p).ok().filter(std::fs::Metadata::is_file))
            .map(|m| m.len())
            .collect(),
    };
    Ok((jobs.len() as u64, jobs.iter().sum()))
}

impl<'a> Import<'a> {
    /// An import into the home database `conn` (at `db`).
    pub fn new(conn: &'a mut Connection, db: &'a Path, catalog: &'a PriceCatalog<'a>, options: Options) -> Import<'a> {
        Import {
            conn,
            db,
            catalog,
            options,
        }
    }

    /// Imports every transcript under `dir`; `progress(bytes_done, bytes_total)`.
    pub fn run(&mut self, dir: &Path, progress: &mut dyn FnMut(u64, u64)) -> Result<ImportSummary, CostError> {
        let (conn, db) = (&*self.conn, self.db);
        let files::Found { found, jobs, skipped } = files::jobs(conn, db, dir, self.options.rescan)?;
        if self.options.keep_freed_memory {
            crate::sys::keep_freed_memory();
        }
        // The pages being changed at any time are few (appended rows, keys added in order); a
        // 16 MiB cache holds them (64 and 128 MiB measured no faster on 900,000 responses, and
        // cost memory).
        conn.execute_batch("PRAGMA cache_size = -16384").map_err(sq(db))?;
        // The rollup upserts add many groups per statement, and an upsert's DO UPDATE can abort
        // (OR ROLLBACK does not reach it), so SQLite keeps a statement journal of each page they
        // change; past 64 KiB it spilled to a temporary file: 86 MB in 42,000 writes on 900,000
        // responses. In memory it is a copy of the few pages each statement touches.
        conn.execute_batch("PRAGMA temp_store = MEMORY").map_err(sq(db))?;
        let total_bytes: u64 = jobs.iter().map(files::Job::new_bytes).sum();
        progress(0, total_bytes);
        let summary = ImportSummary {
            files: found,
            skipped: skipped.len() as u64,
            skipped_files: skipped,
            ..ImportSummary::default()
        };
        if jobs.is_empty() {
            return Ok(summary);
        }
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4);
        // Unbounded: the gate bounds what is waiting, by responses rather than by files.
        let (tx, rx) = mpsc::channel::<Scanned>();
        let gate = RowGate::new();
        let hasher = KeyHasher::default();
        let workers = Workers {
            jobs: &jobs,
            next: AtomicUsize::new(0),
            hasher: &hasher,
            gate: &gate,
        };
        let mut writer = write::Writer {
            conn,
            db,
            jobs: &jobs,
            hasher: &hasher,
            options: &self.options,
            resolver: CachedResolver::new(self.catalog, Some(PROVIDER)),
            now: crate::clock::now_stamp(),
            summary,
        };
        let result = std::thread::scope(|scope| -> Result<(), CostError> {
            // Closed however this closure ends (an error or a panic included), before the scope
            // waits for the workers: they stop at the gate or at their next send.
            let _close = CloseOnDrop(&gate);
            for _ in 0..threads {
                let (tx, workers) = (tx.clone(), &workers);
                scope.spawn(move || workers.run(tx));
            }
            drop(tx);
            writer.write_all(rx, &gate, progress, total_bytes)
        });
        if result.is_err() && !conn.is_autocommit() {
            // The bulk path's open transaction, with the insert triggers set aside: rolled back
            // here, not left to whoever uses this connection next.
            let _ = conn.execute_batch("ROLLBACK");
        }
        result?;
        if self.options.rescan && writer.summary.refilled > 0 {
            // Refilled rows changed their costs in place: the rollups are summed again.
            conn.execute_batch("BEGIN IMMEDIATE").map_err(sq(db))?;
            let rebuilt = crate::cost::usage::rebuild_rollup(conn).and_then(|()| conn.execute_batch("COMMIT"));
            if let Err(e) = rebuilt {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(sq(db)(e));
            }
        }
        Ok(writer.summary)
    }
}

fn sq(path: &Path) -> impl Fn(rusqlite::Error) -> CostError + '_ {
    move |e| CostError::Sqlite {
        path: path.to_path_buf(),
        source: e,
    }
}
