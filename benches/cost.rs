//! Cost benchmarks, whole process (run with `cargo bench --bench cost`; not part of `cargo test`):
//!
//! 1. `prices refresh litellm --from <full catalog>`: median of 5, and entries stored;
//! 2. `prices lookup claude-sonnet-4-5` against the stored full catalog and against the built-in
//!    snapshot (fresh home): median of 50 each, with a no-op process (`true`) as the yardstick;
//! 3. `obs import transcripts` of a generated set (`generate.py --sessions 3000 --messages 300`,
//!    about 1.6 GB; reused from `TLC_COST_BENCH_SET` or `target/cost-bench-set` when present), three
//!    times, each into a fresh home: median seconds, seconds per GB, responses; then
//!    `obs cost --by model --json` over it (median of 5);
//! 4. ccusage 20.0.24 `daily --offline --json` on the same files (from `TLC_CCUSAGE_DIR`, a folder
//!    where `npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24` was run), three times,
//!    each straight after one of the imports: median seconds, the ratio of the medians, and whether
//!    its token totals equal ours.
//!
//! Budgets (DESIGN.md): lookup < 5 ms; import < 10 s per GB and >= 5x faster than ccusage;
//! `obs cost` over the imported set < 100 ms.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{median, tlc};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(program: &Path, args: &[&str], home: &Path) -> (Duration, Output) {
    let start = Instant::now();
    let out = Command::new(program)
        .args(args)
        .env("TLC_HOME", home)
        .env_remove("TLC_NOW")
        .stdin(Stdio::null())
        .output()
        .expect("spawn");
    (start.elapsed(), out)
}

fn ok(program: &Path, args: &[&str], home: &Path) -> (Duration, String) {
    let (d, out) = run(program, args, home);
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (d, String::from_utf8_lossy(&out.stdout).into_owned())
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn dir_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                total += e.metadata().map_or(0, |m| m.len());
            }
        }
    }
    total
}

fn main() {
    let tlc = tlc();
    let scratch = tempfile::tempdir().expect("tempdir");
    let catalog = manifest().join("../shared/fixtures/prices/litellm-model-prices.json");
    let catalog = catalog.to_str().expect("utf-8 path");

    // 1. refresh of the full catalog
    let home = scratch.path().join("home-full");
    let mut refreshes = Vec::new();
    let mut refreshed = String::new();
    for _ in 0..5 {
        let (d, out) = ok(&tlc, &["prices", "refresh", "litellm", "--from", catalog], &home);
        refreshes.push(d);
        refreshed = out.lines().next().unwrap_or("").to_string();
    }
    println!(
        "refresh of the full LiteLLM catalog: median {} of 5 ({refreshed})",
        ms(median(refreshes))
    );

    // 2. lookups, whole process
    let noop = Path::new("true");
    let fresh = scratch.path().join("home-fresh");
    let (mut stored, mut snap, mut nothing) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..50 {
        stored.push(ok(&tlc, &["prices", "lookup", "claude-sonnet-4-5"], &home).0);
        snap.push(ok(&tlc, &["prices", "lookup", "claude-sonnet-4-5"], &fresh).0);
        nothing.push(run(noop, &[], &home).0);
    }
    let (stored, snap, nothing) = (median(stored), median(snap), median(nothing));
    println!(
        "prices lookup claude-sonnet-4-5, whole process, median of 50: stored full catalog {} ({:.1}x a no-op process), built-in snapshot on a fresh home {} ({:.1}x); no-op {} (budget < 5 ms)",
        ms(stored),
        stored.as_secs_f64() / nothing.as_secs_f64(),
        ms(snap),
        snap.as_secs_f64() / nothing.as_secs_f64(),
        ms(nothing)
    );
    assert!(!fresh.exists(), "lookup on a fresh home created files");

    // 3. import throughput
    let set = std::env::var_os("TLC_COST_BENCH_SET")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("target/cost-bench-set"));
    if !set.join("projects").is_dir() {
        println!(
            "generating the transcript set in {} (3000 sessions x 300 messages)...",
            set.display()
        );
        let gen = manifest().join("../shared/fixtures/transcripts/generate.py");
        let status = Command::new("python3")
            .arg(gen)
            .arg(&set)
            .args(["--sessions", "3000", "--messages", "300", "--prices", catalog])
            .status()
            .expect("python3");
        assert!(status.success(), "generate.py failed");
    }
    let projects = set.join("projects");
    let bytes = dir_bytes(&projects);
    let gb = bytes as f64 / 1e9;
    // Three imports, each into a fresh home, taken in turn with the three ccusage runs below so
    // that both see the same drift in the machine's speed; medians are compared.
    let runs = 3;
    let ccusage = std::env::var_os("TLC_CCUSAGE_DIR").map(PathBuf::from);
    let (mut imports, mut cc_runs, mut cc_out) = (Vec::new(), Vec::new(), None);
    let mut out = String::new();
    let mut ihome = PathBuf::new();
    for run in 0..runs {
        ihome = scratch.path().join(format!("home-import-{run}"));
        let (took, o) = ok(&tlc, &["obs", "import", "transcripts", projects.to_str().expect("utf-8")], &ihome);
        imports.push(took);
        out = o;
        if let Some(cc) = &ccusage {
            let start = Instant::now();
            let o = Command::new(cc.join("node_modules/.bin/ccusage"))
                .args(["daily", "--offline", "--json"])
                .env("CLAUDE_CONFIG_DIR", &set)
                .current_dir(cc)
                .output()
                .expect("ccusage");
            cc_runs.push(start.elapsed());
            assert!(o.status.success(), "ccusage: {}", String::from_utf8_lossy(&o.stderr));
            cc_out = Some(o.stdout);
        }
    }
    let list = |d: &[Duration]| d.iter().map(|d| format!("{:.2}", d.as_secs_f64())).collect::<Vec<_>>().join(", ");
    let import_runs = list(&imports);
    let secs = median(imports).as_secs_f64();
    println!(
        "obs import transcripts: {:.2} GB in {:.2} s (median of {runs}: {import_runs} s) = {:.2} s per GB (budget < 10 s per GB); {}",
        gb,
        secs,
        secs / gb,
        out.lines()
            .filter(|l| l.starts_with("responses") || l.starts_with("files"))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let (again, _) = ok(&tlc, &["obs", "import", "transcripts", projects.to_str().expect("utf-8")], &ihome);
    println!("second import of the same files (nothing new): {:.2} s", again.as_secs_f64());
    let mut costs = Vec::new();
    let mut report = String::new();
    for _ in 0..5 {
        let (d, out) = ok(&tlc, &["obs", "cost", "--by", "model", "--json"], &ihome);
        costs.push(d);
        report = out;
    }
    let report: serde_json::Value = serde_json::from_str(&report).expect("json");
    let totals = &report["totals"];
    println!(
        "obs cost --by model --json over {} responses: median {} of 5, whole process (budget < 100 ms)",
        totals["responses"],
        ms(median(costs))
    );
    let ours = [
        &totals["input_tokens"],
        &totals["output_tokens"],
        &totals["cache_write_tokens"],
        &totals["cache_read_tokens"],
    ]
    .map(|v| v.as_i64().unwrap_or(-1));

    // 4. ccusage on the same files (run above, in turn with the imports)
    let Some(cc_out) = cc_out else {
        println!(
            "ccusage: skipped (set TLC_CCUSAGE_DIR to a folder where `npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24` ran)"
        );
        return;
    };
    let cc_list = list(&cc_runs);
    let cc_secs = median(cc_runs).as_secs_f64();
    let v: serde_json::Value = serde_json::from_slice(&cc_out).expect("ccusage json");
    let t = &v["totals"];
    let theirs = [
        &t["inputTokens"],
        &t["outputTokens"],
        &t["cacheCreationTokens"],
        &t["cacheReadTokens"],
    ]
    .map(|v| v.as_i64().unwrap_or(-2));
    println!(
        "ccusage 20.0.24 daily --offline --json on the same files: {:.2} s (median of {runs}: {cc_list} s); tlc import is {:.1}x faster (budget >= 5x); token totals (input, output, cache create, cache read) tlc {:?} ccusage {:?}: {}",
        cc_secs,
        cc_secs / secs,
        ours,
        theirs,
        if ours == theirs { "equal" } else { "DIFFERENT" }
    );
}
