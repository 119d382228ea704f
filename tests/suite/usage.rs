//! Token usage and cost at hook time: transcripts read by offset, one generation per API
//! response, shrunk or replaced transcripts, malformed lines, and the session cost alert.

use crate::common;
use common::*;

const SID: &str = "5b1f6c2e-8d4a-4f0e-9a37-2c1d7e9b4a10";

fn hook_with_transcript(w: &World, event: &str, transcript: &std::path::Path) {
    let payload = serde_json::json!({
        "session_id": SID, "transcript_path": transcript, "cwd": w.repo, "hook_event_name": event,
    });
    let out = w.hook("claude", payload.to_string().as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
}

fn totals(w: &World) -> (i64, i64, i64, i64, i64, Option<f64>) {
    w.db()
        .query_row(
            "SELECT count(*), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd) FROM events WHERE kind = 'generation.end'",
            [],
            |r| Ok((r.get(0)?, r.get::<_, Option<i64>>(1)?.unwrap_or(0), r.get::<_, Option<i64>>(2)?.unwrap_or(0), r.get::<_, Option<i64>>(3)?.unwrap_or(0), r.get::<_, Option<i64>>(4)?.unwrap_or(0), r.get(5)?)),
        )
        .unwrap()
}

#[test]
fn the_session_transcript_adds_up_to_its_expected_totals_and_prices() {
    let w = World::new();
    let transcript = w.dir.path().join("t.jsonl");
    let full = std::fs::read_to_string(fixtures().join("providers/claude/session/transcript.jsonl")).unwrap();
    let lines: Vec<&str> = full.lines().collect();
    // The transcript grows while the session runs: hooks see it a few lines at a time.
    std::fs::write(&transcript, lines[..3].join("\n") + "\n").unwrap();
    hook_with_transcript(&w, "UserPromptSubmit", &transcript);
    assert_eq!(totals(&w).0, 1, "one response over two lines counts once");
    std::fs::write(&transcript, lines.join("\n") + "\n").unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    hook_with_transcript(&w, "SessionEnd", &transcript);
    let expected: serde_json::Value = serde_json::from_str(&fixture("providers/claude/session/expected.json")).unwrap();
    let (n, input, output, cr, cw, cost) = totals(&w);
    assert_eq!(n, expected["responses"].as_i64().unwrap());
    assert_eq!(input, expected["input_tokens"].as_i64().unwrap());
    assert_eq!(output, expected["output_tokens"].as_i64().unwrap());
    assert_eq!(cr, expected["cache_read_tokens"].as_i64().unwrap());
    assert_eq!(cw, expected["cache_write_tokens"].as_i64().unwrap());
    let want = expected["cost_usd_litellm_claude_sonnet_4_5"].as_f64().unwrap();
    assert!((cost.unwrap() - want).abs() <= 1e-9 * want, "{cost:?} vs {want}");
    let source: String = w
        .db()
        .query_row("SELECT min(cost_source) FROM events WHERE kind = 'generation.end'", [], |r| {
            r.get(0)
        })
        .unwrap();
    // Anthropic's published list answers before LiteLLM for a name of Anthropic's own API (the
    // same rates here: no 1-hour writes, no prompt over 200k).
    assert_eq!(source, "anthropic:claude-sonnet-4-5");
    // The report reads the same numbers.
    let rep: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "report", SID, "--json"])).unwrap();
    assert_eq!(rep["output_tokens"], 575);
    assert_eq!(rep["cost_incomplete"], false);
}

/// Issue 52, item 4: a turn's end puts the session's responses, as the hooks priced them, into the
/// home database, so `tlc obs cost` has them without `tlc obs import transcripts` — and the import
/// afterwards counts each response once (the same key), leaving the figures as they were.
#[test]
fn obs_cost_has_the_session_without_an_import_and_the_import_changes_nothing() {
    let w = World::new();
    let transcript = w.dir.path().join("claude/projects/p").join(format!("{SID}.jsonl"));
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::copy(fixtures().join("providers/claude/session/transcript.jsonl"), &transcript).unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    let expected: serde_json::Value = serde_json::from_str(&fixture("providers/claude/session/expected.json")).unwrap();
    let before: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "cost", "--json"])).unwrap();
    let t = &before["totals"];
    assert_eq!(t["output_tokens"], expected["output_tokens"], "{before}");
    assert_eq!(t["input_tokens"], expected["input_tokens"]);
    let want = expected["cost_usd_litellm_claude_sonnet_4_5"].as_f64().unwrap();
    assert!((t["cost_usd"].as_f64().unwrap() - want).abs() <= 1e-9 * want, "{before}");
    w.ok(&[
        "obs",
        "import",
        "transcripts",
        transcript.parent().unwrap().parent().unwrap().to_str().unwrap(),
    ]);
    let after: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "cost", "--json"])).unwrap();
    assert_eq!(after["totals"], before["totals"], "the import counted a response twice");
}

#[test]
fn a_replaced_or_shrunk_transcript_restarts_without_double_counting_and_counts_malformed_lines() {
    let w = World::new();
    let transcript = w.dir.path().join("t.jsonl");
    let full = std::fs::read_to_string(fixtures().join("providers/claude/session/transcript.jsonl")).unwrap();
    std::fs::write(&transcript, &full).unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    let before = totals(&w);
    assert_eq!(before.0, 4);
    // Replaced: a new file (new inode) with the same responses plus a malformed line and one more response.
    let extra = full
        .lines()
        .nth(1)
        .unwrap()
        .replace("msg_01A", "msg_09Z")
        .replace("req_011A", "req_099Z");
    std::fs::remove_file(&transcript).unwrap();
    std::fs::write(
        &transcript,
        format!("{full}{{\"type\":\"assistant\",\"message\":{{\"id\":\"cut\n{extra}\n"),
    )
    .unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    let after = totals(&w);
    assert_eq!(after.0, 5, "the old responses were not counted again, the new one was");
    assert_eq!(after.2, before.2 + 180);
    let malformed: i64 = w
        .db()
        .query_row("SELECT malformed_lines FROM transcripts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(malformed, 1);
    // Shrunk below the stored offset: read again from the top, nothing double counted.
    std::fs::write(&transcript, full.lines().next().unwrap().to_string() + "\n").unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    assert_eq!(totals(&w).0, 5);
    // A path that is not a transcript is never read.
    let payload = serde_json::json!({
        "session_id": SID, "transcript_path": "/etc/passwd", "cwd": w.repo, "hook_event_name": "Stop",
    });
    w.hook_faulty("claude", payload.to_string().as_bytes());
    assert!(w.faults().last().unwrap().contains("/etc/passwd: not a .jsonl transcript"));
    assert_eq!(totals(&w).0, 5);
}

#[test]
fn an_unpriced_model_leaves_cost_null_and_the_session_incomplete() {
    let w = World::new();
    let transcript = w.dir.path().join("t.jsonl");
    let full = std::fs::read_to_string(fixtures().join("providers/claude/session/transcript.jsonl")).unwrap();
    std::fs::write(&transcript, full.replace("claude-sonnet-4-5-20250929", "acme-unlisted-model-1")).unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    let (n, .., cost) = totals(&w);
    assert_eq!(n, 4);
    assert_eq!(cost, None, "never 0 presented as a price");
    let rep: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "report", SID, "--json"])).unwrap();
    assert_eq!(rep["cost_incomplete"], true);
    assert!(rep["estimated_cost_usd"].is_null());
}

#[test]
fn the_session_cost_alert_fires_once() {
    let w = World::new();
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), "[obs]\nsessionCostAlertUsd = 0.03\n").unwrap();
    let transcript = w.dir.path().join("t.jsonl");
    let full = std::fs::read_to_string(fixtures().join("providers/claude/session/transcript.jsonl")).unwrap();
    let lines: Vec<&str> = full.lines().collect();
    std::fs::write(&transcript, lines[..3].join("\n") + "\n").unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE kind = 'cost.session_alert'"),
        0,
        "under the threshold"
    );
    std::fs::write(&transcript, lines.join("\n") + "\n").unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    let extra = lines[1].replace("msg_01A", "msg_09Z").replace("req_011A", "req_099Z");
    std::fs::write(&transcript, lines.join("\n") + "\n" + &extra + "\n").unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE kind = 'cost.session_alert' AND plane = 'signal'"),
        1
    );
    let rep: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "report", SID, "--json"])).unwrap();
    assert_eq!(rep["cost_alert_sent"], true);
}

#[test]
fn a_response_both_spooled_by_the_hook_and_imported_from_its_transcript_counts_once() {
    let w = World::new();
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), "[obs]\nglobalSpool = true\n").unwrap();
    let projects = w.dir.path().join("claude/projects/-work-repo");
    std::fs::create_dir_all(&projects).unwrap();
    let transcript = projects.join(format!("{SID}.jsonl"));
    std::fs::copy(fixtures().join("providers/claude/session/transcript.jsonl"), &transcript).unwrap();
    hook_with_transcript(&w, "Stop", &transcript);
    let cost = |w: &World| -> serde_json::Value { serde_json::from_str(&w.ok(&["obs", "cost", "--by", "model", "--json"])).unwrap() };
    let spooled = cost(&w);
    assert_eq!(spooled["totals"]["output_tokens"], 575, "{spooled}");
    w.ok(&[
        "obs",
        "import",
        "transcripts",
        w.dir.path().join("claude/projects").to_str().unwrap(),
    ]);
    let both = cost(&w);
    assert_eq!(both["totals"]["output_tokens"], 575, "counted once: {both}");
    assert_eq!(both["totals"]["input_tokens"], 30);
}

/// One assistant line as Claude Code `version` writes it, a subagent's (`agent`) or the main
/// thread's. 2.1.197 wrote a subagent's lines before the response ended: `stop_reason` null and
/// the stream's first `output_tokens` (real-2.1.197/README.md); 2.1.332 writes them finished.
fn claude_line(version: &str, agent: Option<&str>, n: u32, model: &str, output: u64) -> String {
    let early = agent.is_some() && version == "2.1.197";
    let mut line = serde_json::json!({
        "parentUuid": format!("u{}", n - 1), "isSidechain": agent.is_some(), "userType": "external", "cwd": "/repo",
        "sessionId": SID, "version": version, "gitBranch": "main", "type": "assistant", "uuid": format!("u{n}"),
        "requestId": format!("req_{n}"), "timestamp": format!("2026-11-20T09:00:{n:02}.000Z"),
        "message": {
            "id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": format!("step {n}")}],
            "stop_reason": if early { serde_json::Value::Null } else { "end_turn".into() }, "stop_sequence": null,
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000,
                      "output_tokens": output, "service_tier": "standard"},
        },
    });
    if let Some(a) = agent {
        line["agentId"] = a.into();
    }
    line.to_string() + "\n"
}

/// A session of `version`: two main-thread responses in `<projects>/-repo/<SID>.jsonl` and, in the
/// subagent's own transcript (`<SID>/subagents/agent-a1.jsonl`), two responses, the second of a
/// model no catalog prices. Returns (main, subagent).
fn claude_session(projects: &std::path::Path, version: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = projects.join("-repo");
    let sub = dir.join(SID).join("subagents");
    std::fs::create_dir_all(&sub).unwrap();
    let main = dir.join(format!("{SID}.jsonl"));
    let agent = sub.join("agent-a1.jsonl");
    let sonnet = "claude-sonnet-4-5-20250929";
    let early = version == "2.1.197";
    std::fs::write(
        &main,
        claude_line(version, None, 1, sonnet, 40) + &claude_line(version, None, 4, sonnet, 50),
    )
    .unwrap();
    std::fs::write(
        &agent,
        claude_line(version, Some("a1"), 2, sonnet, if early { 3 } else { 300 })
            + &claude_line(version, Some("a1"), 3, "tlc-test-unpriced-model", if early { 2 } else { 200 }),
    )
    .unwrap();
    (main, agent)
}

/// The `cost_source` of each stored response, by its dedup key's message id.
fn sources(conn: &rusqlite::Connection, sql: &str) -> Vec<(String, Option<String>)> {
    let mut st = conn.prepare(sql).unwrap();
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

/// Checks the stored sources: a 2.1.197 subagent's responses are marked (the priced one after its
/// price's source, the unpriced one with the mark alone), the main thread's and 2.1.332's are not.
fn assert_marks(got: &[(String, Option<String>)], version: &str) {
    let ids: Vec<&str> = got.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["msg_1", "msg_2", "msg_3", "msg_4"], "{got:?}");
    let priced = got[0].1.clone().expect("sonnet is priced");
    assert!(!priced.contains('+'), "{got:?}");
    let want: [Option<String>; 4] = if version == "2.1.197" {
        [
            Some(priced.clone()),
            Some(format!("{priced}+inexact-output")),
            Some("+inexact-output".into()),
            Some(priced.clone()),
        ]
    } else {
        [Some(priced.clone()), Some(priced.clone()), None, Some(priced.clone())]
    };
    let sources: Vec<Option<String>> = got.iter().map(|(_, s)| s.clone()).collect();
    assert_eq!(sources, want, "{version}");
}

/// What `obs cost` (table and JSON) says of inexact output tokens, with `extra` arguments.
fn assert_cost_says(w: &World, extra: &[&str], version: &str, output_tokens: u64) {
    let inexact = if version == "2.1.197" { 2 } else { 0 };
    let mut args = vec!["obs", "cost", "--by", "model", "--json"];
    args.extend(extra);
    let json: serde_json::Value = serde_json::from_str(&w.ok(&args)).unwrap();
    assert_eq!(json["inexact_output"]["responses"], inexact, "{version}: {json}");
    assert!(
        json["inexact_output"]["why"].as_str().unwrap().contains("Claude Code 2.1.197"),
        "{json}"
    );
    // The report's own columns are what the lines say, marked or not.
    assert_eq!(json["totals"]["responses"], 4, "{json}");
    assert_eq!(json["totals"]["output_tokens"], output_tokens, "{json}");
    assert_eq!(json["totals"]["cost_complete"], false, "{json}");
    let mut args = vec!["obs", "cost"];
    args.extend(extra);
    let table = w.ok(&args);
    let note = "2 response(s) have inexact output tokens (cost_source +inexact-output)";
    assert_eq!(table.contains(note), inexact > 0, "{version}: {table}");
    assert_eq!(table.contains("Claude Code 2.1.197"), inexact > 0, "{version}: {table}");
    // A window without them says nothing.
    let mut args = vec!["obs", "cost", "--by", "model", "--json", "--since", "2026-11-21"];
    args.extend(extra);
    let json: serde_json::Value = serde_json::from_str(&w.ok(&args)).unwrap();
    assert_eq!(json["inexact_output"]["responses"], 0, "{json}");
}

/// `obs import transcripts` marks the responses of a 2.1.197 subagent transcript (and only those)
/// `+inexact-output`, priced or not, and `obs cost` counts them; a 2.1.332 session has none.
#[test]
fn an_imported_2_1_197_subagent_transcript_is_marked_inexact_and_obs_cost_says_so() {
    for version in ["2.1.197", "2.1.332"] {
        let w = World::new();
        let projects = w.dir.path().join("claude/projects");
        claude_session(&projects, version);
        w.ok(&["obs", "import", "transcripts", projects.to_str().unwrap()]);
        let home = rusqlite::Connection::open(w.home.join("state/tlc.db")).unwrap();
        let got = sources(
            &home,
            "SELECT substr(dedup_key, 1, instr(dedup_key, ':') - 1), cost_source FROM usage ORDER BY dedup_key",
        );
        assert_marks(&got, version);
        let output = if version == "2.1.197" {
            40 + 3 + 2 + 50
        } else {
            40 + 300 + 200 + 50
        };
        assert_cost_says(&w, &[], version, output);
    }
}

/// The hook's transcript reader marks them the same way: a SubagentStop naming a 2.1.197 subagent
/// transcript stores its responses marked, and `obs cost --here` counts them.
#[test]
fn a_hook_read_2_1_197_subagent_transcript_is_marked_inexact_and_obs_cost_says_so() {
    for version in ["2.1.197", "2.1.332"] {
        let w = World::new();
        let (main, agent) = claude_session(&w.dir.path().join("claude/projects"), version);
        let payload = serde_json::json!({
            "session_id": SID, "transcript_path": main, "cwd": w.repo, "hook_event_name": "SubagentStop",
            "agent_id": "a1", "agent_type": "general-purpose", "agent_transcript_path": agent,
            "stop_hook_active": false, "last_assistant_message": "step 3",
        });
        let out = w.hook("claude", payload.to_string().as_bytes());
        assert!(out.status.success(), "{}", stderr(&out));
        let got = sources(
            &w.db(),
            "SELECT substr(dedup_key, 5, instr(substr(dedup_key, 5), ':') - 1), cost_source FROM events WHERE kind = 'generation.end' ORDER BY dedup_key",
        );
        assert_marks(&got, version);
        let output = if version == "2.1.197" {
            40 + 3 + 2 + 50
        } else {
            40 + 300 + 200 + 50
        };
        assert_cost_says(&w, &["--here"], version, output);
    }
}
