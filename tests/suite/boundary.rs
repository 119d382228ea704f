//! The boundary in the kernel (issue 51), apart from the real client (`e2e_claude.rs` drives it):
//! what `tlc status` and `tlc doctor` say holds it per provider, a new repository's first session
//! adding it to Claude Code's sandbox, operator commands inside a read-only state, and the
//! anchors in the home database.

use crate::common;
use common::*;
use serde_json::{json, Value};

fn claude_settings(w: &World) -> std::path::PathBuf {
    w.dir.path().join("user/.claude/settings.json")
}

fn boundary_of<'v>(status: &'v Value, provider: &str) -> &'v Value {
    status["boundary"]["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["provider"] == provider)
        .unwrap_or_else(|| panic!("no {provider} in {status}"))
}

fn status(w: &World) -> Value {
    serde_json::from_str(&w.ok(&["status", "--json"])).unwrap()
}

/// Issue 51, item 7: `tlc status --json` names the boundary per provider — `kernel` where the
/// agent's commands run in Claude Code's sandbox with the protected set out of reach,
/// `recognition` (with the routes that stay open) where they do not: not wired, wired with
/// `--no-sandbox`, a sandbox with an opening, and Cursor, which has none tlc can wire.
#[test]
fn status_names_the_boundary_per_provider_in_each_state() {
    let w = World::new();
    let st = status(&w);
    assert_eq!(boundary_of(&st, "claude")["wired"], false);
    assert_eq!(st["boundary"]["gates"], "bubblewrap", "{st}");

    w.ok(&["install", "--claude", "--no-sandbox"]);
    let st = status(&w);
    let claude = boundary_of(&st, "claude");
    assert_eq!(
        (claude["wired"].clone(), claude["agent_commands"].clone()),
        (json!(true), json!("recognition"))
    );
    assert!(claude["by"].as_str().unwrap().contains("sandbox is off"), "{claude}");
    assert!(
        claude["open_routes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r.as_str().unwrap().contains("detaches")),
        "{claude}"
    );
    w.ok(&["uninstall"]);

    // The repository adopted first, then wired: install names its `.tlc/` too.
    w.ok(&["init"]);
    w.ok(&["install", "--claude"]);
    let st = status(&w);
    let claude = boundary_of(&st, "claude");
    assert_eq!(claude["agent_commands"], "kernel", "{claude}");
    assert_eq!(claude["open_routes"], json!([]));
    let text = w.ok(&["status"]);
    assert!(text.contains("boundary (claude): kernel"), "{text}");
    assert!(text.contains("gates: sandboxed (bubblewrap)"), "{text}");

    // An opening the operator made reopens it, by name.
    let path = claude_settings(&w);
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["sandbox"]["excludedCommands"] = json!(["bash *"]);
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let st = status(&w);
    let claude = boundary_of(&st, "claude");
    assert_eq!(claude["agent_commands"], "recognition");
    assert!(
        claude["by"].as_str().unwrap().contains("excludedCommands runs `bash *`"),
        "{claude}"
    );
    let doctor: Value = serde_json::from_str(&stdout(&w.run(&["doctor", "--json"]))).unwrap();
    let row = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "boundary-claude")
        .unwrap_or_else(|| panic!("{doctor}"));
    assert_eq!(row["status"], "warn", "{row}");
    assert!(row["detail"].as_str().unwrap().contains("bash *"), "{row}");

    w.ok(&["install", "--cursor"]);
    assert_eq!(boundary_of(&status(&w), "cursor")["agent_commands"], "recognition");
}

/// Issue 51, item 1: a repository adopted after `tlc install` is added to Claude Code's sandbox by
/// its first session's hook (the client reads its settings again within the settle time, and an
/// acting call inside it waits for it); `uninstall` takes that back too.
#[test]
fn a_new_repositorys_first_session_adds_it_to_the_sandbox() {
    let w = World::new();
    let path = claude_settings(&w);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{}\n").unwrap();
    w.ok(&["install", "--claude"]);
    let deny = |p: &std::path::Path| -> Vec<String> {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        v["sandbox"]["filesystem"]["denyWrite"]
            .as_array()
            .map(|l| l.iter().map(|x| x.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    let state = std::fs::canonicalize(&w.repo).unwrap().join(".tlc").display().to_string();
    assert!(!deny(&path).contains(&state));
    w.answer(
        "claude",
        &json!({"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup", "cwd": w.repo}),
    );
    assert!(deny(&path).contains(&state), "{:?}", deny(&path));
    assert_eq!(boundary_of(&status(&w), "claude")["agent_commands"], "kernel");

    // An acting call right after waits for the client to have read its settings again.
    let t = std::time::Instant::now();
    w.answer(
        "claude",
        &json!({"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": w.repo}),
    );
    assert!(
        t.elapsed() >= std::time::Duration::from_millis(1500),
        "it answered after {:?}",
        t.elapsed()
    );

    w.ok(&["uninstall"]);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{}\n",
        "uninstall takes the repository's entry back too"
    );
}

/// Issue 51, item 3: an operator command inside a state it cannot write (the agent's sandbox)
/// fails with a read-only error that says so.
#[test]
fn an_operator_command_on_a_read_only_state_names_the_sandbox() {
    let w = World::new();
    w.ok(&["init"]);
    let state = w.repo.join(".tlc");
    let mut base = std::process::Command::new("bwrap");
    base.args(["--dev-bind", "/", "/", "--ro-bind"])
        .arg(&state)
        .arg(&state)
        .arg("--")
        .arg(TLC)
        .args(["mode", "focus"])
        .current_dir(&w.repo)
        .isolated(&w);
    let out = at_terminal(&base);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("read-only here") && text.contains("agent's sandbox"), "{text}");
    assert_eq!(status(&w)["posture"], "solo", "the posture did not change");
}

fn git(w: &World, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(&w.repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

/// A repository whose test gate fails, and a session s1 started and prompted in it.
fn failing_gate_world() -> World {
    let w = World::new();
    w.write(
        ".tlc/harness/config.toml",
        "[grind]\nenabled = true\nmaxLoops = 9\ntestCommand = [\"sh\", \"tools/t.sh\"]\n",
    );
    w.write("tools/t.sh", "echo 'assertion failed: add(2, 2) == 5'\nexit 1\n");
    w.write("src/a.rs", "pub fn a() {}\n");
    git(&w, &["add", "-A"]);
    git(&w, &["commit", "-qm", "init"]);
    w.answer(
        "claude",
        &json!({"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup", "cwd": w.repo}),
    );
    w.answer(
        "claude",
        &json!({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "go", "cwd": w.repo}),
    );
    w.write("src/a.rs", "pub fn a() -> u8 { 1 }\n");
    w
}

fn stop_reason(w: &World) -> Option<String> {
    let out = w.answer(
        "claude",
        &json!({"hook_event_name": "Stop", "session_id": "s1", "stop_hook_active": false, "last_assistant_message": "done", "cwd": w.repo}),
    );
    let v: Value = serde_json::from_str(out.trim()).ok()?;
    (v["decision"] == "block").then(|| v["reason"].as_str().unwrap().to_string())
}

/// Issue 51, item 6: a session's baselines are anchored in the home database at its start, so
/// when the project database's are rewritten (to an edited config that turns the gate off) or
/// deleted, the stop still runs on the anchored policy — the failing gate still blocks — and the
/// follow-up and `tlc policy` name the difference.
#[test]
fn rewritten_or_deleted_baselines_are_not_obeyed_against_their_anchor() {
    for tamper in ["rewrite", "delete"] {
        let w = failing_gate_world();
        let config = w.repo.join(".tlc/harness/config.toml");
        let off = "[grind]\nenabled = false\n";
        std::fs::write(&config, off).unwrap();
        let db = w.db();
        match tamper {
            "rewrite" => {
                db.execute(
                    "UPDATE policy_baselines SET hash = ?1, content = ?2 WHERE source = ?3",
                    rusqlite::params![
                        sha256(off.as_bytes()),
                        off.as_bytes(),
                        std::fs::canonicalize(&w.repo)
                            .unwrap()
                            .join(".tlc/harness/config.toml")
                            .display()
                            .to_string()
                    ],
                )
                .unwrap();
            }
            _ => {
                db.execute("DELETE FROM policy_baselines", []).unwrap();
            }
        }
        drop(db);
        let reason = stop_reason(&w).unwrap_or_else(|| panic!("{tamper}: the stop was let through on the tampered baselines"));
        assert!(reason.contains("test failed"), "{tamper}: {reason}");
        if tamper == "rewrite" {
            assert!(reason.contains("policy-baselines"), "{tamper}: {reason}");
            let policy: Value = serde_json::from_str(&w.ok(&["policy", "--json"])).unwrap();
            assert!(policy.to_string().contains("policy-baselines"), "{policy}");
        }
    }
}

fn sha256(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut c = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = c.wait_with_output().unwrap();
    stdout(&out).split_whitespace().next().unwrap().to_string()
}

/// Issue 51, item 6: the rule folders are policy sources. A project rule file written during a
/// session to switch a global stop rule off is a divergence: the next acting call is denied, and
/// the stop runs on the rules the session was baselined with — the global rule still blocks.
#[test]
fn a_rule_file_written_during_a_session_is_not_obeyed_until_accepted() {
    let w = World::new();
    w.write(".tlc/harness/config.toml", "[rules]\nenabled = true\n");
    w.write("README.md", "r\n");
    git(&w, &["add", "-A"]);
    git(&w, &["commit", "-qm", "init"]);
    let global = w.home.join("rules");
    std::fs::create_dir_all(&global).unwrap();
    std::fs::write(
        global.join("jury.md"),
        "---\non: stop\nrequire:\n  - subagent(the-jury) since session\notherwise: deny\n---\nConvene the jury.\n",
    )
    .unwrap();
    w.answer(
        "claude",
        &json!({"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup", "cwd": w.repo}),
    );
    assert!(stop_reason(&w).is_some_and(|r| r.contains("jury.md")), "the global rule blocks");
    w.write(".tlc/harness/rules/jury.md", "---\nenabled: false\n---\nnot today\n");
    let out = w.answer(
        "claude",
        &json!({"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "touch x"}, "cwd": w.repo}),
    );
    assert!(
        out.contains("policy-integrity") || out.contains("changed during this session"),
        "{out}"
    );
    let reason = stop_reason(&w).expect("the stop runs on the baselined rules");
    assert!(reason.contains("jury.md"), "{reason}");
    assert!(reason.contains("rules"), "{reason}");
}
