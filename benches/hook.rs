//! Hook benchmarks, whole process (run with `cargo bench --bench hook`):
//!
//! 1. one PostToolUse hook (payload on stdin → row committed → response printed), median of
//!    N runs, and its ratio to a no-op process (`true`) started the same way in the same run;
//!    peak memory (max RSS) of the hook process;
//! 2. 32 hook processes at once, 100 events each: rows stored, "database is locked" errors seen,
//!    integrity check;
//! 3. crafted redaction payloads (issue 14): a 16 MB PostToolUse of each shape that once made the
//!    redaction scan quadratic, whole process, median of `TLC_BENCH_CRAFTED_RUNS` (default 3),
//!    beside the same payload with `secrets.redactOutput = false` run interleaved.
//! 4. the floor and shell rails: a PreToolUse Bash hook with a compound command the floor has to
//!    take apart, interleaved with the same hook given a trivially-allowed command (`ls`) and the
//!    no-op; with `TLC_BENCH_BASELINE=<a tlc built from main>` also that binary on the same
//!    payload, so the difference is what the floor and rails add (budget: +0.3 ms).
//!
//! With `TLC_BENCH_BASELINE=<another tlc binary>` the first part also runs that binary,
//! interleaved, and prints its median and the difference.
//!
//! Figures are printed; budgets (DESIGN.md, issue 13): median < 4x the no-op; < 10 MiB;
//! every row stored with no lock error; every crafted 16 MB payload under 1 s.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{median, timed, tlc};

fn run_once(program: &Path, args: &[&str], payload: &[u8], cwd: &Path, home: &Path) -> (Duration, i64) {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(cwd).env("TLC_HOME", home);
    timed(cmd, payload)
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

    // Another tlc binary to compare with, run interleaved in a repository and home of its own
    // (`TLC_BENCH_BASELINE=/path/to/main/tlc`): on a machine busy with other work the ratio to the
    // no-op drifts, the difference between two tlc binaries much less.
    let baseline = std::env::var_os("TLC_BENCH_BASELINE").map(PathBuf::from);
    let (base_repo, base_home) = (scratch.join("repo-baseline"), scratch.join("home-baseline"));
    std::fs::create_dir_all(base_repo.join(".git")).expect("baseline repo");

    // Warm up: the first hook creates and migrates the database.
    for _ in 0..10 {
        run_once(&bin, &["hook", "claude"], &payload, &repo, &home);
        run_once(&true_bin, &[], &payload, &repo, &home);
        if let Some(b) = &baseline {
            run_once(b, &["hook", "claude"], &payload, &base_repo, &base_home);
        }
    }
    let mut hook_times = Vec::new();
    let mut noop_times = Vec::new();
    let mut base_times = Vec::new();
    let mut max_rss_kib = 0;
    for _ in 0..runs {
        let (t, rss) = run_once(&bin, &["hook", "claude"], &payload, &repo, &home);
        hook_times.push(t);
        max_rss_kib = max_rss_kib.max(rss);
        noop_times.push(run_once(&true_bin, &[], &payload, &repo, &home).0);
        if let Some(b) = &baseline {
            base_times.push(run_once(b, &["hook", "claude"], &payload, &base_repo, &base_home).0);
        }
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
    if let Some(b) = &baseline {
        let base = median(base_times);
        println!(
            "  median baseline   {:.3} ms ({}, interleaved); this binary {:+.3} ms, ratio {:.2}x to the no-op",
            base.as_secs_f64() * 1e3,
            b.display(),
            (hook.as_secs_f64() - base.as_secs_f64()) * 1e3,
            base.as_secs_f64() / noop.as_secs_f64()
        );
    }

    floor_case(&bin, &true_bin, &repo, &home, runs);

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
    // A hook locked out past its wait keeps its event for the next hook (docs/hook.md): those the
    // last hooks kept are still in the file.
    let kept = std::fs::read_to_string(repo2.join(".tlc/harness/state/hook-pending.jsonl"))
        .map(|t| t.lines().filter(|l| l.contains("\"shell.end\"")).count())
        .unwrap_or(0);
    println!("concurrency: {procs} hook processes at once, {per} events each");
    println!("  rows stored       {rows} of {} ({kept} more kept for the next hook)", procs * per);
    println!("  lock errors       {locked} (\"database is locked\" in the fault log), failed processes {process_errors}, hook.fault rows {faults}");
    println!("  integrity check   {integrity}");
    println!(
        "  wall time         {:.2} s ({:.0} events/s)",
        wall.as_secs_f64(),
        (procs * per) as f64 / wall.as_secs_f64()
    );
    crafted_redaction(&bin, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A run of one process that reads everything the hook prints (a replaced output can be large):
/// its wall time and its CPU time (user + system), which a machine busy with other work inflates
/// less than the wall time.
fn run_reading(program: &Path, payload: &[u8], cwd: &Path, home: &Path) -> (Duration, Duration) {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(["hook", "claude"])
        .current_dir(cwd)
        .env("TLC_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let data = payload.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut out);
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child pid with valid out-pointers.
    unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    let _ = writer.join();
    let _ = reader.join();
    drop(child);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "the hook failed");
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    (elapsed, tv(usage.ru_utime) + tv(usage.ru_stime))
}

/// `n` bytes of `unit` repeated.
fn repeat_to(unit: &str, n: usize) -> String {
    unit.repeat(n / unit.len() + 1)[..n].to_string()
}

/// `n` bytes of pseudo-random characters from `alphabet`, `sep` after every `every`.
fn random_to(alphabet: &[u8], every: usize, sep: &str, n: usize) -> String {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut s = String::with_capacity(n + 64);
    while s.len() < n {
        for _ in 0..every {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push(alphabet[(x % alphabet.len() as u64) as usize] as char);
        }
        s.push_str(sep);
    }
    s.truncate(n);
    s
}

fn crafted_redaction(bin: &Path, scratch: &Path) {
    const SIZE: usize = 16 * 1024 * 1024;
    let runs: usize = std::env::var("TLC_BENCH_CRAFTED_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let b62 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let upper_digits = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let dense_keys: String = random_to(upper_digits, 16, " AKIA", SIZE);
    let shapes: Vec<(&str, String)> = vec![
        ("ASIA run", repeat_to("ASIA", SIZE)),
        ("AKIA run", repeat_to("AKIA", SIZE)),
        ("eyJ run", repeat_to("eyJ", SIZE)),
        ("eyJ segments", repeat_to("eyJxxxxxxxx.", SIZE)),
        ("Bearer run", repeat_to("Bearer ", SIZE)),
        ("URL userinfo run", repeat_to("a://b:c", SIZE)),
        ("PEM headers", repeat_to("-----BEGIN ", SIZE)),
        ("plain text", repeat_to("lorem ipsum dolor sit amet ", SIZE)),
        ("one random run", random_to(b62, SIZE, "", SIZE)),
        ("dense AWS key ids", dense_keys.clone()),
    ];
    let repo = scratch.join("repo-crafted");
    std::fs::create_dir_all(repo.join(".git")).expect("repo");
    let home_on = scratch.join("home-crafted");
    let home_off = scratch.join("home-crafted-off");
    std::fs::create_dir_all(&home_off).expect("home");
    std::fs::write(home_off.join("config.toml"), "[secrets]\nredactOutput = false\n").expect("config");
    let payload_of = |response: serde_json::Value| {
        serde_json::json!({
            "hook_event_name": "PostToolUse", "session_id": "crafted", "cwd": "/repo", "tool_name": "Bash",
            "tool_use_id": "toolu_crafted", "tool_input": {"command": "cat big.log"}, "tool_response": response,
        })
        .to_string()
    };
    let mut cases: Vec<(String, String)> = shapes
        .iter()
        .map(|(name, text)| (format!("{name}, one field"), payload_of(serde_json::json!({ "stdout": text }))))
        .collect();
    // The same bytes in sixteen 1 MiB fields: under the per-field scan cap, so only a linear scan is fast.
    for (name, text) in shapes
        .iter()
        .filter(|(n, _)| ["ASIA run", "eyJ segments", "plain text", "dense AWS key ids"].contains(n))
    {
        let fields: serde_json::Map<String, serde_json::Value> = (0..16)
            .map(|i| {
                (
                    format!("part{i}"),
                    serde_json::Value::String(text[i * SIZE / 16..(i + 1) * SIZE / 16].to_string()),
                )
            })
            .collect();
        cases.push((format!("{name}, 16 fields"), payload_of(serde_json::Value::Object(fields))));
    }
    run_reading(bin, cases[0].1.as_bytes(), &repo, &home_on);
    println!("crafted redaction: 16 MiB PostToolUse payloads, whole process, median of {runs} runs (budget < 1 s)");
    println!(
        "  {:<32} {:>8} {:>8}   {:>8} {:>8}   {:>6}",
        "payload", "wall", "cpu", "off wall", "off cpu", "ratio"
    );
    for (name, payload) in &cases {
        let (mut on, mut on_cpu, mut off, mut off_cpu) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let (wall, cpu) = run_reading(bin, payload.as_bytes(), &repo, &home_on);
            on.push(wall);
            on_cpu.push(cpu);
            let (wall, cpu) = run_reading(bin, payload.as_bytes(), &repo, &home_off);
            off.push(wall);
            off_cpu.push(cpu);
        }
        let (on, on_cpu, off, off_cpu) = (median(on), median(on_cpu), median(off), median(off_cpu));
        println!(
            "  {name:<32} {:>6.3} s {:>6.3} s   {:>6.3} s {:>6.3} s   {:>5.2}x   {}",
            on.as_secs_f64(),
            on_cpu.as_secs_f64(),
            off.as_secs_f64(),
            off_cpu.as_secs_f64(),
            on.as_secs_f64() / off.as_secs_f64(),
            if on < Duration::from_secs(1) { "under 1 s" } else { "OVER BUDGET" }
        );
    }
    println!("  (off: the same payload with secrets.redactOutput = false, run interleaved; ratio of the wall times)");
}

/// The floor and shell rails on a PreToolUse Bash payload, against the same hook with `ls`, the
/// no-op and (when given) the landed binary, all interleaved.
fn floor_case(bin: &Path, true_bin: &Path, repo: &Path, home: &Path, runs: usize) {
    let payload = |command: &str| {
        serde_json::json!({
            "session_id": "bench-floor",
            "cwd": repo,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "bench"},
            "tool_use_id": "toolu_bench",
        })
        .to_string()
        .into_bytes()
    };
    let busy = payload(
        "cd src && grep -rn \"TODO\" . | head -20; rm -rf ./build target/tmp && cargo test --release 2>&1 | tail -5 && git status --short > /tmp/status.txt",
    );
    let trivial = payload("ls");
    let baseline = std::env::var_os("TLC_BENCH_BASELINE").map(PathBuf::from).filter(|p| p.is_file());
    let base_repo = repo.with_file_name("repo-baseline");
    let base_home = home.with_file_name("home-baseline");
    std::fs::create_dir_all(base_repo.join(".git")).expect("baseline repo");
    if let Some(b) = &baseline {
        for _ in 0..10 {
            run_once(b, &["hook", "claude"], &busy, &base_repo, &base_home);
        }
    }
    let mut busy_t = Vec::new();
    let mut trivial_t = Vec::new();
    let mut noop_t = Vec::new();
    let mut base_t = Vec::new();
    for _ in 0..10 {
        run_once(bin, &["hook", "claude"], &busy, repo, home);
    }
    for _ in 0..runs {
        busy_t.push(run_once(bin, &["hook", "claude"], &busy, repo, home).0);
        trivial_t.push(run_once(bin, &["hook", "claude"], &trivial, repo, home).0);
        noop_t.push(run_once(true_bin, &[], &busy, repo, home).0);
        if let Some(b) = &baseline {
            // Its own repository and home: the landed binary's schema is older than this one's.
            base_t.push(run_once(b, &["hook", "claude"], &busy, &base_repo, &base_home).0);
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (busy, trivial, noop) = (median(busy_t), median(trivial_t), median(noop_t));
    println!("floor and shell rails: PreToolUse Bash, whole process, {runs} runs interleaved");
    println!(
        "  median compound command   {:.3} ms ({:.2}x the no-op)",
        ms(busy),
        ms(busy) / ms(noop)
    );
    println!(
        "  median `ls`               {:.3} ms ({:.2}x the no-op)",
        ms(trivial),
        ms(trivial) / ms(noop)
    );
    println!("  median no-op              {:.3} ms", ms(noop));
    println!("  compound - `ls`           {:+.3} ms", ms(busy) - ms(trivial));
    if !base_t.is_empty() {
        let base = median(base_t);
        println!(
            "  median landed binary      {:.3} ms ({:.2}x the no-op), same compound payload",
            ms(base),
            ms(base) / ms(noop)
        );
        println!("  floor and rails add       {:+.3} ms (budget +0.3 ms)", ms(busy) - ms(base));
    }
    in_process(repo, home);
}

/// The same decision work without the process around it: the floor (parse, wrappers, path
/// resolution with the filesystem) and the catastrophic and paired rails on the compound
/// command, median of 200 batches of 100 calls. Less exposed to a loaded machine than a process.
fn in_process(repo: &Path, home: &Path) {
    use tlc::policy::{floor, rails, shell};
    let command = "cd src && grep -rn \"TODO\" . | head -20; rm -rf ./build target/tmp && cargo test --release 2>&1 | tail -5 && git status --short > /tmp/status.txt";
    let ctx = floor::Context::new(
        repo.to_path_buf(),
        repo.to_path_buf(),
        std::env::var_os("HOME").map(PathBuf::from),
        home.to_path_buf(),
        floor::Context::system_temp(),
    );
    let mut batches = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        for _ in 0..100 {
            let f = floor::evaluate(&ctx, &floor::Act::Shell(std::hint::black_box(command)));
            assert!(f.is_none());
            let script = shell::parse(command).expect("parses");
            std::hint::black_box(rails::catastrophic::assess(&script, repo, repo));
            std::hint::black_box(rails::paired::assess(&script));
        }
        batches.push(t.elapsed() / 100);
    }
    println!(
        "  in-process floor + rails  {:.1} µs per call (median of 200 batches of 100)",
        median(batches).as_secs_f64() * 1e6
    );
}
