//! Agent scope (issue 33): the subagent rails, the posture contract at session start, the
//! intelligence rails at stop, and observation mode — each driven through the built `tlc hook`
//! against a real git repository and its real SQLite record, from the real payloads captured
//! from Claude Code (fixtures/providers/claude/real-2.1.332) and Cursor's.

use crate::common;

use common::{stdout, World};
use serde_json::{json, Value};

/// A committed repository with `config` as its project config.
fn world(config: &str) -> World {
    let w = World::new();
    w.write(".tlc/harness/config.toml", config);
    w.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n");
    w.git(&["add", "-A"]);
    w.git(&["commit", "-qm", "init"]);
    w
}

/// A real payload of Claude Code 2.1.332, pointed at `w`'s repository.
fn real(w: &World, file: &str) -> Value {
    let text = w.payload(&format!("providers/claude/real-2.1.332/allevents-full/{file}"));
    serde_json::from_str(&text).unwrap()
}

fn json_out(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out:?}"))
}

/// Claude Code's PreToolUse answer: (permissionDecision, reason), or `None` for no opinion.
fn pre_tool(out: &str) -> Option<(String, String)> {
    if out.trim().is_empty() {
        return None;
    }
    let v = json_out(out);
    let h = &v["hookSpecificOutput"];
    Some((
        h["permissionDecision"].as_str()?.to_string(),
        h["permissionDecisionReason"].as_str()?.to_string(),
    ))
}

/// The rule of the newest decision recorded.
fn last_rule(w: &World) -> String {
    w.db()
        .query_row("SELECT rule FROM decisions ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
        .expect("a decision")
}

/// The real `Agent` PreToolUse with `model` added to its input.
fn agent_spawn(w: &World, model: Value) -> Value {
    let mut v = real(w, "19-PreToolUse-Agent.json");
    v["tool_input"]["model"] = model;
    v
}

#[test]
fn an_agent_spawn_off_the_allowlist_is_denied_naming_the_key() {
    let w = world("[subagents]\nenforceAllowlist = true\nallowedModels = [\"sonnet\"]\n");
    let (permission, reason) = pre_tool(&w.answer("claude", &agent_spawn(&w, json!("opus")))).expect("an answer");
    assert_eq!(permission, "deny");
    assert!(reason.contains("subagents.allowedModels"), "{reason}");
    assert!(reason.contains("\"opus\""), "{reason}");
    assert_eq!(last_rule(&w), "subagent-allowlist");
    let subject: String = w
        .db()
        .query_row("SELECT subject FROM decisions ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(subject, "subagent");

    assert_eq!(
        pre_tool(&w.answer("claude", &agent_spawn(&w, json!("Sonnet")))),
        None,
        "a listed model, any case"
    );
    // No model: the spawn runs on its parent's, compared as `inherit`, which the list lacks.
    let bare = real(&w, "19-PreToolUse-Agent.json");
    assert_eq!(pre_tool(&w.answer("claude", &bare)).unwrap().0, "deny");
    assert_eq!(last_rule(&w), "subagent-allowlist");
}

#[test]
fn an_empty_allowlist_enforces_nothing_and_doctor_fails_on_it() {
    let w = world("[subagents]\nenforceAllowlist = true\nallowedModels = []\n");
    assert_eq!(pre_tool(&w.answer("claude", &agent_spawn(&w, json!("opus")))), None);
    let out = w.run(&["doctor", "--json"]);
    let checks: Value = serde_json::from_str(&stdout(&out)).expect("doctor --json");
    let row = checks
        .as_array()
        .or_else(|| checks["checks"].as_array())
        .unwrap()
        .iter()
        .find(|c| c["id"] == "subagent-allowlist")
        .cloned()
        .expect("the subagent-allowlist check");
    assert_eq!(row["status"], "fail", "{row}");
    assert!(row["detail"].as_str().unwrap().contains("enforces nothing"), "{row}");
}

#[test]
fn a_cursor_fast_subagent_is_denied_like_the_recorded_answer() {
    let w = world("");
    let mut v: Value = serde_json::from_str(&w.payload("providers/cursor/subagent-start.json")).unwrap();
    v["workspace_roots"] = json!([w.repo]);
    v["subagent_model"] = json!("gpt-5-fast");
    let out = json_out(&w.answer("cursor", &v));
    let recorded: Value = serde_json::from_str(&common::fixture("providers/cursor/responses/deny.json")).unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&out), keys(&recorded), "the shape Cursor's deny has: {out}");
    assert_eq!(out["permission"], "deny");
    assert!(
        out["agent_message"].as_str().unwrap().contains("subagents.blockedPatterns"),
        "{out}"
    );
    assert_eq!(last_rule(&w), "subagent-blocked-pattern");

    v["subagent_model"] = json!("composer-2.5");
    assert_eq!(w.answer("cursor", &v).trim(), "{}", "an ordinary model passes");
}

#[test]
fn hostile_model_strings_are_answered_and_refused() {
    let w = world("");
    let long = "m".repeat(10 * 1024);
    for (model, why) in [
        (json!("x[fast=true]"), "a fast parameter"),
        (json!("GPT-5-FAST"), "upper case"),
        (json!("gpt-5 fast"), "a space"),
        (json!("gpt-5-f\u{200b}ast"), "an invisible character"),
        (json!("gpt-5-fаst"), "a Cyrillic a"),
        (json!(long), "10 KB"),
    ] {
        let out = w.answer("claude", &agent_spawn(&w, model));
        let (permission, reason) = pre_tool(&out).unwrap_or_else(|| panic!("{why}: let through"));
        assert_eq!(permission, "deny", "{why}");
        assert!(
            out.len() < 4096,
            "{why}: the answer does not echo the whole string ({} bytes)",
            out.len()
        );
        assert!(reason.contains("rule=subagent-blocked-pattern"), "{why}: {reason}");
    }
    // A model that is not a string is judged by its JSON text, never read as "no model".
    let s = world("[subagents]\nenforceAllowlist = true\nallowedModels = [\"inherit\"]\n");
    assert_eq!(pre_tool(&s.answer("claude", &agent_spawn(&s, json!(5)))).unwrap().0, "deny");
    assert_eq!(
        pre_tool(&s.answer("claude", &agent_spawn(&s, json!({"name": "opus"})))).unwrap().0,
        "deny"
    );
    assert_eq!(
        pre_tool(&s.answer("claude", &agent_spawn(&s, Value::Null))),
        None,
        "null is no model: inherit"
    );
}

#[test]
fn an_explore_subagent_may_read_but_not_write() {
    let w = world("");
    let mut write = real(&w, "07-PreToolUse-Write.json");
    write["agent_id"] = json!("a1");
    write["agent_type"] = json!("Explore");
    let (permission, reason) = pre_tool(&w.answer("claude", &write)).expect("an answer");
    assert_eq!(permission, "deny");
    assert!(reason.contains("subagents.readOnlyTypes"), "{reason}");
    assert_eq!(last_rule(&w), "subagent-read-only");

    let mut bash = real(&w, "23-PreToolUse-Bash.json");
    bash["agent_type"] = json!("explore");
    bash["tool_input"]["command"] = json!("grep -rn add src");
    assert_eq!(pre_tool(&w.answer("claude", &bash)), None, "reading is allowed");
    bash["tool_input"]["command"] = json!("sh -c 'echo x > src/a.rs'");
    assert_eq!(pre_tool(&w.answer("claude", &bash)).unwrap().0, "deny", "a write hidden in sh -c");
    assert_eq!(last_rule(&w), "subagent-read-only");

    let general = real(&w, "07-PreToolUse-Write.json");
    assert_eq!(pre_tool(&w.answer("claude", &general)), None, "the main agent writes");
    let mut worker = real(&w, "23-PreToolUse-Bash.json");
    worker["tool_input"]["command"] = json!("echo x > notes.txt");
    assert_eq!(pre_tool(&w.answer("claude", &worker)), None, "a general-purpose subagent writes");
}

/// Claude Code's `additionalContext` of a SessionStart answer.
fn claude_context(out: &str) -> String {
    json_out(out)["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn session_start_carries_the_posture_contract_once_and_obs_report_counts_it() {
    let focus = world("mode = \"focus\"\n");
    let start = real(&focus, "01-SessionStart.json");
    let c = claude_context(&focus.answer("claude", &start));
    assert!(c.starts_with("POSTURE focus:"), "{c}");
    assert!(c.contains("exactly one early question"), "{c}");
    assert!(!c.contains("ambiguity that changes the outcome"), "{c}");
    let contract_chars = c.chars().count();
    assert!(contract_chars <= 600, "{contract_chars}");

    let solo = world("");
    let c = claude_context(&solo.answer("claude", &real(&solo, "01-SessionStart.json")));
    assert!(
        c.starts_with("POSTURE solo:") && c.contains("ambiguity that changes the outcome"),
        "{c}"
    );

    // A mode changed mid-session is policy: a resume or compaction of the session sends nothing new.
    focus.write(".tlc/harness/config.toml", "mode = \"paired\"\n");
    let mut resume = start.clone();
    resume["source"] = json!("compact");
    let out = focus.hook_faulty("claude", resume.to_string().as_bytes());
    assert!(!stdout(&out).contains("POSTURE"), "{}", stdout(&out));

    let report: Value = serde_json::from_str(&focus.ok(&["obs", "report", "--json"])).unwrap();
    let contracts = report["contracts"].as_array().unwrap_or_else(|| panic!("{report}"));
    assert_eq!(contracts.len(), 1, "{report}");
    assert_eq!(
        (contracts[0]["posture"].as_str(), contracts[0]["sent"].as_i64()),
        (Some("focus"), Some(1))
    );
    assert_eq!(contracts[0]["chars"].as_i64(), Some(contract_chars as i64));
    assert!(focus.ok(&["obs", "report"]).contains("Posture contract"));

    // Cursor's sessionStart answers with `additional_context`.
    let cursor = world("mode = \"focus\"\n");
    let mut v: Value = serde_json::from_str(&cursor.payload("providers/cursor/session-start.json")).unwrap();
    v["workspace_roots"] = json!([cursor.repo]);
    let out = json_out(&cursor.answer("cursor", &v));
    assert!(out["additional_context"].as_str().unwrap().starts_with("POSTURE focus:"), "{out}");
}

const FAILING_TEST: &str = "[grind]\nenabled = true\nmaxLoops = 3\ntestCommand = [\"sh\", \"tools/t.sh\"]\n";

/// A repository whose test gate always fails, with `extra` config after the grind's.
fn failing(extra: &str) -> World {
    let w = world(&format!("{FAILING_TEST}{extra}"));
    w.write("tools/t.sh", "#!/bin/sh\necho 'test adds_two ... FAILED'\nexit 1\n");
    w.git(&["add", "-A"]);
    w.git(&["commit", "-qm", "gate"]);
    w
}

fn claude_event(w: &World, v: Value) -> String {
    w.answer("claude", &v)
}

fn prompt(w: &World, session: &str) {
    claude_event(
        w,
        json!({"hook_event_name": "UserPromptSubmit", "session_id": session, "prompt": "go", "cwd": w.repo}),
    );
}

/// A Claude Stop: the block's reason, or `None` when it was let through.
fn stop(w: &World, session: &str, active: bool) -> Option<String> {
    let out = claude_event(
        w,
        json!({"hook_event_name": "Stop", "session_id": session, "stop_hook_active": active, "last_assistant_message": "done", "cwd": w.repo}),
    );
    if out.trim().is_empty() {
        return None;
    }
    let v = json_out(&out);
    (v["decision"] == "block").then(|| v["reason"].as_str().unwrap().to_string())
}

#[test]
fn autopilot_steps_come_from_tlc_and_follow_the_switch() {
    for (on, config) in [(true, ""), (false, "\n[intelligence]\nautopilot = false\n")] {
        let w = failing(config);
        prompt(&w, "s1");
        w.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
        let reason = stop(&w, "s1", false).expect("the failing test blocks");
        assert_eq!(reason.contains("AUTOPILOT:\n1. Close the gap"), on, "{reason}");
        if on {
            // The steps come after tlc's own follow-up, from its gaps' category, not the reply
            // ("done"); they say neither a gap nor the next action again, nor an internal rule name
            // (issue 52).
            let (_, steps) = reason.split_once("AUTOPILOT:").unwrap();
            assert!(!steps.contains("done"), "{steps}");
            assert!(!steps.contains("grind-test") && !steps.contains("NEXT_ACTION"), "{steps}");
            assert!(!steps.contains("[test/verification]"), "{steps}");
            assert!(steps.contains("Run the command TRIED names yourself"), "{steps}");
        }
    }
}

#[test]
fn budget_continue_speaks_at_the_last_attempt_but_one() {
    let w = failing("");
    prompt(&w, "s1");
    w.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
    let first = stop(&w, "s1", false).unwrap();
    assert!(!first.contains("BUDGET:"), "attempt 1 of 3: {first}");
    w.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 2\n}\n");
    let second = stop(&w, "s1", true).unwrap();
    assert!(
        second.contains("BUDGET: attempt 2 of grind.maxLoops = 3") && second.contains("do not summarise"),
        "{second}"
    );

    let off = failing("\n[intelligence]\nbudgetContinue = false\n");
    prompt(&off, "s1");
    off.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
    stop(&off, "s1", false).unwrap();
    off.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 2\n}\n");
    assert!(!stop(&off, "s1", true).unwrap().contains("BUDGET:"));
}

#[test]
fn an_idle_turn_with_open_gaps_is_blocked_and_a_turn_with_a_tool_call_is_not() {
    let w = failing("\n[intelligence]\nidleTurnGate = true\n");
    prompt(&w, "s1");
    w.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
    assert!(stop(&w, "s1", false).is_some(), "the gate leaves gaps open");
    // A new turn: the agent replies, calls no tool, changes nothing.
    prompt(&w, "s1");
    let reason = stop(&w, "s1", false).expect("an idle turn with open gaps is blocked");
    assert!(reason.contains("[idle-turn]") && reason.contains("test adds_two"), "{reason}");
    let rule: String = w
        .db()
        .query_row("SELECT rule FROM stop_outcomes ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rule, "idle-turn");
    let gate_runs_before: i64 = w.count("SELECT count(*) FROM gate_runs");

    // The next turn calls a tool and writes the file again: not idle (the gate decides again).
    prompt(&w, "s1");
    let mut bash = real(&w, "04-PreToolUse-Bash.json");
    bash["session_id"] = json!("s1");
    bash["tool_input"]["command"] = json!("cargo test");
    claude_event(&w, bash);
    w.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
    let reason = stop(&w, "s1", false).unwrap_or_default();
    assert!(!reason.contains("[idle-turn]"), "{reason}");
    assert!(w.count("SELECT count(*) FROM gate_runs") > gate_runs_before, "the gate ran instead");

    // Off: the same idle turn is not blocked by idle-turn.
    let off = failing("");
    prompt(&off, "s1");
    off.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
    stop(&off, "s1", false).unwrap();
    prompt(&off, "s1");
    assert!(!stop(&off, "s1", false).unwrap_or_default().contains("[idle-turn]"));
}

/// `tlc handoff --json` of session `s`.
fn handoff(w: &World, s: &str) -> Value {
    json_out(&w.ok(&["handoff", "--session", s, "--json"]))
}

#[test]
fn failure_classification_keeps_the_last_category_and_follows_the_switch() {
    let w = failing("");
    prompt(&w, "s1");
    w.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
    assert!(stop(&w, "s1", false).is_some());
    assert_eq!(handoff(&w, "s1")["last_category"], "verification");
    // The same failure again, nothing changed: stagnation.
    let reason = stop(&w, "s1", true).expect("still failing");
    assert!(reason.contains("stagnation") || reason.contains("repeats"), "{reason}");
    assert_eq!(handoff(&w, "s1")["last_category"], "stagnation");
    let stored: Option<String> = w
        .db()
        .query_row("SELECT last_category FROM turns WHERE session_id = 's1'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored.as_deref(), Some("stagnation"));
    assert!(w.ok(&["handoff", "--session", "s1"]).contains("failure category: stagnation"));
    // A turn that passes keeps no failure category.
    prompt(&w, "s1");
    w.git(&["checkout", "--", "src/a.rs"]);
    w.write("tools/t.sh", "#!/bin/sh\nexit 0\n");
    assert_eq!(stop(&w, "s1", false), None);
    assert!(handoff(&w, "s1")["last_category"].is_null());

    // Off: nothing stored, nothing shown.
    let off = failing("\n[intelligence]\nfailureClassification = false\n");
    prompt(&off, "s1");
    off.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
    assert!(stop(&off, "s1", false).is_some());
    stop(&off, "s1", true).expect("still failing");
    assert_eq!(off.count("SELECT count(*) FROM turns WHERE last_category IS NOT NULL"), 0);
    let h = handoff(&off, "s1");
    assert!(h.get("last_category").is_none(), "{h}");
    assert!(!off.ok(&["handoff", "--session", "s1"]).contains("failure category"));
}

#[test]
fn the_intelligence_rails_say_what_they_need_to_act() {
    let rails = |w: &World| -> Vec<Value> { json_out(&w.ok(&["status", "--json"]))["rails"].as_array().unwrap().clone() };
    let find = |rails: &[Value], key: &str| rails.iter().find(|r| r["key"] == key).unwrap().clone();
    // No stop rail can block: on, enforced, and waiting for one.
    let idle = world("");
    let r = rails(&idle);
    for key in [
        "intelligence.autopilot",
        "intelligence.budgetContinue",
        "intelligence.failureClassification",
    ] {
        let row = find(&r, key);
        assert_eq!(
            (row["on"].as_bool(), row["enforced"].as_bool(), row["acts"].as_bool()),
            (Some(true), Some(true), Some(false)),
            "{row}"
        );
        assert!(row["needs"].as_str().unwrap().contains("grind.enabled"), "{row}");
    }
    assert!(idle
        .ok(&["status"])
        .contains("switched on, but it needs a stop rail that can block"));
    // A failing test gate: all three act.
    let w = failing("");
    let r = rails(&w);
    for key in [
        "intelligence.autopilot",
        "intelligence.budgetContinue",
        "intelligence.failureClassification",
    ] {
        assert_eq!(find(&r, key)["acts"], true, "{key}");
    }
    // budgetContinue speaks at maxLoops - 1: a budget of 1 leaves it nothing.
    let one = world("[grind]\nenabled = true\nmaxLoops = 1\ntestCommand = [\"true\"]\n");
    let b = find(&rails(&one), "intelligence.budgetContinue");
    assert_eq!(b["acts"], false);
    assert!(b["needs"].as_str().unwrap().contains("grind.maxLoops"), "{b}");
}

/// The `observe.reading` events recorded: (rail, reading, prose sources).
fn readings(w: &World) -> Vec<(String, String, String)> {
    let db = w.db();
    let mut st = db
        .prepare("SELECT json_extract(attrs, '$.rail'), json_extract(attrs, '$.reading'), json_extract(attrs, '$.prose') FROM events WHERE kind = 'observe.reading' ORDER BY id")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

const UNDECLARED: &str = "pub fn add(a: u32, b: u32) -> u32 {\n    // add the two numbers\n    a + b\n}\n";
const DECLARED: &str =
    "pub fn add(a: u32, b: u32) -> u32 {\n    // why: u32 wraps in release builds; callers pass small counts\n    a + b\n}\n";

#[test]
fn observation_reads_an_off_comment_rail_without_deciding_anything() {
    let w = world("[observe]\nenabled = true\n");
    prompt(&w, "s1");
    w.write("src/a.rs", UNDECLARED);
    assert_eq!(stop(&w, "s1", false), None, "observation never blocks");
    assert_eq!(
        readings(&w),
        vec![("comments".to_string(), "violated-without-prose".to_string(), "[]".to_string())]
    );
    assert_eq!(
        w.count("SELECT count(*) FROM decisions WHERE rule = 'comments'"),
        0,
        "never a decision"
    );
    assert_eq!(w.count("SELECT count(*) FROM stop_outcomes WHERE outcome = 'block'"), 0);

    // The rule stated in CLAUDE.md is the prose: a declared comment holds with it.
    w.write("CLAUDE.md", "# House rules\nA comment states why:, hazard: or invariant:.\n");
    prompt(&w, "s1");
    w.write("src/a.rs", DECLARED);
    assert_eq!(stop(&w, "s1", false), None);
    let last = readings(&w).pop().unwrap();
    assert_eq!((last.1.as_str(), last.2.as_str()), ("held-with-prose", "[\"CLAUDE.md\"]"));
    // A turn that adds no line to a file the checker reads records nothing (the turns before are
    // committed: a turn is judged against its base, like the rail).
    w.git(&["add", "-A"]);
    w.git(&["commit", "-qm", "declared"]);
    prompt(&w, "s1");
    w.write("notes.txt", "todo\n");
    assert_eq!(stop(&w, "s1", false), None);
    assert_eq!(readings(&w).len(), 2);

    // The view and the report.
    let db = w.db();
    let row: (String, String, i64, i64) = db
        .query_row(
            "SELECT rail, reading, count, sessions FROM observation_readings WHERE reading = 'violated-without-prose'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(row, ("comments".into(), "violated-without-prose".into(), 1, 1));
    let report = json_out(&w.ok(&["obs", "report", "s1", "--json"]));
    let obs = report["observations"].as_array().unwrap();
    assert_eq!(obs.len(), 2, "{report}");
    assert!(w.ok(&["obs", "report", "s1"]).contains("Observation readings"));

    // Off: nothing recorded.
    let off = world("");
    prompt(&off, "s1");
    off.write("src/a.rs", UNDECLARED);
    assert_eq!(stop(&off, "s1", false), None);
    assert!(readings(&off).is_empty());

    // An enforcing rail is not observed: it blocks through its own path.
    let on = world("[observe]\nenabled = true\n[comments]\nenabled = true\n");
    prompt(&on, "s1");
    on.write("src/a.rs", UNDECLARED);
    assert!(stop(&on, "s1", false).is_some());
    prompt(&on, "s1");
    on.write("src/a.rs", DECLARED);
    assert_eq!(stop(&on, "s1", false), None);
    assert!(readings(&on).is_empty());
}

#[test]
fn doctor_names_an_observed_rail_with_no_checker() {
    let w = world("[observe]\nenabled = true\nrails = [\"comments\", \"duplication\"]\n");
    let doctor = json_out(&stdout(&w.run(&["doctor", "--json"])));
    let c = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "observe")
        .unwrap()
        .clone();
    assert_eq!(c["status"], "warn", "{c}");
    let detail = c["detail"].as_str().unwrap();
    assert!(
        detail.contains("\"duplication\"") && detail.contains("no checker") && detail.contains("records comments"),
        "{detail}"
    );
    // A name with no checker records nothing, even with a violation to read.
    let only = world("[observe]\nenabled = true\nrails = [\"duplication\"]\n");
    prompt(&only, "s1");
    only.write("src/a.rs", UNDECLARED);
    assert_eq!(stop(&only, "s1", false), None);
    assert!(readings(&only).is_empty());
    let st = json_out(&only.ok(&["status", "--json"]));
    let row = st["rails"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "observe.enabled")
        .unwrap()
        .clone();
    assert_eq!(row["acts"], false, "{row}");
    // Off is ok.
    let off = world("");
    let doctor = json_out(&stdout(&off.run(&["doctor", "--json"])));
    let c = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "observe")
        .unwrap()
        .clone();
    assert_eq!(c["status"], "ok");
}
