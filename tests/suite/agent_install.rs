//! Agent packages, part 1: stables, install into the pin store, `source` resolution.

use crate::agent_support;
use agent_support::*;
use std::os::unix::fs::PermissionsExt;

#[test]
fn done_when_install_pins_head_writes_one_source_line_and_describe_shows_the_package() {
    let env = Env::new();
    let acme = env.acme();
    let head = acme.head();
    env.add_stable("acme", &acme);
    let after_add = env.machine_text();
    assert!(
        after_add.starts_with(MACHINE_CONFIG),
        "the operator's text is kept byte for byte:\n{after_add}"
    );
    assert!(after_add.contains("[stable.acme]"), "{after_add}");

    let out = env.tlc(&["agent", "install", "acme/pr-reviewer", "--yes"]);
    assert!(out.status.success(), "{}\n{}", stderr(&out), stdout(&out));
    let printed = stdout(&out);
    assert!(printed.contains(CLEAN_MANIFEST), "the manifest is printed verbatim:\n{printed}");
    assert!(
        printed.contains("skills/review-checklist/SKILL.md") && printed.contains("prompt.md"),
        "{printed}"
    );
    assert!(printed.contains("mcp_allow: MCP servers may read"), "{printed}");
    assert!(printed.contains("a tripwire, not a certification"), "{printed}");

    let text = env.machine_text();
    assert!(
        text.starts_with(&after_add),
        "comments and layout outside the new table are kept:\n{text}"
    );
    assert_eq!(source_lines(&text), vec![format!("source = \"acme/pr-reviewer@{head}\"")], "{text}");
    assert!(text.contains("[harness.pr-reviewer]"), "{text}");

    // The pin: read-only, byte-identical to the commit.
    let pin = env.pin_dir("acme", "pr-reviewer", &head);
    for rel in ["package.toml", "prompt.md", "skills/review-checklist/SKILL.md"] {
        let f = pin.join(rel);
        assert_eq!(
            std::fs::read(&f).unwrap(),
            acme.show(&head, &format!("packages/pr-reviewer/{rel}")),
            "{rel}"
        );
        let mode = std::fs::metadata(&f).unwrap().permissions().mode();
        assert_eq!(mode & 0o222, 0, "{rel} is read-only ({mode:o})");
    }
    assert_eq!(
        std::fs::metadata(&pin).unwrap().permissions().mode() & 0o222,
        0,
        "the pin folder is read-only"
    );
    assert!(!pin.join("README.md").exists());

    // describe: each key's origin.
    let d = env.json(&["agent", "describe", "pr-reviewer", "--json"]);
    assert_eq!(d["source"], format!("acme/pr-reviewer@{head}"));
    assert_eq!(d["values"]["model"]["value"], "claude-sonnet-4");
    assert_eq!(d["values"]["model"]["origin"], "package");
    assert_eq!(d["values"]["harness"]["origin"], "package");
    assert_eq!(d["values"]["source"]["origin"], "local");
    assert_eq!(
        d["values"]["system_prompt_file"]["value"],
        pin.join("prompt.md").display().to_string()
    );
    let table = env.ok(&["agent", "describe", "pr-reviewer"]);
    assert!(
        table.contains("claude-sonnet-4") && table.contains("package") && table.contains("local"),
        "{table}"
    );

    // The install record.
    let h = env.json(&["agent", "history", "pr-reviewer", "--json"]);
    let rec = &h["installs"][0];
    assert_eq!(rec["sha"], head.as_str());
    assert_eq!(rec["action"], "install");
    assert_eq!(rec["scan_version"], "tlc-scan-1");
    assert_eq!(rec["forced"], false);
    assert_eq!(rec["confirmations"][0], "--yes");
    assert!(
        h["resolutions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["outcome"] == "resolved" && r["table_name"] == "pr-reviewer"),
        "{h}"
    );
}

#[test]
fn a_local_key_overrides_the_package_and_as_installs_twice() {
    let env = Env::new();
    let acme = env.acme();
    env.add_stable("acme", &acme);
    env.ok(&["agent", "install", "acme/pr-reviewer", "--yes"]);
    env.ok(&["agent", "install", "acme/pr-reviewer", "--yes", "--as", "reviewer-two"]);
    let text = env.machine_text();
    assert_eq!(source_lines(&text).len(), 2, "{text}");
    // The operator overrides the model by hand; nearest wins.
    std::fs::write(
        env.machine_config(),
        text.replace(
            "[harness.reviewer-two]\n",
            "[harness.reviewer-two]\nmodel = \"mine\" # my override\n",
        ),
    )
    .unwrap();
    let d = env.json(&["agent", "describe", "reviewer-two", "--json"]);
    assert_eq!(d["values"]["model"]["value"], "mine");
    assert_eq!(d["values"]["model"]["origin"], "local");
    assert_eq!(d["values"]["auto_accept"]["origin"], "package");
    // A package value that fails validation once merged (an operator's bad key) is a load error.
    let t = env.machine_text();
    std::fs::write(env.machine_config(), t.replace("model = \"mine\"", "max_turns = 0")).unwrap();
    let out = env.tlc(&["agent", "describe", "reviewer-two"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("harness.reviewer-two.max_turns"), "{}", stderr(&out));
}

#[test]
fn moving_branch_is_pinned_to_an_exact_sha_and_a_second_install_keeps_the_pin() {
    let env = Env::new();
    let acme = env.acme();
    let first = acme.head();
    env.add_stable("acme", &acme);
    env.ok(&["agent", "install", "acme/pr-reviewer@main", "--yes"]);
    assert_eq!(
        source_lines(&env.machine_text()),
        vec![format!("source = \"acme/pr-reviewer@{first}\"")]
    );
    // The branch moves and the stable is fetched; install again without upgrade.
    acme.write("packages/pr-reviewer/prompt.md", "A newer prompt.\n");
    let second = acme.commit("newer prompt");
    assert_ne!(first, second);
    env.ok(&["stable", "update", "acme"]);
    let before = env.machine_text();
    let out = env.ok(&["agent", "install", "acme/pr-reviewer@main", "--yes"]);
    assert!(out.contains("already names"), "{out}");
    assert_eq!(env.machine_text(), before, "a second install keeps the same pin");
    assert!(!env.pin_dir("acme", "pr-reviewer", &second).exists());
}

#[test]
fn a_package_sourced_and_a_hand_written_harness_with_identical_values_resolve_identically() {
    let env = Env::new();
    let acme = env.acme();
    let head = acme.head();
    env.add_stable("acme", &acme);
    env.ok(&["agent", "install", "acme/pr-reviewer", "--yes"]);
    let pin = env.pin_dir("acme", "pr-reviewer", &head);
    let hand = format!(
        "\n[harness.by-hand]\nharness = \"claude-code\"\nmodel = \"claude-sonnet-4\"\nauto_accept = true\nmax_turns = 12\nsystem_prompt_file = \"{}\"\nskill_paths = [\"{}\"]\n",
        pin.join("prompt.md").display(),
        pin.join("skills").display()
    );
    let mut text = env.machine_text();
    text.push_str(&hand);
    std::fs::write(env.machine_config(), text).unwrap();
    let plain = |d: &serde_json::Value| {
        let mut m = d["values"].as_object().unwrap().clone();
        m.remove("source");
        m.into_iter()
            .map(|(k, v)| (k, v["value"].clone()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let a = env.json(&["agent", "describe", "pr-reviewer", "--json"]);
    let b = env.json(&["agent", "describe", "by-hand", "--json"]);
    assert_eq!(plain(&a), plain(&b));
    assert!(!plain(&a).is_empty());
}

#[test]
fn a_project_may_name_an_installed_pin_and_fails_by_name_on_a_machine_without_it() {
    let env = Env::new();
    let acme = env.acme();
    let head = acme.head();
    env.add_stable("acme", &acme);
    env.ok(&["agent", "install", "acme/pr-reviewer", "--yes", "--as", "machine-copy"]);
    std::fs::create_dir_all(env.project_config().parent().unwrap()).unwrap();
    std::fs::write(
        env.project_config(),
        format!("# project\n[harness.reviewer]\nsource = \"acme/pr-reviewer@{head}\"\nmax_turns = 3\n"),
    )
    .unwrap();
    let d = env.json(&["agent", "describe", "reviewer", "--json"]);
    assert_eq!(d["tier"], "project");
    assert_eq!(d["values"]["max_turns"]["value"], 3);
    assert_eq!(d["values"]["model"]["origin"], "package");

    // Another machine: same project file, a home where nothing was installed.
    let other = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        env.cmd(args)
            .env("TLC_HOME", other.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    for args in [
        &["config", "show"][..],
        &["agent", "describe", "reviewer"][..],
        &["stable", "list"][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let e = stderr(&out);
        assert!(e.contains(&env.project_config().display().to_string()), "{e}");
        assert!(
            e.contains("harness.reviewer.source")
                && e.contains(&format!("acme/pr-reviewer@{head}"))
                && e.contains("not installed on this machine"),
            "{e}"
        );
    }
    assert!(!other.path().join("agents").exists(), "nothing was fetched or cloned");
    assert!(!other.path().join("state").exists(), "a read-only command created no database");
}

#[test]
fn a_project_declaring_an_adapter_is_refused_by_name() {
    let env = Env::new();
    std::fs::create_dir_all(env.project_config().parent().unwrap()).unwrap();
    std::fs::write(env.project_config(), "[grind]\nmaxLoops = 2\n\n[adapter.mine]\ncommand = \"sh\"\n").unwrap();
    let out = env.tlc(&["agent", "search"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("{}:4", env.project_config().display())) && stderr(&out).contains("adapter"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn install_with_project_writes_the_project_tier() {
    let env = Env::new();
    let acme = env.acme();
    let head = acme.head();
    env.add_stable("acme", &acme);
    // A project is a git repository: outside one tlc writes nothing into the folder.
    let out = env.tlc(&["agent", "install", "acme/pr-reviewer", "--yes", "--project"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is not a git repository: tlc never writes into it"),
        "{}",
        stderr(&out)
    );
    git(env.work.path(), &["init", "-q"]);
    std::fs::create_dir_all(env.project_config().parent().unwrap()).unwrap();
    std::fs::write(env.project_config(), "# the team's config\n[grind]\nmaxLoops = 2 # tight\n").unwrap();
    let machine = env.machine_text();
    env.ok(&["agent", "install", "acme/pr-reviewer", "--yes", "--project"]);
    assert_eq!(env.machine_text(), machine, "the machine tier is untouched");
    let text = std::fs::read_to_string(env.project_config()).unwrap();
    assert!(text.starts_with("# the team's config\n[grind]\nmaxLoops = 2 # tight\n"), "{text}");
    assert_eq!(source_lines(&text), vec![format!("source = \"acme/pr-reviewer@{head}\"")]);
    let d = env.json(&["agent", "describe", "pr-reviewer", "--json"]);
    assert_eq!(d["tier"], "project");
    env.ok(&["agent", "uninstall", "pr-reviewer", "--project", "--yes"]);
    assert_eq!(
        std::fs::read_to_string(env.project_config()).unwrap(),
        "# the team's config\n[grind]\nmaxLoops = 2 # tight\n"
    );
}

#[test]
fn a_project_declaring_a_stable_is_refused_by_name_for_every_command() {
    let env = Env::new();
    std::fs::create_dir_all(env.project_config().parent().unwrap()).unwrap();
    std::fs::write(env.project_config(), "# sneaky\n[stable.evil]\nremote = \"file:///tmp/evil\"\n").unwrap();
    for args in [
        &["stable", "list"][..],
        &["config", "show"][..],
        &["agent", "search"][..],
        &["agent", "install", "acme/pr-reviewer", "--yes"][..],
        &["stable", "update"][..],
    ] {
        let out = env.tlc(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let e = stderr(&out);
        assert!(
            e.contains(&format!("{}:2", env.project_config().display())) && e.contains("stable"),
            "{args:?}: {e}"
        );
    }
    let text = env.machine_text();
    assert_eq!(text, MACHINE_CONFIG);
}

#[test]
fn no_terminal_and_no_yes_installs_nothing() {
    let env = Env::new();
    let acme = env.acme();
    env.add_stable("acme", &acme);
    let before = env.machine_text();
    let out = env.tlc(&["agent", "install", "acme/pr-reviewer"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("no terminal"), "{}", stderr(&out));
    assert_eq!(env.machine_text(), before);
    assert!(!env.home.path().join("agents/installed").exists());
    // On a terminal, answering no installs nothing either; yes installs.
    let out = env.tlc_typed(&["agent", "install", "acme/pr-reviewer"], "n\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(env.machine_text(), before);
    let out = env.tlc_typed(&["agent", "install", "acme/pr-reviewer"], "y\n");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(source_lines(&env.machine_text()).len(), 1);
}

#[test]
fn stables_list_update_and_remove() {
    let env = Env::new();
    let acme = env.acme();
    let first = acme.head();
    env.ok(&["stable", "add", "acme", &acme.url(), "--private"]);
    let list = env.json(&["stable", "list", "--json"]);
    assert_eq!(list[0]["name"], "acme");
    assert_eq!(list[0]["visibility"], "private");
    assert_eq!(list[0]["head"], first.as_str());
    assert!(list[0]["last_fetch"].is_string());
    assert!(env.machine_text().contains("public = false"));
    assert_eq!(
        env.json(&["agent", "stable", "list", "--json"]),
        list,
        "the seeds' spelling is a hidden alias"
    );
    // Adding twice is refused; a bad remote adds nothing.
    assert_eq!(env.tlc(&["stable", "add", "acme", &acme.url()]).status.code(), Some(1));
    let before = env.machine_text();
    let out = env.tlc(&["stable", "add", "nowhere", "file:///no/such/repo"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(env.machine_text(), before);

    acme.write("packages/pr-reviewer/prompt.md", "v2\n");
    let second = acme.commit("v2");
    assert_eq!(
        env.json(&["stable", "list", "--json"])[0]["head"],
        first.as_str(),
        "nothing fetches but update"
    );
    let out = env.ok(&["stable", "update"]);
    assert!(out.contains(&second), "{out}");
    assert_eq!(env.json(&["stable", "list", "--json"])[0]["head"], second.as_str());
    let csv = env.ok(&["stable", "list", "--format", "csv"]);
    assert!(
        csv.starts_with("stable,remote,visibility,last fetch,head\r\n") && csv.contains(&second),
        "{csv}"
    );

    env.ok(&["agent", "install", "acme/pr-reviewer", "--yes"]);
    let out = env.ok(&["stable", "remove", "acme"]);
    assert!(
        out.contains("[harness.pr-reviewer]") && out.contains(&format!("acme/pr-reviewer@{second}")),
        "{out}"
    );
    let text = env.machine_text();
    assert!(!text.contains("[stable.acme]") && text.starts_with(MACHINE_CONFIG), "{text}");
    assert!(text.contains("[harness.pr-reviewer]"), "remove uninstalls nothing");
    assert!(!env.clone_dir("acme").exists());
    assert!(env.json(&["stable", "list", "--json"]).as_array().unwrap().is_empty());
}

#[test]
fn info_and_search_read_only_the_local_clone_and_create_nothing() {
    let env = Env::new();
    let acme = env.acme();
    acme.write(
        "packages/release-notes/package.toml",
        "[package]\nname = \"release-notes\"\ndescription = \"Writes release notes\"\n\n[harness]\nharness = \"codex\"\n",
    );
    acme.commit("release notes");
    env.add_stable("acme", &acme);
    std::fs::remove_dir_all(env.home.path().join("state")).unwrap();
    let found = env.json(&["agent", "search", "--json"]);
    assert_eq!(found.as_array().unwrap().len(), 2, "{found}");
    let found = env.json(&["agent", "search", "release", "--json"]);
    assert_eq!(found[0]["package"], "acme/release-notes");
    let csv = env.ok(&["agent", "search", "--format", "csv"]);
    assert!(
        csv.starts_with("package,version,description,manifest\r\n") && csv.contains("acme/pr-reviewer,1.4.0,"),
        "{csv}"
    );
    let info = env.ok(&["agent", "info", "acme/pr-reviewer"]);
    assert!(
        info.contains(CLEAN_MANIFEST) && info.contains("skills/review-checklist/SKILL.md") && info.contains("tripwire"),
        "{info}"
    );
    let j = env.json(&["agent", "info", "acme/pr-reviewer", "--json"]);
    assert_eq!(j["valid"], true);
    assert_eq!(j["files"].as_array().unwrap().len(), 3);
    assert!(j["requests"][1].as_str().unwrap().contains("read"));
    assert!(!env.home.path().join("state").exists(), "read-only commands created no database");
    // The remote gone: info still reads the clone.
    std::fs::remove_dir_all(&acme.dir).unwrap();
    env.ok(&["agent", "info", "acme/release-notes"]);
    assert!(!env.home.path().join("state").exists());
}

/// Runs tlc with a real pseudo-terminal as standard input and `input` typed on it.
fn on_pty(env: &Env, args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes two fresh descriptors into the ints we own.
    let rc = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null()) };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (mut master, slave) = unsafe { (std::fs::File::from_raw_fd(master), std::fs::File::from_raw_fd(slave)) };
    let child = env
        .cmd(args)
        .stdin(std::process::Stdio::from(slave))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    master.write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    drop(master);
    out
}

#[test]
fn a_real_pseudo_terminal_answers_the_prompts() {
    let env = Env::new();
    let acme = env.acme();
    env.add_stable("acme", &acme);
    let before = env.machine_text();
    let out = on_pty(&env, &["agent", "install", "acme/pr-reviewer"], "n\n");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("declined"), "{}", stderr(&out));
    assert_eq!(env.machine_text(), before);
    let out = on_pty(&env, &["agent", "install", "acme/pr-reviewer"], "y\n");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(source_lines(&env.machine_text()).len(), 1);
}

#[test]
fn install_with_project_adopts_an_unadopted_repository_and_never_writes_a_guest() {
    let env = Env::new();
    let acme = env.acme();
    env.add_stable("acme", &acme);
    git(env.work.path(), &["init", "-q", "-b", "main"]);
    assert!(!env.project_config().exists());
    env.ok(&["agent", "install", "acme/pr-reviewer", "--yes", "--project"]);
    let text = std::fs::read_to_string(env.project_config()).unwrap();
    assert!(text.contains("[project]") && text.contains("[harness.pr-reviewer]"), "{text}");
    assert_eq!(source_lines(&text).len(), 1, "{text}");
    assert_eq!(env.json(&["agent", "describe", "pr-reviewer", "--json"])["tier"], "project");
    // The agent commands adopt without recording `config.scaffolded` (docs/init.md): no project
    // database was even opened.
    assert!(!env.work.path().join(".tlc/harness/state/tlc.db").exists());

    // A scaffold that cannot write says why, and nothing is written.
    let blocked = Env::new();
    blocked.add_stable("acme", &acme);
    git(blocked.work.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(blocked.work.path().join(".tlc"), "a file where the folder would go\n").unwrap();
    let before = blocked.machine_text();
    let out = blocked.tlc(&["agent", "install", "acme/pr-reviewer", "--yes", "--project"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not adopted") && stderr(&out).contains(".tlc: cannot create"),
        "{}",
        stderr(&out)
    );
    assert_eq!(blocked.machine_text(), before);

    // A guest repository is never written into.
    let guest = Env::new();
    guest.add_stable("acme", &acme);
    git(guest.work.path(), &["init", "-q", "-b", "main"]);
    let mut m = guest.machine_text();
    m = m.replacen(
        "[grind]",
        &format!("[guest]\npaths = [\"{}\"]\n\n[grind]", guest.work.path().display()),
        1,
    );
    std::fs::write(guest.machine_config(), m).unwrap();
    let out = guest.tlc(&["agent", "install", "acme/pr-reviewer", "--yes", "--project"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("guest"), "{}", stderr(&out));
    assert!(!guest.work.path().join(".tlc").exists());
}

fn hook(env: &Env, event: &str, tool: Option<&str>) -> String {
    use std::io::Write;
    let mut payload = serde_json::json!({"hook_event_name": event, "session_id": "s-policy", "cwd": env.work.path()});
    if let Some(t) = tool {
        payload["tool_name"] = t.into();
        payload["tool_input"] = serde_json::json!({"command": "ls"});
    }
    let mut child = env
        .cmd(&["hook", "claude"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn stable_and_agent_commands_are_a_tlc_command_behind_the_policy_they_change() {
    let env = Env::new();
    git(env.work.path(), &["init", "-q"]);
    hook(&env, "SessionStart", None);
    assert_eq!(hook(&env, "PreToolUse", Some("Bash")), "", "allowed before any change");
    let acme = env.acme();
    env.add_stable("acme", &acme);
    assert_eq!(
        hook(&env, "PreToolUse", Some("Bash")),
        "",
        "stable add re-recorded the live session's baseline"
    );
    let out = env.tlc(&["agent", "install", "acme/pr-reviewer", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(hook(&env, "PreToolUse", Some("Bash")), "", "agent install re-recorded it");
    // An edit with no tlc command behind it is still caught.
    let text = std::fs::read_to_string(env.machine_config()).unwrap();
    std::fs::write(env.machine_config(), text + "\n# edited by hand\n").unwrap();
    let denied = hook(&env, "PreToolUse", Some("Bash"));
    assert!(denied.contains("\"deny\"") && denied.contains("config.toml"), "{denied}");
}
