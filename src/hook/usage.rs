//! Token usage at hook time: the lines a Claude Code session transcript gained since the stored
//! offset become one `generation.end` event per API response, priced by the one cost function.
//!
//! The file is read before the write transaction (so the lock is held only for the inserts), at
//! most [`MAX_READ_PER_HOOK`] bytes a hook; a transcript that shrank or was replaced (another
//! inode, another first line) is read again from the top, and the events' dedup keys keep a
//! response from being counted twice.

use crate::cost::{CachedResolver, PriceCatalog, TokenUsage};
use crate::fault::Fault;
use crate::obs::recorder::TranscriptOffset;
use crate::obs::{Event, Kind, Tokens};
use crate::paths::Paths;
use crate::store::{self, DbKind, Store};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// A transcript that could not be read (it names the file).
#[derive(Debug, thiserror::Error)]
#[error("{path}: {cause}")]
pub(crate) struct TranscriptError {
    path: String,
    cause: std::io::Error,
}

/// A hook reads at most this much new transcript; the rest waits for the next hook.
pub(crate) const MAX_READ_PER_HOOK: u64 = 8 * 1024 * 1024;
/// A line longer than one hook's read is read whole up to this size; a longer one is skipped
/// (counted in `transcripts.oversize_lines`, left to `tlc obs import transcripts`).
pub(crate) const MAX_LINE_READ: u64 = 64 * 1024 * 1024;
const HEAD_BYTES: usize = 512;

/// What one read of a transcript found.
pub(crate) struct TranscriptDelta {
    pub generations: Vec<Event>,
    /// The offset state to store once the generations are written.
    pub next: TranscriptOffset,
    /// What the read met that the hook records as a fault (a line longer than its read).
    pub faults: crate::fault::Faults,
}

fn head_hash(file: &mut std::fs::File) -> std::io::Result<String> {
    let mut head = vec![0u8; HEAD_BYTES];
    file.seek(SeekFrom::Start(0))?;
    let n = file.read(&mut head)?;
    head.truncate(n);
    let end = head.iter().position(|b| *b == b'\n').map_or(head.len(), |p| p + 1);
    Ok(crate::hashing::sha256_hex(&head[..end]))
}

/// Whose responses a transcript holds.
pub(crate) struct Owner<'a> {
    pub provider: &'a str,
    pub session: Option<&'a str>,
    pub trace: Option<&'a str>,
    /// The subagent whose own transcript this is; `None` for the session's main thread.
    pub agent: Option<&'a str>,
    /// A missing file is expected (nothing to read), not a fault: see [`Owner::missing_ok_at`].
    pub missing_ok: bool,
    /// The time of a response whose line has no usable one (never: such lines are malformed).
    pub ts: chrono::DateTime<chrono::Utc>,
}

impl<'a> Owner<'a> {
    /// The owner of the transcript `path` of `session`: a subagent's when the file is Claude
    /// Code's `<session>/subagents/agent-<id>.jsonl`.
    pub(crate) fn of_path(provider: &'a str, session: Option<&'a str>, path: &'a str, ts: chrono::DateTime<chrono::Utc>) -> Owner<'a> {
        Owner {
            provider,
            session,
            trace: session,
            agent: subagent_of_path(path),
            missing_ok: true,
            ts,
        }
    }

    /// Whether a session's main transcript may be missing when a hook of `kind` reads it, `read`
    /// telling whether it was read before. Claude Code writes the transcript asynchronously, from
    /// the session's first response on (measured with 2.1.197): it does not exist yet at session
    /// start and at the first prompt, nor — until it has been read once — when the first response's
    /// text is shown or its first tool call runs (the write lags the stream: in 40 end-to-end runs
    /// the logger hook beside tlc's found no file at 5 first `PreToolUse` calls, and a fast first
    /// tool's `PostToolUse` can come before the write too).
    pub(crate) fn missing_ok_at(kind: Kind, read: bool) -> bool {
        let first_response = matches!(
            kind,
            Kind::AgentResponse
                | Kind::ToolStart
                | Kind::ShellStart
                | Kind::McpStart
                | Kind::FileRead
                | Kind::PermissionRequest
                | Kind::PermissionDenied
                | Kind::ToolEnd
                | Kind::FileEdit
                | Kind::ToolFail
                | Kind::ShellEnd
                | Kind::McpEnd
                | Kind::ToolBatch
        );
        matches!(kind, Kind::SessionStart | Kind::PromptSubmit) || (first_response && !read)
    }
}

/// The subagent id of a Claude Code subagent transcript path (`…/subagents/agent-<id>.jsonl`).
pub(crate) fn subagent_of_path(path: &str) -> Option<&str> {
    let p = Path::new(path);
    let in_subagents = p.parent().and_then(Path::file_name).is_some_and(|d| d == "subagents");
    let stem = p.file_name()?.to_str()?.strip_suffix(".jsonl")?.strip_prefix("agent-")?;
    (in_subagents && !stem.is_empty()).then_some(stem)
}

/// How long a stop waits at most for its response to reach the transcript.
pub(crate) const RESPONSE_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);
const RESPONSE_POLL: std::time::Duration = std::time::Duration::from_millis(5);
/// The end of the transcript searched for the awaited response.
const RESPONSE_TAIL: u64 = 256 * 1024;

/// Waits (at most `max`) until the end of the transcript `path` holds a text block whose text is
/// `text`: Claude Code writes its transcript asynchronously, and the response a Stop is about is
/// often not in it yet when the hook starts. Returns the time waited and whether it was found.
pub(crate) fn await_response(path: &str, text: &str, max: std::time::Duration) -> (std::time::Duration, bool) {
    let started = std::time::Instant::now();
    let Ok(quoted) = serde_json::to_string(text) else {
        return (started.elapsed(), false);
    };
    let needle = format!("\"text\":{quoted}");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    loop {
        match tail_holds(path, &finder) {
            Ok(true) => return (started.elapsed(), true),
            // Unreadable (a permission, an I/O error, not a regular file): waiting cannot help.
            Err(()) => return (started.elapsed(), false),
            Ok(false) => {}
        }
        if started.elapsed() >= max {
            return (started.elapsed(), false);
        }
        std::thread::sleep(RESPONSE_POLL);
    }
}

/// Whether the transcript's end holds the response; `Err` when it cannot be read at all (a
/// missing file is `Ok(false)`: Claude Code may not have written it yet).
fn tail_holds(path: &str, finder: &memchr::memmem::Finder<'_>) -> Result<bool, ()> {
    // Never a blocking open: a FIFO swapped in for the transcript must not stall the stop.
    let mut file = match crate::fsread::open_regular(Path::new(path), crate::fsread::Links::Follow) {
        Ok(f) => f,
        Err(e) if e.is_missing() => return Ok(false),
        Err(_) => return Err(()),
    };
    let size = file.metadata().map(|m| m.len()).map_err(|_| ())?;
    let start = size.saturating_sub(RESPONSE_TAIL);
    let mut tail = Vec::with_capacity((size - start) as usize);
    file.seek(SeekFrom::Start(start)).map_err(|_| ())?;
    file.take(size - start).read_to_end(&mut tail).map_err(|_| ())?;
    Ok(finder.find(&tail).is_some())
}

/// Reads what `path` gained since `stored` and turns each new API response into a generation
/// event of `owner`'s provider and session. `None` when there is nothing to read; an error
/// (recorded as a fault) when the transcript cannot be read.
pub(crate) fn read_delta(
    paths: &Paths,
    path: &str,
    stored: Option<&TranscriptOffset>,
    owner: &Owner<'_>,
) -> Result<Option<TranscriptDelta>, TranscriptError> {
    let at = |cause| TranscriptError {
        path: path.to_string(),
        cause,
    };
    if !path.ends_with(".jsonl") {
        return Err(at(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a .jsonl transcript")));
    }
    let p = Path::new(path);
    // Opened without blocking and checked on the open descriptor: a FIFO, a device or a folder
    // swapped in is a fault, never a hang.
    let mut file = match crate::fsread::open_regular(p, crate::fsread::Links::Follow) {
        Ok(f) => f,
        // A transcript not written yet where that is expected (see `Owner::missing_ok_at`).
        Err(e) if e.is_missing() && owner.missing_ok => return Ok(None),
        Err(e) => return Err(at(e.into_io())),
    };
    let meta = file.metadata().map_err(at)?;
    let file_id = format!("{}:{}", meta.dev(), meta.ino());
    let size = meta.len();
    let head = head_hash(&mut file).map_err(at)?;
    let mut state = stored.cloned().unwrap_or_default();
    let replaced = state.file_id.as_deref() != Some(file_id.as_str()) || state.head_hash.as_deref() != Some(head.as_str());
    if replaced || (state.offset as u64) > size {
        // Replaced or shrunk: read from the top; the dedup keys keep counts exact.
        state = TranscriptOffset {
            malformed_lines: state.malformed_lines,
            oversize_lines: state.oversize_lines,
            generations: state.generations,
            ..TranscriptOffset::default()
        };
    }
    state.file_id = Some(file_id);
    state.head_hash = Some(head);
    let start = state.offset as u64;
    if start >= size {
        // Nothing new; only a changed identity needs storing.
        let changed = stored != Some(&state);
        return Ok(changed.then(|| TranscriptDelta {
            generations: Vec::new(),
            next: state,
            faults: Vec::new(),
        }));
    }
    let len = (size - start).min(MAX_READ_PER_HOOK);
    let mut bytes = vec![0u8; len as usize];
    file.seek(SeekFrom::Start(start)).map_err(at)?;
    file.read_exact(&mut bytes).map_err(at)?;
    let mut faults = Vec::new();
    if size - start > len && memchr::memchr(b'\n', &bytes).is_none() {
        // The line at the offset is longer than one hook's read: without this the offset would
        // never move again and every later response would go unrecorded.
        match read_long_line(&mut file, start, size, bytes).map_err(at)? {
            LongLine::Whole(line) => {
                faults.push(Fault::Transcript(format!(
                    "{path}: line at byte {start} is {} bytes, over the hook's {} read; read whole",
                    line.len(),
                    crate::fsread::size_words(MAX_READ_PER_HOOK)
                )));
                state.oversize_lines += 1;
                bytes = line;
            }
            LongLine::Skipped { end, finished } => {
                faults.push(Fault::Transcript(format!(
                    "{path}: line at byte {start} is {}{} bytes, over the {} a hook reads whole; skipped{} (`tlc obs import transcripts` reads it)",
                    if finished { "" } else { "at least " },
                    end - start,
                    crate::fsread::size_words(MAX_LINE_READ),
                    if finished || end >= size { String::new() } else { format!(" to byte {end}, the next hook goes on from there") }
                )));
                state.oversize_lines += 1;
                state.offset = end as i64;
                return Ok(Some(TranscriptDelta {
                    generations: Vec::new(),
                    next: state,
                    faults,
                }));
            }
            // Still being written: the next hook reads it.
            LongLine::Unfinished => bytes = Vec::new(),
        }
    }
    let scan = crate::cost::scan_usage(&bytes, start, path);
    state.offset = (start + scan.consumed) as i64;
    state.malformed_lines += scan.malformed as i64;
    let mut generations = Vec::with_capacity(scan.records.len());
    if !scan.records.is_empty() {
        // Prices come from the home database when it is there and this binary's; any other
        // state of it prices from the compiled-in snapshot rather than failing the hook.
        let home = match store::open_read(DbKind::Home, &paths.home_db()) {
            Ok(home) => home,
            // A refused home database (a link, a foreign file) is named once, here.
            Err(e @ (store::StoreError::NotRegular { .. } | store::StoreError::Foreign { .. })) => {
                faults.push(Fault::Pricing(format!("priced from the built-in snapshot: {e}")));
                None
            }
            Err(_) => None,
        };
        let catalog = PriceCatalog::new(home.as_ref().map(Store::conn), &crate::cost::catalog::override_file(paths))
            .unwrap_or_else(|_| PriceCatalog::snapshot_only());
        let mut prices = CachedResolver::new(&catalog, Some(owner.provider));
        for r in scan.records {
            let ts = crate::clock::parse(&r.ts).unwrap_or(owner.ts);
            let mut ev = Event::new(owner.provider, Kind::GenerationEnd, ts);
            ev.session_id = owner.session.map(str::to_string);
            ev.trace_id = owner.trace.map(str::to_string);
            ev.model = (!r.model.is_empty()).then(|| r.model.clone());
            match owner.agent {
                Some(agent) => {
                    ev.parent_span_id = Some(agent.to_string());
                    ev.attrs.insert("agent_id".into(), agent.into());
                }
                None => ev.session_model_fallback = ev.model.clone(),
            }
            let usage: TokenUsage = r.usage;
            ev.tokens = Some(Tokens {
                input: usage.input as i64,
                output: usage.output as i64,
                cache_read: usage.cache_read as i64,
                cache_write: usage.cache_write as i64,
                cache_write_1h: usage.cache_write_1h as i64,
            });
            let resolved = if r.model.is_empty() {
                None
            } else {
                prices.resolve(&r.model).ok().flatten()
            };
            let priced = resolved.map(|p| p.price_marked(&usage, r.inexact_output));
            ev.cost_usd = priced.map(|(usd, _)| usd);
            ev.cost_source = crate::cost::rates::marked_source(priced.map(|(_, source)| source), r.inexact_output).map(str::to_string);
            ev.cost_pool = resolved.and_then(|p| p.entry.pool.clone());
            ev.attrs.insert("transcript_offset".into(), r.offset.into());
            if r.rejected != 0 {
                let fields = crate::cost::transcript::rejected_fields(r.rejected);
                faults.push(Fault::Transcript(format!(
                    "{path}: the response at byte {}: {} outside 0..2^53; stored without {}",
                    r.offset,
                    fields.join(", "),
                    if fields.len() == 1 { "it" } else { "them" }
                )));
                ev.attrs.insert("tokens_rejected".into(), fields.into());
            }
            ev.dedup_key = Some(format!("gen:{}", r.dedup_key));
            generations.push(ev);
        }
    }
    Ok(Some(TranscriptDelta {
        generations,
        next: state,
        faults,
    }))
}

/// A line longer than one hook's read, as [`read_long_line`] found it.
enum LongLine {
    /// The whole line, its newline included (at most [`MAX_LINE_READ`] bytes).
    Whole(Vec<u8>),
    /// Too long to read whole: the offset just after it, or — when its end was not reached
    /// within one hook's scan ([`MAX_LINE_SCAN`]), or the line has no end yet — the offset the
    /// scan got to (`finished` false), from where the next hook goes on.
    Skipped { end: u64, finished: bool },
    /// No newline yet and still short enough to read whole once it has one.
    Unfinished,
}

/// The most one hook reads looking for the end of a long line. A hole of a sparse file is not
/// read at all (it holds no newline: see [`crate::sys::next_data`]), so only real bytes count.
pub(crate) const MAX_LINE_SCAN: u64 = MAX_LINE_READ;

/// Reads on from the end of `first` (the hook's read at `start`, holding no newline) to the end
/// of that line, a megabyte at a time: kept whole up to [`MAX_LINE_READ`], else only measured,
/// and never more than [`MAX_LINE_SCAN`] bytes of it in one hook.
fn read_long_line(file: &mut std::fs::File, start: u64, size: u64, first: Vec<u8>) -> std::io::Result<LongLine> {
    let mut line = Some(first);
    let mut pos = start + line.as_ref().map_or(0, |l| l.len() as u64);
    let mut scanned = 0u64;
    let mut chunk = vec![0u8; 1024 * 1024];
    while pos < size {
        match crate::sys::next_data(file, pos)? {
            // Only a hole is left: no newline before the end.
            None => {
                line = None;
                break;
            }
            Some(data) if data > pos => {
                // A hole reads as zeros: the line holds them, and is not one a hook keeps.
                line = None;
                pos = data.min(size);
                continue;
            }
            Some(_) => {}
        }
        if scanned >= MAX_LINE_SCAN {
            return Ok(LongLine::Skipped { end: pos, finished: false });
        }
        let want = (chunk.len() as u64).min(size - pos) as usize;
        file.seek(SeekFrom::Start(pos))?;
        file.read_exact(&mut chunk[..want])?;
        scanned += want as u64;
        if let Some(i) = memchr::memchr(b'\n', &chunk[..want]) {
            let end = pos + i as u64 + 1;
            return Ok(match line {
                Some(mut l) => {
                    l.extend_from_slice(&chunk[..=i]);
                    LongLine::Whole(l)
                }
                None => LongLine::Skipped { end, finished: true },
            });
        }
        pos += want as u64;
        if line.as_ref().is_some_and(|l| l.len() as u64 + want as u64 > MAX_LINE_READ) {
            line = None;
        }
        if let Some(l) = line.as_mut() {
            l.extend_from_slice(&chunk[..want]);
        }
    }
    Ok(if line.is_some() {
        LongLine::Unfinished
    } else {
        LongLine::Skipped {
            end: size,
            finished: false,
        }
    })
}
