//! `tlc serve` over the bench set, whole process (run with `cargo bench --bench serve`):
//!
//! 1. the bench set: a project database of 1,000,000 events (`obs import jsonl` of the records the
//!    reports bench generates) and a home database of 900,000 responses (`obs import transcripts`
//!    of the cost bench's transcript set, generated into `target/cost-bench-set` when missing).
//!    Both are kept in `target/serve-bench-set` and reused;
//! 2. each page's render time at the server (its `Server-Timing`), median of 30 rounds, every
//!    round fetching each page and a static asset (the baseline) interleaved; budget < 50 ms;
//! 3. 32 concurrent clients × 100 requests each over the pages and their JSON while 4 writers run
//!    `tlc hook claude` in the same repository: how many answered 200, errors, bodies saying
//!    `database is locked`, and what the hooks stored.
//!
//! `TLC_BENCH_EVENTS` changes the project database's size (default 1,000,000).
//!
//! `TLC_BENCH_BASELINE=<a tlc binary>` (for instance one built from main before a change) also
//! serves a bench set of its own, built by that binary from the same records and transcripts (in
//! `target/serve-bench-set-baseline`, reused while the binary's `--version` is the same: a
//! database a newer tlc migrated is refused by an older one): every round asks both servers the
//! same pages, interleaved, and step 3 runs against each in turn, so the two are measured in the
//! same run. Besides the render time, each page's whole round trip at the client (connect, ask,
//! read to the end) is printed: what the HTTP layer adds.
//!
//! Every request carries the token the server printed in its URL (none for a baseline that
//! printed none).

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;
use common::{median, tlc};

/// The clock the server runs at: inside the home set's two and a half years, so today, this
/// week, this month and the block have responses.
const NOW: &str = "2027-06-15T12:00:00Z";

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run_with(bin: &Path, args: &[&str], cwd: &Path, home: &Path) -> String {
    let out = Command::new(bin)
        .args(args)
        .current_dir(cwd)
        .env("TLC_HOME", home)
        .env_remove("TLC_NOW")
        .stdin(Stdio::null())
        .output()
        .expect("run tlc");
    assert!(out.status.success(), "tlc {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const KINDS: &[(&str, &str)] = &[
    ("prompt.submit", "signal"),
    ("tool.start", "audit"),
    ("tool.end", "audit"),
    ("shell.start", "audit"),
    ("shell.end", "audit"),
    ("generation.end", "signal"),
    ("agent.response", "signal"),
    ("tool.fail", "signal"),
];

/// The reports bench's observability records: `total` events over `total / 1000` sessions.
fn write_records(file: &Path, total: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(file).expect("records file"));
    let sessions = (total / 1000).max(1);
    let per = total / sessions;
    let mut n = 0usize;
    for s in 0..sessions {
        for e in 0..per {
            let (kind, level) = KINDS[(e + s) % KINDS.len()];
            let day = 1 + (s * 28 / sessions);
            let ts = format!(
                "2026-10-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
                (e / 3600) % 24,
                (e / 60) % 60,
                e % 60,
                n % 1000
            );
            let gen = if kind == "generation.end" {
                format!(
                    r#","gen_ai":{{"input_tokens":{},"output_tokens":{},"cache_read_tokens":{},"cache_write_tokens":{},"cost_usd":{}}}"#,
                    e % 50,
                    e % 900,
                    e * 7 % 9000,
                    e % 300,
                    (e % 900) as f64 * 1.5e-5
                )
            } else {
                String::new()
            };
            let tool = if kind.starts_with("tool") || kind.starts_with("shell") {
                r#""tool":"Bash""#
            } else {
                ""
            };
            writeln!(
                f,
                r#"{{"schema":"harness.observability.v1","provider":"claude","kind":"{kind}","level":"{level}","ts":"{ts}","trace_id":"t{s}","span_id":"sp{n}","parent_span_id":null,"session_id":"bench-{s}","model":"claude-sonnet-4-5","attrs":{{{tool}}}{gen}}}"#
            )
            .expect("write");
            n += 1;
        }
    }
}

/// The bench set `bin` serves, built once by it into `dir` (a stamp names its size and, for a
/// baseline, the binary's version).
fn bench_set(total: usize, bin: &Path, dir: &Path, version: &str) -> (PathBuf, PathBuf) {
    let run = |args: &[&str], cwd: &Path, home: &Path| run_with(bin, args, cwd, home);
    let (repo, home) = (dir.join("repo"), dir.join("home"));
    let stamp = dir.join("ready");
    let want = format!("events={total} transcripts=cost-bench-set{version}\n");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(want.as_str()) {
        // Views change between builds: bring both databases to this binary's (no data moves).
        run(&["db", "migrate"], &repo, &home);
        return (repo, home);
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(repo.join(".git")).expect("repo");
    let records = dir.join("obs.jsonl");
    write_records(&records, total);
    let t = Instant::now();
    run(&["obs", "import", "jsonl", records.to_str().expect("path")], &repo, &home);
    println!(
        "bench set{version}: {total} events imported into the project database in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_file(&records);
    let set = std::env::var_os("TLC_COST_BENCH_SET")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("target/cost-bench-set"));
    if !set.join("projects").is_dir() {
        println!(
            "generating the transcript set in {} (3000 sessions x 300 messages)...",
            set.display()
        );
        let st = Command::new("python3")
            .arg(manifest().join("../shared/fixtures/transcripts/generate.py"))
            .arg(&set)
            .args(["--sessions", "3000", "--messages", "300", "--prices"])
            .arg(manifest().join("../shared/fixtures/prices/litellm-model-prices.json"))
            .status()
            .expect("python3");
        assert!(st.success(), "generate.py failed");
    }
    let t = Instant::now();
    let out = run(
        &["obs", "import", "transcripts", set.join("projects").to_str().expect("path")],
        &repo,
        &home,
    );
    println!(
        "bench set{version}: transcripts imported into the home database in {:.1} s ({})",
        t.elapsed().as_secs_f64(),
        out.lines().nth(1).unwrap_or("")
    );
    std::fs::write(&stamp, want).expect("stamp");
    (repo, home)
}

/// An HTTP answer: status, `Server-Timing` in ms, the round trip at the client in ms, body size,
/// whether the body says "database is locked".
struct Answer {
    status: u16,
    render_ms: f64,
    wall_ms: f64,
    bytes: usize,
    locked: bool,
}

/// A running `tlc serve`: where it listens and the token it printed (none from a baseline older
/// than the token).
struct Server {
    child: std::process::Child,
    port: u16,
    host: String,
    /// The header line that carries the token, or nothing.
    auth: String,
}

impl Server {
    fn start(bin: &Path, repo: &Path, home: &Path) -> Server {
        let mut child = Command::new(bin)
            .args(["serve", "--port", "0"])
            .current_dir(repo)
            .env("TLC_HOME", home)
            .env("TLC_NOW", NOW)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tlc serve");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the URL");
        let url = line.trim();
        let rest = url.trim_start_matches("http://");
        let host = rest.split('/').next().unwrap_or("").to_string();
        let port: u16 = host.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port");
        let auth = match url.split_once("?token=") {
            Some((_, t)) => format!("Authorization: Bearer {t}\r\n"),
            None => String::new(),
        };
        Server { child, port, host, auth }
    }

    fn get(&self, path: &str) -> Result<Answer, String> {
        get(self.port, &self.host, &self.auth, path)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn get(port: u16, host: &str, auth: &str, path: &str) -> Result<Answer, String> {
    let t = Instant::now();
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(120))).map_err(|e| e.to_string())?;
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{auth}\r\n").as_bytes())
        .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).map_err(|e| e.to_string())?;
    let wall_ms = t.elapsed().as_secs_f64() * 1000.0;
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n").ok_or("no HTTP head")?;
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let status = head
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or("no status")?;
    let render_ms = head
        .lines()
        .find_map(|l| l.strip_prefix("Server-Timing: render;dur="))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN);
    let body = &buf[end + 4..];
    // SQLite's own words: a page may say "blocked" (a blocked stop) and mean no lock.
    let locked = body.windows(18).any(|w| w == b"database is locked");
    Ok(Answer {
        status,
        render_ms,
        wall_ms,
        bytes: body.len(),
        locked,
    })
}

fn median_ms(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v[v.len() / 2]
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// The medians of one server over the rounds: per page its render times, round trips and size.
#[derive(Default, Clone)]
struct Times {
    render: Vec<f64>,
    wall: Vec<f64>,
    bytes: usize,
}

fn ask(server: &Server, path: &str, into: &mut Times) {
    let a = server.get(path).expect("request");
    assert_eq!(a.status, 200, "{path}");
    into.render.push(a.render_ms);
    into.wall.push(a.wall_ms);
    into.bytes = a.bytes;
}

/// Step 3 against `server`: 32 clients x 100 requests while 4 writers run `bin`'s hook in `repo`.
fn load(name: &str, server: &Server, bin: &Path, repo: &Path, home: &Path) {
    let stop = Arc::new(AtomicBool::new(false));
    let hooks_run = Arc::new(AtomicUsize::new(0));
    let hooks_failed = Arc::new(AtomicUsize::new(0));
    let db = repo.join(".tlc/harness/state/tlc.db");
    let count = |sql: &str| -> i64 {
        let c = rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open");
        c.query_row(sql, [], |r| r.get(0)).expect(sql)
    };
    let events_before = count("SELECT count(*) FROM events");
    let faults_before = count("SELECT count(*) FROM events WHERE kind = 'hook.fault'");
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (stop, run, failed) = (stop.clone(), hooks_run.clone(), hooks_failed.clone());
            let (bin, repo, home) = (bin.to_path_buf(), repo.to_path_buf(), home.to_path_buf());
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    let payload = format!(
                        r#"{{"hook_event_name":"PostToolUse","session_id":"serve-bench-{w}","cwd":"{}","tool_name":"Bash","tool_input":{{"command":"echo {n}"}},"tool_response":{{"stdout":"{n}","stderr":"","interrupted":false}}}}"#,
                        repo.display()
                    );
                    let mut c = Command::new(&bin)
                        .args(["hook", "claude"])
                        .current_dir(&repo)
                        .env("TLC_HOME", &home)
                        .env_remove("TLC_NOW")
                        .stdin(Stdio::piped())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn()
                        .expect("tlc hook");
                    let _ = c.stdin.take().expect("stdin").write_all(payload.as_bytes());
                    let ok = c.wait().map(|s| s.success()).unwrap_or(false);
                    if !ok {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                    run.fetch_add(1, Ordering::Relaxed);
                    n += 1;
                }
            })
        })
        .collect();
    let mix = [
        "/",
        "/sessions",
        "/sessions/bench-700",
        "/cost",
        "/gates",
        "/policy",
        "/api/overview",
        "/api/sessions?limit=10",
        "/api/cost",
        "/projects",
    ];
    let clients = 32;
    let per = 100;
    let start = Instant::now();
    let results: Vec<Vec<Result<(Answer, Duration), String>>> = (0..clients)
        .map(|c| {
            let (port, host, auth) = (server.port, server.host.clone(), server.auth.clone());
            std::thread::spawn(move || {
                (0..per)
                    .map(|i| {
                        let t = Instant::now();
                        get(port, &host, &auth, mix[(c + i) % mix.len()]).map(|a| (a, t.elapsed()))
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().expect("client thread"))
        .collect();
    let took = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        let _ = w.join();
    }
    let all: Vec<&Result<(Answer, Duration), String>> = results.iter().flatten().collect();
    let answered = all.iter().filter(|r| matches!(r, Ok((a, _)) if a.status == 200)).count();
    let errors: Vec<String> = all
        .iter()
        .filter_map(|r| match r {
            Err(e) => Some(e.clone()),
            Ok((a, _)) if a.status != 200 => Some(format!("status {}", a.status)),
            _ => None,
        })
        .collect();
    let locked = all.iter().filter(|r| matches!(r, Ok((a, _)) if a.locked)).count();
    let latencies: Vec<Duration> = all.iter().filter_map(|r| r.as_ref().ok().map(|(_, d)| *d)).collect();
    let events_after = count("SELECT count(*) FROM events");
    let faults_after = count("SELECT count(*) FROM events WHERE kind = 'hook.fault'");
    let pending = repo.join(".tlc/harness/state/hook-pending.jsonl").exists();
    println!(
        "{name}: {clients} concurrent clients x {per} requests: {answered} of {} answered 200 in {:.1} s ({:.0} requests/s; latency median {:.1} ms, p99 {:.1} ms); errors: {}; bodies saying \"database is locked\": {locked}",
        clients * per,
        took.as_secs_f64(),
        (clients * per) as f64 / took.as_secs_f64(),
        median(latencies.clone()).as_secs_f64() * 1000.0,
        percentile(latencies.iter().map(|d| d.as_secs_f64() * 1000.0).collect(), 0.99),
        if errors.is_empty() { "none".to_string() } else { format!("{} ({})", errors.len(), errors[0]) }
    );
    println!(
        "{name}: meanwhile {} hook processes ran ({} exited non-zero): {} events stored, {} new hook faults, events kept for later (hook-pending.jsonl): {}",
        hooks_run.load(Ordering::Relaxed),
        hooks_failed.load(Ordering::Relaxed),
        events_after - events_before,
        faults_after - faults_before,
        if pending { "yes" } else { "none" }
    );
}

fn main() {
    let total: usize = std::env::var("TLC_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let (repo, home) = bench_set(total, &tlc(), &manifest().join("target/serve-bench-set"), "");
    let baseline = std::env::var_os("TLC_BENCH_BASELINE").filter(|v| v != "none").map(|v| {
        let bin = PathBuf::from(v);
        assert!(bin.is_file(), "TLC_BENCH_BASELINE={}: no such file", bin.display());
        let out = Command::new(&bin).arg("--version").output().expect("the baseline's --version");
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let (repo, home) = bench_set(
            total,
            &bin,
            &manifest().join("target/serve-bench-set-baseline"),
            &format!(" ({version})"),
        );
        (bin, version, repo, home)
    });
    let ours = Server::start(&tlc(), &repo, &home);
    println!(
        "tlc serve on port {} over {total} events (project) and the home set, clock {NOW}",
        ours.port
    );
    let theirs = baseline.as_ref().map(|(bin, version, repo, home)| {
        let s = Server::start(bin, repo, home);
        println!("baseline: {version}, on port {} over its own bench set", s.port);
        s
    });

    // 2. Render time at the server, interleaved with the baseline (a static asset).
    let pages = [
        "/",
        "/cost",
        "/cost?by=week",
        "/projects",
        "/sessions",
        "/sessions/bench-500",
        "/gates",
        "/policy",
        "/prices?model=claude-sonnet-4-5",
        "/api/overview",
        "/api/sessions/bench-500",
        "/cost?timezone=Europe/Berlin",
    ];
    let asset = "/assets/style.css";
    for server in std::iter::once(&ours).chain(theirs.as_ref()) {
        for p in pages.iter().chain([&asset]) {
            let a = server.get(p).expect("warm-up request");
            assert_eq!(a.status, 200, "{p}");
        }
    }
    let rounds = 30;
    let mut times: Vec<Times> = vec![Times::default(); pages.len()];
    let mut base_times: Vec<Times> = vec![Times::default(); pages.len()];
    let mut asset_times = Times::default();
    let mut base_asset = Times::default();
    for _ in 0..rounds {
        for (i, p) in pages.iter().enumerate() {
            ask(&ours, p, &mut times[i]);
            ask(&ours, asset, &mut asset_times);
            if let Some(b) = &theirs {
                ask(b, p, &mut base_times[i]);
                ask(b, asset, &mut base_asset);
            }
        }
    }
    let asset_ms = median_ms(asset_times.render.clone());
    println!(
        "render time at the server (Server-Timing), median of {rounds}, interleaved with {asset} (median {asset_ms:.3} ms, round trip {:.3} ms); budget < 50 ms:",
        median_ms(asset_times.wall.clone())
    );
    for (i, p) in pages.iter().enumerate() {
        let m = median_ms(times[i].render.clone());
        println!(
            "  {p:<34} {m:>8.2} ms  (max {:>8.2} ms, {:>6.0}x the asset, {} bytes; round trip {:.2} ms){}",
            times[i].render.iter().copied().fold(0.0, f64::max),
            m / asset_ms.max(1e-6),
            times[i].bytes,
            median_ms(times[i].wall.clone()),
            if m < 50.0 { "" } else { "  OVER BUDGET" }
        );
    }
    if let Some((_, version, _, _)) = &baseline {
        println!(
            "against the baseline ({version}), the same rounds interleaved: median render time and round trip, this build / baseline:"
        );
        let ratio = |a: f64, b: f64| if b > 0.0 { format!("{:.2}x", a / b) } else { "-".into() };
        for (i, p) in pages.iter().enumerate().map(|(i, p)| (i, *p)).chain([(usize::MAX, asset)]) {
            let (t, b) = if i == usize::MAX {
                (&asset_times, &base_asset)
            } else {
                (&times[i], &base_times[i])
            };
            let (tr, br) = (median_ms(t.render.clone()), median_ms(b.render.clone()));
            let (tw, bw) = (median_ms(t.wall.clone()), median_ms(b.wall.clone()));
            println!(
                "  {p:<34} render {tr:>8.2} / {br:>8.2} ms ({})   round trip {tw:>8.2} / {bw:>8.2} ms ({})",
                ratio(tr, br),
                ratio(tw, bw)
            );
        }
    }

    // 3. 32 clients x 100 requests while hooks write.
    load("this build", &ours, &tlc(), &repo, &home);
    if let (Some(b), Some((bin, version, repo, home))) = (&theirs, &baseline) {
        load(&format!("baseline ({version})"), b, bin, repo, home);
    }
}
