//! Events a hook could not write because another process held the project database: kept in an
//! append-only file beside the database (`hook-pending.jsonl`) and written by the next hook
//! that gets the lock, in its own transaction, instead of being lost.
//!
//! Both sides hold an exclusive lock on the file while they touch it: the hook that keeps rows
//! while it appends, the hook that drains them from its read to the truncation after its commit.
//! Every kept row has a dedup key, so a drain whose process dies between the commit and the
//! truncation is repeated harmlessly by the next one.

use crate::fsread::{open_regular_with, Links};
use crate::obs::recorder::EventRow;
use crate::obs::{Event, EventStore, Plane, Tokens};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub(crate) const PENDING_NAME: &str = "hook-pending.jsonl";
/// The file stops growing here: a database locked for hours is a fault of its own.
const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// How long a hook that keeps events waits for the file's lock. It holds no database lock, and
/// giving up loses the events, so it waits long: the holder is a draining hook inside its own
/// short transaction, or another keeper appending a line. Measured with 32 hooks at once on a
/// loaded 2-core machine (`cargo bench --bench hook`, *concurrency*), a 200 ms wait lost one
/// event in 35.
const KEEP_LOCK_WAIT: Duration = Duration::from_secs(5);
/// How long a draining hook waits for it: the drain is optional (the next hook drains), and the
/// drainer holds the database's write lock meanwhile.
const DRAIN_LOCK_WAIT: Duration = Duration::from_millis(200);

/// One kept event row, as a line of the file.
#[derive(Debug, Serialize, Deserialize)]
struct Kept {
    ts: String,
    provider: String,
    kind: String,
    plane: String,
    session_id: Option<String>,
    trace_id: Option<String>,
    span_id: Option<String>,
    parent_span_id: Option<String>,
    model: Option<String>,
    tool: Option<String>,
    phase: Option<String>,
    attrs: Map<String, Value>,
    payload: Option<String>,
    duration_ms: Option<i64>,
    tokens: Option<[i64; 4]>,
    /// The 1-hour part of the cache writes (absent in lines kept by an older binary: 0).
    #[serde(default)]
    cache_write_1h: i64,
    cost_usd: Option<f64>,
    cost_source: Option<String>,
    cost_pool: Option<String>,
    dedup_key: String,
}

impl Kept {
    fn of(ev: &Event, plane: Plane) -> Kept {
        Kept {
            ts: crate::clock::stamp(ev.ts),
            provider: ev.provider.clone(),
            kind: ev.kind.as_str().to_string(),
            plane: plane.as_str().to_string(),
            session_id: ev.session_id.clone(),
            trace_id: ev.trace_id.clone(),
            span_id: ev.span_id.clone(),
            parent_span_id: ev.parent_span_id.clone(),
            model: ev.model.clone(),
            tool: ev.tool.clone(),
            phase: ev.phase.map(|p| p.as_str().to_string()),
            attrs: ev.attrs.clone(),
            payload: ev.payload.clone(),
            duration_ms: ev.duration_ms,
            tokens: ev.tokens.map(|t| [t.input, t.output, t.cache_read, t.cache_write]),
            cache_write_1h: ev.tokens.map_or(0, |t| t.cache_write_1h),
            cost_usd: ev.cost_usd,
            cost_source: ev.cost_source.clone(),
            cost_pool: ev.cost_pool.clone(),
            dedup_key: ev
                .dedup_key
                .clone()
                .unwrap_or_else(|| format!("kept:{}", crate::obs::new_span_id())),
        }
    }
}

/// The file beside the project database in `state_dir`.
pub(crate) fn file_in(state_dir: &Path) -> PathBuf {
    state_dir.join(PENDING_NAME)
}

/// Takes the file's lock, waiting at most `wait`.
fn lock(file: &File, path: &Path, wait: Duration) -> Result<(), String> {
    let started = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < wait => std::thread::sleep(Duration::from_millis(1)),
            Err(std::fs::TryLockError::WouldBlock) => return Err(format!("{}: locked by another process", path.display())),
            Err(std::fs::TryLockError::Error(e)) => return Err(format!("{}: cannot lock: {e}", path.display())),
        }
    }
}

/// Appends `events` to the file in `state_dir`. The error names the file and why.
pub(crate) fn keep(state_dir: &Path, events: &[(&Event, Plane)]) -> Result<PathBuf, String> {
    let path = file_in(state_dir);
    let mut text = String::new();
    for (ev, plane) in events {
        text.push_str(&serde_json::to_string(&Kept::of(ev, *plane)).map_err(|e| e.to_string())?);
        text.push('\n');
    }
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = open_regular_with(&path, &mut options, Links::Refuse).map_err(|e| e.to_string())?;
    lock(&file, &path, KEEP_LOCK_WAIT)?;
    let size = file.metadata().map_err(|e| format!("{}: {e}", path.display()))?.len();
    if size + text.len() as u64 > MAX_BYTES {
        return Err(format!(
            "{}: full ({} bytes kept already); the event was dropped",
            path.display(),
            size
        ));
    }
    file.write_all(text.as_bytes())
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    Ok(path)
}

/// Kept rows read and written into the caller's transaction; [`Drained::finish`] empties the
/// file once that transaction committed.
pub(crate) struct Drained {
    file: File,
    pub rows: usize,
    /// Lines that were not a kept row (skipped).
    pub unreadable: usize,
}

impl Drained {
    /// Empties the file (after the commit) and releases its lock.
    pub(crate) fn finish(self) -> Result<(), String> {
        self.file.set_len(0).map_err(|e| e.to_string())
    }
}

/// Writes the rows kept in `state_dir` through `es` (the caller holds the write transaction).
/// `Ok(None)` when there is no file, or an empty one (one `lstat` on the common path).
pub(crate) fn drain(state_dir: &Path, es: &EventStore<'_>) -> Result<Option<Drained>, String> {
    let path = file_in(state_dir);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.len() == 0 && meta.is_file() => return Ok(None),
        Ok(_) => {}
        Err(_) => return Ok(None),
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true);
    let mut file = open_regular_with(&path, &mut options, Links::Refuse).map_err(|e| e.to_string())?;
    lock(&file, &path, DRAIN_LOCK_WAIT)?;
    let mut bytes = Vec::new();
    file.rewind().map_err(|e| format!("{}: {e}", path.display()))?;
    (&mut file)
        .take(MAX_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut drained = Drained {
        file,
        rows: 0,
        unreadable: 0,
    };
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let Ok(k) = serde_json::from_slice::<Kept>(line) else {
            drained.unreadable += 1;
            continue;
        };
        let attrs = serde_json::to_string(&k.attrs).unwrap_or_default();
        if let Some(session) = k.session_id.as_deref() {
            es.touch_session(&k.provider, session, &k.ts, None).map_err(|e| e.to_string())?;
        }
        let inserted = es
            .insert_row(&EventRow {
                ts: &k.ts,
                provider: &k.provider,
                kind: &k.kind,
                plane: &k.plane,
                session_id: k.session_id.as_deref(),
                trace_id: k.trace_id.as_deref(),
                span_id: k.span_id.as_deref(),
                parent_span_id: k.parent_span_id.as_deref(),
                model: k.model.as_deref(),
                tool: k.tool.as_deref(),
                phase: k.phase.as_deref(),
                attrs: &attrs,
                payload: k.payload.as_deref(),
                duration_ms: k.duration_ms,
                tokens: k.tokens.map(|[input, output, cache_read, cache_write]| Tokens {
                    input,
                    output,
                    cache_read,
                    cache_write,
                    cache_write_1h: k.cache_write_1h,
                }),
                cost_usd: k.cost_usd,
                cost_source: k.cost_source.as_deref(),
                cost_pool: k.cost_pool.as_deref(),
                dedup_key: Some(&k.dedup_key),
            })
            .map_err(|e| e.to_string())?;
        drained.rows += usize::from(inserted.is_some());
    }
    Ok(Some(drained))
}
