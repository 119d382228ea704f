//! Observability: neutral events on their planes, redaction, sessions, decisions, tool spans,
//! the spool and retention. Nothing here branches on a provider's name.

pub(crate) mod event;
pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod recorder;
pub(crate) mod redact;
pub(crate) mod report;
pub(crate) mod spool;

pub(crate) use event::{Event, Kind, Phase, Plane, Tokens};
pub(crate) use recorder::{EventStore, ShipRow};
pub(crate) use spool::Spool;

/// A fresh span id: 16 hex digits from the process's hasher seed, the clock and a counter.
pub(crate) fn new_span_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}
