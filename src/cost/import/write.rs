//! The writer: the one thread that prices and stores what the scanning threads send, in batches
//! (one file is never split over two), through the row path or the bulk path, and records each
//! file's new offset with its rows.

use super::batch::{BatchRows, Pending, Stored};
use super::bulk::{self, BulkState, SeenKeys};
use super::count::{self, ToCounter};
use super::files::{FileRow, FileState, Job, TranscriptFiles};
use super::scan::{KeyHasher, RowGate, Scanned, IN_FLIGHT_ROWS};
use super::{rows, sq, CostError, ImportSummary, Options};
use crate::cost::catalog::CachedResolver;
use crate::cost::usage::{Tally, UsageWriter};
use rusqlite::Connection;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// On the row path, commit after this many rows or this much time, at a file boundary, so that
/// hooks writing to the same database are never kept waiting long.
const BATCH_ROWS: usize = 100_000;
const BATCH_TIME: Duration = Duration::from_millis(1000);

/// The writer's state for one import.
pub(super) struct Writer<'w> {
    pub conn: &'w Connection,
    pub db: &'w Path,
    pub jobs: &'w [Job],
    pub hasher: &'w KeyHasher,
    pub options: &'w Options,
    pub resolver: CachedResolver<'w>,
    /// `imported_at` of the files written.
    pub now: String,
    pub summary: ImportSummary,
}

impl Writer<'_> {
    /// Writes everything the scanning threads send until they are done; `progress(done, total)`.
    pub(crate) fn write_all(
        &mut self,
        rx: mpsc::Receiver<Scanned>,
        gate: &RowGate,
        progress: &mut dyn FnMut(u64, u64),
        total_bytes: u64,
    ) -> Result<(), CostError> {
        let (conn, db) = (self.conn, self.db);
        let mut usage = UsageWriter::new(conn).map_err(sq(db))?;
        let stored = usage.stored_count().map_err(sq(db))?;
        let bulk = !self.options.rescan && bulk::use_bulk_path(total_bytes, stored, self.options.bulk_min_bytes);
        let mut bulk_state = None;
        if bulk {
            let seen = SeenKeys::with_capacity_and_hasher(stored as usize + (total_bytes / 1500) as usize, Default::default());
            bulk_state = Some(bulk::begin(conn, db, &usage, self.hasher, seen, i64::MIN)?);
        }
        // The bulk path commits once when about this much has been read, and a second connection
        // checkpoints that first transaction while the rest is scanned and written, so that the
        // import's last step copies only the rest into the database (see `bulk::commit_midway`).
        let midway = total_bytes / 5 * 3;
        let mut checkpointer: Option<std::thread::JoinHandle<()>> = None;
        // On the bulk path a chunk is everything scanned so far, once it is at least `chunk`
        // responses; a chunk waits for responses the gate would never let in past IN_FLIGHT_ROWS.
        let chunk = self.options.bulk_chunk_rows.clamp(1, IN_FLIGHT_ROWS);
        let mut done_bytes = 0u64;
        let mut batch: Vec<Pending> = Vec::new();
        let mut batch_rows = 0usize;
        let mut batch_started = Instant::now();
        // Files written go to the counting thread, which counts the bulk path's sums and frees
        // them: four strings a response, a tenth of this thread's time.
        let (to_counter, from_writer) = mpsc::channel::<ToCounter>();
        let counter = std::thread::spawn(move || count::run(from_writer));
        let mut open = true;
        while open {
            let mut next = rx.recv().ok();
            open = next.is_some();
            while let Some(scanned) = next.take() {
                let (scan, grouped) = scanned.scan?;
                batch_rows += scan.records.len();
                done_bytes += self.jobs[scanned.job_index].size.saturating_sub(scanned.start);
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
                let stored = self.write_batch(&mut usage, &batch, bulk_state.as_mut())?;
                let batch = std::mem::take(&mut batch);
                let _ = to_counter.send(match stored {
                    Some((stored, costs)) => ToCounter::Stored { batch, stored, costs },
                    None => ToCounter::Written(batch),
                });
                gate.release(batch_rows);
                batch_rows = 0;
                batch_started = Instant::now();
                if open && checkpointer.is_none() && done_bytes >= midway {
                    if let Some(state) = bulk_state.take() {
                        let sums = count::take(&to_counter).ok_or_else(counter_stopped)?;
                        let (next, started) = bulk::commit_midway(conn, db, &mut usage, self.hasher, state, sums)?;
                        bulk_state = Some(next);
                        checkpointer = Some(started);
                    }
                }
            }
        }
        let sums = bulk_state.as_ref().map(|_| count::take(&to_counter));
        drop(to_counter);
        let _ = counter.join();
        if let Some(state) = bulk_state {
            let sums = sums.flatten().ok_or_else(counter_stopped)?;
            bulk::end(conn, db, &mut usage, state, sums)?;
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

    /// Writes one batch of files: their responses, their rollup sums and their file states: on
    /// the bulk path (`bulk` given) inside the transaction [`Writer::write_all`] holds, else in a
    /// transaction of its own. On the bulk path, returns the responses stored, as (file, record),
    /// and their costs, for the counting thread.
    fn write_batch(
        &mut self,
        usage: &mut UsageWriter<'_>,
        batch: &[Pending],
        bulk: Option<&mut BulkState>,
    ) -> Result<Option<Stored>, CostError> {
        let (conn, db) = (self.conn, self.db);
        let in_bulk = bulk.is_some();
        if !in_bulk {
            conn.execute_batch("BEGIN IMMEDIATE").map_err(sq(db))?;
        }
        for p in batch {
            for model in &p.grouped.models {
                self.resolver.resolve(model)?;
            }
        }
        let mut rows = BatchRows::new(batch, &self.resolver, self.options.rescan);
        let stored = match bulk {
            Some(state) => bulk::insert(db, usage, &mut rows, state)?,
            None => rows::insert(db, usage, &mut rows)?,
        };
        rows.count_stored(&stored);
        let summary = &mut self.summary;
        summary.unpriced += rows.unpriced;
        summary.refilled += rows.refilled;
        let files = TranscriptFiles::new(conn);
        for (p, &inserted) in batch.iter().zip(&rows.inserted) {
            let job = &self.jobs[p.job_index];
            let restarted = !job.rescan && job.prior.is_some() && p.start == 0;
            summary.files_read += 1;
            summary.files_restarted += u64::from(restarted);
            summary.bytes += p.scan.consumed;
            summary.responses += p.scan.records.len() as u64;
            summary.malformed += p.scan.malformed;
            summary.rejected += p.scan.rejected;
            summary.inserted += inserted;
            let base = if restarted {
                FileState::default()
            } else {
                job.prior.clone().unwrap_or_default()
            };
            files
                .record(&FileRow {
                    path: &job.key,
                    project: &p.project,
                    file_id: &job.file_id,
                    head_hash: &p.head_hash,
                    offset: p.start + p.scan.consumed,
                    malformed: base.malformed + p.scan.malformed,
                    generations: base.generations + inserted,
                    imported_at: &self.now,
                })
                .map_err(sq(db))?;
        }
        // The bulk path adds the rollup sums once per transaction, in [`bulk::end`], counted on the
        // counting thread: per chunk, the same hours came back chunk after chunk (an upsert each
        // time). The row path counts its batch here and adds the sums in the batch's transaction.
        if in_bulk {
            return Ok(Some(stored));
        }
        let mut sums = Tally::default();
        count::count(&mut sums, batch, &stored.0, &stored.1);
        usage.flush_tally(sums).map_err(sq(db))?;
        conn.execute_batch("COMMIT").map_err(sq(db))?;
        Ok(None)
    }
}

fn counter_stopped() -> CostError {
    CostError::Unusable("the import's counting thread stopped; the import was rolled back".to_string())
}
