//! What the whole-process benchmarks share.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `tlc` binary cargo built for this benchmark run (the bench profile, optimised).
pub fn tlc() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tlc"))
}

/// The median of `v` (the upper one of an even count). Not every bench takes medians.
#[allow(dead_code)]
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `cmd` (its arguments and environment set) with `payload` on stdin, output discarded: its
/// wall time from spawn to exit and its peak memory (max RSS, KiB). Not every bench spawns this way.
#[allow(dead_code)]
pub fn timed(mut cmd: Command, payload: &[u8]) -> (Duration, i64) {
    cmd.stdout(Stdio::piped());
    let (wall, _, rss) = measured(cmd, payload);
    (wall, rss)
}

/// Runs `cmd` (its arguments, environment and stdout set) with `payload` on stdin and stderr
/// discarded: its wall time from spawn to exit, its CPU time (user + system) and its peak memory
/// (max RSS, KiB).
#[allow(dead_code)]
pub fn measured(mut cmd: Command, payload: &[u8]) -> (Duration, Duration, i64) {
    let start = Instant::now();
    let mut child = cmd.stdin(Stdio::piped()).stderr(Stdio::null()).spawn().expect("spawn");
    // A no-op may exit before reading: a broken pipe is expected there.
    let _ = child.stdin.take().expect("stdin").write_all(payload);
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child pid with valid out-pointers.
    unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    drop(child);
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    (elapsed, tv(usage.ru_utime) + tv(usage.ru_stime), usage.ru_maxrss)
}
