//! harness-toolkit 0.5.0's own records (../shared/fixtures/harness-toolkit/), imported as they
//! are: the counts `obs report`, `gate_time`, `interruptions_by_rule` and `obs why` show equal
//! what the fixture's `count.py` prints, over any number of imports; and a generated set of the
//! same shape (`tools/gen-htk-records.py`; `cargo bench --bench htk_import` runs it at 300,000).

use crate::common::{fixtures, World};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// The fixture's files tlc has a home for, in the order an operator would name them.
const FILES: [&str; 5] = ["obs.jsonl", "debug.jsonl", "audit.jsonl", "attestation.jsonl", "obs-spool.jsonl"];

fn htk() -> PathBuf {
    fixtures().join("harness-toolkit")
}

/// `count.py`'s table: metric → [session A's cell, session B's cell], and the session keys.
struct Counted {
    sessions: Vec<String>,
    rows: BTreeMap<String, Vec<String>>,
}

impl Counted {
    fn run() -> Counted {
        let out = Command::new("python3")
            .arg(htk().join("count.py"))
            .arg(htk())
            .output()
            .expect("python3 count.py");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text.lines().filter(|l| l.starts_with('|'));
        let header: Vec<String> = cells(lines.next().expect("header"));
        let sessions = header[1..]
            .iter()
            .map(|h| h.split('`').nth(1).expect("session key in backquotes").to_string())
            .collect();
        let rows = lines.skip(1).map(|l| {
            let c = cells(l);
            (c[0].clone(), c[1..].to_vec())
        });
        Counted {
            sessions,
            rows: rows.collect(),
        }
    }

    /// The client's id of session `i` (`claude-<id>` → `<id>`).
    fn client_id(&self, i: usize) -> String {
        self.sessions[i].strip_prefix("claude-").expect("claude- key").to_string()
    }

    fn cell(&self, metric: &str, i: usize) -> &str {
        // The table's cells are read trimmed: `  attrs.passed == true` is `attrs.passed == true`.
        &self
            .rows
            .get(metric.trim())
            .unwrap_or_else(|| panic!("count.py prints no {metric:?}"))[i]
    }

    fn number(&self, metric: &str, i: usize) -> i64 {
        self.cell(metric, i)
            .parse()
            .unwrap_or_else(|_| panic!("{metric}: {:?}", self.cell(metric, i)))
    }

    /// A `k=v, k=v` cell (`0` when empty).
    fn counter(&self, metric: &str, i: usize) -> BTreeMap<String, i64> {
        let cell = self.cell(metric, i);
        if cell == "0" {
            return BTreeMap::new();
        }
        cell.split(", ")
            .map(|kv| {
                let (k, v) = kv.rsplit_once('=').unwrap_or_else(|| panic!("{metric}: {cell}"));
                (k.to_string(), v.parse().unwrap())
            })
            .collect()
    }
}

fn cells(line: &str) -> Vec<String> {
    line.trim().trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect()
}

fn add(into: &mut BTreeMap<String, i64>, from: BTreeMap<String, i64>) {
    for (k, v) in from {
        *into.entry(k).or_default() += v;
    }
}

fn import(w: &World, files: &[PathBuf]) -> Value {
    let mut args = vec!["obs", "import", "jsonl"];
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    args.extend(names.iter().map(String::as_str));
    args.push("--json");
    serde_json::from_str(&w.ok(&args)).unwrap()
}

fn json(w: &World, args: &[&str]) -> Value {
    serde_json::from_str(&w.ok(args)).unwrap()
}

/// What `obs report` and the views say about session `i`, checked against `count.py`.
fn assert_session_counts(w: &World, counted: &Counted, i: usize) {
    let id = counted.client_id(i);
    let rep = json(w, &["obs", "report", &id, "--json"]);
    assert_eq!(
        rep["session_id"],
        id.as_str(),
        "the session is the client's id, not harness-toolkit's key"
    );
    assert_eq!(rep["prompts"], counted.number("prompt.submit records (obs)", i), "{rep}");
    // Gates: passes and failures as the records state them; a deferral is neither.
    let gates = (
        rep["gates"]["pass"].as_i64().unwrap(),
        rep["gates"]["fail"].as_i64().unwrap(),
        rep["gate_time"]["reused"].as_i64().unwrap(),
        rep["gates"]["deferred"].as_i64().unwrap(),
        rep["gate_time"]["runs"].as_i64().unwrap(),
    );
    let want = (
        counted.number("  attrs.passed == true", i),
        counted.number("  attrs.passed == false", i),
        counted.number("  attrs.reused == true", i),
        counted.number("  deferred (attrs.deferred_to set, no passed/reused)", i),
        counted.number("gate.outcome records", i),
    );
    assert_eq!(gates, want, "gates pass/fail/reused/deferred/runs of {id}: {rep}");
    // Asks and denials: harness-toolkit's policy.deny (non-Bash, `ask` kept under that name)
    // and shell.start (Bash) records, by permission and by rule.
    let mut by_permission = counted.counter("policy.deny by attrs.permission", i);
    add(&mut by_permission, counted.counter("shell.start by attrs.permission", i));
    let mut by_rule: BTreeMap<String, i64> = BTreeMap::new();
    for (k, v) in counted.counter("policy.deny by attrs.rule (attrs.event)", i) {
        *by_rule.entry(k.split(" (").next().unwrap().to_string()).or_default() += v;
    }
    add(&mut by_rule, counted.counter("shell.start by attrs.rule", i));
    assert!(!by_rule.is_empty());
    assert_eq!(rep["denials"], by_permission.get("deny").copied().unwrap_or(0), "{rep}");
    let shell = counted.counter("shell.start by attrs.permission", i);
    assert_eq!(
        (rep["shell"]["ask"].as_i64().unwrap(), rep["shell"]["deny"].as_i64().unwrap()),
        (shell.get("ask").copied().unwrap_or(0), shell.get("deny").copied().unwrap_or(0)),
        "{rep}"
    );
    let mut rails: BTreeMap<String, i64> = BTreeMap::new();
    let mut rail_permissions: BTreeMap<String, i64> = BTreeMap::new();
    for r in rep["rails"].as_array().unwrap() {
        *rails.entry(r["rule"].as_str().unwrap().to_string()).or_default() += r["count"].as_i64().unwrap();
        *rail_permissions.entry(r["permission"].as_str().unwrap().to_string()).or_default() += r["count"].as_i64().unwrap();
    }
    assert_eq!(rails, by_rule, "rails that fired in {id}");
    assert_eq!(rail_permissions, by_permission, "asks and denials in {id}");
    // obs why lists every one of them, with the session's posture where the record names none.
    let why = json(w, &["obs", "why", "100", "--session", &id, "--json"]);
    let why = why.as_array().unwrap_or_else(|| why["decisions"].as_array().expect("decisions"));
    assert_eq!(why.len() as i64, by_rule.values().sum::<i64>(), "{why:?}");
    assert!(why.iter().all(|d| d["posture"] == "paired"), "{why:?}");
    // interruptions_by_rule: the asks and denials that are not the floor's.
    let conn = w.db();
    let mut st = conn
        .prepare("SELECT rule, sum(asks), sum(denials) FROM interruptions_by_rule WHERE session_id = ?1 GROUP BY rule")
        .unwrap();
    let interruptions: BTreeMap<String, (i64, i64)> = st
        .query_map([&id], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let floor: i64 = conn
        .query_row("SELECT count(*) FROM floor_denials WHERE session_id = ?1", [&id], |r| r.get(0))
        .unwrap();
    let interrupted: i64 = interruptions.values().map(|(a, d)| a + d).sum();
    assert_eq!(interrupted + floor, by_rule.values().sum::<i64>(), "{interruptions:?}");
    for (rule, (asks, denials)) in &interruptions {
        assert_eq!(asks + denials, by_rule[rule], "{rule}");
    }
    // Tools: the completed calls, by tool.
    let tools: BTreeMap<String, i64> = rep["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["tool"].as_str().unwrap().to_string(),
                t["ok"].as_i64().unwrap() + t["fail"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(tools, counted.counter("  by tool_name (shell.end counted as Bash)", i), "{rep}");
    assert!(rep["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["calls"] == t["ok"].as_i64().unwrap() + t["fail"].as_i64().unwrap()));
    // The gen_ai running sums are no generations: nothing is summed from them.
    assert_eq!(
        (rep["generations"].as_i64(), rep["output_tokens"].as_i64()),
        (Some(0), Some(0)),
        "{rep}"
    );
}

#[test]
fn harness_toolkits_records_imported_twice_count_as_its_count_script_says() {
    let counted = Counted::run();
    assert_eq!(counted.sessions.len(), 2);
    let w = World::new();
    let files: Vec<PathBuf> = FILES.iter().map(|f| htk().join(f)).collect();
    let lines: usize = files.iter().map(|f| std::fs::read_to_string(f).unwrap().lines().count()).sum();
    let gate_outcomes: i64 = (0..2).map(|i| counted.number("gate.outcome records", i)).sum();
    for round in 0..2 {
        let summary = import(&w, &files);
        assert_eq!(summary["lines"], lines as i64, "{summary}");
        assert_eq!(
            (summary["malformed"].as_i64(), summary["unrecognised"].as_i64()),
            (Some(0), Some(0)),
            "{summary}"
        );
        if round == 0 {
            assert_eq!(summary["duplicates"], 0, "{summary}");
            assert_eq!(summary["gate_runs"], gate_outcomes, "{summary}");
        } else {
            assert_eq!(summary["duplicates"], lines as i64, "a second import adds nothing: {summary}");
            assert_eq!(summary["gate_runs"], 0, "{summary}");
        }
        for i in 0..2 {
            assert_session_counts(&w, &counted, i);
        }
        assert_eq!(w.count("SELECT count(*) FROM gate_runs"), gate_outcomes);
    }
    // Session A: its gate time is the two runs that ran (the reused verdicts and the deferral
    // took none), as HTK's own rollup has it.
    let a = counted.client_id(0);
    let rollup: Value =
        serde_json::from_str(&std::fs::read_to_string(htk().join(format!("sessions/{}.json", counted.sessions[0]))).unwrap()).unwrap();
    let gt = json(&w, &["obs", "export", "gate_time", "--format", "json"]);
    let row = gt
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["session_id"] == a.as_str())
        .expect("A's gate_time")
        .clone();
    assert_eq!(row["total_ms"], rollup["gateTime"]["test"]["totalMs"], "{row}");
    assert_eq!(row["worst_ms"], rollup["gateTime"]["test"]["worstMs"], "{row}");
    assert_eq!((row["deferred"].as_i64(), row["failed"].as_i64()), (Some(1), Some(2)), "{row}");
    // Each attestation ended its session.
    assert_eq!(w.count("SELECT count(*) FROM sessions WHERE ended_at IS NOT NULL"), 2);
    // The audit lines are the client's payloads, under the client's session and provider.
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE plane = 'audit' AND provider = 'claude' AND session_id IS NOT NULL"),
        std::fs::read_to_string(htk().join("audit.jsonl")).unwrap().lines().count() as i64
    );
    // The terminal report says the deferral beside the gates.
    let table = w.ok(&["obs", "report", &a]);
    assert!(table.contains("2/2 (1 deferred)"), "{table}");
}

/// The transcripts harness-toolkit read its `gen_ai` sums from, imported beside its records: the
/// tokens count once (the transcripts' own), whatever the running sums said.
#[test]
fn harness_toolkits_gen_ai_sums_do_not_add_to_the_transcripts_tokens() {
    let counted = Counted::run();
    let w = World::new();
    let files: Vec<PathBuf> = FILES.iter().map(|f| htk().join(f)).collect();
    import(&w, &files);
    let projects = w.dir.path().join("projects");
    std::fs::create_dir_all(projects.join("-repo")).unwrap();
    for e in std::fs::read_dir(htk().join("transcripts")).unwrap().flatten() {
        std::fs::copy(e.path(), projects.join("-repo").join(e.file_name())).unwrap();
    }
    w.ok(&["obs", "import", "transcripts", projects.to_str().unwrap()]);
    import(&w, &files);
    let cost = json(&w, &["obs", "cost", "--by", "session", "--json"]);
    for i in 0..2 {
        let id = counted.client_id(i);
        let row = cost["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == id.as_str())
            .unwrap_or_else(|| panic!("{id}: {cost}"));
        // The transcript's own sums: each response once (its lines share message.id).
        let mut seen = std::collections::BTreeSet::new();
        let mut want = [0i64; 4];
        for line in std::fs::read_to_string(htk().join(format!("transcripts/{id}.jsonl")))
            .unwrap()
            .lines()
        {
            let v: Value = serde_json::from_str(line).unwrap();
            let u = &v["message"]["usage"];
            if !u.is_object() || !seen.insert(v["message"]["id"].as_str().unwrap().to_string()) {
                continue;
            }
            for (k, key) in [
                "input_tokens",
                "output_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
            ]
            .iter()
            .enumerate()
            {
                want[k] += u[*key].as_i64().unwrap_or(0);
            }
        }
        let got = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"].map(|k| row[k].as_i64().unwrap());
        assert_eq!(got, want, "{row}");
        // What summing harness-toolkit's running sums would have given instead: another figure.
        let snapshots: i64 = ["obs.jsonl", "debug.jsonl"]
            .iter()
            .flat_map(|f| {
                std::fs::read_to_string(htk().join(f))
                    .unwrap()
                    .lines()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter_map(|l| serde_json::from_str::<Value>(&l).ok())
            .filter(|v| v["session_id"] == counted.sessions[i].as_str())
            .filter_map(|v| v["gen_ai"]["output_tokens"].as_i64())
            .sum();
        assert_ne!(snapshots, want[1]);
        assert_eq!(json(&w, &["obs", "report", &id, "--json"])["output_tokens"], 0);
    }
}

/// The generator of records of the fixture's shape (`tools/gen-htk-records.py`) at a size the suite
/// runs quickly; `cargo bench --bench htk_import` runs it at 300,000 records with the same checks.
#[test]
fn a_generated_set_of_harness_toolkit_records_imports_and_counts_right() {
    let counted = Counted::run();
    let w = World::new();
    let file = w.dir.path().join("htk.jsonl");
    let out = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tools/gen-htk-records.py"))
        .arg(htk())
        .arg(&file)
        .arg("3000")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let gen: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (lines, copies) = (gen["records"].as_i64().unwrap(), gen["copies"].as_i64().unwrap());
    assert!(lines >= 3000, "{gen}");
    assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count() as i64, lines);
    for round in 0..2 {
        let summary = import(&w, std::slice::from_ref(&file));
        let duplicates = if round == 0 { 0 } else { lines };
        assert_eq!(
            (
                summary["lines"].as_i64(),
                summary["duplicates"].as_i64(),
                summary["malformed"].as_i64()
            ),
            (Some(lines), Some(duplicates), Some(0)),
            "{summary}"
        );
    }
    let n = copies;
    let both = |metric: &str| (0..2).map(|i| counted.number(metric, i)).sum::<i64>() * n;
    let sums: (i64, i64, i64, i64, i64, i64) = w
        .db()
        .query_row(
            "SELECT count(*), sum(prompts), sum(gates_pass), sum(gates_fail), sum(gate_reused), sum(gates_deferred) FROM session_rollup",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .unwrap();
    assert_eq!(
        sums,
        (
            2 * n,
            both("prompt.submit records (obs)"),
            both("  attrs.passed == true"),
            both("  attrs.passed == false"),
            both("  attrs.reused == true"),
            both("  deferred (attrs.deferred_to set, no passed/reused)"),
        )
    );
    let decisions: i64 = (0..2)
        .map(|i| {
            counted.counter("policy.deny by attrs.permission", i).values().sum::<i64>()
                + counted.counter("shell.start by attrs.permission", i).values().sum::<i64>()
        })
        .sum();
    assert_eq!(w.count("SELECT count(*) FROM decision_log"), decisions * n);
    // One session of the set reads as the fixture's own does.
    let id = format!("{:08x}-6b3d-4f7e-a1c5-8d9e0f1a2b3c", 2 * (copies - 1));
    let rep = json(&w, &["obs", "report", &id, "--json"]);
    assert_eq!(
        rep["gates"]["deferred"],
        counted.number("  deferred (attrs.deferred_to set, no passed/reused)", 0),
        "{rep}"
    );
    assert_eq!(rep["prompts"], counted.number("prompt.submit records (obs)", 0), "{rep}");
}
