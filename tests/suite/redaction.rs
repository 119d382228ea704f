//! Secret redaction through the built binary: crafted payloads answer in linear time, the paths tlc
//! uses are used as given, the formats that leaked before are redacted, and a tool output that
//! held a secret is replaced for the model (or the model is told) — issue 14 items 3, 4 and 8,
//! issue 18 item 5.

use crate::common;
use common::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

/// Generous for a payload the hook answers in well under a second, short enough that a
/// quadratic scan (27.7 s for `"ASIA" * 80000` before) fails fast instead of hanging the suite.
const HOOK_TIMEOUT_SECS: &str = "10";

/// `timeout 10 tlc hook <provider>` with `payload` on stdin, in the world's repository.
fn hook_within_timeout(w: &World, provider: &str, payload: &[u8]) -> Output {
    let mut c = Command::new("timeout");
    c.args([HOOK_TIMEOUT_SECS, TLC, "hook", provider]).current_dir(&w.repo);
    isolate(&mut c, &w.home, &w.dir.path().join("user"));
    pipe(c, payload)
}

fn response(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "hook exit code (124 is the timeout); stderr {}",
        stderr(out)
    );
    let text = stdout(out);
    if text.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }
}

fn bash_post_tool_use(session: &str, stdout: &str) -> Value {
    // The shape Claude Code 2.1.197 sends (providers/claude/real-2.1.197/allevents-full/05).
    json!({
        "session_id": session,
        "cwd": "/repo",
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "./show-config.sh", "description": "show"},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
        "tool_use_id": "toolu_redact_1",
        "duration_ms": 51
    })
}

fn last_attrs(w: &World) -> Value {
    let attrs: String = w
        .db()
        .query_row(
            "SELECT attrs FROM events WHERE kind != 'hook.fault' ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&attrs).unwrap()
}

fn faults(w: &World) -> Vec<String> {
    let db = w.db();
    let mut st = db
        .prepare("SELECT json_extract(attrs, '$.fault') FROM events WHERE kind = 'hook.fault' ORDER BY id")
        .unwrap();
    st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn crafted_payloads_are_answered_in_linear_time() {
    let w = World::new();
    let mib = 1024 * 1024;
    let shapes: Vec<(&str, String)> = vec![
        ("ASIA x 80000 (the attack)", "ASIA".repeat(80_000)),
        ("AKIA run, 4 MiB", "AKIA".repeat(mib)),
        ("eyJ run, 4 MiB", "eyJ".repeat(4 * mib / 3)),
        ("eyJ segments, 4 MiB", "eyJxxxx.".repeat(mib / 2)),
        ("Bearer run, 4 MiB", "Bearer ".repeat(4 * mib / 7)),
        ("URL schemes, 4 MiB", "a://b:c".repeat(4 * mib / 7)),
        ("PEM headers, 4 MiB", "-----BEGIN ".repeat(4 * mib / 11)),
        ("plain text, 50 MB", "lorem ipsum dolor sit amet ".repeat(50_000_000 / 27)),
    ];
    for (name, text) in &shapes {
        let payload = bash_post_tool_use("crafted", text).to_string();
        let out = hook_within_timeout(&w, "claude", payload.as_bytes());
        assert!(response(&out).is_null(), "{name}: no secret, no replacement");
    }
    // The same shapes spread over fields under the scan cap: no cap hides a quadratic scan.
    let fields: serde_json::Map<String, Value> = (0..8)
        .map(|i| (format!("part{i}"), Value::String("ASIA".repeat(mib / 4))))
        .collect();
    let mut payload = bash_post_tool_use("crafted", "");
    payload["tool_response"] = Value::Object(fields);
    response(&hook_within_timeout(&w, "claude", payload.to_string().as_bytes()));

    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE session_id = 'crafted' AND kind = 'shell.end'"),
        shapes.len() as i64 + 1
    );
    assert_eq!(w.count("SELECT count(*) FROM events WHERE kind = 'hook.fault'"), 0);
}

#[test]
fn a_field_beyond_the_scan_cap_is_stored_cut_never_unscanned() {
    let w = World::new();
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(
        w.home.join("config.toml"),
        "[obs]\nincludePayloads = true\nmaxAttrChars = 4000000\n",
    )
    .unwrap();
    let late_secret = "ghp_LateLate1Secret2Beyond3The4Cap5Zz6Yy7X";
    let mut text = "plain words ".repeat(200_000); // 2.4 MB, past the 1 MiB cap
    text.push_str(late_secret);
    let out = hook_within_timeout(&w, "claude", bash_post_tool_use("cut", &text).to_string().as_bytes());
    assert!(response(&out).is_null());
    let stored = last_attrs(&w)["tool_response"]["stdout"].as_str().unwrap().to_string();
    assert!(stored.len() < 1024 * 1024 + 100, "cut near the cap: {} bytes", stored.len());
    assert!(stored.ends_with("bytes: not scanned]"), "{}", &stored[stored.len() - 80..]);
    assert!(files_containing(w.dir.path(), late_secret.as_bytes()).is_empty());
}

/// A transcript with one API response, at `<projects>/<folder>/<session>.jsonl`.
fn transcript_in(dir: &Path, folder: &str) -> String {
    let folder = dir.join("claude-projects").join(folder);
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("750024e7-2a00-48af-8b96-405cb864fe0f.jsonl");
    std::fs::copy(fixtures().join("providers/claude/session/transcript.jsonl"), &path).unwrap();
    path.display().to_string()
}

#[test]
fn paths_tlc_uses_are_used_as_given() {
    let w = World::new();
    // Random enough for the entropy rule, which takes it for a key wherever it is not a path.
    let folder = "-Users-JohnSmith-Documents-GitHub-MyApp2";
    let transcript = transcript_in(w.dir.path(), folder);
    let cwd = w.dir.path().join(folder);
    std::fs::create_dir_all(&cwd).unwrap();
    let read = json!({
        "session_id": "paths-1", "transcript_path": transcript, "cwd": cwd,
        "hook_event_name": "PreToolUse", "tool_name": "Read",
        "tool_input": {"file_path": format!("{}/notes.md", cwd.display())}, "tool_use_id": "toolu_p1"
    });
    response(&hook_within_timeout(&w, "claude", read.to_string().as_bytes()));
    assert!(faults(&w).is_empty(), "{:?}", faults(&w));
    assert!(
        w.count("SELECT count(*) FROM events WHERE kind = 'generation.end'") > 0,
        "the transcript was read"
    );
    let (stored_path, session_cwd): (String, String) = w
        .db()
        .query_row("SELECT t.path, s.cwd FROM transcripts t, sessions s", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(stored_path, transcript);
    assert_eq!(session_cwd, cwd.display().to_string());
    let detail: String = w.db().query_row("SELECT detail FROM decisions", [], |r| r.get(0)).unwrap();
    assert_eq!(detail, format!("{}/notes.md", cwd.display()));
    assert_eq!(w.count("SELECT count(*) FROM events WHERE payload LIKE '%REDACTED%'"), 0);
}

#[test]
fn a_transcript_that_cannot_be_read_is_a_fault() {
    let w = World::new();
    let dir = w.dir.path().join("transcripts");
    std::fs::create_dir_all(dir.join("folder.jsonl")).unwrap();
    let missing = dir.join("missing.jsonl").display().to_string();
    let cases = [
        (missing.clone(), "No such file"),
        (dir.join("folder.jsonl").display().to_string(), "not a regular file"),
        (dir.join("notes.txt").display().to_string(), "not a .jsonl transcript"),
    ];
    for (i, (path, _)) in cases.iter().enumerate() {
        let mut p = bash_post_tool_use("unread", "ok");
        p["transcript_path"] = json!(path);
        p["tool_use_id"] = json!(format!("toolu_u{i}"));
        if *path == missing {
            // Until read once, a missing transcript is expected on the first response's tool
            // events (the client's write lags); at a Stop the response is written.
            p = json!({"session_id": "unread", "transcript_path": missing, "cwd": "/repo", "hook_event_name": "Stop", "stop_hook_active": false});
        }
        response(&hook_within_timeout(&w, "claude", p.to_string().as_bytes()));
    }
    let got = faults(&w);
    assert_eq!(got.len(), cases.len(), "{got:?}");
    for ((path, why), fault) in cases.iter().zip(&got) {
        assert!(
            fault.starts_with(&format!("transcript not read: {path}: ")) && fault.contains(why),
            "{fault}"
        );
    }
    // Before the first response Claude Code has not written it yet, nor always by the first
    // response's tool events: no fault then.
    for event in ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"] {
        let p = json!({"session_id": "unread", "transcript_path": missing, "cwd": "/repo", "hook_event_name": event, "prompt": "hi", "source": "startup"});
        response(&hook_within_timeout(&w, "claude", p.to_string().as_bytes()));
    }
    assert_eq!(faults(&w).len(), cases.len());
}

#[test]
fn the_secrets_that_leaked_before_are_redacted_and_ids_and_models_are_kept() {
    let w = World::new();
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), "[obs]\nincludePayloads = true\nglobalSpool = true\n").unwrap();
    let secrets = [
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "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",
        "glpat-_1fjORS-6ilI8ihN5KXS",
        "SK0eb53f16947ccf25ec84d8dbc7425477",
        "aF1LlqsajAIxNKu8iS2G8NPRVdD53X83RZJzzzzg",
        "ZGVwbG95OlN1cDNyUzNjcmV0UHc=",
        "Sup3rS3cretPw",
    ];
    let stdout = format!(
        "[default]\naws_secret_access_key = {}\nHF_TOKEN={}\nGITLAB_TOKEN={}\nTWILIO_API_KEY={}\n\
         > GET /v1/me\n> Authorization: Bearer {}\n> Proxy-Authorization: Basic {}\n\
         DATABASE_URL=postgres://admin:{}@db.internal:5432/app\nmessage msg_01XFDUDYJgAACzvnptvVoYEL from claude-sonnet-4-5-20250929\n",
        secrets[0], secrets[1], secrets[2], secrets[3], secrets[4], secrets[5], secrets[6]
    );
    let mut payload = bash_post_tool_use("leaks-1", &stdout);
    payload["tool_input"]["command"] = json!(format!("curl -H 'Authorization: Bearer {}' https://api", secrets[4]));
    response(&hook_within_timeout(&w, "claude", payload.to_string().as_bytes()));
    let start = json!({"session_id": "leaks-1", "cwd": "/repo", "hook_event_name": "SessionStart", "source": "compact", "model": "claude-opus-4-1-20250805"});
    response(&hook_within_timeout(&w, "claude", start.to_string().as_bytes()));
    for secret in secrets {
        let found = files_containing(w.dir.path(), secret.as_bytes());
        assert!(found.is_empty(), "{secret} found in {found:?}");
    }
    let payload: String = w
        .db()
        .query_row("SELECT payload FROM events WHERE kind = 'shell.end'", [], |r| r.get(0))
        .unwrap();
    for kind in [
        "aws_secret_key",
        "huggingface_token",
        "gitlab_token",
        "twilio_key",
        "bearer_token",
        "basic_auth",
        "url_password",
    ] {
        assert!(payload.contains(&format!("[REDACTED:{kind}:")), "{kind} missing in {payload}");
    }
    assert!(
        payload.contains("postgres://admin:[REDACTED:url_password:"),
        "the user and host stay readable"
    );
    assert!(
        payload.contains("msg_01XFDUDYJgAACzvnptvVoYEL from claude-sonnet-4-5-20250929"),
        "ids and model names are not secrets"
    );
    let model: String = w
        .db()
        .query_row("SELECT model FROM events WHERE kind = 'session.start'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(model, "claude-opus-4-1-20250805");
}

#[test]
fn a_secret_named_as_a_config_key_stays_out_of_the_fault_log() {
    let w = World::new();
    std::fs::create_dir_all(&w.home).unwrap();
    let token = "ghp_R2d2C3poLuke4Leia5Han6Chewie7Yoda8Ben9";
    let random = "Zx8Qm2Lp9Wv4Rt7Ky1Nb6Hc3Jd5Fg0Sa2Qe";
    for key in [token, random] {
        std::fs::write(w.home.join("config.toml"), format!("[obs]\n{key} = true\n")).unwrap();
        response(&hook_within_timeout(
            &w,
            "claude",
            bash_post_tool_use("cfg", "ok").to_string().as_bytes(),
        ));
    }
    let log = std::fs::read_to_string(w.home.join("state/hook-faults.log")).unwrap();
    assert!(!log.contains(token) && !log.contains(random), "{log}");
    assert!(
        log.contains("key `obs.[REDACTED:github_token:") && log.contains("key `obs.[REDACTED:high_entropy:"),
        "{log}"
    );
    assert!(
        log.contains(&w.home.join("config.toml").display().to_string()),
        "the file is still named: {log}"
    );
}

#[test]
fn claude_gets_the_redacted_output_where_it_can_replace_it_and_a_notice_where_it_cannot() {
    let w = World::new();
    let key = "AKIAIOSFODNN7EXAMPLE";
    // PostToolUse (any tool): updatedToolOutput, in the tool's own output shape.
    let out = response(&hook_within_timeout(
        &w,
        "claude",
        bash_post_tool_use("m1", &format!("id={key}")).to_string().as_bytes(),
    ));
    let specific = &out["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PostToolUse");
    let replaced = &specific["updatedToolOutput"];
    assert!(
        replaced["stdout"].as_str().unwrap().starts_with("id=[REDACTED:aws_access_key:"),
        "{out}"
    );
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(replaced), ["stdout", "stderr", "interrupted", "isImage", "noOutputExpected"]);
    assert!(specific.get("updatedMCPToolOutput").is_none());
    assert_eq!(last_attrs(&w)["secret_output"], "replaced");
    let stored: String = w
        .db()
        .query_row("SELECT payload FROM events ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
        .unwrap();
    assert!(
        stored.contains(replaced["stdout"].as_str().unwrap()),
        "the model sees the stored placeholder"
    );

    // An MCP tool: both names, for clients older than 2.1.121 too.
    let mcp = json!({"session_id": "m1", "hook_event_name": "PostToolUse", "tool_name": "mcp__vault__read",
        "tool_input": {"name": "deploy"}, "tool_response": [{"type": "text", "text": format!("key: {key}")}], "tool_use_id": "toolu_m2"});
    let out = response(&hook_within_timeout(&w, "claude", mcp.to_string().as_bytes()));
    assert_eq!(
        out["hookSpecificOutput"]["updatedMCPToolOutput"],
        out["hookSpecificOutput"]["updatedToolOutput"]
    );
    assert!(out["hookSpecificOutput"]["updatedToolOutput"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("key: [REDACTED:"));

    // PostToolUseFailure cannot replace the error: the notice, as context.
    let failure = json!({"session_id": "m1", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
        "tool_input": {"command": "./deploy"}, "tool_use_id": "toolu_m3", "error": format!("Exit code 3\nbad key {key}"), "is_interrupt": false});
    let out = response(&hook_within_timeout(&w, "claude", failure.to_string().as_bytes()));
    let context = out["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert_eq!(out["hookSpecificOutput"]["hookEventName"], "PostToolUseFailure");
    assert!(
        context.contains("held a secret (aws_access_key)") && context.contains("do not repeat it") && !context.contains(key),
        "{context}"
    );
    assert_eq!(last_attrs(&w)["secret_output"], "notice");

    // No secret in the output (one in the input only): nothing to replace.
    let mut clean = bash_post_tool_use("m1", "all good");
    clean["tool_input"]["command"] = json!(format!("echo {key} > /dev/null"));
    assert!(response(&hook_within_timeout(&w, "claude", clean.to_string().as_bytes())).is_null());
    assert_eq!(last_attrs(&w)["secrets_redacted"], 1);
    assert!(last_attrs(&w).get("secret_output").is_none());

    // With redaction off nothing is replaced (and nothing redacted).
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), "[secrets]\nredactOutput = false\n").unwrap();
    assert!(response(&hook_within_timeout(
        &w,
        "claude",
        bash_post_tool_use("m1", key).to_string().as_bytes()
    ))
    .is_null());
}

#[test]
fn cursor_replaces_mcp_output_and_gets_a_notice_for_other_tools() {
    let w = World::new();
    let key = "ghp_R2d2C3poLuke4Leia5Han6Chewie7Yoda8Ben9";
    let base = |event: &str, tool: &str, output: Value| {
        json!({"conversation_id": "c1", "generation_id": "g1", "session_id": "c1", "hook_event_name": event,
            "workspace_roots": ["/repo"], "tool_name": tool, "tool_input": {"command": "x"}, "tool_output": output})
    };
    // MCP: the value its JSON text held, redacted.
    let text = json!({"content": [{"type": "text", "text": format!("token\n{key}")}]}).to_string();
    let out = response(&hook_within_timeout(
        &w,
        "cursor",
        base("postToolUse", "MCP:vault_read", json!(text)).to_string().as_bytes(),
    ));
    let replaced = out["updated_mcp_tool_output"]["content"][0]["text"].as_str().unwrap();
    assert!(replaced.starts_with("token\n[REDACTED:github_token:"), "{out}");
    assert_eq!(out.as_object().unwrap().len(), 1, "{out}");

    // Shell output cannot be replaced: the notice.
    let shell = json!({"output": format!("cat .env\nGH={key}"), "exitCode": 0}).to_string();
    let out = response(&hook_within_timeout(
        &w,
        "cursor",
        base("postToolUse", "Shell", json!(shell)).to_string().as_bytes(),
    ));
    assert!(
        out["additional_context"].as_str().unwrap().contains("held a secret (github_token)"),
        "{out}"
    );
    assert!(out.get("updated_mcp_tool_output").is_none());

    // afterShellExecution's answer is not read by Cursor: stored redacted, answered `{}`.
    let after = json!({"conversation_id": "c1", "session_id": "c1", "hook_event_name": "afterShellExecution",
        "workspace_roots": ["/repo"], "command": "cat .env", "output": format!("GH={key}")});
    assert_eq!(
        response(&hook_within_timeout(&w, "cursor", after.to_string().as_bytes())),
        json!({})
    );
    assert_eq!(last_attrs(&w)["secrets_redacted"], 1);
    assert!(files_containing(w.dir.path(), key.as_bytes()).is_empty());
}
