//! The scanning workers: each takes the next file, reads its new bytes, finds the responses in
//! them and groups them for the writer (see [`Grouped`]), then waits at the [`RowGate`] while the
//! writer is behind.

use super::files::{file_project, read_tail, start_offset, Job, ReadError};
use crate::cost::transcript::{scan_usage, UsageScan};
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex, PoisonError};

/// Scanning threads wait while this many responses are scanned but not yet written. This bounds
/// the import's memory (a whole 1.65 GB set held 425 MB in one batch; imports of it now peak at
/// 210–260 MB), yet lets the scan go on while the writer works: with a bound of a few files, the
/// two sat idle by turns and the import took 4.6–5.0 s instead of 4.3 s.
pub(super) const IN_FLIGHT_ROWS: usize = 300_000;

/// How many nice steps below the writer the scanning threads run. The writer is the import's one
/// thread that cannot go faster by sharing its work; at the same priority the scanning threads took
/// a share of its processor whenever there were more runnable threads than processors (two
/// scanners and the writer on a 2-core machine). Five steps lower, the scanners, which only need to
/// stay ahead of it, take more of their time from what it leaves (900,000 responses on 2 cores, five
/// interleaved runs each: median 3.24 s against 3.84 s at the same priority; 3.26 s ten steps
/// lower). A machine busy with other work gives them less than before.
const SCANNING_NICE_STEPS: i32 = 5;

/// One file's scan, sent to the writer.
pub(super) struct Scanned {
    pub job_index: usize,
    pub start: u64,
    pub head_hash: String,
    pub scan: Result<(UsageScan, Grouped), ReadError>,
    pub project: String,
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
pub(super) struct Grouped {
    /// The file's distinct models, in order of first appearance.
    pub models: Vec<String>,
    /// The file's distinct (UTC day, session, model index) groups: `usage_rollup`'s keys (and
    /// `usage_daily`'s, summed over sessions).
    pub sessions: Vec<SessionGroup>,
    /// Per record (same order as the scan's): its group, index order and key hash. (`usage_hourly`'s
    /// sums are counted row by row: see [`crate::cost::usage::Tally::count_hour`].)
    pub rows: Vec<RowKey>,
}

pub(super) struct SessionGroup {
    /// `YYYY-MM-DD`.
    pub day: String,
    pub session: String,
    pub model: usize,
}

#[derive(Clone, Copy)]
pub(super) struct RowKey {
    /// Where the key goes in `usage_key` (see [`tail_order`]).
    pub tail: u128,
    /// A 128-bit hash of the dedup key (see [`KeyHasher`]).
    pub hash: u128,
    /// Index into [`Grouped::sessions`].
    pub session: u32,
}

/// `substr(key, -16)`: the key's last 16 characters, as `usage_key` holds it. SQLite's `substr`
/// reads a text only up to its first NUL character, so this does too.
pub(super) fn key_tail(key: &str) -> &str {
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
pub(super) fn order_prefix(tail: &[u8]) -> u128 {
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

/// A 128-bit hash of a dedup key (two independently seeded SipHashes), computed on the scanning
/// threads: what the bulk path's set of seen keys holds instead of the keys.
#[derive(Default)]
pub(super) struct KeyHasher(std::collections::hash_map::RandomState, std::collections::hash_map::RandomState);

impl KeyHasher {
    pub(crate) fn hash(&self, key: &str) -> u128 {
        (u128::from(self.0.hash_one(key)) << 64) | u128::from(self.1.hash_one(key))
    }
}

/// Groups `scan`'s records; `fallback_session` stands for a record without a session id.
fn group_records(scan: &UsageScan, fallback_session: &str, hasher: &KeyHasher) -> Grouped {
    let mut out = Grouped::default();
    let mut models: HashMap<&str, usize> = HashMap::new();
    let mut sessions: HashMap<(&str, &str, usize), u32> = HashMap::new();
    out.rows.reserve(scan.records.len());
    for r in &scan.records {
        let next_model = models.len();
        let model = *models.entry(r.model.as_str()).or_insert_with(|| {
            out.models.push(r.model.clone());
            next_model
        });
        let day = crate::cost::usage::day_of(&r.ts);
        let session = if r.session_id.is_empty() {
            fallback_session
        } else {
            r.session_id.as_str()
        };
        let next = sessions.len() as u32;
        let session = *sessions.entry((day, session, model)).or_insert_with(|| {
            out.sessions.push(SessionGroup {
                day: day.to_string(),
                session: session.to_string(),
                model,
            });
            next
        });
        out.rows.push(RowKey {
            tail: tail_order(&r.dedup_key),
            hash: hasher.hash(&r.dedup_key),
            session,
        });
    }
    out
}

fn scan_job(job: &Job, index: usize, hasher: &KeyHasher, buf: &mut Vec<u8>) -> Scanned {
    let (start, head) = match start_offset(job) {
        Ok(v) => v,
        Err(e) => {
            return Scanned {
                job_index: index,
                start: 0,
                head_hash: String::new(),
                scan: Err(ReadError::io(&job.path)(e)),
                project: String::new(),
            }
        }
    };
    let fallback_session = job.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let scan = read_tail(&job.path, start, job.size, buf)
        .map(|()| scan_usage(buf, start, &job.key))
        .map_err(ReadError::io(&job.path));
    let project = match &scan {
        Ok(s) => file_project(job, start, s.cwd.as_deref()),
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

/// The scanning threads' shared state: the jobs, the next one to take, where to send scans.
pub(super) struct Workers<'j> {
    pub jobs: &'j [Job],
    pub next: AtomicUsize,
    pub hasher: &'j KeyHasher,
    pub gate: &'j RowGate,
}

impl Workers<'_> {
    /// One scanning thread's loop: until the jobs run out, the gate closes or the writer is gone.
    pub(crate) fn run(&self, tx: mpsc::Sender<Scanned>) {
        crate::sys::lower_this_thread_priority(SCANNING_NICE_STEPS);
        let mut buf = Vec::new();
        loop {
            if !self.gate.wait_for_room() {
                break;
            }
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = self.jobs.get(i) else { break };
            let scanned = scan_job(job, i, self.hasher, &mut buf);
            self.gate.add(scanned.rows());
            if tx.send(scanned).is_err() {
                break;
            }
        }
    }
}

/// How many scanned responses are waiting to be written; scanning threads wait at
/// [`IN_FLIGHT_ROWS`], and stop once the writer has closed the gate.
pub(super) struct RowGate {
    state: Mutex<GateState>,
    freed: Condvar,
}

#[derive(Default)]
struct GateState {
    rows: usize,
    closed: bool,
}

impl RowGate {
    pub(crate) fn new() -> RowGate {
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

    pub(crate) fn release(&self, n: usize) {
        let mut state = self.lock();
        state.rows = state.rows.saturating_sub(n);
        self.freed.notify_all();
    }

    /// The writer is done, or failed: no thread waits for room any more.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.freed.notify_all();
    }
}

/// Closes a [`RowGate`] when dropped.
pub(super) struct CloseOnDrop<'g>(pub &'g RowGate);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}
