//! Report benchmarks, whole process (run with `cargo bench --bench reports`):
//!
//! - `obs report` for one session in a project database of 1,000,000 events (budget < 100 ms);
//! - the cross-repository rollups over 1,000,000 spool rows: `obs report --all-repos` and, where
//!   the cost command is built, `obs cost --by day` (budget < 1 s);
//! - CSV export throughput (rows/s);
//! - and, as the bulk path that fills them, `obs import jsonl` throughput.
//!
//! `TLC_BENCH_EVENTS` changes the size (default 1,000,000).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn run(bin: &Path, args: &[&str], cwd: &Path, home: &Path) -> (Duration, bool) {
    let start = Instant::now();
    let out = Command::new(bin)
        .args(args)
        .current_dir(cwd)
        .env("TLC_HOME", home)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run tlc");
    let t = start.elapsed();
    if !out.status.success() {
        eprintln!("tlc {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    (t, out.status.success())
}

fn median_of(n: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut v: Vec<Duration> = (0..n).map(|_| f()).collect();
    v.sort();
    v[v.len() / 2]
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

fn main() {
    let total: usize = std::env::var("TLC_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_tlc"));
    let scratch = std::env::temp_dir().join(format!("tlc-bench-reports-{}", std::process::id()));
    let repo = scratch.join("repo");
    let home = scratch.join("home");
    std::fs::create_dir_all(repo.join(".git")).expect("repo");
    let sessions = (total / 1000).max(1);
    let per = total / sessions;

    // 1. Observability records for the project database, and spool lines for the home database.
    let obs_file = scratch.join("obs.jsonl");
    let spool_file = scratch.join("spool.jsonl");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&obs_file).expect("obs file"));
        let mut g = std::io::BufWriter::new(std::fs::File::create(&spool_file).expect("spool file"));
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
                writeln!(
                    g,
                    r#"{{"repo":"/src/repo-{r}","project":"repo-{r}","stream":"obs","record":{{"kind":"{kind}","ts":"{ts}","provider":"claude","session_id":"bench-{s}","model":"claude-sonnet-4-5","n":{n}{gen}}}}}"#,
                    r = s % 20
                )
                .expect("write");
                n += 1;
            }
        }
    }
    let obs_bytes = std::fs::metadata(&obs_file).map(|m| m.len()).unwrap_or(0);
    let (t, ok) = run(&bin, &["obs", "import", "jsonl", obs_file.to_str().expect("path")], &repo, &home);
    assert!(ok, "import failed");
    println!(
        "import jsonl: {total} observability records ({:.0} MB) in {:.2} s = {:.0} records/s",
        obs_bytes as f64 / 1e6,
        t.as_secs_f64(),
        total as f64 / t.as_secs_f64()
    );
    let (t, ok) = run(&bin, &["obs", "import", "jsonl", spool_file.to_str().expect("path")], &repo, &home);
    assert!(ok, "spool import failed");
    println!(
        "import jsonl: {total} spool lines in {:.2} s = {:.0} lines/s",
        t.as_secs_f64(),
        total as f64 / t.as_secs_f64()
    );

    // 2. obs report for one session among them, whole process.
    let target = format!("bench-{}", sessions / 2);
    let noop = median_of(20, || run(&bin, &["--version"], &repo, &home).0);
    let report = median_of(20, || run(&bin, &["obs", "report", &target, "--json"], &repo, &home).0);
    let latest = median_of(20, || run(&bin, &["obs", "report"], &repo, &home).0);
    println!("obs report, one session of {per} events among {total}: median {:.1} ms (json), {:.1} ms (latest session, table); tlc --version {:.1} ms", report.as_secs_f64() * 1e3, latest.as_secs_f64() * 1e3, noop.as_secs_f64() * 1e3);

    // 3. Cross-repository rollups over the spool.
    let all = median_of(5, || run(&bin, &["obs", "report", "--all-repos", "--json"], &repo, &home).0);
    println!(
        "obs report --all-repos over {total} spool rows: median {:.1} ms",
        all.as_secs_f64() * 1e3
    );
    let (probe, has_cost) = run(&bin, &["obs", "cost", "--help"], &repo, &home);
    let _ = probe;
    if has_cost {
        let cost = median_of(5, || run(&bin, &["obs", "cost", "--by", "day", "--json"], &repo, &home).0);
        println!(
            "obs cost --by day over {total} spooled generations' home database: median {:.1} ms",
            cost.as_secs_f64() * 1e3
        );
    }

    // 4. CSV export throughput.
    let out = scratch.join("events.csv");
    let (t, ok) = run(
        &bin,
        &["obs", "export", "event_log", "--out", out.to_str().expect("path")],
        &repo,
        &home,
    );
    assert!(ok, "export failed");
    let bytes = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    println!(
        "obs export event_log --format csv: {total} rows ({:.0} MB) in {:.2} s = {:.0} rows/s",
        bytes as f64 / 1e6,
        t.as_secs_f64(),
        total as f64 / t.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
