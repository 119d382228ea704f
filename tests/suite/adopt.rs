//! Adoption, guests, init, doctor, status, posture and policy integrity: the real binary in real
//! git repositories made here.

use crate::common;
use common::*;
use serde_json::Value;
use std::path::Path;

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not one JSON value ({e}): {s}"))
}

fn config_path(w: &World) -> std::path::PathBuf {
    w.repo.join(".tlc/harness/config.toml")
}

fn set_origin(repo: &Path, url: &str) {
    let st = std::process::Command::new("git")
        .args(["remote", "add", "origin", url])
        .current_dir(repo)
        .status()
        .unwrap();
    assert!(st.success());
}

fn machine_config(w: &World, text: &str) {
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), text).unwrap();
}

fn deny_reason(out: &std::process::Output) -> Option<String> {
    let s = stdout(out);
    if s.trim().is_empty() {
        return None;
    }
    let v = json(s.trim());
    let h = &v["hookSpecificOutput"];
    (h["permissionDecision"] == "deny").then(|| h["permissionDecisionReason"].as_str().unwrap_or("").to_string())
}

fn check<'a>(doctor: &'a Value, id: &str) -> &'a Value {
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id}: {doctor}"))
}

#[test]
fn a_first_hook_adopts_a_second_changes_nothing_and_a_mid_session_edit_is_denied_until_accepted() {
    let w = World::new();
    set_origin(&w.repo, "git@github.com:acme/widgets.git");
    assert!(!config_path(&w).exists());
    assert_eq!(
        deny_reason(&w.hook("claude", w.payload("providers/claude/session-start.json").as_bytes())),
        None
    );

    let text = std::fs::read_to_string(config_path(&w)).expect("adopted by the first hook");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("# Written by tlc at "), "{}", lines[0]);
    assert!(lines[2].contains("tlc init") && lines[2].contains("docs/"), "{}", lines[2]);
    assert!(text.contains("owner = \"acme\"") && text.contains("repo = \"widgets\""));
    assert!(text.contains("# mode = \"solo\"") && text.contains("# [grind]"));
    assert_eq!(w.count("SELECT count(*) FROM events WHERE kind = 'config.scaffolded'"), 1);
    let doctor = json(&w.ok(&["doctor", "--json"]));
    assert_eq!(check(&doctor, "restated-keys")["status"], "ok", "{doctor}");
    assert_eq!(doctor["failed"], 0);

    // A second hook changes nothing.
    let bytes = std::fs::read(config_path(&w)).unwrap();
    let mtime = std::fs::metadata(config_path(&w)).unwrap().modified().unwrap();
    assert_eq!(
        deny_reason(&w.hook("claude", harmless(&w, "providers/claude/pre-tool-use-bash.json").as_bytes())),
        None
    );
    assert_eq!(std::fs::read(config_path(&w)).unwrap(), bytes);
    assert_eq!(std::fs::metadata(config_path(&w)).unwrap().modified().unwrap(), mtime);
    assert_eq!(
        w.count("SELECT count(*) FROM events WHERE kind = 'config.scaffolded'"),
        1,
        "present records nothing"
    );

    // The operator (or an agent) edits the project config mid-session, without a tlc command.
    let edited = format!("mode = \"focus\"\n{text}");
    std::fs::write(config_path(&w), edited).unwrap();
    let reason = deny_reason(&w.hook("claude", harmless(&w, "providers/claude/pre-tool-use-bash.json").as_bytes())).expect("denied");
    assert!(reason.contains(&config_path(&w).display().to_string()), "{reason}");
    assert!(reason.contains("tlc policy accept"), "{reason}");
    for f in [
        "pre-tool-use-edit.json",
        "pre-tool-use-write.json",
        "pre-tool-use-mcp.json",
        "pre-tool-use-task.json",
    ] {
        assert!(
            deny_reason(&w.hook("claude", harmless(&w, &format!("providers/claude/{f}")).as_bytes())).is_some(),
            "{f} acts"
        );
    }
    // Reads still pass, and events that are not tool calls are not refused.
    assert_eq!(
        deny_reason(&w.hook("claude", w.payload("providers/claude/pre-tool-use-read.json").as_bytes())),
        None
    );
    let post = w.hook("claude", w.payload("providers/claude/post-tool-use-bash.json").as_bytes());
    assert!(stdout(&post).trim().is_empty());
    assert_eq!(
        w.count("SELECT count(*) FROM decisions WHERE rule = 'policy-integrity' AND permission = 'deny'"),
        5
    );

    // status and doctor report it without clearing it.
    let status = json(&w.ok(&["status", "--json"]));
    assert_eq!(status["policy_diverged"], true);
    let doctor = json(&w.ok(&["doctor", "--json"]));
    assert_eq!(check(&doctor, "policy-integrity")["status"], "warn");
    assert!(check(&doctor, "policy-integrity")["detail"]
        .as_str()
        .unwrap()
        .contains("tlc policy accept"));
    let policy = json(&w.ok(&["policy", "--json"]));
    assert_eq!(policy["diverged"], true);
    assert_eq!(policy["divergences"][0]["source"], config_path(&w).display().to_string());

    // Accepting needs a terminal, names the path, and clears exactly that.
    let refused = w.run(&["policy", "accept", ".tlc/harness/config.toml"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let unknown = w.operator(&["policy", "accept", "README.md"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stdout(&unknown).contains("README.md is not a policy source"));
    w.op_ok(&["policy", "accept", ".tlc/harness/config.toml"]);
    assert_eq!(
        deny_reason(&w.hook("claude", harmless(&w, "providers/claude/pre-tool-use-bash.json").as_bytes())),
        None
    );
    let policy = json(&w.ok(&["policy", "--json"]));
    assert_eq!(policy["diverged"], false);
    assert!(
        policy["history"][0]["accepted_at"].is_string(),
        "the acceptance is recorded, not erased: {policy}"
    );
    // The posture the operator wrote is running now.
    assert_eq!(json(&w.ok(&["status", "--json"]))["posture"], "focus");
}

#[test]
fn edits_between_sessions_and_edits_behind_a_tlc_command_never_deny() {
    let w = World::new();
    w.hook("cursor", w.payload("providers/cursor/session-start.json").as_bytes());
    assert!(config_path(&w).is_file(), "a cursor session start adopts too");
    w.hook("cursor", w.payload("providers/cursor/session-end.json").as_bytes());
    // Between sessions: edit freely.
    let text = std::fs::read_to_string(config_path(&w)).unwrap();
    std::fs::write(config_path(&w), format!("mode = \"paired\"\n{text}")).unwrap();
    let session2 = harmless(&w, "providers/cursor/shell-before.json").replace("sess-1", "sess-2");
    assert_eq!(
        stdout(&w.hook("cursor", session2.as_bytes())).trim(),
        "{}",
        "a new session baselines what is there"
    );

    // A tlc command behind the change re-records the live session's baselines.
    w.op_ok(&["mode", "solo"]);
    w.op_ok(&["gate", "test-command", "true"]);
    assert_eq!(stdout(&w.hook("cursor", session2.as_bytes())).trim(), "{}");

    // A change without one: the next acting Cursor call is denied naming the path; a read passes.
    machine_config(&w, "[obs]\nretentionDays = 7\n");
    let out = stdout(&w.hook("cursor", session2.as_bytes()));
    let v = json(out.trim());
    assert_eq!(v["permission"], "deny");
    assert!(
        v["user_message"]
            .as_str()
            .unwrap()
            .contains(&w.home.join("config.toml").display().to_string()),
        "{v}"
    );
    let read = w.payload("providers/cursor/read-before.json").replace("sess-1", "sess-2");
    assert_eq!(stdout(&w.hook("cursor", read.as_bytes())).trim(), "{}");
    // An unrelated tlc command does not launder a detected divergence.
    w.op_ok(&["pause"]);
    assert_eq!(json(stdout(&w.hook("cursor", session2.as_bytes())).trim())["permission"], "deny");
    w.op_ok(&["policy", "accept", &w.home.join("config.toml").display().to_string()]);
    assert_eq!(stdout(&w.hook("cursor", session2.as_bytes())).trim(), "{}");
}

#[test]
fn abuse_owner_repo_injection_through_the_remote_url_is_dropped() {
    for url in [
        "https://github.com/ac\"me/widgets.git",
        "https://github.com/acme/wid\\ngets",
        "git@github.com:acme/wid: gets",
        "https://github.com/acme/widgets\"\nmode = \"focus",
        "git@github.com:acme]/[x",
    ] {
        let w = World::new();
        // Written straight into .git/config so nothing normalises it on the way.
        let mut cfg = std::fs::read_to_string(w.repo.join(".git/config")).unwrap();
        cfg.push_str(&format!("[remote \"origin\"]\n\turl = {url}\n"));
        std::fs::write(w.repo.join(".git/config"), cfg).unwrap();
        let out = w.ok(&["init"]);
        assert!(out.contains("written"), "{out}");
        let text = std::fs::read_to_string(config_path(&w)).unwrap();
        assert!(
            text.contains("owner = \"\"\n") && text.contains("repo = \"\"\n"),
            "{url:?} was not dropped:\n{text}"
        );
        let shown = json(&w.ok(&["config", "show", "--json"]));
        assert_eq!(shown["project.owner"], "", "{url:?}");
        assert_eq!(shown["mode"], "solo", "{url:?} re-keyed the file");
        let doctor = json(&w.ok(&["doctor", "--json"]));
        assert_eq!(check(&doctor, "config-project")["status"], "ok", "still valid TOML: {doctor}");
    }
}

#[test]
fn abuse_a_hook_payload_naming_another_directory_never_adopts_it() {
    let w = World::new();
    let elsewhere = w.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&elsewhere)
        .status()
        .unwrap()
        .success());
    let before = tree(&elsewhere);
    for f in [
        "session-start.json",
        "user-prompt-submit.json",
        "pre-tool-use-bash.json",
        "post-tool-use-write.json",
        "stop.json",
    ] {
        let payload = fixture(&format!("providers/claude/{f}")).replace("\"/repo", &format!("\"{}", elsewhere.display()));
        w.hook("claude", payload.as_bytes());
    }
    let payload = fixture("providers/cursor/shell-before.json").replace("\"/repo", &format!("\"{}", elsewhere.display()));
    w.hook("cursor", payload.as_bytes());
    assert_eq!(tree(&elsewhere), before, "the payload's directory was written");
    assert!(config_path(&w).is_file(), "the hook's own working tree is the one adopted");
}

#[test]
fn abuse_an_existing_config_is_never_overwritten() {
    let w = World::new();
    std::fs::create_dir_all(w.repo.join(".tlc/harness")).unwrap();
    let mine = "# the operator's own\n[grind]\nenabled = true\n";
    std::fs::write(config_path(&w), mine).unwrap();
    std::fs::set_permissions(config_path(&w), std::os::unix::fs::PermissionsExt::from_mode(0o444)).unwrap();
    let out = w.ok(&["init"]);
    assert!(out.contains("present, nothing changed"), "{out}");
    for f in ["session-start.json", "pre-tool-use-bash.json", "stop.json"] {
        w.hook("claude", harmless(&w, &format!("providers/claude/{f}")).as_bytes());
    }
    w.op_ok(&["mode", "paired"]);
    w.op_ok(&["pause"]);
    assert_eq!(std::fs::read_to_string(config_path(&w)).unwrap(), mine);
    assert_eq!(w.count("SELECT count(*) FROM events WHERE kind = 'config.scaffolded'"), 0);
    let json_out = json(&w.ok(&["init", "--json"]));
    assert_eq!(json_out["outcome"], "present");
}

#[test]
fn abuse_a_guest_repository_is_never_written_and_its_records_are_found_under_the_home() {
    for by_remote in [false, true] {
        let w = World::new();
        if by_remote {
            set_origin(&w.repo, "https://github.com/upstream/project.git");
            machine_config(&w, "[guest]\nremotes = [\"*github.com/upstream/*\"]\n");
        } else {
            machine_config(&w, &format!("[guest]\npaths = [\"{}\"]\n", w.repo.display()));
        }
        let before = tree(&w.repo);
        for f in [
            "session-start.json",
            "user-prompt-submit.json",
            "pre-tool-use-bash.json",
            "post-tool-use-write.json",
            "stop.json",
        ] {
            w.hook("claude", harmless(&w, &format!("providers/claude/{f}")).as_bytes());
        }
        w.op_ok(&["mode", "focus"]);
        w.ok(&["lessons", "add", "Guests keep their state at home."]);
        let refused = w.operator(&["gate", "test-command", "true"]);
        assert_eq!(
            refused.status.code(),
            Some(1),
            "a guest's config is never written: {}",
            stdout(&refused)
        );
        let init = w.run(&["init"]);
        assert_eq!(init.status.code(), Some(1));
        assert!(stderr(&init).contains("guest"), "{}", stderr(&init));
        assert_eq!(tree(&w.repo), before, "nothing was written into the guest (by_remote={by_remote})");
        // Its records live under the home, and read commands run in it find them.
        let guests = w.home.join("state/guests");
        assert_eq!(std::fs::read_dir(&guests).unwrap().count(), 1);
        let status = json(&w.ok(&["status", "--json"]));
        assert_eq!(status["guest"], true);
        assert_eq!(status["live_sessions"].as_array().unwrap().len(), 1, "{status}");
        assert_eq!(status["posture"], "focus");
        assert!(status["project_db"].as_str().unwrap().starts_with(&guests.display().to_string()));
        let lessons = json(&w.ok(&["lessons", "list", "--tier", "project", "--json"]));
        assert_eq!(lessons.as_array().unwrap().len(), 1);
        assert!(w.ok(&["obs", "report"]).contains("sess-abc"));
    }
}

#[test]
fn a_broken_machine_tier_never_lets_a_hook_adopt() {
    let w = World::new();
    // The guest list cannot be read from a machine tier that does not load: adopt nothing.
    machine_config(&w, &format!("[guest]\npaths = [\"{}\"]\nthis is not toml\n", w.repo.display()));
    for f in ["session-start.json", "pre-tool-use-bash.json"] {
        w.hook_faulty("claude", harmless(&w, &format!("providers/claude/{f}")).as_bytes());
    }
    assert!(!config_path(&w).exists());
    let faults = w.faults();
    assert_eq!(faults.len(), 2, "{faults:?}");
    assert!(faults.iter().all(|f| f.contains("config not loaded")), "{faults:?}");
}

#[test]
fn abuse_a_committed_tlc_symlink_pointing_outside_is_refused() {
    let w = World::new();
    let outside = w.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, w.repo.join(".tlc")).unwrap();
    let git = |args: &[&str]| {
        let st = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&w.repo)
            .status()
            .unwrap();
        assert!(st.success());
    };
    git(&["add", ".tlc"]);
    git(&["commit", "-qm", "a hostile symlink"]);
    for f in ["session-start.json", "pre-tool-use-bash.json", "stop.json"] {
        w.hook("claude", harmless(&w, &format!("providers/claude/{f}")).as_bytes());
    }
    w.hook("cursor", harmless(&w, "providers/cursor/shell-before.json").as_bytes());
    w.op_ok(&["mode", "paired"]);
    let init = w.run(&["init"]);
    assert_eq!(init.status.code(), Some(1));
    assert!(tree(&outside).is_empty(), "written outside the repository: {:?}", tree(&outside));
    let doctor = json(&w.ok(&["doctor", "--json"]));
    assert_eq!(check(&doctor, "adoption")["status"], "warn");
    assert!(check(&doctor, "adoption")["detail"]
        .as_str()
        .unwrap()
        .contains("outside the repository"));
    // A symlinked harness folder or state folder is refused the same way.
    let w2 = World::new();
    std::fs::create_dir_all(w2.repo.join(".tlc")).unwrap();
    std::os::unix::fs::symlink(&outside, w2.repo.join(".tlc/harness")).unwrap();
    w2.hook("claude", w2.payload("providers/claude/session-start.json").as_bytes());
    assert_eq!(w2.run(&["init"]).status.code(), Some(1));
    assert!(tree(&outside).is_empty());
}

#[test]
fn every_read_only_command_leaves_a_fresh_repository_and_home_untouched() {
    let w = World::new();
    set_origin(&w.repo, "https://github.com/acme/widgets.git");
    let before_repo = tree(&w.repo);
    let commands: Vec<Vec<&str>> = vec![
        vec!["obs", "report"],
        vec!["obs", "report", "--json"],
        vec!["obs", "events"],
        vec!["obs", "why"],
        vec!["obs", "views"],
        vec!["obs", "export", "session_rollup"],
        vec!["obs", "report", "--all-repos"],
        vec!["config", "show"],
        vec!["config", "show", "--origin", "--json"],
        vec!["doctor"],
        vec!["doctor", "--json"],
        vec!["status"],
        vec!["status", "--json"],
        vec!["mode"],
        vec!["db", "status"],
        vec!["db", "check"],
        vec!["lessons", "list"],
        vec!["lessons", "list", "--json"],
        vec!["gate", "show"],
        vec!["gate", "show", "--json"],
        vec!["policy"],
        vec!["policy", "--json"],
        vec!["harness", "status"],
        vec!["prices", "lookup", "claude-sonnet-4-5"],
        vec!["prices", "lookup", "claude-sonnet-4-5", "--json"],
        vec!["prices", "status"],
        vec!["prices", "list", "--search", "haiku"],
        vec!["obs", "cost"],
        vec!["obs", "cost", "--here", "--json"],
        vec!["stable", "list"],
        vec!["agent", "search"],
        vec!["agent", "history"],
    ];
    // Read-only commands that answer "not found" (exit 2) must create nothing either.
    let not_found: Vec<Vec<&str>> = vec![
        vec!["agent", "describe", "nobody"],
        vec!["agent", "info", "acme/nothing"],
        vec!["prices", "lookup", "no-such-model-xyz"],
    ];
    for args in &not_found {
        let out = w.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(tree(&w.repo), before_repo, "{args:?} wrote into the repository");
        assert!(!w.home.exists(), "{args:?} created the home");
    }
    for args in &commands {
        let out = w.run(args);
        assert!(out.status.success(), "{args:?} failed: {}", stderr(&out));
        if args.contains(&"--json") {
            json(stdout(&out).trim());
        }
        assert_eq!(tree(&w.repo), before_repo, "{args:?} wrote into the repository");
        assert!(!w.home.exists(), "{args:?} created the home");
    }
    // Same with a home that exists but holds nothing yet.
    std::fs::create_dir_all(&w.home).unwrap();
    for args in &commands {
        assert!(w.run(args).status.success());
    }
    assert!(tree(&w.home).is_empty(), "{:?}", tree(&w.home));
    assert_eq!(tree(&w.repo), before_repo);
}

#[test]
fn posture_precedence_mode_pause_resume_and_rejected_words() {
    let w = World::new();
    let st = json(&w.ok(&["status", "--json"]));
    assert_eq!(
        (st["posture"].as_str(), st["posture_source"].as_str()),
        (Some("solo"), Some("default"))
    );
    machine_config(&w, "mode = \"turbo\"\n");
    let st = json(&w.ok(&["status", "--json"]));
    assert_eq!(st["posture"], "solo");
    assert_eq!(st["rejected"]["word"], "turbo");
    assert_eq!(st["rejected"]["found_in"], "config");
    assert!(w.ok(&["status"]).contains("\"turbo\" in config is not a posture; running solo"));
    let doctor = json(&w.ok(&["doctor", "--json"]));
    assert_eq!(check(&doctor, "posture")["status"], "warn");
    assert!(check(&doctor, "posture")["detail"].as_str().unwrap().contains("turbo"));

    machine_config(&w, "mode = \"paired\"\n");
    assert_eq!(json(&w.ok(&["status", "--json"]))["posture_source"], "config");
    let bad = w.operator(&["mode", "yolo"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stdout(&bad).contains("\"yolo\" is not a posture"));
    assert!(!config_path(&w).exists(), "a refused word adopts nothing");
    w.op_ok(&["mode", "focus"]);
    assert!(config_path(&w).is_file(), "mode adopts");
    let st = json(&w.ok(&["status", "--json"]));
    assert_eq!(
        (st["posture"].as_str(), st["posture_source"].as_str()),
        (Some("focus"), Some("mode-state"))
    );
    assert_eq!(w.op_ok(&["mode"]).trim(), "focus (from mode-state)");
    // The hook records decisions under the running posture's state.
    let state: String = w
        .db()
        .query_row("SELECT value FROM state WHERE key = 'mode'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(state, "focus");

    assert_eq!(json(&w.ok(&["status", "--json"]))["paused"], false);
    w.op_ok(&["pause"]);
    assert_eq!(json(&w.ok(&["status", "--json"]))["paused"], true);
    w.op_ok(&["harness", "resume"]);
    assert_eq!(json(&w.ok(&["status", "--json"]))["paused"], false);
    let rails = json(&w.ok(&["status", "--json"]))["rails"].clone();
    assert!(rails
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["rail"] == "policy integrity" && r["on"] == true));
}

#[test]
fn doctor_names_restated_keys_hook_wiring_faults_and_gate_shapes() {
    let w = World::new();
    machine_config(&w, "[obs]\nretentionDays = 14\n");
    w.ok(&["init"]);
    let text = std::fs::read_to_string(config_path(&w)).unwrap();
    std::fs::write(
        config_path(&w),
        format!("{text}\n[obs]\nretentionDays = 14\ndebug = false\nmaxAttrChars = 500\n"),
    )
    .unwrap();
    let doctor = json(&w.ok(&["doctor", "--json"]));
    let restated = check(&doctor, "restated-keys");
    assert_eq!(restated["status"], "warn");
    let detail = restated["detail"].as_str().unwrap();
    assert!(
        detail.contains("obs.retentionDays") && detail.contains(&w.home.join("config.toml").display().to_string()),
        "{detail}"
    );
    assert!(detail.contains("obs.debug") && detail.contains("shipped default"), "{detail}");
    assert!(!detail.contains("maxAttrChars"), "a decided value is not restated: {detail}");
    assert!(detail.starts_with("2 in"), "{detail}");

    // Hook wiring: Claude detected and wired through tlc; Cursor detected but not wired.
    let user = w.dir.path().join("user");
    std::fs::create_dir_all(user.join(".claude")).unwrap();
    std::fs::create_dir_all(user.join(".cursor")).unwrap();
    w.ok(&["install", "--claude"]);
    let doctor = json(&w.ok(&["doctor", "--json"]));
    assert_eq!(check(&doctor, "hooks-claude")["status"], "ok", "{doctor}");
    // Another tool's Stop hook stays; tlc's Stop entry goes.
    let settings_path = user.join(".claude/settings.json");
    let mut settings = json(&std::fs::read_to_string(&settings_path).unwrap());
    settings["hooks"]["Stop"] = serde_json::json!([{"hooks": [{"type": "command", "command": "other-tool --stop"}]}]);
    std::fs::write(&settings_path, settings.to_string()).unwrap();
    std::fs::write(
        user.join(".cursor/hooks.json"),
        r#"{"version":1,"hooks":{"stop":[{"command":"other-tool"}]}}"#,
    )
    .unwrap();
    let doctor = json(&w.ok(&["doctor", "--json"]));
    let claude = check(&doctor, "hooks-claude");
    assert_eq!(claude["status"], "warn");
    assert!(claude["detail"].as_str().unwrap().contains("Stop: no tlc entry"), "{claude}");
    assert!(
        !claude["detail"].as_str().unwrap().contains("other-tool"),
        "another tool's entry is never reported"
    );
    assert!(check(&doctor, "hooks-cursor")["detail"]
        .as_str()
        .unwrap()
        .contains("detected but not wired"));
    // CLAUDE_CONFIG_DIR wins over ~/.claude.
    let elsewhere = w.dir.path().join("claude-elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = w.cmd(&["doctor", "--json"]).env("CLAUDE_CONFIG_DIR", &elsewhere).output().unwrap();
    assert!(check(&json(&stdout(&out)), "hooks-claude")["detail"]
        .as_str()
        .unwrap()
        .contains("claude-elsewhere"));

    // A hook fault (a payload that is not JSON) shows up.
    w.hook_faulty("claude", b"not json");
    let doctor = json(&w.ok(&["doctor", "--json"]));
    assert_eq!(check(&doctor, "hook-faults")["status"], "warn");
    assert_eq!(
        check(&doctor, "prices")["status"],
        "info",
        "a catalog never refreshed is how tlc ships (issue 52)"
    );
    assert!(check(&doctor, "prices")["detail"].as_str().unwrap().contains("built-in snapshot"));

    // Gate commands: one that runs as written (ok: that is the default, issue 52), one a runner of
    // the table narrows, one that does not resolve (fail, exit 1).
    w.op_ok(&["gate", "lint-command", "make", "lint"]);
    let doctor = json(&w.ok(&["doctor", "--json"]));
    assert_eq!(check(&doctor, "gate-lint")["status"], "ok");
    assert!(check(&doctor, "gate-lint")["detail"]
        .as_str()
        .unwrap()
        .contains("runs exactly as written"));
    let text = std::fs::read_to_string(config_path(&w)).unwrap();
    std::fs::write(
        config_path(&w),
        text.replace("testCommand = []", "") + "testCommand = [\"no-such-runner-xyz\"]\n",
    )
    .unwrap();
    let out = w.run(&["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let doctor = json(&stdout(&out));
    assert_eq!(doctor["ok"], false);
    assert!(doctor["failed"].as_u64().unwrap() >= 1);
    assert_eq!(check(&doctor, "gate-test")["status"], "fail");
    // The human table says the same.
    assert!(stdout(&w.run(&["doctor"])).contains("FAIL"));
}

#[test]
fn gate_commands_are_written_through_the_editor_and_runs_record_verdicts() {
    let w = World::new();
    // Refused without a terminal, with an empty argv, or a command not on PATH; nothing written.
    let no_tty = w.run(&["gate", "test-command", "true"]);
    assert_eq!(no_tty.status.code(), Some(1));
    assert!(stderr(&no_tty).contains("terminal"));
    assert_eq!(w.operator(&["gate", "test-command"]).status.code(), Some(1));
    let missing = w.operator(&["gate", "test-command", "no-such-runner-xyz", "--flag"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stdout(&missing).contains("no-such-runner-xyz"));
    assert!(!w.repo.join(".tlc").exists(), "a refused command writes nothing");
    assert_eq!(w.run(&["gate", "run"]).status.code(), Some(2), "nothing configured");

    // Set through the format-preserving editor: the header and comments survive.
    w.op_ok(&["gate", "test-command", "sh", "-c", "echo tests-ran; exit 3"]);
    w.op_ok(&["gate", "lint-command", "true"]);
    let text = std::fs::read_to_string(config_path(&w)).unwrap();
    assert!(text.starts_with("# Written by tlc at "));
    assert!(text.contains("# The lint gate's argv"));
    let shown = json(&w.ok(&["config", "show", "--json"]));
    assert_eq!(
        shown["grind.testCommand"],
        serde_json::json!(["sh", "-c", "echo tests-ran; exit 3"])
    );
    assert_eq!(shown["grind.lintCommand"], serde_json::json!(["true"]));

    let out = w.run(&["gate", "run"]);
    assert_eq!(out.status.code(), Some(1), "the test gate fails");
    assert!(stdout(&out).contains("tests-ran"));
    assert_eq!(w.count("SELECT count(*) FROM gate_runs"), 2);
    assert_eq!(
        w.count("SELECT count(*) FROM gate_runs WHERE gate = 'lint' AND verdict = 'pass' AND exit_code = 0"),
        1
    );
    assert_eq!(w.count("SELECT count(*) FROM gate_lock"), 0, "the lock is released");
    let v1 = json(&w.ok(&["gate", "show", "--json"]));
    assert_eq!(v1["schema"], "harness.gate.v1");
    assert_eq!(v1["gate"], "test");
    assert_eq!(v1["verdict"], "fail");
    assert_eq!(v1["exitCode"], 3);
    assert!(v1["outputTail"].as_str().unwrap().contains("tests-ran"));
    assert_eq!(json(&w.ok(&["gate", "show", "lint", "--json"]))["verdict"], "pass");

    // A command that cannot start is a config verdict (exit 127), with findings from HARNESS_GATE_REPORT.
    w.op_ok(&[
        "gate",
        "test-command",
        "sh",
        "-c",
        "echo '{\"findings\":[{\"summary\":\"x broke\"}]}' > \"$HARNESS_GATE_REPORT\"; exit 127",
    ]);
    assert_eq!(w.run(&["gate", "run", "test"]).status.code(), Some(1));
    let v1 = json(&w.ok(&["gate", "show", "--json"]));
    assert_eq!(v1["verdict"], "config");
    assert_eq!(v1["findings"][0]["summary"], "x broke");

    // A live holder of the lock refuses a second run, naming it.
    w.db()
        .execute(
            "INSERT INTO gate_lock (id, session_id, pid, host, acquired_at, pid_start) VALUES (1, 'other', 1, ?1, ?2, ?3)",
            rusqlite::params![hostname(), now_stamp(), process_start_time(1)],
        )
        .unwrap();
    let held = w.run(&["gate", "run", "lint"]);
    assert_eq!(held.status.code(), Some(1));
    assert!(stderr(&held).contains("session other, pid 1 on"), "{}", stderr(&held));
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

fn now_stamp() -> String {
    let out = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%S.000Z"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn lessons_are_added_by_instruction_hash_and_listed() {
    let w = World::new();
    let out = w.ok(&[
        "lessons",
        "add",
        "Grep for a producer before calling a new field done.",
        "--tokens",
        "producer,dead",
        "--gate",
        "test",
    ]);
    // Only the id on stdout.
    assert!(out.trim().len() == 16 && out.trim().bytes().all(|b| b.is_ascii_hexdigit()), "{out}");
    assert!(config_path(&w).is_file(), "lessons add adopts");
    w.ok(&[
        "lessons",
        "add",
        "Grep for a producer  before calling a new field done.",
        "--tokens",
        "producer",
    ]);
    w.ok(&["lessons", "add", "Re-run the suite after the last edit.", "--global"]);
    let list = json(&w.ok(&["lessons", "list", "--json"]));
    let list: Vec<&serde_json::Value> = list.as_array().unwrap().iter().filter(|l| l["tier"] != "core").collect();
    assert_eq!(list.len(), 2, "rewriting a lesson updates it: {list:?}");
    let project = list.iter().find(|l| l["tier"] == "project").unwrap();
    assert_eq!(project["tokens"], serde_json::json!(["producer"]));
    assert_eq!(project["source"], "manual");
    assert_eq!(project["id"].as_str().unwrap().len(), 16);
    assert!(list
        .iter()
        .any(|l| l["tier"] == "global" && l["instruction"] == "Re-run the suite after the last edit."));
    assert!(w.ok(&["lessons", "list"]).contains("Re-run the suite"));
    assert_eq!(w.run(&["lessons", "add", "x", "--until", "someday"]).status.code(), Some(2));
}

#[test]
fn concurrent_first_hooks_adopt_exactly_once() {
    let w = World::new();
    let payload = w.payload("providers/claude/user-prompt-submit.json");
    let children: Vec<_> = (0..8)
        .map(|_| {
            let mut c = w.cmd(&["hook", "claude"]);
            c.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = c.spawn().unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
            child
        })
        .collect();
    for c in children {
        assert!(c.wait_with_output().unwrap().status.success());
    }
    assert_eq!(w.count("SELECT count(*) FROM events WHERE kind = 'config.scaffolded'"), 1);
    assert_eq!(w.count("SELECT count(*) FROM events WHERE kind = 'prompt.submit'"), 8);
    assert_eq!(w.count("SELECT count(*) FROM events WHERE kind = 'hook.fault'"), 0);
    let leftovers: Vec<_> = tree(&w.repo.join(".tlc/harness"))
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert_eq!(json(&w.ok(&["doctor", "--json"]))["failed"], 0);
}

#[test]
fn an_out_of_band_mode_state_edit_is_caught_and_accepted_by_name() {
    let w = World::new();
    w.hook("claude", w.payload("providers/claude/session-start.json").as_bytes());
    w.op_ok(&["mode", "paired"]);
    assert_eq!(
        deny_reason(&w.hook("claude", harmless(&w, "providers/claude/pre-tool-use-bash.json").as_bytes())),
        None
    );
    // Somebody writes the state row directly, with no tlc command behind it.
    w.db().execute("UPDATE state SET value = 'focus' WHERE key = 'mode'", []).unwrap();
    let reason = deny_reason(&w.hook("claude", harmless(&w, "providers/claude/pre-tool-use-bash.json").as_bytes())).expect("denied");
    assert!(reason.starts_with("mode-state changed during this session"), "{reason}");
    w.op_ok(&["harness", "policy", "accept", "mode-state"]);
    assert_eq!(
        deny_reason(&w.hook("claude", harmless(&w, "providers/claude/pre-tool-use-bash.json").as_bytes())),
        None
    );
    // Hyphenated arguments belong to the gate command, not to tlc.
    w.op_ok(&["gate", "test-command", "sh", "-c", "exit 0", "--", "-x"]);
    let shown = json(&w.ok(&["config", "show", "--json"]));
    assert_eq!(shown["grind.testCommand"], serde_json::json!(["sh", "-c", "exit 0", "--", "-x"]));
}

/// A home database doctor cannot read is said as such in the prices row, not as a catalog that
/// was never refreshed.
#[test]
fn doctor_names_a_home_database_it_cannot_read_instead_of_calling_prices_never_refreshed() {
    let w = World::new();
    let doctor = json(&w.ok(&["doctor", "--json"]));
    assert_eq!(check(&doctor, "prices")["status"], "info");
    assert!(check(&doctor, "prices")["detail"].as_str().unwrap().contains("never refreshed"));
    w.ok(&["db", "migrate"]);
    {
        let c = rusqlite::Connection::open(w.home_db()).unwrap();
        c.execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) VALUES (99, 'future', '2030-01-01T00:00:00Z', '1')",
            [],
        )
        .unwrap();
        c.execute_batch("PRAGMA user_version = 99000000").unwrap();
    }
    let out = w.run(&["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doctor = json(&stdout(&out));
    assert_eq!(check(&doctor, "db-home")["status"], "fail");
    let prices = check(&doctor, "prices");
    let detail = prices["detail"].as_str().unwrap();
    assert_eq!(prices["status"], "warn", "{detail}");
    assert!(
        detail.contains("cannot be read") && detail.contains("newer than this tlc") && !detail.contains("never refreshed"),
        "{detail}"
    );
}

/// A fixture whose shell command (`rm -rf /`, which the floor denies) is replaced by a harmless
/// one: these tests are about adoption and integrity, not the floor.
fn harmless(w: &World, rel: &str) -> String {
    w.payload(rel).replace("rm -rf /", "ls")
}

/// Issue 52, item 9: on a fresh repository, status says no stop check is configured (with the
/// command that sets one) and that no policy is baselined yet; each changes once it is true.
#[test]
fn status_says_what_is_configured_and_baselined_not_what_could_be() {
    let w = World::new();
    let text = w.ok(&["status"]);
    assert!(
        text.contains("stop checks: none configured (`tlc gate test-command <cmd>` turns one on)"),
        "{text}"
    );
    assert!(text.contains("policy: not yet baselined"), "{text}");
    let st = json(&w.ok(&["status", "--json"]));
    assert_eq!(st["stop_checks"], serde_json::json!([]), "{st}");
    assert_eq!(st["baselined"], false, "{st}");

    // One command at a terminal turns the test gate on; a session baselines the policy.
    w.op_ok(&["gate", "test-command", "true"]);
    w.hook("claude", w.payload("providers/claude/session-start.json").as_bytes());
    let text = w.ok(&["status"]);
    assert!(text.contains("stop checks: on: grind (lint/test gates)"), "{text}");
    assert!(text.contains("policy: as baselined"), "{text}");
    let st = json(&w.ok(&["status", "--json"]));
    assert_eq!(st["stop_checks"], serde_json::json!(["grind (lint/test gates)"]), "{st}");
    assert_eq!(st["baselined"], true, "{st}");
}
