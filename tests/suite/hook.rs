//! The hook path: every fixture payload, hostile input, redaction, where it writes, the spool.

use crate::common;
use common::*;
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

    // The spool is off by default: a project with no machine config writes nothing under the home.
    let w2 = World::new();
    assert_neutral(
        &w2.hook("claude", w2.payload("providers/claude/stop.json").as_bytes()),
        "claude",
        "no spool",
    );
    assert!(!w2.home_db().exists());
}
