//! Hook benchmarks, whole process (run with `cargo bench --bench hook`):
//!
//! 1. one PostToolUse hook (payload on stdin → row committed → response printed), median of
//!    N runs, and its ratio to a no-op process (`true`) started the same way in the same run;
//!    peak memory (max RSS) of the hook process;
//! 2. 32 hook processes at once, 100 events each: rows stored, "database is locked" errors seen,
//!    integrity check.
//!
//! Figures are printed; budgets (DESIGN.md): median < 3 ms and < 4x the no-op; < 10 MiB;
//! every row stored with no lock error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{median, tlc};

fn run_once(program: &Path, args: &[&str], payload: &[u8], cwd: &Path, home: &Path) -> (Duration, i64) {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("TLC_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    // A no-op may exit before reading: a broken pipe is expected there.
    let _ = child.stdin.take().expect("stdin").write_all(payload);
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child pid with valid out-pointers.
    unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    drop(child);
    (elapsed, usage.ru_maxrss)
}

fn main() {
    let runs: usize = std::env::var("TLC_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let bin = tlc();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/providers/claude");
    let payload = std::fs::read(fixtures.join("post-tool-use-bash.json")).expect("fixture");
    let scratch = std::env::temp_dir().join(format!("tlc-bench-hook-{}", std::process::id()));
    let repo = scratch.join("repo");
    let home = scratch.join("home");
    std::fs::create_dir_all(repo.join(".git")).expect("repo");
    let true_bin = PathBuf::from(if Path::new("/bin/true").exists() {
        "/bin/true"
    } else {
        "/usr/bin/true"
    });

    // Warm up: the first hook creates and migrates the database.
    for _ in 0..10 {
        run_once(&bin, &["hook", "claude"], &payload, &repo, &home);
        run_once(&true_bin, &[], &payload, &repo, &home);
    }
    let mut hook_times = Vec::new();
    let mut noop_times = Vec::new();
    let mut max_rss_kib = 0;
    for _ in 0..runs {
        let (t, rss) = run_once(&bin, &["hook", "claude"], &payload, &repo, &home);
        hook_times.push(t);
        max_rss_kib = max_rss_kib.max(rss);
        noop_times.push(run_once(&true_bin, &[], &payload, &repo, &home).0);
    }
    let hook = median(hook_times);
    let noop = median(noop_times);
    println!("hook: one PostToolUse hook, whole process, {runs} runs");
    println!("  median hook       {:.3} ms", hook.as_secs_f64() * 1e3);
    println!(
        "  median no-op      {:.3} ms (true, started the same way)",
        noop.as_secs_f64() * 1e3
    );
    println!("  ratio             {:.2}x", hook.as_secs_f64() / noop.as_secs_f64());
    println!(
        "  peak memory       {:.1} MiB (max RSS of the hook processes)",
        max_rss_kib as f64 / 1024.0
    );

    // Concurrency: 32 processes at once, 100 events each, into a fresh repository.
    let repo2 = scratch.join("repo-concurrent");
    std::fs::create_dir_all(repo2.join(".git")).expect("repo2");
    let procs = 32;
    let per = 100;
    let start = Instant::now();
    let workers: Vec<_> = (0..procs)
        .map(|w| {
            let bin = bin.clone();
            let repo2 = repo2.clone();
            let home = home.clone();
            std::thread::spawn(move || {
                let mut errors = 0;
                for i in 0..per {
                    let payload = format!(
                        r#"{{"hook_event_name":"PostToolUse","session_id":"bench-{w}","cwd":"/repo","tool_name":"Bash","tool_use_id":"t-{w}-{i}","tool_input":{{"command":"echo {i}"}}}}"#
                    );
                    let out = Command::new(&bin)
                        .args(["hook", "claude"])
                        .current_dir(&repo2)
                        .env("TLC_HOME", &home)
                        .stdin(Stdio::piped())
                        .stdout(Stdio::piped())
                        .stderr(Stdio::piped())
                        .spawn()
                        .and_then(|mut c| {
                            c.stdin.take().expect("stdin").write_all(payload.as_bytes())?;
                            c.wait_with_output()
                        })
                        .expect("hook process");
                    if !out.status.success() || String::from_utf8_lossy(&out.stderr).contains("locked") {
                        errors += 1;
                    }
                }
                errors
            })
        })
        .collect();
    let process_errors: usize = workers.into_iter().map(|w| w.join().expect("worker")).sum();
    let wall = start.elapsed();
    let db = repo2.join(".tlc/harness/state/tlc.db");
    let conn = rusqlite::Connection::open(&db).expect("open db");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM events WHERE kind = 'shell.end'", [], |r| r.get(0))
        .expect("count");
    let faults: i64 = conn
        .query_row("SELECT count(*) FROM events WHERE kind = 'hook.fault'", [], |r| r.get(0))
        .expect("faults");
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("integrity");
    let fault_log = std::fs::read_to_string(home.join("state/hook-faults.log")).unwrap_or_default();
    let locked = fault_log.lines().filter(|l| l.contains("locked") || l.contains("busy")).count();
    println!("concurrency: {procs} hook processes at once, {per} events each");
    println!("  rows stored       {rows} of {}", procs * per);
    println!("  lock errors       {locked} (\"database is locked\" in the fault log), failed processes {process_errors}, hook.fault rows {faults}");
    println!("  integrity check   {integrity}");
    println!(
        "  wall time         {:.2} s ({:.0} events/s)",
        wall.as_secs_f64(),
        (procs * per) as f64 / wall.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
