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
