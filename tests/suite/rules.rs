//! Operator rules (issue 34, item 3): rule files in `$TLC_HOME/rules/` and `.tlc/harness/rules/`,
//! driven through the built `tlc hook claude|cursor`, `tlc rules` and `tlc doctor` against a real
//! git repository and the real SQLite record.

use crate::common;

use common::{stderr, stdout, World};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

const ON: &str = "[rules]\nenabled = true\n";

const TESTS_BEFORE_COMMIT: &str = "---\non: commit\nrequire:\n  - command(cargo test) since session\notherwise: deny\n---\n\nRun the tests before you commit: `cargo test`.\n";

/// A committed repository with `config` as its project config and `rules` as its project rules.
fn world(config: &str, rules: &[(&str, &str)]) -> World {
    let w = World::new();
    write(&w.repo, ".tlc/harness/config.toml", config);
    write(&w.repo, "src/a.rs", "pub fn a() {}\n");
    write(&w.repo, "README.md", "r\n");
    for (name, text) in rules {
        write(&w.repo, &format!(".tlc/harness/rules/{name}"), text);
    }
    git(&w, &["add", "-A"]);
    git(&w, &["commit", "-qm", "init"]);
    w
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn git(w: &World, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(&w.repo)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

fn head(w: &World) -> String {
    git(w, &["rev-parse", "HEAD"]).trim().to_string()
}

/// The project root as tlc resolves it (the working directory, symlinks resolved).
fn root(w: &World) -> PathBuf {
    std::fs::canonicalize(&w.repo).unwrap()
}

fn hook(w: &World, provider: &str, payload: &Value) -> String {
    stdout(&w.hook(provider, payload.to_string().as_bytes()))
}

/// A Claude PreToolUse of Bash: the refusal's reason, or `None` when nothing objected.
fn pre_bash(w: &World, session: &str, command: &str) -> Option<(String, String)> {
    let out = hook(
        w,
        "claude",
        &json!({"hook_event_name": "PreToolUse", "session_id": session, "tool_name": "Bash",
                "tool_input": {"command": command}, "cwd": w.repo}),
    );
    if out.trim().is_empty() {
        return None;
    }
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
    let h = &v["hookSpecificOutput"];
    Some((
        h["permissionDecision"].as_str().unwrap_or("allow").to_string(),
        h["permissionDecisionReason"]
            .as_str()
            .or_else(|| h["additionalContext"].as_str())
            .unwrap_or("")
            .to_string(),
    ))
}

fn denied(w: &World, session: &str, command: &str) -> String {
    match pre_bash(w, session, command) {
        Some((p, reason)) if p == "deny" => reason,
        other => panic!("{command} in {session} was not denied: {other:?}"),
    }
}

fn post_bash(w: &World, session: &str, command: &str) {
    let out = hook(
        w,
        "claude",
        &json!({"hook_event_name": "PostToolUse", "session_id": session, "tool_name": "Bash",
                "tool_input": {"command": command}, "tool_response": {"stdout": "ok", "stderr": "", "interrupted": false},
                "cwd": w.repo}),
    );
    assert_eq!(out, "", "a PostToolUse answers nothing here");
}

#[test]
fn a_commit_rule_denies_until_cargo_test_succeeded_in_the_session() {
    let w = world(ON, &[("tests-before-commit.md", TESTS_BEFORE_COMMIT)]);
    let rule_file = w.repo.join(".tlc/harness/rules/tests-before-commit.md");
    let checked = format!("— checked {} at {}", root(&w).display(), head(&w));

    let reason = denied(&w, "s1", "git commit -m x");
    assert!(reason.contains(&rule_file.display().to_string()), "{reason}");
    assert!(reason.contains("missing command(cargo test) since session"), "{reason}");
    assert!(reason.contains(&checked), "{reason}");
    assert!(
        reason.contains("Run the tests before you commit: `cargo test`."),
        "the body verbatim: {reason}"
    );
    assert!(!reason.contains("(ran, but"), "nothing ran yet: a flat missing: {reason}");
    // Not a substring match: a commit named inside an argument fires nothing.
    assert_eq!(pre_bash(&w, "s1", "echo 'git commit -m x'"), None);

    // A failed run is no proof.
    let out = hook(
        &w,
        "claude",
        &json!({"hook_event_name": "PostToolUseFailure", "session_id": "s1", "tool_name": "Bash",
                "tool_input": {"command": "cargo test"}, "error": "Exit code 101", "cwd": w.repo}),
    );
    assert_eq!(out, "");
    denied(&w, "s1", "git commit -m x");

    post_bash(&w, "s1", "cargo test --release");
    assert_eq!(
        pre_bash(&w, "s1", "git add -A && git commit -m x"),
        None,
        "the proof holds in its session"
    );

    // Another session ran it; this one did not.
    let reason = denied(&w, "s2", "git commit -m y");
    assert!(
        reason.contains("missing command(cargo test) since session (ran, but in a different session)"),
        "{reason}"
    );

    // Recorded under the rule's file, so reports count it.
    let (rule, permission): (String, String) = w
        .db()
        .query_row(
            "SELECT rule, permission FROM decisions WHERE rule LIKE 'operator-rule%' ORDER BY id DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (rule.as_str(), permission.as_str()),
        ("operator-rule:tests-before-commit.md", "deny")
    );
    let counted: i64 =
        w.count("SELECT denials FROM interruptions_by_rule WHERE rule = 'operator-rule:tests-before-commit.md' AND session_id = 's2'");
    assert_eq!(counted, 1);

    // Cursor: the same rule, the same answer.
    let cursor = |event: &str, command: &str| {
        hook(
            &w,
            "cursor",
            &json!({"hook_event_name": event, "conversation_id": "c3", "session_id": "s3",
                    "workspace_roots": [w.repo], "command": command, "cwd": w.repo}),
        )
    };
    let out: Value = serde_json::from_str(&cursor("beforeShellExecution", "git commit -m z")).unwrap();
    assert_eq!(out["permission"], "deny", "{out}");
    let agent = out["agent_message"].as_str().unwrap();
    assert!(agent.contains("missing command(cargo test) since session"), "{agent}");
    assert!(agent.contains(&rule_file.display().to_string()), "{agent}");
    assert!(agent.contains(&checked), "{agent}");
    assert_eq!(cursor("afterShellExecution", "cargo test").trim(), "{}");
    assert_eq!(cursor("beforeShellExecution", "git commit -m z").trim(), "{}");
}

#[test]
fn a_since_head_proof_goes_stale_with_a_new_commit() {
    let rule = "---\non: push\nrequire:\n  - command(cargo test) since HEAD\notherwise: deny\n---\nTest what you push.\n";
    let w = world(ON, &[("push.md", rule)]);
    post_bash(&w, "s1", "cargo test");
    assert_eq!(
        pre_bash(&w, "s2", "git push origin HEAD"),
        None,
        "since HEAD: any session at this commit"
    );
    write(&w.repo, "src/a.rs", "pub fn a() -> u8 { 1 }\n");
    git(&w, &["commit", "-qam", "more"]);
    let reason = denied(&w, "s1", "git push origin HEAD");
    assert!(
        reason.contains("missing command(cargo test) since HEAD (ran, but at a different commit)"),
        "{reason}"
    );
    assert!(reason.contains(&format!("at {}", head(&w))), "{reason}");
    let stamped: i64 = w.count("SELECT count(DISTINCT head) FROM rule_proofs WHERE kind = 'command'");
    assert_eq!(stamped, 1, "the proof keeps the HEAD it was stamped with");

    // With the switch off, nothing is read and nothing is stamped (a new session: the config
    // changed under the others).
    write(&w.repo, ".tlc/harness/config.toml", "[rules]\nenabled = false\n");
    assert_eq!(pre_bash(&w, "s7", "git push origin HEAD"), None);
    post_bash(&w, "s7", "cargo test");
    assert_eq!(w.count("SELECT count(*) FROM rule_proofs"), 1);
}

#[test]
fn tlc_rules_lists_a_project_rule_shadowing_a_global_one_and_a_switched_off_global_rule() {
    let w = world(ON, &[]);
    let global = w.home.join("rules");
    write(&global, "tests.md", TESTS_BEFORE_COMMIT);
    write(&global, "review.md", &TESTS_BEFORE_COMMIT.replace("commit", "pr-open"));
    write(&global, "only-global.md", &TESTS_BEFORE_COMMIT.replace("on: commit", "on: push"));
    let project = w.repo.join(".tlc/harness/rules");
    write(
        &project,
        "tests.md",
        &TESTS_BEFORE_COMMIT.replace("otherwise: deny", "otherwise: warn"),
    );
    write(
        &project,
        "review.md",
        "---\nenabled: false\n---\nNo reviewers on this repository.\n",
    );
    let before = common::tree(w.dir.path());
    let out = w.ok(&["rules", "--json"]);
    assert_eq!(common::tree(w.dir.path()), before, "tlc rules creates nothing");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["enabled"], true);
    let rule = |tier: &str, name: &str| -> Value {
        v["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["tier"] == tier && r["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{tier} {name} not listed: {v}"))
    };
    let g = rule("global", "tests.md");
    assert_eq!(g["state"], "shadowed");
    assert_eq!(g["by"], project.join("tests.md").display().to_string());
    assert_eq!(g["path"], global.join("tests.md").display().to_string());
    let p = rule("project", "tests.md");
    assert_eq!(p["state"], "active");
    assert_eq!(p["on"], "commit");
    assert_eq!(p["require"], json!(["command(cargo test) since session"]));
    assert_eq!(p["otherwise"], "warn");
    assert_eq!(rule("global", "review.md")["state"], "switched-off");
    assert_eq!(rule("project", "review.md")["state"], "disabled");
    assert_eq!(rule("project", "review.md")["body"], "No reviewers on this repository.");
    assert_eq!(rule("global", "only-global.md")["state"], "active");
    assert_eq!(v["active"], 2);

    // The shadowing is what the hook enforces: the project's warn, not the global deny.
    let (permission, context) = pre_bash(&w, "s1", "git commit -m x").expect("the warning");
    assert_eq!(permission, "allow");
    assert!(context.contains("missing command(cargo test) since session"), "{context}");
    let denial = denied(&w, "s1", "git push");
    assert!(
        denial.contains("only-global.md"),
        "the global rule nobody shadows still denies: {denial}"
    );
}

#[test]
fn an_on_stop_rule_blocks_until_the_test_gate_passes_and_warn_and_follow_up_land_as_the_seed_says() {
    let config = format!("{ON}[grind]\nenabled = true\nmaxLoops = 9\ntestCommand = [\"sh\", \"tools/t.sh\"]\n");
    let rule =
        "---\non: stop\nrequire:\n  - gate(test) since HEAD\notherwise: deny\n---\nThe tests pass at this commit before the turn ends.\n";
    let w = world(&config, &[("tested.md", rule)]);
    write(&w.repo, "tools/t.sh", "exit 0\n");
    git(&w, &["add", "-A"]);
    git(&w, &["commit", "-qm", "tool"]);
    let stop = |session: &str, active: bool| -> Value {
        let out = hook(
            &w,
            "claude",
            &json!({"hook_event_name": "Stop", "session_id": session, "stop_hook_active": active,
                    "last_assistant_message": "done", "cwd": w.repo}),
        );
        if out.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
        }
    };
    let last_outcome = || -> (String, String) {
        w.db()
            .query_row("SELECT outcome, rule FROM stop_outcomes ORDER BY id DESC LIMIT 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap()
    };
    hook(
        &w,
        "claude",
        &json!({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "go", "cwd": w.repo}),
    );
    // A change the test gate does not cover: the gate does not run, and the rule blocks.
    write(&w.repo, "README.md", "changed\n");
    let v = stop("s1", false);
    assert_eq!(v["decision"], "block", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.starts_with("BLOCKED: operator rule tested.md is not satisfied."), "{reason}");
    assert!(reason.contains("missing gate(test) since HEAD"), "{reason}");
    assert!(
        reason.contains(&format!("— checked {} at {}", root(&w).display(), head(&w))),
        "{reason}"
    );
    assert!(reason.contains("The tests pass at this commit before the turn ends."), "{reason}");
    assert_eq!(last_outcome(), ("block".into(), "operator-rule:tested.md".into()));
    // The turn changes code: the test gate runs, passes, and is the proof this stop needed.
    write(&w.repo, "src/a.rs", "pub fn a() -> u8 { 2 }\n");
    assert_eq!(stop("s1", true), Value::Null, "the gate passed at this HEAD: the stop goes through");
    assert_eq!(last_outcome(), ("allow".into(), "passed".into()));
    assert_eq!(
        w.count("SELECT count(*) FROM rule_proofs WHERE kind = 'gate' AND value = 'test'"),
        1
    );

    // warn: advisory text, the stop allowed; follow-up: blocked, framed as the next action.
    let warn = "---\non: stop\nrequire:\n  - subagent(the-jury) since session\notherwise: warn\n---\nConsider convening the jury.\n";
    let w2 = world(ON, &[("jury.md", warn)]);
    let stop2 = |w: &World| {
        hook(
            w,
            "claude",
            &json!({"hook_event_name": "Stop", "session_id": "s9", "stop_hook_active": false, "cwd": w.repo}),
        )
    };
    let v: Value = serde_json::from_str(&stop2(&w2)).unwrap();
    assert!(v.get("decision").is_none(), "warn lets the stop through: {v}");
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        msg.contains("missing subagent(the-jury) since session") && msg.contains("Consider convening the jury."),
        "{msg}"
    );
    let follow = warn
        .replace("otherwise: warn", "otherwise: follow-up")
        .replace("Consider convening", "Convene");
    write(&w2.repo, ".tlc/harness/rules/jury.md", &follow);
    // A rule edited during a session is policy changed under it (issue 51): the operator accepts it.
    w2.op_ok(&["policy", "accept", ".tlc/harness/rules"]);
    let v: Value = serde_json::from_str(&stop2(&w2)).unwrap();
    assert_eq!(v["decision"], "block", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.starts_with("BLOCKED: next action, from operator rule jury.md."), "{reason}");
    assert!(reason.contains("NEXT: Convene the jury."), "{reason}");
    // The subagent finishing is the proof.
    hook(
        &w2,
        "claude",
        &json!({"hook_event_name": "SubagentStop", "session_id": "s9", "agent_type": "the-jury", "cwd": w2.repo}),
    );
    assert_eq!(stop2(&w2), "");
}

#[test]
fn pr_open_fires_on_a_ready_pull_request_of_the_own_remote_only() {
    let rule = "---\non: pr-open\nrequire:\n  - subagent(the-jury) since HEAD\notherwise: deny\n---\nConvene the jury on this branch.\n";
    let w = world(ON, &[("jury.md", rule)]);
    git(&w, &["remote", "add", "origin", "git@github.com:acme/widget.git"]);
    assert_eq!(pre_bash(&w, "s1", "gh pr create --draft --fill"), None, "a draft is not pr-open");
    let reason = denied(&w, "s1", "gh pr create --fill");
    assert!(reason.contains("missing subagent(the-jury) since HEAD"), "{reason}");
    assert!(reason.contains("Convene the jury on this branch."), "{reason}");
    denied(&w, "s1", "gh pr ready 12");
    denied(&w, "s1", "gh api repos/acme/widget/pulls -X POST -f title=x -f head=b -f base=main");
    assert_eq!(
        pre_bash(&w, "s1", "gh api repos/someone-else/x/pulls -X POST -f title=x"),
        None,
        "another repository is not this project's to gate"
    );
    // The GitHub MCP server's create_pull_request, for this repository.
    let mcp = hook(
        &w,
        "claude",
        &json!({"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": "mcp__github__create_pull_request",
                "tool_input": {"owner": "acme", "repo": "widget", "title": "x", "head": "b", "base": "main"}, "cwd": w.repo}),
    );
    assert!(mcp.contains("\"permissionDecision\":\"deny\""), "{mcp}");
    // The jury finishing at this HEAD is the proof.
    hook(
        &w,
        "claude",
        &json!({"hook_event_name": "SubagentStop", "session_id": "s2", "agent_type": "the-jury", "cwd": w.repo}),
    );
    assert_eq!(pre_bash(&w, "s1", "gh pr create --fill"), None);
}

#[test]
fn broken_rule_files_are_named_errors_and_the_hook_still_answers() {
    let w = world(
        ON,
        &[
            (
                "trigger.md",
                "---\non: pr-close\nrequire:\n  - gate(test) since HEAD\notherwise: deny\n---\n",
            ),
            (
                "proof.md",
                "---\non: commit\nrequire:\n  - review(x) since HEAD\notherwise: deny\n---\n",
            ),
            (
                "regex.md",
                "---\non: commit\nrequire:\n  - command(^cargo test$) since session\notherwise: deny\n---\n",
            ),
            ("target.md", TESTS_BEFORE_COMMIT),
        ],
    );
    let dir = w.repo.join(".tlc/harness/rules");
    std::os::unix::fs::symlink(dir.join("target.md"), dir.join("link.md")).unwrap();
    std::fs::File::create(dir.join("huge.md"))
        .unwrap()
        .set_len(10 * 1024 * 1024)
        .unwrap();
    let out = w.run(&["rules", "--json"]);
    assert_eq!(out.status.code(), Some(1), "a broken rule file fails `tlc rules`: {}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let error = |name: &str| -> String {
        let r = v["rules"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap();
        assert_eq!(r["state"], "broken", "{r}");
        r["error"].as_str().unwrap().to_string()
    };
    assert!(
        error("trigger.md").contains("unknown trigger `on: pr-close`"),
        "{}",
        error("trigger.md")
    );
    assert!(error("proof.md").contains("unknown proof `review(…)`"), "{}", error("proof.md"));
    assert!(error("regex.md").contains("regular-expression character"), "{}", error("regex.md"));
    assert!(error("link.md").contains("symbolic link"), "{}", error("link.md"));
    assert!(error("huge.md").contains("10485760 bytes"), "{}", error("huge.md"));
    assert_eq!(v["broken"], 5);
    assert_eq!(v["active"], 1);
    let table = w.run(&["rules"]);
    let text = stdout(&table);
    assert!(
        text.contains(&format!("error: {}: line 2: unknown trigger", dir.join("trigger.md").display())),
        "{text}"
    );
    assert!(text.contains("5 broken rule file(s) enforce nothing"), "{text}");

    // The hook answers validly (no fault, exit 0), and the one good rule still acts.
    assert!(denied(&w, "s1", "git commit -m x").contains("target.md"));
    assert_eq!(pre_bash(&w, "s1", "ls"), None);
    let cursor = hook(
        &w,
        "cursor",
        &json!({"hook_event_name": "beforeShellExecution", "session_id": "s1", "workspace_roots": [w.repo], "command": "ls", "cwd": w.repo}),
    );
    assert_eq!(cursor.trim(), "{}");
}

#[test]
fn doctor_flags_the_switch_on_with_no_rule_file_and_names_a_broken_one() {
    let w = world(ON, &[]);
    let doctor = |w: &World| -> Value {
        let out = w.run(&["doctor", "--json"]);
        let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "rules")
            .cloned()
            .unwrap()
    };
    let c = doctor(&w);
    assert_eq!(c["status"], "warn", "{c}");
    let detail = c["detail"].as_str().unwrap();
    assert!(detail.contains("rules.enabled is on but there is no rule file"), "{detail}");
    assert!(detail.contains(&w.home.join("rules").display().to_string()), "{detail}");
    let status: Value = serde_json::from_str(&w.ok(&["status", "--json"])).unwrap();
    let row = status["rails"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rail"] == "operator rules")
        .cloned()
        .unwrap();
    assert_eq!((row["on"].clone(), row["acts"].clone()), (json!(true), json!(false)), "{row}");

    write(&w.repo, ".tlc/harness/rules/ok.md", TESTS_BEFORE_COMMIT);
    let c = doctor(&w);
    assert_eq!(c["status"], "ok", "{c}");
    assert!(
        c["detail"].as_str().unwrap().contains("ok.md (project, on commit, otherwise deny)"),
        "{c}"
    );
    let status: Value = serde_json::from_str(&w.ok(&["status", "--json"])).unwrap();
    let row = status["rails"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rail"] == "operator rules")
        .cloned()
        .unwrap();
    assert_eq!(row["acts"], true, "{row}");

    write(&w.repo, ".tlc/harness/rules/bad.md", "on: commit\n");
    let c = doctor(&w);
    assert_eq!(c["status"], "fail", "{c}");
    assert!(c["detail"].as_str().unwrap().contains("bad.md: no frontmatter"), "{c}");
}

#[test]
fn an_agent_cannot_write_a_proof() {
    let w = World::outside_temp();
    write(&w.repo, ".tlc/harness/config.toml", ON);
    write(&w.repo, ".tlc/harness/rules/t.md", TESTS_BEFORE_COMMIT);
    for command in [
        "sqlite3 .tlc/harness/state/tlc.db \"INSERT INTO rule_proofs (ts, provider, session_id, kind, value) VALUES ('x', 'claude', 's1', 'command', 'cargo test')\"",
        "python3 -c \"import sqlite3; sqlite3.connect('.tlc/harness/state/tlc.db').execute('INSERT INTO rule_proofs VALUES (1)')\"",
    ] {
        let reason = denied(&w, "s1", command);
        assert!(reason.contains("policy or state"), "{command}: {reason}");
    }
    assert_eq!(w.count("SELECT count(*) FROM rule_proofs"), 0);
    assert!(denied(&w, "s1", "git commit -m x").contains("missing command(cargo test) since session"));
}

/// Issue 53, item 1: a `command(…)` proof is what the shell line executed — the program it ran,
/// resolved on the operator's PATH outside the project — never the words of another program's
/// arguments, a builtin's, or a project file that shadows the real program.
#[test]
fn a_proof_is_the_program_that_ran_not_the_words_of_another() {
    let w = world(ON, &[("tests-before-commit.md", TESTS_BEFORE_COMMIT)]);
    write(&w.repo, "cargo", "#!/bin/sh\nexit 0\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(w.repo.join("cargo"), std::fs::Permissions::from_mode(0o755)).unwrap();
    for forged in [
        "echo cargo test",
        ": cargo test",
        "ls cargo test",
        "test cargo test",
        "true cargo test",
        "./cargo test",
        "PATH=.:$PATH cargo test",
        "export PATH=.:$PATH; cargo test",
        "cargo() { :; }; cargo test",
        "alias cargo=true; cargo test",
    ] {
        post_bash(&w, "s1", forged);
        let reason = denied(&w, "s1", "git commit -m x");
        assert!(reason.contains("missing command(cargo test) since session"), "{forged}: {reason}");
    }
    // Through a wrapper the floor unwraps, the real program proves it.
    post_bash(&w, "s1", "timeout 600 cargo test --all");
    assert_eq!(pre_bash(&w, "s1", "git commit -m x"), None);
    post_bash(&w, "s2", "sh -c 'cargo test'");
    assert_eq!(pre_bash(&w, "s2", "git commit -m x"), None);
}

/// Issue 53, item 6: a rule scoped to this repository's remote follows the `origin` baselined with
/// the session's policy. Rewriting `origin` mid-session (`git remote set-url`) does not make the
/// operator's repository "another one": `gh pr create -R acme/widget` still fires, and the change
/// is a policy divergence.
#[test]
fn a_rewritten_origin_does_not_move_a_remote_scoped_rule() {
    let rule = "---\non: pr-open\nrequire:\n  - subagent(the-jury) since HEAD\notherwise: deny\n---\nConvene the jury on this branch.\n";
    let w = world(ON, &[("jury.md", rule)]);
    git(&w, &["remote", "add", "origin", "git@github.com:acme/widget.git"]);
    hook(
        &w,
        "claude",
        &json!({"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup", "cwd": w.repo}),
    );
    denied(&w, "s1", "gh pr create -R acme/widget --fill");
    git(&w, &["remote", "set-url", "origin", "https://github.com/x/y"]);
    let reason = denied(&w, "s1", "gh pr create -R acme/widget --fill");
    assert!(
        reason.contains("missing subagent(the-jury) since HEAD") || reason.contains("git-origin"),
        "{reason}"
    );
    let status: Value = serde_json::from_str(&w.ok(&["status", "--json"])).unwrap();
    assert!(
        status.to_string().contains("git-origin"),
        "the changed origin is a divergence: {status}"
    );
}
