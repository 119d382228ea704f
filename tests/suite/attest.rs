//! Issue 35: the attestation chain (`tlc attest`) and the binary's revision (`tlc version`), through
//! the built binary, real git repositories and the system's `sqlite3` shell.

use crate::common::{stderr, stdout, tree, World};
use serde_json::{json, Value};
use std::process::Command;

fn hook_at(w: &World, payload: &Value, now: &str) {
    w.hook_with("claude", payload.to_string().as_bytes(), |c| {
        c.env("TLC_NOW", now);
    });
}

fn start(w: &World, session: &str, now: &str) {
    hook_at(
        w,
        &json!({"hook_event_name": "SessionStart", "session_id": session, "cwd": w.repo, "source": "startup"}),
        now,
    );
}

fn end(w: &World, session: &str, now: &str) {
    hook_at(
        w,
        &json!({"hook_event_name": "SessionEnd", "session_id": session, "cwd": w.repo, "reason": "exit"}),
        now,
    );
}

fn bash(w: &World, session: &str, command: &str, now: &str) {
    hook_at(
        w,
        &json!({"hook_event_name": "PreToolUse", "session_id": session, "cwd": w.repo, "tool_name": "Bash",
                "tool_use_id": format!("t-{now}"), "tool_input": {"command": command}}),
        now,
    );
}

fn attest_json(w: &World) -> Vec<Value> {
    serde_json::from_str(&w.ok(&["attest", "--json"])).expect("attest --json")
}

fn sqlite3(w: &World, sql: &str) -> String {
    let out = Command::new("sqlite3")
        .arg(w.project_db())
        .arg(sql)
        .output()
        .expect("the sqlite3 shell");
    assert!(out.status.success(), "sqlite3 {sql}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn two_sessions_make_a_chain_that_verifies_and_a_changed_record_breaks_it_at_that_record() {
    let w = World::outside_temp();
    start(&w, "A", "2026-12-01T10:00:00Z");
    bash(&w, "A", "rm -rf /", "2026-12-01T10:01:00Z");
    // The operator changes the posture at a terminal while A runs: A's record lists it.
    let op = w.operator_in(&w.repo, &["mode", "focus"], &[("TLC_NOW", "2026-12-01T10:01:30Z")]);
    assert!(op.status.success(), "{}", stdout(&op));
    end(&w, "A", "2026-12-01T10:02:00Z");
    start(&w, "B", "2026-12-01T11:00:00Z");
    bash(&w, "B", "ls", "2026-12-01T11:01:00Z");
    end(&w, "B", "2026-12-01T11:02:00Z");

    let verified = w.ok(&["attest", "--verify"]);
    assert!(verified.contains("2 records"), "{verified}");
    let chain = attest_json(&w);
    assert_eq!(chain.len(), 2, "{chain:?}");
    let (a, b) = (&chain[0], &chain[1]);
    assert_eq!((a["seq"].as_i64(), a["session_id"].as_str()), (Some(1), Some("A")));
    assert_eq!((b["seq"].as_i64(), b["session_id"].as_str()), (Some(2), Some("B")));
    assert_eq!(b["prev_hash"], a["hash"], "each record names the hash of the one before");
    let ra = &a["record"];
    assert_eq!(ra["closed_by"], "session-end");
    assert_eq!(ra["ended_at"], "2026-12-01T10:02:00.000Z");
    // What tlc observed: the floor's refusal, the policy it baselined, the rails acting.
    let refusals = ra["refusals"].as_array().unwrap();
    assert!(
        refusals
            .iter()
            .any(|r| r["permission"] == "deny" && r["floor"] == true && r["count"] == 1),
        "{ra}"
    );
    assert!(
        ra["policy"].as_array().is_some_and(|p| !p.is_empty()),
        "the baselined policy sources: {ra}"
    );
    // No local path: the record can leave the machine (`obs ship`).
    assert!(!a["record"].to_string().contains(&w.dir.path().display().to_string()), "{ra}");
    assert!(
        ra["policy"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["source"].as_str().unwrap().starts_with("<project>/")),
        "{ra}"
    );
    assert!(
        ra["rails_active"].as_array().unwrap().iter().any(|r| r == "policy integrity"),
        "{ra}"
    );
    assert_eq!(b["record"]["refusals"], json!([]), "B was refused nothing");
    let ops = ra["operator_commands"].as_array().unwrap();
    assert_eq!(ops.len(), 1, "{ra}");
    assert_eq!(ops[0]["command"], "`tlc mode <posture>`");
    assert_eq!(ops[0]["ts"], "2026-12-01T10:01:30.000Z");
    assert!(ops[0]["tty"].as_str().is_some_and(|t| t.starts_with("/dev/")), "{ops:?}");
    assert!(ops[0]["checked"].as_str().unwrap().contains("no agent session"), "{ops:?}");
    assert_eq!(b["record"]["operator_commands"], json!([]), "B ran after it");
    assert_eq!(b["record"]["posture"], "focus");

    // The system's sqlite3 shell checks the same chain with its own sha3().
    assert_eq!(sqlite3(&w, "select seq, ok from attestation_chain order by seq"), "1|1\n2|1\n");

    // Rewriting the first record's text breaks the chain there, and only the link there.
    sqlite3(
        &w,
        "update attestations set record = replace(record, '\"count\":1', '\"count\":0') where seq = 1",
    );
    let out = w.run(&["attest", "--verify", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (v["ok"].as_bool(), v["broken_at"].as_i64(), v["records"].as_i64()),
        (Some(false), Some(1), Some(2)),
        "{v}"
    );
    let text = w.run(&["attest", "--verify"]);
    assert_eq!(text.status.code(), Some(1));
    assert!(stdout(&text).contains("broken at record 1"), "{}", stdout(&text));
    assert_eq!(sqlite3(&w, "select seq, ok from attestation_chain order by seq"), "1|0\n2|1\n");
    // tlc reads the view too (it registers the shell's sha3()).
    let exported = w.ok(&["obs", "export", "attestation_chain", "--format", "csv"]);
    assert!(exported.contains("1,A,0") && exported.contains("2,B,1"), "{exported}");
}

#[test]
fn a_session_that_never_ended_is_attested_at_a_later_start_once_quiet() {
    let w = World::new();
    start(&w, "A", "2026-12-01T10:00:00Z");
    bash(&w, "A", "ls", "2026-12-01T10:01:00Z");
    // B starts while A may still be working: A is left to its own end.
    start(&w, "B", "2026-12-01T10:05:00Z");
    assert_eq!(attest_json(&w).len(), 0);
    let listed = w.ok(&["attest"]);
    assert!(listed.contains("2 session(s) not attested yet"), "{listed}");
    // C starts after A has been quiet for more than 15 minutes: A (and B) get their records.
    start(&w, "C", "2026-12-01T10:30:00Z");
    let chain = attest_json(&w);
    let sessions: Vec<&str> = chain.iter().map(|a| a["session_id"].as_str().unwrap()).collect();
    assert_eq!(sessions, ["A", "B"], "{chain:?}");
    assert_eq!(chain[0]["record"]["closed_by"], "next-session-start");
    assert_eq!(chain[0]["record"]["ended_at"], Value::Null);
    assert_eq!(chain[0]["record"]["last_seen"], "2026-12-01T10:01:00.000Z");
    // C's own end appends its record; nothing is attested twice.
    end(&w, "C", "2026-12-01T10:40:00Z");
    start(&w, "D", "2026-12-01T11:00:00Z");
    let sessions: Vec<String> = attest_json(&w)
        .iter()
        .map(|a| a["session_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sessions, ["A", "B", "C"]);
    w.ok(&["attest", "--verify"]);
    let one: Vec<Value> = serde_json::from_str(&w.ok(&["attest", "--session", "C", "--json"])).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0]["record"]["closed_by"], "session-end");
}

#[test]
fn attest_and_version_only_read() {
    let w = World::new();
    let before = tree(w.dir.path());
    let out = w.run(&["attest", "--verify", "--json"]);
    assert_eq!(out.status.code(), Some(0), "no records is a valid chain: {}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((v["ok"].as_bool(), v["records"].as_i64()), (Some(true), Some(0)));
    assert!(w.ok(&["attest"]).contains("no attestation records yet"));
    w.ok(&["version"]);
    w.ok(&["version", "--json"]);
    assert_eq!(tree(w.dir.path()), before, "attest and version created nothing");
}

#[test]
fn version_names_the_commit_this_binary_was_built_from_and_what_the_project_last_ran() {
    let w = World::new();
    let v: Value = serde_json::from_str(&w.ok(&["version", "--json"])).unwrap();
    let manifest = env!("CARGO_MANIFEST_DIR");
    let head = Command::new("git").args(["-C", manifest, "rev-parse", "HEAD"]).output().unwrap();
    let head = stdout(&head).trim().to_string();
    if std::env::var("TLC_COMMIT").is_err() {
        assert_eq!(v["commit"], head, "the commit the test built");
        assert!(["clean", "dirty"].contains(&v["tree"].as_str().unwrap()), "{v}");
    }
    assert_eq!(v["source_dir"], manifest);
    assert!(!v["line"].as_str().unwrap().contains(env!("CARGO_PKG_VERSION")), "{v}");
    assert_eq!(v["project"]["hooks_revision"], Value::Null, "no hook has run here");

    start(&w, "A", "2026-12-01T10:00:00Z");
    let v: Value = serde_json::from_str(&w.ok(&["version", "--json"])).unwrap();
    let recorded = v["project"]["hooks_revision"].as_str().unwrap();
    assert!(recorded.starts_with(v["commit"].as_str().unwrap()), "{v}");
    assert_eq!(v["project"]["hooks_revision_since"], "2026-12-01T10:00:00.000Z");
    assert_eq!(v["project"]["same_as_this_binary"], true);
    // A hook of a different revision was here before: the project says so, and keeps the earlier one.
    sqlite3(
        &w,
        "update tlc_meta set value = 'feedfacefeedfacefeedfacefeedfacefeedface' where key = 'hooks.revision'",
    );
    let text = w.ok(&["version"]);
    assert!(
        text.contains("feedfacefeed") && text.contains("a different revision than this binary"),
        "{text}"
    );
    start(&w, "B", "2026-12-02T09:00:00Z");
    let v: Value = serde_json::from_str(&w.ok(&["version", "--json"])).unwrap();
    assert_eq!(v["project"]["previous_revision"], "feedfacefeedfacefeedfacefeedfacefeedface");
    assert_eq!(v["project"]["hooks_revision_since"], "2026-12-02T09:00:00.000Z");
}

/// Issue 51, item 6: the chain's head is anchored in the home database at each append, so a chain
/// whose tail was truncated, or one rewritten with every later hash recomputed (its links all
/// hold), fails `--verify`, naming what differs from the anchor.
#[test]
fn a_truncated_or_rewritten_chain_fails_verify_against_its_anchor() {
    let w = World::outside_temp();
    for (i, s) in ["A", "B", "C"].iter().enumerate() {
        start(&w, s, &format!("2026-12-01T1{i}:00:00Z"));
        bash(&w, s, "ls", &format!("2026-12-01T1{i}:01:00Z"));
        end(&w, s, &format!("2026-12-01T1{i}:02:00Z"));
    }
    assert!(w.ok(&["attest", "--verify"]).contains("3 records"));
    sqlite3(&w, "PRAGMA wal_checkpoint(TRUNCATE)");
    let saved = std::fs::read(w.project_db()).unwrap();

    // Truncated: the last record deleted. Every remaining link holds.
    sqlite3(&w, "DELETE FROM attestations WHERE seq = 3");
    let out = w.run(&["attest", "--verify"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("truncated") && stdout(&out).contains("record 3"),
        "{}",
        stdout(&out)
    );
    // A session that appends after the truncation does not launder it: the anchor stays.
    let log_before = std::fs::read_to_string(w.home.join("state/hook-faults.log")).unwrap_or_default();
    for (event, at) in [("SessionStart", "2026-12-01T15:00:00Z"), ("SessionEnd", "2026-12-01T15:02:00Z")] {
        w.hook_faulty_with(
            "claude",
            json!({"hook_event_name": event, "session_id": "D", "cwd": w.repo, "source": "startup", "reason": "exit"})
                .to_string()
                .as_bytes(),
            |c| {
                c.env("TLC_NOW", at);
            },
        );
    }
    let out = w.run(&["attest", "--verify"]);
    assert_eq!(out.status.code(), Some(1), "the append laundered the truncation: {}", stdout(&out));
    let log = std::fs::read_to_string(w.home.join("state/hook-faults.log")).unwrap_or_default();
    assert!(log.len() > log_before.len() && log.contains("anchored head"), "{log}");

    // Rewritten: record 1's text changed and every hash after it recomputed as tlc would.
    std::fs::write(w.project_db(), &saved).unwrap();
    for f in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{f}", w.project_db().display()));
    }
    assert!(w.ok(&["attest", "--verify"]).contains("3 records"));
    sqlite3(
        &w,
        "UPDATE attestations SET record = replace(record, '\"closed_by\":\"session-end\"', '\"closed_by\":\"forged\"') WHERE seq = 1;
         UPDATE attestations SET hash = lower(hex(sha3(prev_hash || record, 256))) WHERE seq = 1;
         UPDATE attestations SET prev_hash = (SELECT hash FROM attestations WHERE seq = 1) WHERE seq = 2;
         UPDATE attestations SET hash = lower(hex(sha3(prev_hash || record, 256))) WHERE seq = 2;
         UPDATE attestations SET prev_hash = (SELECT hash FROM attestations WHERE seq = 2) WHERE seq = 3;
         UPDATE attestations SET hash = lower(hex(sha3(prev_hash || record, 256))) WHERE seq = 3;",
    );
    let out = w.run(&["attest", "--verify"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("rewritten") && stdout(&out).contains("record 3"),
        "{}",
        stdout(&out)
    );
}

/// Issue 53, item 6: an imported JSONL line claiming an operator command is history — stored as
/// `imported.operator.command` — and never enters a session's attestation.
#[test]
fn an_imported_operator_command_is_history_and_no_attestation_lists_it() {
    let w = World::outside_temp();
    start(&w, "A", "2026-12-01T10:00:00Z");
    let forged = json!({"schema": "harness.observability.v1", "provider": "tlc", "kind": "operator.command",
        "ts": "2026-12-01T10:01:00Z", "attrs": {"command": "`tlc policy accept`", "tty": "/dev/pts/0",
        "checked": "an interactive controlling terminal, and no agent session in its environment or ancestry"}});
    let file = w.dir.path().join("forged.jsonl");
    std::fs::write(&file, format!("{forged}\n")).unwrap();
    w.ok(&["obs", "import", "jsonl", file.to_str().unwrap()]);
    end(&w, "A", "2026-12-01T10:02:00Z");
    let chain = attest_json(&w);
    assert_eq!(chain.len(), 1, "{chain:?}");
    assert_eq!(chain[0]["record"]["operator_commands"], json!([]), "{}", chain[0]);
    assert_eq!(
        sqlite3(&w, "select kind from events where dedup_key like 'jsonl:%'"),
        "imported.operator.command\n"
    );
}
