//! What the whole-process benchmarks share.

use std::path::PathBuf;
use std::time::Duration;

/// The `tlc` binary cargo built for this benchmark run (the bench profile, optimised).
pub fn tlc() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tlc"))
}

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}
