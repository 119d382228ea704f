//! Hook benchmarks, whole process (run with `cargo bench --bench hook`):
//!
//! 1. start-up (issue 37): in one interleaved run — each round starts every process below once —
//!    a PostToolUse hook (payload on stdin → row committed → response printed), a PreToolUse Bash
//!    hook (`ls`: the floor and the rails let it through), and `tlc --version`, each beside the
//!    same built the previous way, against a no-op process (`/bin/true`) started the same way:
//!    medians of wall time and of CPU time (user + system, which a machine busy with other work
//!    inflates less), ratios to the no-op and to the previous build; peak memory (max RSS) of the
//!    hook processes. Budget: both hooks under 3x the no-op. One probe line beside them: the same
//!    PostToolUse hook on a database whose views were dropped, what parsing the views costs a
//!    hook as a whole process (no budget: the views stay in the database, DESIGN.md).
//!
//!    The previous build: `TLC_BENCH_BASELINE=<a tlc binary>` when set (for instance one built
//!    from the commit before issue 37 with `git worktree add /tmp/prev <commit> && cd /tmp/prev &&
//!    cargo build --release`), else this same source built as a dynamically linked PIE, the way
//!    tlc was built before issue 37: `cargo build --release` into `target/bench-dynamic/` with the
//!    static flags of `.cargo/config.toml` switched off (`CARGO_ENCODED_RUSTFLAGS` empty). That
//!    build runs on first use (minutes) and is reused after; `TLC_BENCH_BASELINE=none` skips the
//!    comparison. Each binary records into a repository and home of its own. Each tlc binary
//!    timed (this one and the previous) is first copied to the scratch folder and dropped from
//!    the page cache (`staged`), so both start as a binary read back from disk does.
//! 2. the WAL index: what the first statement of a hook connection costs against the length of
//!    the WAL it finds (every hook process rebuilds the WAL index from the log), and what the
//!    truncating checkpoint `store::checkpoint_if_large` runs costs at each length.
//! 3. the schema parse: what a connection's first statement costs on the project database as it
//!    is, without its views, and on the home database (which the hook reads prices from when a
//!    transcript has new responses).
//! 4. the floor and shell rails: a PreToolUse Bash hook with a compound command the floor has to
//!    take apart, interleaved with the same hook given a trivially-allowed command (`ls`) and the
//!    no-op; with `TLC_BENCH_BASELINE=<a tlc built from main>` also that binary on the same
//!    payload, so the difference is what the floor and rails add (budget: +0.3 ms).
//! 5. 32 hook processes at once, 100 events each: rows stored, "database is locked" errors seen,
//!    integrity check;
//! 6. crafted redaction payloads (issue 14): a 16 MB PostToolUse of each shape that once made the
//!    redaction scan quadratic, whole process, median of `TLC_BENCH_CRAFTED_RUNS` (default 3),
//!    beside the same payload with `secrets.redactOutput = false` run interleaved.
//!
//! Figures are printed; budgets (DESIGN.md, issues 13 and 37): both hooks' median < 3x the no-op;
//! < 10 MiB; every row stored with no lock error; every crafted 16 MB payload under 1 s.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{measured, median, timed, tlc};

fn run_once(program: &Path, args: &[&str], payload: &[u8], cwd: &Path, home: &Path) -> (Duration, i64) {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(cwd).env("TLC_HOME", home);
    timed(cmd, payload)
}

/// One whole process: `program args` in `cwd` with `payload` on stdin, output discarded. Its wall
/// time from spawn to exit, its CPU time (user + system) and its peak memory (KiB).
fn run_measured(program: &Path, args: &[&str], payload: &[u8], cwd: &Path, home: &Path) -> (Duration, Duration, i64) {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(cwd).env("TLC_HOME", home).stdout(Stdio::null());
    measured(cmd, payload)
}

/// The target folder (`CARGO_TARGET_TMPDIR` is `<target>/tmp`).
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target dir").to_path_buf()
}

/// The same tlc built the previous way (see the module's comment); `None` when skipped or when it
/// could not be built (said on stderr).
fn previous_build() -> Option<PathBuf> {
    match std::env::var_os("TLC_BENCH_BASELINE") {
        Some(v) if v == "none" => return None,
        Some(v) => {
            let p = PathBuf::from(v);
            assert!(p.is_file(), "TLC_BENCH_BASELINE={}: no such file", p.display());
            return Some(p);
        }
        None => {}
    }
    let dir = target_dir().join("bench-dynamic");
    eprintln!(
        "hook bench: building this source the previous way (dynamically linked) into {} …",
        dir.display()
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--bin", "tlc", "--target-dir"])
        .arg(&dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_ENCODED_RUSTFLAGS", "")
        .env_remove("RUSTFLAGS")
        .status();
    if !matches!(status, Ok(s) if s.success()) {
        eprintln!("hook bench: the previous build failed ({status:?}); compared with nothing");
        return None;
    }
    let bin = ["x86_64-unknown-linux-gnu/release/tlc", "release/tlc"]
        .iter()
        .map(|p| dir.join(p))
        .find(|p| p.is_file())?;
    // It must be what it claims: dynamically linked.
    if !has_interpreter(&bin) {
        eprintln!("hook bench: {} is not dynamically linked; compared with nothing", bin.display());
        return None;
    }
    Some(bin)
}

/// What a line of the start-up table is: this build (a hook's line carries the budget), the
/// previous build's line of the same case, or a probe of this build under other conditions.
#[derive(Clone, Copy, PartialEq)]
enum Line {
    This,
    Previous,
    Probe,
}

/// Drops every schema object of one kind (`view`, `trigger`) from the database at `db` and
/// truncates its WAL.
fn drop_all(db: &Path, kind: &str) {
    let c = rusqlite::Connection::open(db).expect("open a copy");
    let names: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type = ?1")
        .and_then(|mut s| s.query_map([kind], |r| r.get(0))?.collect())
        .expect("names");
    for n in names {
        c.execute_batch(&format!("DROP {} \"{n}\"", kind.to_uppercase())).expect("drop");
    }
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).expect("checkpoint");
}

/// Whether the ELF file at `path` names a program interpreter (is dynamically linked).
fn has_interpreter(path: &Path) -> bool {
    let Ok(elf) = std::fs::read(path) else { return false };
    if elf.len() < 64 || &elf[..5] != b"\x7fELF\x02" {
        return false;
    }
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]);
    let phoff = u64::from_le_bytes(elf[32..40].try_into().unwrap()) as usize;
    let (phentsize, phnum) = (usize::from(u16_at(54)), usize::from(u16_at(56)));
    const PT_INTERP: u32 = 3;
    (0..phnum)
        .map(|i| phoff + i * phentsize)
        .any(|h| h + 4 <= elf.len() && u32::from_le_bytes(elf[h..h + 4].try_into().unwrap()) == PT_INTERP)
}

/// A copy of `bin` in `dir`, written to disk and dropped from the page cache, so that its first
/// start reads it back from disk, as an installed binary is after a reboot. Every tlc binary the
/// bench times is staged this way: how a file entered the page cache changes what starting it
/// costs, and a comparison must not measure that. Measured on 2026-12-03 (`perf stat`, 300
/// PostToolUse hooks each): the binary as the linker wrote it had 403 page faults, a fresh `cp`
/// of it 345 and ran 10-20 % faster; after the page cache was dropped, 404 and 403. On a
/// scratch folder in memory (tmpfs) the drop does nothing and both stay as copied: still alike.
fn staged(bin: &Path, dir: &Path, name: &str) -> PathBuf {
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(dir).expect("staging folder");
    let to = dir.join(name);
    std::fs::copy(bin, &to).unwrap_or_else(|e| panic!("copy {} to {}: {e}", bin.display(), to.display()));
    let file = std::fs::File::open(&to).expect("staged binary");
    file.sync_all().expect("staged binary written");
    // SAFETY: a valid descriptor; POSIX_FADV_DONTNEED only drops clean cached pages of this file.
    let dropped = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(dropped, 0, "posix_fadvise on {}", to.display());
    to
}

fn main() {
    let runs: usize = std::env::var("TLC_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let scratch = std::env::temp_dir().join(format!("tlc-bench-hook-{}", std::process::id()));
    let bin = staged(&tlc(), &scratch.join("bin"), "tlc");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/providers/claude");
    let payload = std::fs::read(fixtures.join("post-tool-use-bash.json")).expect("fixture");
    let repo = scratch.join("repo");
    let home = scratch.join("home");
    std::fs::create_dir_all(repo.join(".git")).expect("repo");
    let true_bin = PathBuf::from(if Path::new("/bin/true").exists() {
        "/bin/true"
    } else {
        "/usr/bin/true"
    });

    let previous = previous_build().map(|b| staged(&b, &scratch.join("bin-previous"), "tlc"));
    let (base_repo, base_home) = (scratch.join("repo-baseline"), scratch.join("home-baseline"));
    std::fs::create_dir_all(base_repo.join(".git")).expect("baseline repo");
    let pre = |repo: &Path| {
        serde_json::json!({
            "session_id": "bench-start", "cwd": repo, "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls", "description": "bench"}, "tool_use_id": "toolu_bench",
        })
        .to_string()
        .into_bytes()
    };
    // The same hook on a database whose views were dropped (the hook leaves them so; the next
    // `tlc db migrate` or a changed binary creates them again): what parsing the views costs a
    // hook as a whole process. A probe, not a budget line.
    let hook_args: &[&str] = &["hook", "claude"];
    let probe_repo = scratch.join("repo-noviews");
    std::fs::create_dir_all(probe_repo.join(".git")).expect("probe repo");
    run_measured(&bin, hook_args, &payload, &probe_repo, &home);
    let probe_db = probe_repo.join(".tlc/harness/state/tlc.db");
    drop_all(&probe_db, "view");
    // (label, program, args, payload, repository, home, what the line is)
    type Case<'a> = (&'a str, &'a Path, &'a [&'a str], Vec<u8>, &'a Path, &'a Path, Line);
    let mut cases: Vec<Case> = vec![("/bin/true", &true_bin, &[], payload.clone(), &repo, &home, Line::This)];
    let version_args: &[&str] = &["--version"];
    for (label, args, this_payload, base_payload) in [
        ("PostToolUse hook", hook_args, payload.clone(), payload.clone()),
        ("PreToolUse hook (`ls`)", hook_args, pre(&repo), pre(&base_repo)),
        ("tlc --version", version_args, Vec::new(), Vec::new()),
    ] {
        cases.push((label, &bin, args, this_payload, &repo, &home, Line::This));
        if let Some(b) = &previous {
            cases.push((label, b, args, base_payload, &base_repo, &base_home, Line::Previous));
        }
    }
    cases.push((
        "PostToolUse hook, database without views",
        &bin,
        hook_args,
        payload.clone(),
        &probe_repo,
        &home,
        Line::Probe,
    ));
    // Warm up: the first hook creates and migrates the database.
    for _ in 0..10 {
        for c in &cases {
            run_measured(c.1, c.2, &c.3, c.4, c.5);
        }
    }
    let mut wall: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    let mut cpu: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    let mut max_rss_kib = 0;
    for _ in 0..runs {
        for (i, c) in cases.iter().enumerate() {
            let (w, u, rss) = run_measured(c.1, c.2, &c.3, c.4, c.5);
            wall[i].push(w);
            cpu[i].push(u);
            if c.2 == hook_args && c.6 == Line::This {
                max_rss_kib = max_rss_kib.max(rss);
            }
        }
    }
    // The probe measured a database without views only if no hook it timed created them again.
    let probe_views: i64 = rusqlite::Connection::open_with_flags(&probe_db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'view'", [], |r| r.get(0)))
        .expect("count the probe database's views");
    assert_eq!(
        probe_views, 0,
        "the probe's hooks created its views again: its line would time the views"
    );
    let wall: Vec<f64> = wall.into_iter().map(|v| median(v).as_secs_f64() * 1e3).collect();
    let cpu: Vec<f64> = cpu.into_iter().map(|v| median(v).as_secs_f64() * 1e3).collect();
    println!("start-up: whole processes, {runs} rounds, each starting every process below once (interleaved)");
    match &previous {
        Some(b) => println!("  previous build: {}", b.display()),
        None => println!("  previous build: none (TLC_BENCH_BASELINE=none, or it could not be built)"),
    }
    println!(
        "  {:<40} {:>9} {:>10} {:>10}   {:>9} {:>10} {:>10}",
        "median", "wall", "/bin/true", "previous", "cpu", "/bin/true", "previous"
    );
    for (i, c) in cases.iter().enumerate() {
        let label = if c.6 == Line::Previous {
            format!("{}, previous build", c.0)
        } else {
            c.0.to_string()
        };
        // The previous build's line of the same case follows this binary's.
        let prev = (c.6 == Line::This && i > 0)
            .then(|| cases.get(i + 1).filter(|n| n.6 == Line::Previous).map(|_| i + 1))
            .flatten();
        let vs = |v: &[f64]| prev.map(|p| format!("{:.2}x", v[i] / v[p])).unwrap_or_default();
        let budget = if c.2 == hook_args && c.6 == Line::This {
            if wall[i] / wall[0] < 3.0 {
                "  under 3x"
            } else {
                "  OVER 3x"
            }
        } else {
            ""
        };
        println!(
            "  {label:<40} {:>6.3} ms {:>9.2}x {:>10}   {:>6.3} ms {:>9.2}x {:>10}{budget}",
            wall[i],
            wall[i] / wall[0],
            vs(&wall),
            cpu[i],
            cpu[i] / cpu[0],
            vs(&cpu),
        );
    }
    println!(
        "  peak memory {:.1} MiB (max RSS of this build's hook processes)",
        max_rss_kib as f64 / 1024.0
    );

    wal_index(&bin, &scratch);
    schema_parse(&repo, &scratch);
    // The floor's comparison is with a binary named by TLC_BENCH_BASELINE only (one built from
    // main), never with the dynamically linked build of this source.
    let landed = std::env::var_os("TLC_BENCH_BASELINE").is_some_and(|v| v != "none");
    floor_case(&bin, previous.as_deref().filter(|_| landed), &true_bin, &repo, &home, runs);

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
fn floor_case(bin: &Path, baseline: Option<&Path>, true_bin: &Path, repo: &Path, home: &Path, runs: usize) {
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

/// The same decision work without the process around it: the parse, the floor (wrappers, path
/// resolution with the filesystem) and the catastrophic and paired rails on the compound
/// command, median of 200 batches of 100 calls. Less exposed to a loaded machine than a process.
fn in_process(repo: &Path, home: &Path) {
    use tlc::policy::{floor, rails, shell};
    let compound = "cd src && grep -rn \"TODO\" . | head -20; rm -rf ./build target/tmp && cargo test --release 2>&1 | tail -5 && git status --short > /tmp/status.txt";
    let ctx = floor::Context::new(
        repo.to_path_buf(),
        repo.to_path_buf(),
        std::env::var_os("HOME").map(PathBuf::from),
        home.to_path_buf(),
        floor::Context::system_temp(),
    );
    // As the hook does it: the line parsed once, the floor's walk (recording the commands run
    // when the line names git or a remover, as the compound line does), the rails on the same parse.
    let batch = |command: &str| {
        let recording = command.contains("git") || command.contains("rm ");
        let t = Instant::now();
        for _ in 0..100 {
            let script = shell::parse(std::hint::black_box(command)).expect("parses");
            let (f, ran) = floor::evaluate_parsed(&ctx, command, &script, recording);
            assert!(f.is_none(), "{command}: {f:?}");
            std::hint::black_box(ran);
            std::hint::black_box(rails::catastrophic::assess(&script, repo, repo));
            std::hint::black_box(rails::paired::assess(&script));
        }
        t.elapsed() / 100
    };
    let (mut busy, mut trivial) = (Vec::new(), Vec::new());
    for _ in 0..200 {
        busy.push(batch(compound));
        trivial.push(batch("ls"));
    }
    let (busy, trivial) = (median(busy).as_secs_f64() * 1e6, median(trivial).as_secs_f64() * 1e6);
    println!("  in-process floor + rails  {busy:.1} µs per call on the compound command, {trivial:.1} µs on `ls` (medians of 200 batches of 100, interleaved)");
    println!(
        "  in-process compound - `ls` {:+.3} ms (the floor's cost on a compound line without the process around it)",
        (busy - trivial) / 1e3
    );
}

/// Copies the database `from` (and its `-wal`, when there is one) to `to`, with no `-shm`: as a
/// hook process finds it when no other connection is open.
fn copy_db(from: &Path, to: &Path) {
    let side = |p: &Path, s: &str| {
        let mut n = p.as_os_str().to_os_string();
        n.push(s);
        PathBuf::from(n)
    };
    for s in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(side(to, s));
    }
    std::fs::copy(from, to).expect("copy the database");
    if side(from, "-wal").exists() {
        std::fs::copy(side(from, "-wal"), side(to, "-wal")).expect("copy the WAL");
    }
}

/// WAL frames in the `-wal` file of `db` (32-byte header, then 24 + 4096 bytes a frame).
fn wal_frames(db: &Path) -> u64 {
    let mut n = db.as_os_str().to_os_string();
    n.push("-wal");
    std::fs::metadata(PathBuf::from(n))
        .map(|m| m.len().saturating_sub(32) / (24 + 4096))
        .unwrap_or(0)
}

/// The WAL index every hook process rebuilds: a hook's connection is the only one open, so SQLite
/// finds no shared-memory index it can trust and rebuilds it by reading and checksumming every
/// frame of the WAL. Measured in-process on copies of one project database whose WAL holds 0 to
/// 512 frames of event inserts (a copy per run, no `-shm`): `store::open_hook` and the first
/// statement, and the `PRAGMA wal_checkpoint(TRUNCATE)` that `store::checkpoint_if_large` runs.
/// Then the frames one PostToolUse hook adds, and what a hook pays on average for each limit.
fn wal_index(bin: &Path, scratch: &Path) {
    use tlc::store::{self, DbKind};
    let dir = scratch.join("wal");
    std::fs::create_dir_all(&dir).expect("wal dir");
    let fresh = dir.join("fresh.db");
    drop(store::open_write(DbKind::Project, &fresh).expect("migrate"));
    let lengths = [0u64, 32, 64, 128, 256, 512];
    let mut templates = Vec::new();
    for &frames in &lengths {
        let t = dir.join(format!("t{frames}.db"));
        copy_db(&fresh, &t);
        let conn = rusqlite::Connection::open(&t).expect("open template");
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .expect("no checkpoint on close");
        conn.execute_batch("PRAGMA wal_autocheckpoint = 0; PRAGMA wal_checkpoint(TRUNCATE);")
            .expect("pragmas");
        let mut i = 0;
        while wal_frames(&t) < frames {
            i += 1;
            conn.execute(
                "INSERT INTO events (ts, provider, kind, plane, session_id, attrs, payload) VALUES (?1, 'claude', 'shell.end', 'signal', 'bench', '{}', ?2)",
                rusqlite::params![format!("2026-12-01T00:00:{:02}.{:03}Z", i / 1000 % 60, i % 1000), "x".repeat(600)],
            )
            .expect("insert");
        }
        drop(conn);
        templates.push((frames, wal_frames(&t), t));
    }
    let work = dir.join("work.db");
    let rounds = 100;
    let mut open_t: Vec<Vec<Duration>> = vec![Vec::new(); templates.len()];
    let mut ckpt_t: Vec<Vec<Duration>> = vec![Vec::new(); templates.len()];
    for _ in 0..rounds {
        for (i, (_, _, t)) in templates.iter().enumerate() {
            copy_db(t, &work);
            let start = Instant::now();
            let conn = store::open_hook(DbKind::Project, &work).expect("open_hook");
            let _: i64 = conn
                .query_row("SELECT count(*) FROM sessions", [], |r| r.get(0))
                .expect("first statement");
            open_t[i].push(start.elapsed());
            let start = Instant::now();
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .expect("checkpoint");
            ckpt_t[i].push(start.elapsed());
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let open: Vec<f64> = open_t.into_iter().map(|v| ms(median(v))).collect();
    let ckpt: Vec<f64> = ckpt_t.into_iter().map(|v| ms(median(v))).collect();

    // The frames one PostToolUse hook adds to a WAL the last checkpoint emptied.
    let repo = dir.join("repo");
    let home = dir.join("home");
    std::fs::create_dir_all(repo.join(".git")).expect("repo");
    let payload = br#"{"hook_event_name":"PostToolUse","session_id":"bench-wal","cwd":"/repo","tool_name":"Bash","tool_use_id":"t-1","tool_input":{"command":"ls"},"tool_response":{"stdout":"a\nb\n"}}"#;
    run_once(bin, &["hook", "claude"], payload, &repo, &home);
    let db = repo.join(".tlc/harness/state/tlc.db");
    let c = rusqlite::Connection::open(&db).expect("open");
    c.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
        .expect("no checkpoint on close");
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).expect("truncate");
    drop(c);
    let mut per_hook = Vec::new();
    for i in 0..8 {
        let before = wal_frames(&db);
        let p = String::from_utf8_lossy(payload).replace("t-1", &format!("t-w{i}"));
        run_once(bin, &["hook", "claude"], p.as_bytes(), &repo, &home);
        per_hook.push(wal_frames(&db).saturating_sub(before));
    }
    per_hook.sort();
    let k = per_hook[per_hook.len() / 2].max(1) as f64;

    println!(
        "WAL index: a hook connection's open and first statement against the WAL it finds, {rounds} runs each, interleaved (in-process)"
    );
    println!(
        "  {:>7} {:>9} {:>12} {:>12} {:>14}",
        "frames", "WAL", "open + first", "rebuild", "TRUNCATE ckpt"
    );
    for (i, (_, frames, _)) in templates.iter().enumerate() {
        println!(
            "  {frames:>7} {:>5} KiB {:>9.3} ms {:>+9.3} ms {:>11.3} ms",
            (frames * (4096 + 24) + 32) / 1024,
            open[i],
            open[i] - open[0],
            ckpt[i]
        );
    }
    let (last, first) = (templates.len() - 1, 0);
    let per_frame_us = (open[last] - open[first]) * 1e3 / (templates[last].1 - templates[first].1).max(1) as f64;
    println!(
        "  rebuild: {per_frame_us:.2} µs a frame (0 to {} frames); one PostToolUse hook adds {k} frames (median of 8)",
        templates[last].1
    );
    println!(
        "  a hook for a checkpoint limit L (store::HOOK_WAL_LIMIT_PAGES = {}): typically the rebuild at L/2 frames; on average also a TRUNCATE at L every L/{k} hooks",
        store::HOOK_WAL_LIMIT_PAGES
    );
    for (i, (_, frames, _)) in templates.iter().enumerate().skip(1) {
        let l = *frames as f64;
        let half = l / 2.0;
        // The rebuild at L/2, interpolated on the measured lengths.
        let rebuild = {
            let j = templates.iter().rposition(|t| t.1 as f64 <= half).unwrap_or(0);
            let (x0, y0) = (templates[j].1 as f64, open[j] - open[0]);
            let (x1, y1) = templates
                .get(j + 1)
                .map(|t| (t.1 as f64, open[j + 1] - open[0]))
                .unwrap_or((x0 + 1.0, y0));
            y0 + (y1 - y0) * (half - x0) / (x1 - x0)
        };
        println!(
            "    L = {frames:>4}: {:>6.3} ms rebuild + {:>6.3} ms checkpoint = {:>6.3} ms a hook on average",
            rebuild.max(0.0),
            ckpt[i] * k / l,
            rebuild.max(0.0) + ckpt[i] * k / l
        );
    }
}

/// The schema SQLite parses on a connection's first statement: every table, index, trigger and
/// view of the database. In-process, a fresh read-only connection and one `SELECT` per run,
/// interleaved over copies of the project database (as the hook left it, and without its views)
/// and of a migrated home database (as it is, without its triggers, without its views).
fn schema_parse(repo: &Path, scratch: &Path) {
    use tlc::store::{self, DbKind};
    let dir = scratch.join("schema");
    std::fs::create_dir_all(&dir).expect("schema dir");
    let project = dir.join("project.db");
    copy_db(&repo.join(".tlc/harness/state/tlc.db"), &project);
    let home = dir.join("home.db");
    drop(store::open_write(DbKind::Home, &home).expect("migrate home"));
    let without = |from: &Path, name: &str, kind: &str| {
        let to = dir.join(name);
        copy_db(from, &to);
        drop_all(&to, kind);
        to
    };
    let mut dbs = vec![
        ("project database", project.clone()),
        ("  without its views", without(&project, "project-noviews.db", "view")),
        ("home database", home.clone()),
        ("  without its triggers", without(&home, "home-notriggers.db", "trigger")),
        ("  without its views", without(&home, "home-noviews.db", "view")),
    ];
    for (_, p) in &mut dbs {
        let c = rusqlite::Connection::open(&*p).expect("open");
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).expect("checkpoint");
    }
    let counts = |p: &Path| -> String {
        let c = rusqlite::Connection::open(p).expect("open");
        let n = |t: &str| -> i64 {
            c.query_row("SELECT count(*) FROM sqlite_master WHERE type = ?1", [t], |r| r.get(0))
                .expect("count")
        };
        format!(
            "{} tables, {} indexes, {} triggers, {} views",
            n("table"),
            n("index"),
            n("trigger"),
            n("view")
        )
    };
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut open_only = Vec::new();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); dbs.len()];
    for _ in 0..400 {
        for (i, (_, p)) in dbs.iter().enumerate() {
            let start = Instant::now();
            let c = rusqlite::Connection::open_with_flags(p, flags).expect("open");
            let _: i64 = c.query_row("SELECT 1 FROM sqlite_master LIMIT 1", [], |r| r.get(0)).expect("first");
            times[i].push(start.elapsed());
            drop(c);
            if i == 0 {
                // The same open with a statement that needs no schema.
                let start = Instant::now();
                let c = rusqlite::Connection::open_with_flags(p, flags).expect("open");
                let _: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).expect("user_version");
                open_only.push(start.elapsed());
            }
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let open_only = ms(median(open_only));
    println!("schema parse: a fresh connection's first statement, 400 runs each, interleaved (in-process)");
    println!("  open + `PRAGMA user_version` (no schema read): {open_only:.3} ms");
    for (i, (label, p)) in dbs.iter().enumerate() {
        let t = ms(median(std::mem::take(&mut times[i])));
        println!("  {label:<24} {t:.3} ms, schema {:.3} ms ({})", t - open_only, counts(p));
    }
}
