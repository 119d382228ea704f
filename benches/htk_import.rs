//! harness-toolkit's records at scale (run with `cargo bench --bench htk_import`): the generator
//! `tools/gen-htk-records.py` writes 300,000 records of the shape of
//! ../shared/fixtures/harness-toolkit/ (`TLC_BENCH_HTK_RECORDS` changes the count), `tlc obs import
//! jsonl` imports them into a scratch repository, and the bench checks the counts — sessions,
//! prompts, gate passes, failures, reused verdicts and deferrals, decisions — against the fixture's
//! own `count.py` times the copies, then imports the file again and checks that nothing was added.
//! It prints the time of each import.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

mod common;
use common::tlc;

fn run(bin: &Path, args: &[&str], repo: &Path, home: &Path) -> (std::time::Duration, String) {
    let start = Instant::now();
    let out = Command::new(bin)
        .args(args)
        .current_dir(repo)
        .env("TLC_HOME", home)
        .env_remove("TLC_NOW")
        .output()
        .expect("tlc");
    let elapsed = start.elapsed();
    assert!(out.status.success(), "tlc {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    (elapsed, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The per-session counts `count.py` prints: metric → the two sessions' cells.
fn counted(fixture: &Path) -> std::collections::BTreeMap<String, Vec<String>> {
    let out = Command::new("python3")
        .arg(fixture.join("count.py"))
        .arg(fixture)
        .output()
        .expect("python3");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            let cells: Vec<String> = l.trim().trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect();
            (cells[0].clone(), cells[1..].to_vec())
        })
        .collect()
}

fn main() {
    let records: usize = std::env::var("TLC_BENCH_HTK_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300_000);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = manifest.join("../shared/fixtures/harness-toolkit");
    let bin = tlc();
    let scratch = tempfile::tempdir().expect("tempdir");
    let (repo, home, file) = (
        scratch.path().join("repo"),
        scratch.path().join("home"),
        scratch.path().join("htk.jsonl"),
    );
    std::fs::create_dir_all(&repo).expect("repo");
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .expect("git")
        .success());
    let out = Command::new("python3")
        .arg(manifest.join("tools/gen-htk-records.py"))
        .arg(&fixture)
        .arg(&file)
        .arg(records.to_string())
        .output()
        .expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let gen: serde_json::Value = serde_json::from_slice(&out.stdout).expect("generator summary");
    let (lines, copies) = (gen["records"].as_i64().expect("records"), gen["copies"].as_i64().expect("copies"));
    let bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);

    let path = file.to_str().expect("path");
    let (first, text) = run(&bin, &["obs", "import", "jsonl", path, "--json"], &repo, &home);
    let summary: serde_json::Value = serde_json::from_str(&text).expect("summary");
    assert_eq!(summary["lines"], lines, "{summary}");
    assert_eq!(
        (summary["duplicates"].as_i64(), summary["malformed"].as_i64()),
        (Some(0), Some(0)),
        "{summary}"
    );

    let c = counted(&fixture);
    let both = |metric: &str| -> i64 { c[metric].iter().map(|v| v.parse::<i64>().expect(metric)).sum::<i64>() * copies };
    let db = rusqlite::Connection::open(repo.join(".tlc/harness/state/tlc.db")).expect("db");
    let sums: (i64, i64, i64, i64, i64, i64) = db
        .query_row(
            "SELECT count(*), sum(prompts), sum(gates_pass), sum(gates_fail), sum(gate_reused), sum(gates_deferred) FROM session_rollup",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .expect("rollup");
    let want = (
        2 * copies,
        both("prompt.submit records (obs)"),
        both("attrs.passed == true"),
        both("attrs.passed == false"),
        both("attrs.reused == true"),
        both("deferred (attrs.deferred_to set, no passed/reused)"),
    );
    assert_eq!(sums, want, "sessions, prompts, gates pass/fail/reused/deferred");
    let decisions: i64 = db
        .query_row("SELECT count(*) FROM decision_log", [], |r| r.get(0))
        .expect("decisions");
    let stated = |metric: &str| -> i64 {
        c[metric]
            .iter()
            .flat_map(|cell| {
                cell.split(", ")
                    .filter_map(|kv| kv.rsplit_once('='))
                    .map(|(_, v)| v.parse::<i64>().expect("count"))
            })
            .sum::<i64>()
            * copies
    };
    assert_eq!(
        decisions,
        stated("policy.deny by attrs.permission") + stated("shell.start by attrs.permission")
    );

    let (again, text) = run(&bin, &["obs", "import", "jsonl", path, "--json"], &repo, &home);
    let summary: serde_json::Value = serde_json::from_str(&text).expect("summary");
    assert_eq!(summary["duplicates"], lines, "a second import adds nothing: {summary}");
    assert_eq!(summary["gate_runs"], 0);
    println!(
        "htk_import: harness-toolkit records of the fixture's shape, {copies} copies of {} records",
        gen["per_copy"]
    );
    println!(
        "  first import  {lines} records ({:.0} MB) in {:.2} s = {:.0} records/s; counts as count.py x {copies}: sessions {}, prompts {}, gates pass/fail/reused/deferred {}/{}/{}/{}, decisions {decisions}",
        bytes as f64 / 1e6,
        first.as_secs_f64(),
        lines as f64 / first.as_secs_f64(),
        sums.0,
        sums.1,
        sums.2,
        sums.3,
        sums.4,
        sums.5
    );
    println!(
        "  second import {lines} records in {:.2} s = {:.0} records/s, all already imported",
        again.as_secs_f64(),
        lines as f64 / again.as_secs_f64()
    );
}
