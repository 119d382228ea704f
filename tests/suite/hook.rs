//! The hook path: every fixture payload, hostile input, redaction, where it writes, the spool.

use crate::common;
use common::*;
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn valid_claude(out: &str) -> bool {
    let out = out.trim();
    if out.is_empty() {
        return true;
    }
    let Ok(v) = serde_json::from_str::<serde_json::Value>(out) else {
        return false;
    };
    let Some(o) = v.as_object() else { return false };
    if let Some(h) = o.get("hookSpecificOutput") {
        return h.get("hookEventName").and_then(|e| e.as_str()).is_some();
    }
    o.get("decision").and_then(|d| d.as_str()) == Some("block") && o.get("reason").is_some()
}

fn valid_cursor(out: &str) -> bool {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(out.trim()) else {
        return false;
    };
    let allowed = [
        "permission",
        "user_message",
        "agent_message",
        "continue",
        "followup_message",
        "additional_context",
        "env",
        "updated_input",
    ];
    v.as_object().is_some_and(|o| o.keys().all(|k| allowed.contains(&k.as_str())))
        && v.get("permission")
            .is_none_or(|p| ["allow", "deny", "ask"].contains(&p.as_str().unwrap_or("")))
}

/// The hand-written Claude Code fixtures. They are kept on purpose in their older shapes, which
/// tlc still reads; `real-2.1.197/` holds what Claude Code 2.1.197 really sends (tested below and in
/// `hook::claude`'s unit tests). Where they differ: `pre-tool-use-task.json` and
/// `post-tool-use-generic.json` call the subagent tool `Task` (now `Agent`); `subagent-start.json`
/// and `subagent-stop.json` carry `subagent_type` (now `agent_type`, with `agent_id`, and
/// `agent_transcript_path` at the stop); `stop.json` has `status` and `context_usage_percent` (a real
/// Stop has `stop_hook_active` and `last_assistant_message`); `message-display.json` has `text` (now
/// `delta`, with `turn_id`); `session-start.json` names a `model` on a start (now only after a
/// compaction, with `source`); none carries `transcript_path`, `prompt_id` or `duration_ms`.
const CLAUDE: &[(&str, &str)] = &[
    ("compact-before.json", "compact"),
    ("message-display.json", "agent.response"),
    ("post-tool-use-bash.json", "shell.end"),
    ("post-tool-use-edit.json", "file.edit"),
    ("post-tool-use-failure.json", "tool.fail"),
    ("post-tool-use-generic.json", "tool.end"),
    ("post-tool-use-mcp.json", "mcp.end"),
    ("post-tool-use-write.json", "file.edit"),
    ("pre-tool-use-bash.json", "shell.start"),
    ("pre-tool-use-edit.json", "tool.start"),
    ("pre-tool-use-mcp.json", "mcp.start"),
    ("pre-tool-use-read.json", "file.read"),
    ("pre-tool-use-task.json", "tool.start"),
    ("pre-tool-use-write.json", "tool.start"),
    ("session-end.json", "session.end"),
    ("session-start.json", "session.start"),
    ("stop.json", "stop"),
    ("subagent-start.json", "subagent.start"),
    ("subagent-stop.json", "subagent.end"),
    ("unknown-event.json", "notification"),
    ("user-prompt-submit.json", "prompt.submit"),
];

const CURSOR: &[(&str, &str)] = &[
    ("after-agent-thought.json", "agent.thought"),
    ("compact-before.json", "compact"),
    ("edit-after.json", "file.edit"),
    ("mcp-after.json", "mcp.end"),
    ("mcp-before.json", "mcp.start"),
    ("prompt-submit.json", "prompt.submit"),
    ("read-before.json", "file.read"),
    ("response-after.json", "agent.response"),
    ("session-end.json", "session.end"),
    ("session-start.json", "session.start"),
    ("shell-after.json", "shell.end"),
    ("shell-before.json", "shell.start"),
    ("stop.json", "stop"),
    ("subagent-start.json", "subagent.start"),
    ("subagent-stop.json", "subagent.end"),
    ("tool-after.json", "tool.end"),
    ("tool-before.json", "tool.start"),
    ("tool-failure.json", "tool.fail"),
    ("unknown-event.json", "unknown"),
];

#[test]
fn every_fixture_payload_exits_0_with_a_valid_response_and_leaves_its_row() {
    let w = World::new();
    // Adopted up front, so the adoption's own `config.scaffolded` row is not counted as a fixture's.
    w.ok(&["init"]);
    for (provider, table, valid) in [
        ("claude", CLAUDE, valid_claude as fn(&str) -> bool),
        ("cursor", CURSOR, valid_cursor),
    ] {
        for (file, kind) in table {
            let before = if w.project_db().exists() {
                w.count("SELECT count(*) FROM events")
            } else {
                0
            };
            let out = w.hook(provider, w.payload(&format!("providers/{provider}/{file}")).as_bytes());
            assert_eq!(out.status.code(), Some(0), "{provider}/{file}: {}", stderr(&out));
            assert!(valid(&stdout(&out)), "{provider}/{file}: invalid response {:?}", stdout(&out));
            assert_eq!(
                w.count("SELECT count(*) FROM events"),
                before + 1,
                "{provider}/{file} leaves exactly one row"
            );
            let (got, p): (String, String) = w
                .db()
                .query_row("SELECT kind, provider FROM events ORDER BY id DESC LIMIT 1", [], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .unwrap();
            assert_eq!((got.as_str(), p.as_str()), (*kind, provider), "{provider}/{file}");
        }
    }
    assert_eq!(w.count("SELECT count(*) FROM events WHERE kind = 'hook.fault'"), 0);
    // Every event kept the whole payload for the audit trail.
    assert_eq!(w.count("SELECT count(*) FROM events WHERE payload IS NULL"), 0);
    assert_eq!(w.count("SELECT count(*) FROM sessions"), 2);
}

#[test]
fn a_replayed_session_pairs_tools_and_records_shell_decisions() {
    let w = World::new();
    let transcript = w.dir.path().join("transcript.jsonl");
    std::fs::copy(fixtures().join("providers/claude/session/transcript.jsonl"), &transcript).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(fixtures().join("providers/claude/session"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut n = 0;
    for f in files
        .iter()
        .filter(|f| f.file_name().unwrap().to_string_lossy().chars().next().unwrap().is_ascii_digit())
    {
        let text = std::fs::read_to_string(f)
            .unwrap()
            .replace("\"/repo", &format!("\"{}", w.repo.display()))
            .replace("TRANSCRIPT", &transcript.display().to_string());
        let out = w.hook("claude", text.as_bytes());
        assert_eq!(out.status.code(), Some(0));
        assert!(valid_claude(&stdout(&out)));
        n += 1;
    }
    assert_eq!(n, 18);
    let sid = "5b1f6c2e-8d4a-4f0e-9a37-2c1d7e9b4a10";
    let kinds = |k: &str| w.count(&format!("SELECT count(*) FROM events WHERE session_id = '{sid}' AND kind = '{k}'"));
    assert_eq!(kinds("prompt.submit"), 1);
    assert_eq!(kinds("shell.start"), 1);
    assert_eq!(kinds("shell.end"), 1);
    assert_eq!(kinds("tool.fail"), 1);
    assert_eq!(kinds("subagent.start"), 1);
    assert_eq!(kinds("session.end"), 1);
    // Each ended tool call found its start by tool_use_id.
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE phase IN ('end','fail') AND duration_ms IS NOT NULL"),
        5
    );
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE phase = 'end' AND span_id = 'toolu_01Bash0003'"),
        1
    );
    assert_eq!(w.count("SELECT count(*) FROM open_spans"), 0, "session end closes open spans");
    // The shell decision: allow, no rule, the posture; an allow lands off the signal plane.
    let (perm, rule, posture, detail): (String, String, String, String) = w
        .db()
        .query_row(
            "SELECT permission, rule, posture, detail FROM decisions WHERE subject = 'shell'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        (perm.as_str(), rule.as_str(), posture.as_str(), detail.as_str()),
        ("allow", "none", "solo", "cargo test --quiet report")
    );
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE kind = 'shell.start' AND plane = 'signal'"),
        0
    );
    let (model, tp, ended): (Option<String>, Option<String>, Option<String>) = w
        .db()
        .query_row(
            "SELECT model, transcript_path, ended_at FROM sessions WHERE session_id = ?1",
            [sid],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(tp.as_deref(), Some(transcript.to_str().unwrap()));
    assert!(ended.is_some());
}

fn assert_neutral(out: &std::process::Output, provider: &str, what: &str) {
    assert_eq!(out.status.code(), Some(0), "{what}: exit code; stderr {}", stderr(out));
    let s = stdout(out);
    match provider {
        "claude" => assert!(valid_claude(&s), "{what}: {s:?}"),
        _ => assert!(valid_cursor(&s), "{what}: {s:?}"),
    }
}

#[test]
fn hostile_input_still_gets_a_valid_response_and_the_fault_is_recorded() {
    let w = World::new();
    let mut big = String::from(
        r#"{"hook_event_name":"PostToolUse","session_id":"big","tool_name":"Bash","tool_input":{"command":"x"},"tool_response":{"stdout":""#,
    );
    big.push_str(&"y".repeat(20 * 1024 * 1024));
    big.push_str(r#""}}"#);
    let mut invalid_utf8 = br#"{"hook_event_name":"UserPromptSubmit","session_id":"u8","prompt":"caf"#.to_vec();
    invalid_utf8.extend_from_slice(&[0xff, 0xfe, b'"', b'}']);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty stdin", Vec::new()),
        ("not JSON", b"this is not json {".to_vec()),
        ("JSON but not an object", b"[1,2,3]".to_vec()),
        ("20 MB payload", big.into_bytes()),
        ("invalid UTF-8", invalid_utf8),
        ("unknown event", br#"{"hook_event_name":"SomethingNew","session_id":"s"}"#.to_vec()),
    ];
    for provider in ["claude", "cursor"] {
        for (what, payload) in &cases {
            let t = Instant::now();
            let out = w.hook_faulty(provider, payload);
            assert!(t.elapsed() < Duration::from_secs(20), "{what} took {:?}", t.elapsed());
            assert_neutral(&out, provider, what);
        }
    }
    // Empty, not JSON and not an object are faults recorded in the project database (per provider),
    // and so is the invalid UTF-8 the payload was repaired of.
    assert_eq!(w.count("SELECT count(*) FROM events WHERE kind = 'hook.fault'"), 8);
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE kind = 'hook.fault' AND attrs LIKE '%invalid UTF-8 replaced by U+FFFD%'"),
        2
    );
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE kind = 'unknown' AND json_extract(attrs, '$.event') = 'SomethingNew'"),
        2
    );
    let big_payload: i64 = w.count("SELECT max(length(payload)) FROM events WHERE session_id = 'big'");
    assert!(
        big_payload < 2 * 1024 * 1024,
        "the audit copy of a 20 MB payload is capped: {big_payload}"
    );
    // Invalid UTF-8 is replaced, the rest of the payload is kept (Cursor does not know the event).
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE session_id = 'u8' AND kind = 'prompt.submit' AND attrs LIKE '%caf%'"),
        1
    );
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE session_id = 'u8' AND kind != 'hook.fault'"),
        2
    );
}

/// Fields of another JSON type than the provider sends read as absent (issue 30): the rest of
/// the payload is still mapped and decided on, the record keeps the payload as it came (unknown
/// fields too), and the answer is valid, with exit 0 and no fault.
#[test]
fn a_payload_with_fields_of_the_wrong_type_is_recorded_as_it_came_and_answered() {
    let w = World::new();
    let odd = r#""future_field":{"kept":[1,"two"]}"#;
    let cases: Vec<(&str, &str, String)> = vec![
        (
            "claude",
            "wrong-c",
            format!(
                r#"{{"hook_event_name":"PreToolUse","session_id":"wrong-c","tool_name":"Bash","tool_input":5,"cwd":["/"],"permission_mode":{{}},"transcript_path":false,"background_tasks":7,{odd}}}"#
            ),
        ),
        (
            "cursor",
            "wrong-u",
            format!(
                r#"{{"hook_event_name":"beforeShellExecution","conversation_id":"wrong-u","command":42,"workspace_roots":"/tmp","tool_input":[1],"duration_ms":"x",{odd}}}"#
            ),
        ),
        (
            "claude",
            "wrong-e",
            r#"{"hook_event_name":17,"session_id":"wrong-e","stop_hook_active":"no"}"#.to_string(),
        ),
        (
            "cursor",
            "wrong-f",
            r#"{"hook_event_name":{"a":1},"session_id":"wrong-f"}"#.to_string(),
        ),
    ];
    for (provider, session, payload) in &cases {
        let out = w.hook(provider, payload.as_bytes());
        assert_neutral(&out, provider, session);
        let stored: String = w
            .db()
            .query_row(
                "SELECT payload FROM events WHERE session_id = ?1 AND json_type(payload, '$.hook_event_name') IS NOT NULL",
                [session],
                |r| r.get(0),
            )
            .unwrap();
        let (stored, sent): (serde_json::Value, serde_json::Value) =
            (serde_json::from_str(&stored).unwrap(), serde_json::from_str(payload).unwrap());
        assert_eq!(stored, sent, "{session}: the record keeps the payload as it came");
    }
    // The event is still what its name says: a shell start whose command could not be read.
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE session_id IN ('wrong-c', 'wrong-u') AND kind = 'shell.start'"),
        2
    );
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE session_id IN ('wrong-e', 'wrong-f') AND kind = 'unknown'"),
        2
    );
    // A wrong type beside the act leaves the act readable: the floor still refuses it.
    let out = w.hook(
        "claude",
        br#"{"hook_event_name":"PreToolUse","session_id":7,"cwd":5,"tool_name":"Bash","tool_input":{"command":"rm -rf /","timeout":"soon"},"permission_mode":[]}"#,
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
}

#[test]
fn a_locked_database_an_unwritable_state_folder_and_an_unwritable_home_still_answer() {
    let w = World::new();
    let start = w.payload("providers/claude/session-start.json");
    assert_neutral(&w.hook("claude", start.as_bytes()), "claude", "first");

    // Another writer holds the database past the hook's budget.
    let holder = rusqlite::Connection::open(w.project_db()).unwrap();
    holder
        .execute_batch("BEGIN EXCLUSIVE; INSERT INTO state (key, value, updated_at) VALUES ('x','y','z');")
        .unwrap();
    let t = Instant::now();
    let ls = |rel: &str| w.payload(rel).replace("rm -rf /", "ls");
    let out = w.hook_faulty("claude", ls("providers/claude/pre-tool-use-bash.json").as_bytes());
    assert!(t.elapsed() < Duration::from_secs(10), "bounded wait: {:?}", t.elapsed());
    assert_neutral(&out, "claude", "locked");
    let out = w.hook_faulty("cursor", ls("providers/cursor/shell-before.json").as_bytes());
    assert_neutral(&out, "cursor", "locked");
    // Deciding never depends on the database: the floor still refuses `rm -rf /` under the lock.
    let out = w.hook_faulty("claude", w.payload("providers/claude/pre-tool-use-bash.json").as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("rule=outside-project-destruction"), "{}", stdout(&out));
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    let log = std::fs::read_to_string(w.home.join("state/hook-faults.log")).unwrap();
    assert!(
        log.contains("locked") || log.contains("busy"),
        "the lock fault is logged under the home: {log}"
    );

    // A state folder nothing can be written into.
    let state = w.repo.join(".tlc/harness/state");
    let immutable = std::process::Command::new("chattr")
        .arg("+i")
        .arg(&state)
        .status()
        .is_ok_and(|s| s.success())
        && std::process::Command::new("chattr")
            .arg("+i")
            .arg(w.project_db())
            .status()
            .is_ok_and(|s| s.success());
    if !immutable {
        std::fs::remove_dir_all(&state).unwrap();
        std::fs::write(&state, "not a folder").unwrap();
    }
    let out = w.hook_faulty("claude", w.payload("providers/claude/stop.json").as_bytes());
    assert_neutral(&out, "claude", "read-only state");
    if immutable {
        let _ = std::process::Command::new("chattr").arg("-i").arg(w.project_db()).status();
        let _ = std::process::Command::new("chattr").arg("-i").arg(&state).status();
    }
    let log = std::fs::read_to_string(w.home.join("state/hook-faults.log")).unwrap();
    assert!(log.lines().count() >= 3, "{log}");

    // An unwritable home: nothing can be logged there either, and the answer is the same.
    let out = w.hook_faulty_with("cursor", ls("providers/cursor/shell-before.json").as_bytes(), |c| {
        c.env("TLC_HOME", "/dev/null/home");
    });
    assert_neutral(&out, "cursor", "unwritable home");
}

#[test]
fn secrets_never_reach_the_database_files() {
    let w = World::new();
    let aws = "AKIAQYLPMN5HHHFPZAM2";
    let gh = "ghp_k9Xw2LmQ7rTzV4nB8cJ1dF6gH3sA5eY0uI2o";
    let pem_body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7";
    let payload = serde_json::json!({
        "hook_event_name": "PostToolUse",
        "session_id": "sec-1",
        "cwd": w.repo,
        "tool_name": "Bash",
        "tool_use_id": "toolu_sec",
        "tool_input": {"command": format!("AWS_ACCESS_KEY_ID={aws} ./deploy.sh --marker plain-marker-42")},
        "tool_response": {"stdout": format!("token {gh}\n-----BEGIN PRIVATE KEY-----\n{pem_body}\nabc\n-----END PRIVATE KEY-----\n")},
    });
    assert_neutral(&w.hook("claude", payload.to_string().as_bytes()), "claude", "secrets");
    // Also with payloads kept in attributes.
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), "[obs]\nincludePayloads = true\nglobalSpool = true\n").unwrap();
    assert_neutral(&w.hook("claude", payload.to_string().as_bytes()), "claude", "secrets with payloads");
    for secret in [aws, gh, pem_body] {
        let found = files_containing(w.dir.path(), secret.as_bytes());
        assert!(found.is_empty(), "{secret} found in {found:?}");
    }
    // The rest of the payload is stored, with placeholders where the secrets were.
    assert!(!files_containing(&w.repo.join(".tlc"), b"plain-marker-42").is_empty());
    assert!(w.count("SELECT count(*) FROM events WHERE payload LIKE '%[REDACTED:aws_access_key:%' AND payload LIKE '%[REDACTED:github_token:%' AND payload LIKE '%[REDACTED:private_key:%'") >= 2);
    let placeholders: Vec<String> = {
        let db = w.db();
        let mut st = db.prepare("SELECT attrs FROM events WHERE session_id = 'sec-1'").unwrap();
        st.query_map([], |r| r.get::<_, String>(0)).unwrap().map(|r| r.unwrap()).collect()
    };
    assert!(
        placeholders.iter().any(|a| a.contains("[REDACTED:aws_access_key:")),
        "{placeholders:?}"
    );
}

#[test]
fn a_payload_cwd_naming_another_directory_is_data_never_a_place_to_write() {
    let w = World::new();
    let elsewhere = w.dir.path().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join(".git")).unwrap();
    let before = tree(&elsewhere);
    let payload = fixture("providers/claude/session-start.json").replace("\"/repo", &format!("\"{}", elsewhere.display()));
    assert_neutral(&w.hook("claude", payload.as_bytes()), "claude", "foreign cwd");
    assert_eq!(tree(&elsewhere), before, "the payload's directory was written");
    let cwd: String = w.db().query_row("SELECT cwd FROM sessions", [], |r| r.get(0)).unwrap();
    assert_eq!(cwd, elsewhere.display().to_string(), "recorded as data");
}

#[test]
fn the_global_spool_mirrors_records_and_degrades_when_the_home_is_unwritable() {
    let w = World::new();
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), "[obs]\nglobalSpool = true\n").unwrap();
    for f in ["session-start.json", "user-prompt-submit.json", "stop.json"] {
        assert_neutral(
            &w.hook("claude", w.payload(&format!("providers/claude/{f}")).as_bytes()),
            "claude",
            f,
        );
    }
    let home = rusqlite::Connection::open(w.home_db()).unwrap();
    let (rows, repo, project): (i64, String, String) = home
        .query_row("SELECT count(*), min(repo_path), min(project) FROM spool", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    // The three events, and the `config.scaffolded` event of the first one's adoption: every
    // project record is spooled.
    assert_eq!(rows, 4);
    assert_eq!(rows, w.count("SELECT count(*) FROM events"));
    assert_eq!(repo, w.repo.display().to_string());
    assert_eq!(project, "repo");

    // The spool is off by default: a project with no machine config spools nothing under the home
    // (its home database holds the session's policy anchors only, issue 51).
    let w2 = World::new();
    assert_neutral(
        &w2.hook("claude", w2.payload("providers/claude/stop.json").as_bytes()),
        "claude",
        "no spool",
    );
    let spooled: i64 = rusqlite::Connection::open(w2.home_db())
        .unwrap()
        .query_row("SELECT count(*) FROM spool", [], |r| r.get(0))
        .unwrap();
    assert_eq!(spooled, 0);
}

/// Every payload the real Claude Code 2.1.197 sent (`real-2.1.197/`), replayed scenario by scenario
/// through the binary the way Claude Code runs it: in the payload's `cwd` (the agent's shell
/// folder), with `CLAUDE_PROJECT_DIR` naming the repository.
#[test]
fn real_claude_payloads_leave_one_row_each_in_the_project() {
    for version in ["2.1.197", "2.1.332"] {
        real_payloads_leave_one_row_each(version);
    }
}

fn real_payloads_leave_one_row_each(version: &str) {
    let root = fixtures().join(format!("providers/claude/real-{version}"));
    let mut folders: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert_eq!(folders.len(), 10);
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let w = World::new();
        w.ok(&["init"]);
        // Beside each payload, 2.1.332's set keeps what tlc answered when it was captured.
        let mut files: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| !p.to_string_lossy().ends_with(".tlc-out.json"))
            .collect();
        files.sort();
        let mut calls = 0;
        for f in &files {
            let text = w
                .payload(&format!(
                    "providers/claude/real-{version}/{name}/{}",
                    f.file_name().unwrap().to_string_lossy()
                ))
                .replace("\"/home/dev/", &format!("\"{}/", w.dir.path().join("user").display()));
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            // The session's transcript exists (empty here); the /compact agent's never does.
            let transcript = std::path::PathBuf::from(v["transcript_path"].as_str().unwrap());
            std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
            std::fs::OpenOptions::new().create(true).append(true).open(&transcript).unwrap();
            let cwd = std::path::PathBuf::from(v["cwd"].as_str().unwrap());
            std::fs::create_dir_all(&cwd).unwrap();
            if cwd.ends_with("vendor/lib") {
                std::fs::create_dir_all(cwd.join(".git")).unwrap();
            }
            let out = w.hook_with("claude", text.as_bytes(), |c| {
                c.current_dir(&cwd).env("CLAUDE_PROJECT_DIR", &w.repo);
            });
            assert_eq!(out.status.code(), Some(0), "{name}/{f:?}");
            assert!(valid_claude(&stdout(&out)), "{name}/{f:?}: {}", stdout(&out));
            calls += 1;
        }
        let rows = w.count("SELECT count(*) FROM events WHERE kind NOT IN ('hook.fault', 'config.scaffolded', 'generation.end')");
        assert_eq!(rows, calls, "{version} {name}: one row per hook call");
        assert_eq!(
            w.count("SELECT count(*) FROM events WHERE kind IN ('unknown', 'hook.fault')"),
            0,
            "{name}"
        );
        assert_eq!(
            w.count("SELECT count(*) FROM sessions WHERE ended_at IS NULL"),
            0,
            "{name}: the session ended"
        );
        assert!(
            !w.repo.join("vendor/lib/.tlc").exists() && !w.repo.join("sub/.tlc").exists(),
            "{name}"
        );
    }
}

fn response_line(session: &str, n: u32, text: &str) -> String {
    serde_json::json!({
        "type": "assistant", "sessionId": session, "requestId": format!("req_{n}"),
        "timestamp": format!("2026-11-30T10:00:0{n}.000Z"),
        "message": {"id": format!("msg_{n}"), "model": "claude-sonnet-4-5-20250929", "role": "assistant",
                    "stop_reason": "end_turn", "content": [{"type": "text", "text": text}],
                    "usage": {"input_tokens": 10 * n, "output_tokens": n, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}
    })
    .to_string()
        + "\n"
}

fn claude_payload(event: &str, session: &str, transcript: &std::path::Path, extra: serde_json::Value) -> Vec<u8> {
    let mut v = serde_json::json!({"hook_event_name": event, "session_id": session, "transcript_path": transcript, "cwd": "/x"});
    v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    v.to_string().into_bytes()
}

/// A session whose last response reaches its transcript after its last hook (it never sends a
/// SessionEnd) gets that response from the next hook of another session, once.
#[test]
fn a_live_sessions_late_response_is_read_by_the_next_hook_of_any_session() {
    let w = World::new();
    w.ok(&["init"]);
    let (a, b) = (w.dir.path().join("a.jsonl"), w.dir.path().join("b.jsonl"));
    std::fs::write(&a, response_line("sa", 1, "first")).unwrap();
    std::fs::write(&b, "").unwrap();
    let gens = |s: &str| {
        w.count(&format!(
            "SELECT count(*) FROM events WHERE kind = 'generation.end' AND session_id = '{s}'"
        ))
    };
    assert_eq!(
        w.hook("claude", &claude_payload("SessionStart", "sa", &a, serde_json::json!({})))
            .status
            .code(),
        Some(0)
    );
    assert_eq!(gens("sa"), 1);
    let mut file = std::fs::OpenOptions::new().append(true).open(&a).unwrap();
    file.write_all(response_line("sa", 2, "late").as_bytes()).unwrap();
    w.hook(
        "claude",
        &claude_payload("UserPromptSubmit", "sb", &b, serde_json::json!({"prompt": "hi"})),
    );
    assert_eq!(gens("sa"), 2, "the next hook of another session read it");
    w.hook(
        "claude",
        &claude_payload("UserPromptSubmit", "sb", &b, serde_json::json!({"prompt": "again"})),
    );
    assert_eq!(gens("sa"), 2, "once");
    // An ended session's transcript is no longer watched.
    w.hook("claude", &claude_payload("SessionEnd", "sa", &a, serde_json::json!({})));
    file.write_all(response_line("sa", 3, "after the end").as_bytes()).unwrap();
    w.hook(
        "claude",
        &claude_payload("UserPromptSubmit", "sb", &b, serde_json::json!({"prompt": "third"})),
    );
    assert_eq!(gens("sa"), 2);
}

/// Claude Code writes its transcript asynchronously: a Stop waits (bounded) for the response it
/// names in `last_assistant_message`, so the stop's record counts it.
#[test]
fn a_stop_waits_for_its_response_to_reach_the_transcript() {
    let w = World::new();
    w.ok(&["init"]);
    let t = w.dir.path().join("s.jsonl");
    std::fs::write(&t, response_line("ss", 1, "working on it")).unwrap();
    let path = t.clone();
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(response_line("ss", 2, "All \"done\".\nBye").as_bytes()).unwrap();
    });
    let stop = claude_payload(
        "Stop",
        "ss",
        &t,
        serde_json::json!({"last_assistant_message": "All \"done\".\nBye"}),
    );
    let started = Instant::now();
    assert_eq!(w.hook("claude", &stop).status.code(), Some(0));
    writer.join().unwrap();
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE kind = 'generation.end' AND session_id = 'ss'"),
        2
    );
    let waited = w.count("SELECT json_extract(attrs, '$.transcript_wait_ms') FROM events WHERE kind = 'stop'");
    assert!((250..1500).contains(&waited), "{waited}");
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE json_extract(attrs, '$.transcript_behind') = 1"),
        0
    );
    // A response that never arrives: the stop gives up after the bound, and says so.
    let stop = claude_payload("Stop", "ss", &t, serde_json::json!({"last_assistant_message": "never written"}));
    let started = Instant::now();
    assert_eq!(w.hook("claude", &stop).status.code(), Some(0));
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(1500) && took < Duration::from_secs(10), "{took:?}");
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE json_extract(attrs, '$.transcript_behind') = 1"),
        1
    );
}

/// A SessionStart that goes on with a session (Claude Code's `source` `compact` or `resume`) keeps
/// the session's policy baseline: an out-of-band edit made before it still denies the next acting
/// call. A new session baselines what is there.
#[test]
fn a_compaction_or_a_resume_does_not_rebaseline_the_policy() {
    let w = World::new();
    w.ok(&["init"]);
    let start = |session: &str, source: &str| {
        format!(r#"{{"hook_event_name":"SessionStart","session_id":"{session}","cwd":"/x","source":"{source}"}}"#)
    };
    let bash = |session: &str| {
        format!(
            r#"{{"hook_event_name":"PreToolUse","session_id":"{session}","cwd":"/x","tool_name":"Bash","tool_input":{{"command":"touch x"}}}}"#
        )
    };
    w.hook("claude", start("sc", "startup").as_bytes());
    let cfg = w.repo.join(".tlc/harness/config.toml");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str("\n# edited out of band\n");
    std::fs::write(&cfg, text).unwrap();
    for source in ["compact", "resume"] {
        w.hook("claude", start("sc", source).as_bytes());
        let out = w.hook("claude", bash("sc").as_bytes());
        assert!(
            stdout(&out).contains(r#""permissionDecision":"deny""#),
            "after {source}: {}",
            stdout(&out)
        );
    }
    w.hook("claude", start("new", "startup").as_bytes());
    let out = w.hook("claude", bash("new").as_bytes());
    assert_eq!(stdout(&out), "", "a new session baselines what is there");
}

/// The WAL the hooks leave stays bounded (issue 37): every hook process rebuilds the WAL index
/// from the whole log it finds, so the hook whose commit leaves `store::HOOK_WAL_LIMIT_PAGES`
/// frames or more truncates it. PostToolUse hooks until it was truncated twice never leave the
/// limit's worth.
#[test]
fn the_wal_the_hooks_leave_is_truncated_at_its_limit() {
    let w = World::new();
    let wal = w.project_db().with_file_name("tlc.db-wal");
    let frames = || {
        std::fs::metadata(&wal)
            .map(|m| m.len().saturating_sub(32) / (24 + 4096))
            .unwrap_or(0)
    };
    let limit = tlc::store::HOOK_WAL_LIMIT_PAGES as u64;
    let payload = w.payload("providers/claude/post-tool-use-bash.json");
    let (mut most, mut truncations, mut last) = (0, 0, 0);
    for i in 0..200 {
        if truncations == 2 {
            break;
        }
        let p = payload.replacen('{', &format!("{{\"tool_use_id\": \"toolu_wal_{i}\", "), 1);
        w.hook("claude", p.as_bytes());
        let now = frames();
        if now < last {
            truncations += 1;
        }
        most = most.max(now);
        last = now;
    }
    assert!(
        truncations >= 2,
        "the WAL was truncated {truncations} times in 200 hooks (most {most} frames)"
    );
    assert!(most < limit, "a hook left {most} frames in the WAL; the limit is {limit}");
}

/// Claude Code 2.1.332's PermissionRequest (its own permission dialog is about to open), as in
/// ../shared/fixtures/providers/claude/real-2.1.332/allevents-noperm/05-PermissionRequest-Bash.json.
fn permission_request(w: &World, command: &str) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&w.payload("providers/claude/real-2.1.332/allevents-noperm/05-PermissionRequest-Bash.json")).unwrap();
    v["cwd"] = w.repo.display().to_string().into();
    v["transcript_path"] = w.dir.path().join("t.jsonl").display().to_string().into();
    v["tool_input"]["command"] = command.into();
    let out = w.hook_with("claude", v.to_string().as_bytes(), |c| {
        c.env("CLAUDE_PROJECT_DIR", &w.repo);
    });
    assert_eq!(out.status.code(), Some(0));
    stdout(&out)
}

#[test]
fn a_permission_request_for_a_floor_refused_command_is_refused_in_the_dialog() {
    let w = World::new();
    w.ok(&["init"]);
    let victim = w.dir.path().join("user/calc-old-build");
    std::fs::create_dir_all(&victim).unwrap();
    let out = permission_request(&w, &format!("rm -rf {}", victim.display()));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let specific = &v["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PermissionRequest");
    assert_eq!(specific["decision"]["behavior"], "deny", "{out}");
    assert!(specific["decision"]["message"].as_str().unwrap().contains("FLOOR"), "{out}");
    assert_eq!(
        w.count("SELECT count(*) FROM decisions WHERE permission = 'deny' AND rule = 'outside-project-destruction'"),
        1,
        "the refusal is a decision like any other"
    );
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE kind = 'permission.request' AND json_extract(attrs, '$.decision') = 'deny'"),
        1
    );
    assert!(victim.exists());
    // A harmless command's dialog is the operator's: tlc answers nothing and grants nothing.
    assert_eq!(permission_request(&w, "echo hello > out.txt && ls"), "");
    // The rails had their say at PreToolUse: a catastrophic command's dialog is the ask itself.
    assert_eq!(permission_request(&w, "dropdb calc_dev"), "");
    assert_eq!(w.count("SELECT count(*) FROM decisions WHERE permission = 'ask'"), 0);
}

#[test]
fn a_resumed_sessions_context_is_recorded_and_reported() {
    let w = World::new();
    w.ok(&["init"]);
    let text = w.payload("providers/claude/real-2.1.332/compact-wrapped/17-SessionStart.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["cwd"] = w.repo.display().to_string().into();
    v["transcript_path"] = w.dir.path().join("t.jsonl").display().to_string().into();
    w.hook_with("claude", v.to_string().as_bytes(), |c| {
        c.env("CLAUDE_PROJECT_DIR", &w.repo);
    });
    let attrs: serde_json::Value = serde_json::from_str(
        &w.db()
            .query_row("SELECT attrs FROM events WHERE kind = 'session.start'", [], |r| {
                r.get::<_, String>(0)
            })
            .unwrap(),
    )
    .unwrap();
    assert_eq!(attrs["context_tokens"], 7413);
    assert_eq!(attrs["seconds_since_last_response"], 4);
    assert_eq!(attrs["prompt_cache_likely_expired"], false);
    assert_eq!(attrs["estimated_cache_write_usd"], 0.0278);
    let report: serde_json::Value = serde_json::from_str(&w.ok(&["obs", "report", "--json"])).unwrap();
    assert_eq!(report["context_tokens"], 7413, "{report}");
    assert!(w.ok(&["obs", "report"]).contains("context at its last start: 7,413 tokens"));
}

/// An answer that carries text from the payload (a denied command's path, a tool's redacted
/// output) stays valid JSON whatever control characters that text holds: DEL, a C1 control and
/// the direction marks are written as JSON `\u` escapes, so the client reads the same characters
/// and the decision stands. (They were once escaped for a terminal, `\x7f` and `\u{202e}`, which
/// no JSON reader accepts: the answer, a deny included, could not be read.) The JSON lines of
/// `obs why` and `obs events`, which carry the same text, too.
#[test]
fn an_answer_carrying_control_characters_from_the_payload_is_valid_json() {
    let w = World::outside_temp();
    let marks = ["\u{7f}", "\u{85}", "\u{9b}", "\u{202e}", "\u{2066}", "\u{200f}"];
    let parse = |out: &std::process::Output, what: &str| -> serde_json::Value {
        let text = stdout(out);
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{what}: the answer is not JSON ({e}): {text:?}"))
    };
    for (i, mark) in marks.iter().enumerate() {
        let command = format!("rm -rf /etc{mark}");
        let session = format!("controls-{i}");
        let claude = serde_json::json!({
            "hook_event_name": "PreToolUse", "session_id": session, "cwd": w.repo, "tool_name": "Bash",
            "tool_use_id": "toolu_controls", "tool_input": {"command": command},
        });
        let v = parse(&w.hook("claude", claude.to_string().as_bytes()), &command);
        let specific = &v["hookSpecificOutput"];
        assert_eq!(specific["permissionDecision"], "deny", "{command:?}: {v}");
        let reason = specific["permissionDecisionReason"].as_str().unwrap();
        assert!(
            reason.contains(&format!("/etc{mark}")),
            "the reason names the path as sent: {reason:?}"
        );
        let cursor = serde_json::json!({
            "hook_event_name": "beforeShellExecution", "conversation_id": format!("{session}-u"),
            "workspace_roots": [w.repo], "cwd": w.repo, "command": command,
        });
        let v = parse(&w.hook("cursor", cursor.to_string().as_bytes()), &command);
        assert_eq!(v["permission"], "deny", "{command:?}: {v}");
        assert!(v["agent_message"].as_str().unwrap().contains(mark), "{v}");
    }
    // A redacted tool output is handed back with its other characters as they were.
    let key = ["AKIA", "IOSFODNN7", "EXAMPLE"].concat();
    let output = format!("key {key} then{} and{} done", marks[0], marks[3]);
    let post = serde_json::json!({
        "hook_event_name": "PostToolUse", "session_id": "controls-post", "cwd": w.repo, "tool_name": "Bash",
        "tool_use_id": "toolu_post", "tool_input": {"command": "cat notes"}, "tool_response": {"stdout": output},
    });
    let v = parse(&w.hook("claude", post.to_string().as_bytes()), "PostToolUse");
    let replaced = v["hookSpecificOutput"]["updatedToolOutput"]["stdout"].as_str().unwrap().to_string();
    assert!(!replaced.contains(&key), "{replaced:?}");
    assert!(
        replaced.ends_with(&format!(" then{} and{} done", marks[0], marks[3])),
        "{replaced:?}"
    );
    // The record read back as JSON lines.
    for args in [
        ["obs", "why", "50", "--format", "jsonl"],
        ["obs", "events", "50", "--format", "jsonl"],
    ] {
        let text = w.ok(&args);
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{args:?}: a line is not JSON ({e}): {l:?}")))
            .collect();
        assert!(!lines.is_empty(), "{args:?}");
        if args[1] == "why" {
            let reasons: String = lines.iter().map(|l| l.to_string()).collect();
            assert!(reasons.contains('\u{202e}'), "{args:?}: the reasons keep the mark: {text}");
            assert!(text.contains("\\u202e"), "{args:?}: the mark written as a JSON escape");
        }
    }
}

/// Whatever characters a payload's strings hold, every answer is exit 0 and valid JSON (or
/// nothing): 160 payloads over both providers' events, each string drawn from pieces that once
/// broke an answer or might (DEL, C1 controls, direction marks, NUL, escapes, quotes, a secret, a
/// destructive command). Deterministic: the same payloads on every run.
#[test]
fn answers_stay_valid_json_whatever_characters_the_payload_holds() {
    let w = World::outside_temp();
    let pieces = [
        "\u{7f}",
        "\u{85}",
        "\u{9b}",
        "\u{202e}",
        "\u{2066}",
        "\u{200f}",
        "\u{2028}",
        "\u{feff}",
        "\u{0}",
        "\u{1b}[31m",
        "\n",
        "\t",
        "\"",
        "\\",
        "😀",
        "rm -rf /",
        "AKIAIOSFODNN7EXAMPLE",
        "$(x)",
        "`y`",
        "~root",
        "..",
        "/etc",
        "a",
        " ",
        "/",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let text = |next: &mut dyn FnMut(usize) -> usize| -> String { (0..next(10)).map(|_| pieces[next(pieces.len())]).collect() };
    for i in 0..160 {
        let (provider, payload) = if i % 2 == 0 {
            let s = serde_json::json!({"session_id": format!("fuzz-c{}", text(&mut next)), "cwd": w.repo, "tool_use_id": format!("t{i}")});
            let mut p = s.as_object().unwrap().clone();
            let event = match next(6) {
                0 => serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": text(&mut next)}}),
                1 => {
                    serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": text(&mut next), "content": text(&mut next)}})
                }
                2 => serde_json::json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": text(&mut next)},
                    "tool_response": {"stdout": text(&mut next), "stderr": text(&mut next)}}),
                3 => serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": text(&mut next)}),
                4 => serde_json::json!({"hook_event_name": "Notification", "message": text(&mut next)}),
                _ => serde_json::json!({"hook_event_name": "Stop"}),
            };
            p.extend(event.as_object().unwrap().clone());
            ("claude", serde_json::Value::Object(p))
        } else {
            let s =
                serde_json::json!({"conversation_id": format!("fuzz-u{}", text(&mut next)), "workspace_roots": [w.repo], "cwd": w.repo});
            let mut p = s.as_object().unwrap().clone();
            let event = match next(4) {
                0 => serde_json::json!({"hook_event_name": "beforeShellExecution", "command": text(&mut next)}),
                1 => serde_json::json!({"hook_event_name": "afterShellExecution", "command": text(&mut next), "output": text(&mut next)}),
                2 => serde_json::json!({"hook_event_name": "beforeSubmitPrompt", "prompt": text(&mut next)}),
                _ => serde_json::json!({"hook_event_name": "afterFileEdit", "file_path": text(&mut next),
                    "edits": [{"old_string": text(&mut next), "new_string": text(&mut next)}]}),
            };
            p.extend(event.as_object().unwrap().clone());
            ("cursor", serde_json::Value::Object(p))
        };
        // Exit 0 is asserted by `hook_faulty` itself.
        let out = w.hook_faulty(provider, payload.to_string().as_bytes());
        let answer = stdout(&out);
        if !answer.trim().is_empty() {
            serde_json::from_str::<serde_json::Value>(answer.trim())
                .unwrap_or_else(|e| panic!("{provider}: the answer is not JSON ({e}): {answer:?}\npayload: {payload}"));
        }
    }
}

/// A signal mask line of `/proc/<pid>/status` (`SigCgt:`, `SigIgn:`), as bits; 0 when absent.
fn signal_mask(status: &str, field: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .unwrap_or(0)
}

fn signal_bit(signal: libc::c_int) -> u64 {
    1 << (signal - 1)
}

/// Starts `c` (a `tlc hook`) with piped stdio and waits until it has installed its handler for
/// `signal`, so a test that signals it does not race its start-up; returns the child and the
/// `/proc/<pid>/status` that showed the handler.
// The child is handed to the caller, which waits for it (`finish_hook`); clippy cannot see that.
#[allow(clippy::zombie_processes)]
fn hook_catching(mut c: std::process::Command, signal: libc::c_int) -> (std::process::Child, String) {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tlc hook");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
        if signal_mask(&status, "SigCgt:") & signal_bit(signal) != 0 {
            return (child, status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tlc hook never caught signal {signal}");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Writes `payload` to the hook's stdin, closes it, and waits for the hook's end.
fn finish_hook(mut child: std::process::Child, payload: &str) -> std::process::Output {
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(payload.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Claude Code sends SIGTERM to the hooks still running when it exits (a `StopFailure` fired as
/// it ends gets it 2 ms after its start). A hook that has the payload finishes recording it,
/// answers and exits 0; it does not lose the row. The signal is sent once the hook has installed
/// its handler (read from `/proc/<pid>/status`), so the test does not race the process's start.
#[test]
fn a_termination_signal_does_not_lose_the_event_being_recorded() {
    let w = World::new();
    let mut payload: serde_json::Value =
        serde_json::from_str(&fixture("providers/claude/real-2.1.197/allevents-apierror/04-StopFailure.json")).unwrap();
    // The captured transcript is not part of the fixtures; the row is what this test is about.
    payload.as_object_mut().unwrap().remove("transcript_path");
    let payload = payload.to_string();
    for signal in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        let (child, _) = hook_catching(w.cmd(&["hook", "claude"]), signal);
        // SAFETY: sends a signal to the child this test started, which has not been waited for.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let out = finish_hook(child, &payload);
        assert_eq!(out.status.code(), Some(0), "signal {signal}: {}", stderr(&out));
        assert!(valid_claude(&stdout(&out)), "signal {signal}: {}", stdout(&out));
    }
    let rows: i64 = w
        .db()
        .query_row("SELECT count(*) FROM events WHERE kind = 'stop.failure'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 3, "one stop.failure row per hook, signal or not");
    assert!(w.faults().is_empty(), "{:?}", w.faults());
}

/// A signal the hook was started with ignored (SIGHUP under `nohup`) stays ignored: the hook's
/// handler for the others does not take it over, and what it starts inherits the ignore.
#[test]
fn a_signal_the_hook_was_started_with_ignored_stays_ignored() {
    use std::os::unix::process::CommandExt;
    let w = World::new();
    let mut c = w.cmd(&["hook", "claude"]);
    // SAFETY: runs in the child between fork and exec and only calls signal, which is
    // async-signal-safe.
    unsafe {
        c.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        });
    }
    let (child, status) = hook_catching(c, libc::SIGTERM);
    assert_ne!(
        signal_mask(&status, "SigIgn:") & signal_bit(libc::SIGHUP),
        0,
        "SIGHUP is no longer ignored:\n{status}"
    );
    assert_eq!(
        signal_mask(&status, "SigCgt:") & signal_bit(libc::SIGHUP),
        0,
        "SIGHUP is caught:\n{status}"
    );
    let payload = serde_json::json!({"session_id": "s-ign", "hook_event_name": "UserPromptSubmit", "prompt": "hi", "cwd": w.repo});
    let out = finish_hook(child, &payload.to_string());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
