//! Reports as views: obs report/events/why/live, export through a real engine, prune, JSONL import.

use crate::common;
use common::*;
use std::io::{BufRead, BufReader};
use std::time::Duration;

fn replay_session(w: &World) -> std::path::PathBuf {
    replay_claude_session(w)
}

#[test]
fn a_replayed_session_reports_the_counts_it_was_fed() {
    let w = World::new();
    replay_session(&w);
    // Two more prompts and a denied-free shell command from a second provider session.
    for f in ["prompt-submit.json", "shell-before.json", "shell-after.json"] {
        assert!(w
            .hook(
                "cursor",
                w.payload(&format!("providers/cursor/{f}")).replace("rm -rf /", "ls").as_bytes()
            )
            .status
            .success());
    }
    let rep: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "report", "5b1f6c2e", "--json"])).unwrap();
    for field in [
        "session_id",
        "provider",
        "started_at",
        "updated_at",
        "models",
        "tools",
        "subagents",
        "gates",
        "denials",
        "prompts",
        "responses",
        "thoughts",
        "compactions",
        "shell",
        "gateTime",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "estimated_cost_usd",
        "cost_incomplete",
        "cost_alert_sent",
    ] {
        assert!(rep.get(field).is_some(), "missing {field}: {rep}");
    }
    assert_eq!(rep["session_id"], "5b1f6c2e-8d4a-4f0e-9a37-2c1d7e9b4a10");
    assert_eq!(rep["prompts"], 1);
    assert_eq!(rep["compactions"], 1);
    assert_eq!(rep["denials"], 0);
    assert_eq!(rep["shell"]["allow"], 1);
    assert_eq!(rep["shell"]["byRule"]["none"]["allow"], 1);
    assert_eq!(rep["gates"]["pass"], 0);
    assert_eq!(rep["gateTime"]["runs"], 0);
    let tools = rep["tools"].as_array().unwrap();
    let tool = |name: &str| {
        tools
            .iter()
            .find(|t| t["tool"] == name)
            .unwrap_or_else(|| panic!("{name} in {tools:?}"))
            .clone()
    };
    assert_eq!((tool("Bash")["calls"].as_i64(), tool("Bash")["ok"].as_i64()), (Some(1), Some(1)));
    assert_eq!(tool("mcp__github__get_issue")["fail"], 1);
    assert_eq!(rep["subagents"][0]["type"], "code-reviewer");
    assert!(rep["models"].as_array().unwrap().iter().any(|m| m == "claude-sonnet-4-5-20250929"));

    // The most recent session is the default: the cursor one.
    let latest: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "report", "--json"])).unwrap();
    assert_eq!(latest["provider"], "cursor");
    assert_eq!(latest["prompts"], 1);
    assert_eq!(latest["shell"]["allow"], 1);

    // Table and markdown forms carry the same numbers; a markdown copy only with --out.
    let table = w.ok(&["obs", "report", "5b1f6c2e"]);
    assert!(
        table.contains("Interruptions by rule") && table.contains("code-reviewer"),
        "{table}"
    );
    let before = tree(&w.repo);
    let md = w.ok(&["obs", "report", "5b1f6c2e", "--format", "markdown"]);
    assert!(md.starts_with("# tlc session report") && md.contains("## Tools"), "{md}");
    for _ in 0..5 {
        w.ok(&["obs", "report", "--json"]);
        w.ok(&["obs", "events"]);
    }
    assert_eq!(
        tree(&w.repo),
        before,
        "a report neither writes nor removes anything in the repository"
    );
    let out = w.dir.path().join("report.md");
    w.ok(&["obs", "report", "5b1f6c2e", "--out", out.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), md);

    // events and why.
    let ev: serde_json::Value =
        serde_json::from_str(&w.ok(&["obs", "events", "100", "--kind", "shell", "--plane", "all", "--json"])).unwrap();
    assert_eq!(ev.as_array().unwrap().len(), 4);
    let why: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "why", "50", "--json"])).unwrap();
    // Six decisions of the hooks and the stop's outcome (issue 52: obs why tells the stops too).
    assert_eq!(why.as_array().unwrap().len(), 7);
    assert_eq!(why.as_array().unwrap().iter().filter(|d| d["kind"] == "stop").count(), 1, "{why}");
    assert!(why
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["rule"] == "none" && d["permission"] == "allow"));
}

#[test]
fn reports_in_a_repository_with_nothing_recorded_say_so_and_create_nothing() {
    let w = World::new();
    let before_repo = tree(&w.repo);
    for args in [
        vec!["obs", "report"],
        vec!["obs", "report", "--json"],
        vec!["obs", "events"],
        vec!["obs", "why"],
        vec!["obs", "views"],
        vec!["obs", "export", "session_rollup"],
        vec!["obs", "report", "--all-repos"],
    ] {
        let out = w.run(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    assert!(w.ok(&["obs", "report"]).contains("nothing recorded"));
    assert!(w.ok(&["obs", "why"]).contains("nothing recorded"));
    assert_eq!(
        w.ok(&["obs", "export", "tool_stats"]).trim(),
        "session_id,provider,tool,calls,ok,fail,total_ms,worst_ms,first_at,last_at,denied,asked"
    );
    assert_eq!(tree(&w.repo), before_repo);
    assert!(!w.home.exists(), "nothing under the home either");
}

#[test]
fn why_says_so_in_a_plain_sentence_when_no_decision_was_made() {
    let w = World::new();
    assert!(w
        .hook("claude", w.payload("providers/claude/session-start.json").as_bytes())
        .status
        .success());
    let out = w.ok(&["obs", "why"]);
    assert!(out.starts_with("The hooks have made no decisions"), "{out}");
}

#[test]
fn an_exported_csv_loaded_by_sqlite3_sums_to_the_views_totals() {
    let w = World::new();
    replay_session(&w);
    for f in [
        "tool-before.json",
        "tool-after.json",
        "tool-failure.json",
        "mcp-before.json",
        "mcp-after.json",
    ] {
        assert!(w
            .hook("cursor", w.payload(&format!("providers/cursor/{f}")).as_bytes())
            .status
            .success());
    }
    let csv = w.dir.path().join("tool_stats.csv");
    let out = w.run(&["obs", "export", "tool_stats", "--out", csv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(
        text.starts_with("session_id,provider,tool,calls,ok,fail,total_ms,worst_ms,first_at,last_at,denied,asked\r\n"),
        "{text}"
    );
    assert!(text.contains("T") && text.contains("Z,"), "timestamps in ISO 8601 UTC: {text}");
    let engine = w.dir.path().join("engine.db");
    let script = format!(
        ".mode csv\n.import {} t\nSELECT sum(calls), sum(ok), sum(fail), sum(total_ms), count(*) FROM t;\n",
        csv.display()
    );
    let out = pipe(
        {
            let mut c = std::process::Command::new("sqlite3");
            c.arg(&engine);
            c
        },
        script.as_bytes(),
    );
    assert!(out.status.success(), "sqlite3: {}", stderr(&out));
    let engine_totals = stdout(&out).trim().to_string();
    let view: (i64, i64, i64, i64, i64) = w
        .db()
        .query_row(
            "SELECT sum(calls), sum(ok), sum(fail), sum(total_ms), count(*) FROM tool_stats",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
    assert_eq!(engine_totals, format!("{},{},{},{},{}", view.0, view.1, view.2, view.3, view.4));
    assert!(view.4 >= 7, "{view:?}");

    // A window that excludes everything keeps the header only; JSON carries the same rows.
    let none = w.ok(&["obs", "export", "event_log", "--until", "2000-01-01"]);
    assert_eq!(none.lines().count(), 1);
    let json: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "export", "tool_stats", "--format", "json"])).unwrap();
    assert_eq!(json.as_array().unwrap().len() as i64, view.4);
    let bad = w.run(&["obs", "export", "no_such_view"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("no_such_view"));
}

#[test]
fn prune_a_month_ahead_drops_exactly_the_records_past_retention() {
    let w = World::new();
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), "[obs]\nretentionDays = 30\nglobalSpool = true\n").unwrap();
    // Already adopted, so the counts below are the hooks' own rows (no config.scaffolded event).
    std::fs::create_dir_all(w.repo.join(".tlc/harness")).unwrap();
    std::fs::write(w.repo.join(".tlc/harness/config.toml"), "").unwrap();
    let at = |t: &str, file: &str| {
        let out = w.hook_with(
            "claude",
            w.payload(&format!("providers/claude/{file}"))
                .replace("sess-abc", &format!("s-{}", &t[..10]))
                .as_bytes(),
            |c| {
                c.env("TLC_NOW", t);
            },
        );
        assert!(out.status.success());
    };
    at("2026-10-01T10:00:00Z", "session-start.json");
    at("2026-10-01T10:00:05Z", "pre-tool-use-bash.json");
    at("2026-11-20T10:00:00Z", "session-start.json");
    at("2026-11-20T10:00:05Z", "pre-tool-use-bash.json");
    at("2026-11-20T10:00:09Z", "post-tool-use-bash.json");
    // TLC_NOW a month ahead of the old records: cutoff 2026-11-01 drops October, keeps November.
    let dry: serde_json::Value = serde_json::from_str(&w.ok_env(&["obs", "prune", "--dry-run", "--json"], "2026-12-01T00:00:00Z")).unwrap();
    let dropped = |v: &serde_json::Value, table: &str| {
        v["dropped"].as_array().unwrap().iter().find(|r| r["table"] == table).unwrap()["rows"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(dropped(&dry, "events"), 2);
    assert_eq!(dropped(&dry, "decisions"), 1);
    assert_eq!(dropped(&dry, "sessions"), 1);
    assert_eq!(dropped(&dry, "spool"), 2);
    assert_eq!(w.count("SELECT count(*) FROM events"), 5, "a dry run changes nothing");
    let done: serde_json::Value = serde_json::from_str(&w.ok_env(&["obs", "prune", "--json"], "2026-12-01T00:00:00Z")).unwrap();
    assert_eq!(dropped(&done, "events"), 2);
    assert_eq!(w.count("SELECT count(*) FROM events"), 3);
    assert_eq!(w.count("SELECT count(*) FROM events WHERE ts < '2026-11-01'"), 0);
    assert_eq!(w.count("SELECT count(*) FROM decisions"), 1);
    let home = rusqlite::Connection::open(w.home_db()).unwrap();
    let spool: i64 = home.query_row("SELECT count(*) FROM spool", [], |r| r.get(0)).unwrap();
    assert_eq!(spool, 3);
    let again: serde_json::Value = serde_json::from_str(&w.ok_env(&["obs", "prune", "--json"], "2026-12-01T00:00:00Z")).unwrap();
    assert_eq!(dropped(&again, "events"), 0);
}

#[test]
fn an_imported_jsonl_set_reports_the_totals_it_holds() {
    let w = World::new();
    let file = w.dir.path().join("obs.jsonl");
    let mut lines = Vec::new();
    let rec = |kind: &str, ts: &str, extra: serde_json::Value| {
        let mut v = serde_json::json!({"schema": "harness.observability.v1", "provider": "claude", "kind": kind, "level": "signal", "ts": ts,
            "trace_id": "t1", "span_id": "sp", "parent_span_id": null, "session_id": "imp-1", "model": "claude-sonnet-4-5", "attrs": {}});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v.to_string()
    };
    lines.push(rec("session.start", "2026-11-20T09:00:00.000Z", serde_json::json!({})));
    lines.push(rec("prompt.submit", "2026-11-20T09:00:01.000Z", serde_json::json!({})));
    lines.push(rec("generation.end", "2026-11-20T09:00:05.000Z", serde_json::json!({"gen_ai": {"input_tokens": 10, "output_tokens": 200, "cache_read_tokens": 1000, "cache_write_tokens": 50, "cost_usd": 0.25, "cost_source": "litellm:claude-sonnet-4-5", "duration_ms": 900}})));
    lines.push(rec("generation.end", "2026-11-20T09:01:05.000Z", serde_json::json!({"gen_ai": {"input_tokens": 5, "output_tokens": 100, "cache_read_tokens": 2000, "cache_write_tokens": 0, "cost_usd": 0.5}})));
    // A sliding-window reading on another kind: kept, never summed.
    lines.push(rec(
        "stop",
        "2026-11-20T09:02:00.000Z",
        serde_json::json!({"gen_ai": {"input_tokens": 999999, "output_tokens": 999999, "cost_usd": 99.0}}),
    ));
    lines.push(serde_json::json!({"ts": "2026-11-20T09:00:02.000Z", "event": "PreToolUse", "payload": {"session_id": "imp-1", "tool_name": "Bash", "tool_input": {"command": "ls"}}}).to_string());
    lines.push(
        serde_json::json!({"ts": "2026-11-20T09:03:00.000Z", "outcome": "claim", "provider": "claude", "summary": "shipped"}).to_string(),
    );
    lines.push(serde_json::json!({"repo": "/src/other", "project": "other", "stream": "obs", "record": {"kind": "generation.end", "ts": "2026-11-20T10:00:00.000Z", "provider": "claude", "session_id": "o-1", "model": "claude-haiku-4-5", "gen_ai": {"input_tokens": 7, "output_tokens": 70, "cache_read_tokens": 0, "cache_write_tokens": 0, "cost_usd": 0.01}}}).to_string());
    lines.push("{not json".to_string());
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let first: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "import", "jsonl", file.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(
        (
            first["observability"].as_i64(),
            first["audit"].as_i64(),
            first["ship_ledger"].as_i64(),
            first["spool"].as_i64(),
            first["malformed"].as_i64()
        ),
        (Some(5), Some(1), Some(1), Some(1), Some(1))
    );
    let second: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "import", "jsonl", file.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(second["duplicates"], 8, "importing twice adds nothing");
    let rep: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "report", "imp-1", "--json"])).unwrap();
    assert_eq!(rep["input_tokens"], 15);
    assert_eq!(rep["output_tokens"], 300);
    assert_eq!(rep["cache_read_tokens"], 3000);
    assert_eq!(rep["cache_write_tokens"], 50);
    assert!((rep["estimated_cost_usd"].as_f64().unwrap() - 0.75).abs() < 1e-12);
    assert_eq!(rep["prompts"], 1);
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE kind = 'stop' AND json_extract(attrs, '$.gen_ai.output_tokens') = 999999"),
        1
    );
    assert_eq!(w.count("SELECT count(*) FROM ship_ledger"), 1);
    let all: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "report", "--all-repos", "--json"])).unwrap();
    let other = all["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["project"] == "other")
        .unwrap()
        .clone();
    assert_eq!(other["output_tokens"], 70);
}

#[test]
fn live_follows_signal_events_written_by_other_processes() {
    let w = World::new();
    assert!(w
        .hook("claude", w.payload("providers/claude/session-start.json").as_bytes())
        .status
        .success());
    let mut child = w
        .cmd(&["obs", "live", "--interval-ms", "50"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = rx.recv_timeout(Duration::from_secs(10)).expect("banner");
    assert!(first.contains("following"), "{first}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(w
        .hook("claude", w.payload("providers/claude/user-prompt-submit.json").as_bytes())
        .status
        .success());
    assert!(
        w.hook("claude", w.payload("providers/claude/pre-tool-use-read.json").as_bytes())
            .status
            .success(),
        "a debug-kind event is not followed"
    );
    assert!(w
        .hook("claude", w.payload("providers/claude/stop.json").as_bytes())
        .status
        .success());
    let a = rx.recv_timeout(Duration::from_secs(10)).expect("prompt line");
    let b = rx.recv_timeout(Duration::from_secs(10)).expect("stop line");
    child.kill().unwrap();
    let _ = child.wait();
    assert!(a.contains("prompt.submit") && a.contains("sess-abc"), "{a}");
    assert!(b.contains(" stop "), "{b}");
}

/// Imported history counts like recorded history: decisions the records state (policy.deny,
/// a decided shell.end) are decisions, once, and the rollup counts them.
#[test]
fn imported_decisions_count_in_the_rollup_once() {
    let w = World::new();
    let file = w.dir.path().join("decisions.jsonl");
    let rec = |i: usize, kind: &str, attrs: serde_json::Value| {
        serde_json::json!({"schema": "harness.observability.v1", "provider": "claude", "kind": kind, "level": "signal",
            "ts": format!("2026-11-20T09:{:02}:{:02}.000Z", i / 60, i % 60), "session_id": "dec-1", "attrs": attrs})
        .to_string()
    };
    let mut lines = vec![rec(0, "session.start", serde_json::json!({}))];
    for i in 0..33 {
        lines.push(rec(
            1 + i,
            "policy.deny",
            serde_json::json!({"rule": "catastrophic", "command": format!("rm -rf /tmp/x{i}"), "posture": "solo"}),
        ));
    }
    for i in 0..194 {
        let permission = if i < 190 { "allow" } else { "ask" };
        lines.push(rec(
            40 + i,
            "shell.end",
            serde_json::json!({"permission": permission, "rule": "none", "command": format!("ls {i}")}),
        ));
    }
    // A shell.end that states no decision is not one.
    lines.push(rec(300, "shell.end", serde_json::json!({"command": "pwd"})));
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    for _ in 0..2 {
        w.ok(&["obs", "import", "jsonl", file.to_str().unwrap()]);
        let rep: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "report", "dec-1", "--json"])).unwrap();
        assert_eq!(rep["denials"], 33, "{rep}");
        assert_eq!(
            (
                rep["shell"]["allow"].as_i64(),
                rep["shell"]["ask"].as_i64(),
                rep["shell"]["deny"].as_i64()
            ),
            (Some(190), Some(4), Some(33))
        );
        assert_eq!(rep["shell"]["by_rule"]["catastrophic"]["deny"], 33, "{rep}");
        assert_eq!(w.count("SELECT count(*) FROM decisions"), 33 + 194);
    }
}
