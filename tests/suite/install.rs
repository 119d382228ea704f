//! `tlc install` / `tlc uninstall` against real settings files, and `tlc demo`.

use crate::common;
use common::*;

#[test]
fn install_and_uninstall_round_trip_a_settings_json_that_holds_another_tools_hooks() {
    let w = World::new();
    let claude = w.dir.path().join("claude");
    let cursor = w.dir.path().join("cursor");
    std::fs::create_dir_all(&claude).unwrap();
    let original = serde_json::json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/other/guard.sh"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
        }
    });
    std::fs::write(claude.join("settings.json"), serde_json::to_string_pretty(&original).unwrap()).unwrap();
    let run = |args: &[&str]| {
        let out = w
            .cmd(args)
            .env("CLAUDE_CONFIG_DIR", &claude)
            .env("CURSOR_CONFIG_DIR", &cursor)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let read = || serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(claude.join("settings.json")).unwrap()).unwrap();

    // Dry run writes nothing; only the present provider is wired when neither flag is given.
    let plan = run(&["install", "--dry-run"]);
    assert!(plan.contains("would add"), "{plan}");
    assert_eq!(read(), original);
    assert!(!cursor.exists());

    run(&["install"]);
    let installed = read();
    assert_eq!(installed["model"], "opus");
    assert_eq!(installed["permissions"]["allow"], original["permissions"]["allow"]);
    // Issue 51: Claude Code's own sandbox, on, with tlc's protected set out of reach.
    assert_eq!(installed["sandbox"]["enabled"], true);
    assert_eq!(installed["sandbox"]["allowUnsandboxedCommands"], false);
    assert!(installed["permissions"]["deny"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("Edit(//**/.tlc/**)")));
    assert_eq!(
        installed["hooks"]["PreToolUse"][0], original["hooks"]["PreToolUse"][0],
        "the other tool's hook is untouched"
    );
    let pre = installed["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    let cmd = pre[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(cmd.ends_with(" hook claude") && cmd.contains("tlc"), "{cmd}");
    assert!(installed["hooks"]["SessionStart"].is_array());
    let backups: Vec<_> = std::fs::read_dir(&claude)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("tlc-backup"))
        .collect();
    assert_eq!(backups.len(), 1, "backed up before the change");

    // Twice changes nothing.
    let again = run(&["install"]);
    assert!(again.contains("nothing to do"), "{again}");
    assert_eq!(read(), installed);

    // The wired command really answers: run it as Claude Code would.
    let out = pipe(
        {
            let mut c = std::process::Command::new("sh");
            c.arg("-c").arg(cmd).current_dir(&w.repo).isolated(&w);
            c
        },
        w.payload("providers/claude/pre-tool-use-bash.json").as_bytes(),
    );
    assert!(out.status.success());

    let dry = run(&["uninstall", "--dry-run"]);
    assert!(dry.contains("would remove"), "{dry}");
    assert_eq!(read(), installed);
    run(&["uninstall"]);
    assert_eq!(read(), original, "uninstall removes exactly tlc's entries");

    // Cursor on request, into a fresh hooks.json.
    run(&["install", "--cursor"]);
    let hooks: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(cursor.join("hooks.json")).unwrap()).unwrap();
    assert_eq!(hooks["version"], 1);
    assert!(hooks["hooks"]["beforeShellExecution"][0]["command"]
        .as_str()
        .unwrap()
        .ends_with(" hook cursor"));
}

#[test]
fn an_empty_home_is_refused_alike_by_install_uninstall_and_doctor() {
    // With HOME empty and no CLAUDE_CONFIG_DIR, `install --claude` once wrote ./.claude/settings.json
    // in whatever folder it ran from, where doctor saw no provider at all. Both now ask one
    // function, which refuses an empty variable as an unset one.
    let w = World::new();
    let cwd = w.dir.path().join("somewhere");
    std::fs::create_dir_all(&cwd).unwrap();
    let run = |args: &[&str]| w.cmd_in(&cwd, args).env("HOME", "").output().unwrap();
    let claude = "neither CLAUDE_CONFIG_DIR nor HOME is set: cannot find Claude Code's settings.json";
    let cursor = "neither CURSOR_CONFIG_DIR nor HOME is set: cannot find Cursor's hooks.json";

    let out = run(&["install", "--claude"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("claude: {claude}")), "{}", stderr(&out));
    let out = run(&["install"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(&format!("claude: {claude} — skipped")), "{text}");
    assert!(text.contains(&format!("cursor: {cursor} — skipped")), "{text}");
    let out = run(&["uninstall"]);
    assert!(out.status.success() && stdout(&out).contains(claude), "{}", stdout(&out));
    assert!(tree(&cwd).is_empty(), "wrote into the working folder: {:?}", tree(&cwd));

    let out = run(&["doctor", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let detail = |id: &str| {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no {id} check"))["detail"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(detail("hooks-claude"), format!("claude not detected ({claude})"));
    assert_eq!(detail("hooks-cursor"), format!("cursor not detected ({cursor})"));

    // The provider's own variable, when set, is the folder (HOME still empty).
    let dir = w.dir.path().join("claude-config");
    let out = w
        .cmd_in(&cwd, &["install", "--claude"])
        .env("HOME", "")
        .env("CLAUDE_CONFIG_DIR", &dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.join("settings.json").is_file());
    assert!(tree(&cwd).is_empty());
}

/// `tlc demo` shows tlc governing a session through the real hook: the floor refusing a removal
/// in the scratch home, the catastrophic rail asking, a Stop sent back by the failing test gate
/// with its follow-up and let through after the fix, and the report with those rails in it.
#[test]
fn the_demo_shows_the_floor_the_catastrophic_ask_and_a_stop_blocked_then_passing() {
    // In the temp folder, as the default is: the scratch home the agent's `~` names is a home,
    // which the floor never takes for temp space.
    let w = World::new();
    let dir = w.dir.path().join("demo");
    let out = w.ok(&["demo", "--dir", dir.to_str().unwrap()]);
    let lines: Vec<&str> = out.lines().collect();
    let answer_to = |what: &str| -> &str {
        let i = lines
            .iter()
            .position(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no {what:?} in:\n{out}"));
        lines[i + 1]
    };
    let floor = answer_to("rm -rf ~/calc-old-build");
    assert!(floor.contains("→ DENY: FLOOR:") && floor.contains("user/calc-old-build"), "{floor}");
    assert!(
        answer_to("dropdb calc_dev").contains("→ ASK: tlc asks before this command"),
        "{out}"
    );
    // The first stop is sent back with the test gate's follow-up, the second let through.
    let stops: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("12-stop.json") || l.contains("16-stop.json"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(stops.len(), 2, "{out}");
    let followup = lines[stops[0] + 1..stops[1]].join("\n");
    assert!(followup.contains("→ BLOCK"), "{followup}");
    for part in [
        "BLOCKED: test failed",
        "TRIED: `sh tests/run.sh` failed (exit 1)",
        "NEED: `sh tests/run.sh` to pass",
        "FAIL: subtract 5 3 = 8, expected 2",
    ] {
        assert!(followup.contains(part), "{part:?} in {followup}");
    }
    assert!(
        lines[stops[1] + 1].contains("→ allow: the stop is let through"),
        "{}",
        lines[stops[1] + 1]
    );
    // The report's rails and interruptions are filled.
    let rails = &out[out.find("Rails that fired").expect("rails section")..];
    for (rule, decision) in [("outside-project-destruction", "deny"), ("shell-catastrophic", "ask")] {
        assert!(
            rails.lines().any(|l| l.contains(rule) && l.contains(decision) && l.contains(" 1 ")),
            "{rule}: {rails}"
        );
    }
    let interruptions = &out[out.find("Interruptions by rule").unwrap()..out.find("Rails that fired").unwrap()];
    assert!(interruptions.contains("shell-catastrophic"), "{interruptions}");
    assert!(out.contains("responses shown") && out.contains("API calls (generations)"), "{out}");
    // It ends with what to run next.
    let tail: Vec<&str> = lines.iter().rev().take(3).rev().copied().collect();
    for (line, command) in tail.iter().zip(["tlc install", "tlc status", "tlc obs cost"]) {
        assert!(line.trim_start().starts_with(command), "{tail:?}");
    }
    // What the hooks recorded: the gate failed, then passed; the stop blocked, then allowed; the
    // session spans the replayed seconds, ending at its last event.
    let db = rusqlite::Connection::open(dir.join("repo/.tlc/harness/state/tlc.db")).unwrap();
    let verdicts: Vec<String> = db
        .prepare("SELECT verdict FROM gate_runs ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(verdicts, ["fail", "pass"]);
    let outcomes: Vec<String> = db
        .prepare("SELECT outcome FROM stop_outcomes ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(outcomes, ["block", "allow"]);
    let (first, last, ended): (String, String, String) = db
        .query_row("SELECT first_seen, last_seen, ended_at FROM sessions", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    let span = chrono::DateTime::parse_from_rfc3339(&last).unwrap() - chrono::DateTime::parse_from_rfc3339(&first).unwrap();
    assert_eq!((span.num_seconds(), last.as_str()), (46, ended.as_str()), "{first} .. {last}");
    // Nothing outside the scratch folder: the world's homes are untouched.
    let mut made: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    made.sort();
    assert_eq!(made, ["home", "repo", "transcript.jsonl", "user"]);
    assert!(
        !w.home.exists() && !w.dir.path().join("user").exists(),
        "the demo wrote outside its scratch folder"
    );
    assert!(
        !w.run(&["demo", "--dir", dir.to_str().unwrap()]).status.success(),
        "a used directory is refused"
    );
}

#[test]
fn install_statusline_wires_it_without_touching_another_tools_unless_asked() {
    let w = World::new();
    let claude = w.dir.path().join("claude");
    std::fs::create_dir_all(&claude).unwrap();
    let run = |args: &[&str]| w.cmd(args).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
    let read = || serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(claude.join("settings.json")).unwrap()).unwrap();
    let other = serde_json::json!({"model": "opus", "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}});
    std::fs::write(claude.join("settings.json"), serde_json::to_string_pretty(&other).unwrap()).unwrap();

    // Another tool's statusLine is left as it is, and said so.
    let out = run(&["install", "--statusline"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("statusline.sh") && stderr(&out).contains("--replace-statusline"),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(), other);
    // --statusline alone wires no hooks; asked to replace, it does.
    let out = run(&["install", "--statusline", "--replace-statusline"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = read();
    let cmd = v["statusLine"]["command"].as_str().unwrap();
    assert!(cmd.ends_with(" statusline") && cmd.contains("tlc"), "{cmd}");
    assert_eq!(v["statusLine"]["type"], "command");
    assert_eq!(v["model"], "opus");
    assert!(v.get("hooks").is_none(), "{v}");
    // Twice changes nothing; the command it wrote runs and prints one line.
    let again = run(&["install", "--statusline"]);
    assert!(stdout(&again).contains("nothing to do"), "{}", stdout(&again));
    // Uninstall takes tlc's statusLine out and leaves the rest.
    let out = run(&["uninstall"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = read();
    assert!(v.get("statusLine").is_none(), "{v}");
    assert_eq!(v["model"], "opus");
    // On a settings.json without one, it is simply added (and with a provider flag, the hooks too).
    let out = run(&["install", "--statusline", "--claude"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = read();
    assert!(v["statusLine"]["command"].as_str().unwrap().ends_with(" statusline"));
    assert!(v["hooks"]["PreToolUse"].is_array());
}

#[test]
fn install_dry_run_prints_a_diff_refuses_a_non_array_event_and_keeps_one_backup() {
    let w = World::new();
    let claude = w.dir.path().join("claude");
    std::fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    let run = |args: &[&str]| w.cmd(args).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();

    // An event whose value is not an array is an error naming the key; the file is untouched.
    let odd = "{\n  \"hooks\": {\"Stop\": {\"command\": \"notify-send done\"}}\n}\n";
    std::fs::write(&settings, odd).unwrap();
    let o = run(&["install", "--claude"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("`hooks.Stop` is not an array"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), odd);

    // --dry-run prints a unified diff of the file and writes nothing.
    let before = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::write(&settings, before).unwrap();
    let o = run(&["install", "--claude", "--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let name = settings.display().to_string();
    assert!(
        out.contains(&format!("--- {name}")) && out.contains(&format!("+++ {name}")),
        "{out}"
    );
    assert!(
        out.contains("@@ ") && out.contains("+  \"hooks\": {") && out.contains(" hook claude\""),
        "{out}"
    );
    assert!(out.lines().any(|l| l == " {"), "the unchanged line is context:\n{out}");
    assert!(
        out.lines().any(|l| l == "-  \"model\": \"opus\""),
        "the changed line is removed and added:\n{out}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);

    // Two runs that change the file keep one backup: the file as it was before tlc first changed it.
    assert!(run(&["install", "--claude"]).status.success());
    assert!(run(&["uninstall"]).status.success());
    let backups: Vec<String> = std::fs::read_dir(&claude)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tlc-backup"))
        .collect();
    assert_eq!(backups, vec!["settings.json.tlc-backup".to_string()]);
    let backup = std::fs::read_to_string(claude.join("settings.json.tlc-backup")).unwrap();
    assert!(
        !backup.contains(" hook claude"),
        "the backup is the original, not an installed state:\n{backup}"
    );
    // Issue 52, item 10: `--statusline` after `--claude` (the README's order) leaves the backup
    // holding the file as it was before tlc, byte for byte.
    std::fs::remove_file(claude.join("settings.json.tlc-backup")).unwrap();
    std::fs::write(&settings, before).unwrap();
    assert!(run(&["install", "--claude"]).status.success());
    let o = run(&["install", "--statusline"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(claude.join("settings.json.tlc-backup")).unwrap(), before);
}

/// The lines of `before` that `after` no longer has, and the lines `after` gained (a line diff).
fn line_changes(before: &str, after: &str) -> (Vec<String>, Vec<String>) {
    let (mut lost, mut gained) = (Vec::new(), Vec::new());
    for change in similar::TextDiff::from_lines(before, after).iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Delete => lost.push(change.value().to_string()),
            similar::ChangeTag::Insert => gained.push(change.value().to_string()),
            similar::ChangeTag::Equal => {}
        }
    }
    (lost, gained)
}

#[test]
fn install_and_uninstall_keep_the_text_outside_tlcs_entries_as_written() {
    // What serde_json would print otherwise: 1e3 as 1000.0, 1.50 as 1.5, the huge integer as a
    // float, "\u00e9" as "é", and every line indented with two spaces.
    let original = concat!(
        "{\n",
        "\t\"model\": \"opus\",\n",
        "\t\"cleanupPeriodDays\": 1e3,\n",
        "\t\"ratio\": 1.50,\n",
        "\t\"big\": 10000000000000000000001,\n",
        "\t\"name\": \"caf\\u00e9\",\n",
        "\t\"hooks\": {\n",
        "\t\t\"PreToolUse\": [\n",
        "\t\t\t{\n",
        "\t\t\t\t\"matcher\": \"Bash\",\n",
        "\t\t\t\t\"hooks\": [{\"type\": \"command\", \"command\": \"/opt/other/guard.sh\", \"timeout\": 3e1}]\n",
        "\t\t\t}\n",
        "\t\t]\n",
        "\t},\n",
        "\t\"env\": {\"A\": \"\\u0041\"}\n",
        "}\n",
    );
    let w = World::new();
    let claude = w.dir.path().join("claude");
    std::fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    std::fs::write(&settings, original).unwrap();
    let run = |args: &[&str]| {
        let out = w.cmd(args).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let read = || std::fs::read_to_string(&settings).unwrap();

    // A file that is not JSON (here JSON with a comment and a trailing comma, which the editor
    // could read) is refused by name and left as it is, by install and uninstall alike.
    let jsonc = "{\n\t// mine\n\t\"model\": \"opus\",\n}\n";
    std::fs::write(&settings, jsonc).unwrap();
    for args in [&["install", "--claude"][..], &["install", "--statusline"], &["uninstall"]] {
        let out = w.cmd(args).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("{}: not valid JSON", settings.display())),
            "{}",
            stderr(&out)
        );
        assert_eq!(read(), jsonc);
    }
    std::fs::write(&settings, original).unwrap();

    // The hooks alone here (the sandbox's keys have a test of their own, below).
    let plan = run(&["install", "--claude", "--no-sandbox", "--dry-run"]);
    assert_eq!(read(), original, "a dry run writes nothing");
    run(&["install", "--claude", "--no-sandbox"]);
    let installed = read();
    // Nothing of the original was removed or changed, only text inserted ...
    let mut rest = installed.chars();
    assert!(
        original.chars().all(|c| rest.any(|d| d == c)),
        "the original is not kept byte for byte:\n{installed}"
    );
    // ... every member line is still there as written (the numbers, the escapes, the other tool's
    // hook on its one line) ...
    let lines: Vec<&str> = installed.lines().collect();
    for line in original
        .lines()
        .filter(|l| l.contains("\": ") && !l.ends_with('[') && !l.ends_with('{'))
    {
        assert!(lines.contains(&line), "{line:?} is not kept as written:\n{installed}");
    }
    // ... and what tlc wrote is its entries, pretty, in the file's own indentation (tabs).
    let v: serde_json::Value = serde_json::from_str(&installed).unwrap();
    assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
    assert_eq!(v["hooks"]["PreToolUse"][1]["matcher"], "*");
    let added: Vec<&str> = lines.iter().copied().filter(|l| !original.lines().any(|o| o == *l)).collect();
    assert_eq!(
        added.iter().filter(|l| l.ends_with(" hook claude\",")).count(),
        16,
        "one entry per Claude Code event:\n{installed}"
    );
    for line in &added {
        assert!(
            line.starts_with('\t') && !line.trim_start_matches('\t').starts_with(' '),
            "not indented with the file's tabs: {line:?}"
        );
    }
    // The dry run's diff is exactly what was then written: the same lines removed and added.
    let (lost, gained) = line_changes(original, &installed);
    let diff_lines = |sign: char| -> Vec<String> {
        plan.lines()
            .filter(|l| l.starts_with(sign) && !l.starts_with("+++") && !l.starts_with("---"))
            .map(|l| format!("{}\n", &l[1..]))
            .collect()
    };
    assert_eq!((diff_lines('-'), diff_lines('+')), (lost, gained), "{plan}");

    // --statusline keeps the rest's text too: the last member gains its comma, nothing else changes.
    run(&["install", "--statusline"]);
    let with_statusline = read();
    let (lost, gained) = line_changes(&installed, &with_statusline);
    assert_eq!(lost, vec!["\t\"env\": {\"A\": \"\\u0041\"}\n"], "{with_statusline}");
    assert_eq!(gained[0], "\t\"env\": {\"A\": \"\\u0041\"},\n");
    assert_eq!(gained[1], "\t\"statusLine\": {\n");
    assert!(gained[3].starts_with("\t\t\"command\": \"") && gained[3].ends_with(" statusline\",\n"));
    assert_eq!(gained.len(), 6, "{gained:?}");

    // Uninstall takes out tlc's entries and statusLine: the original, byte for byte.
    run(&["uninstall"]);
    assert_eq!(read(), original);
}

/// `tlc install`/`uninstall` in `w` with Claude Code's folder `claude` (Cursor's beside it).
fn run_in(w: &World, claude: &std::path::Path, args: &[&str]) -> std::process::Output {
    w.cmd(args)
        .env("CLAUDE_CONFIG_DIR", claude)
        .env("CURSOR_CONFIG_DIR", claude.with_file_name("cursor"))
        .output()
        .unwrap()
}

/// Issue 28, item 2: a symlink planted at `settings.json.tlc-backup` or at a temp name was
/// written through, and a `settings.json` linked outside `~/.claude` was followed. Each outside
/// file stays as it was.
#[test]
fn planted_symlinks_at_the_backup_the_temp_names_and_settings_json_never_carry_a_write_outside() {
    use std::os::unix::fs::PermissionsExt;
    let w = World::new();
    let claude = w.dir.path().join("claude");
    std::fs::create_dir_all(&claude).unwrap();
    let outside = w.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("victim.txt");
    std::fs::write(&victim, "an outside file\n").unwrap();
    let settings = claude.join("settings.json");
    std::fs::write(&settings, "{\"model\": \"opus\"}\n").unwrap();

    // The backup name, linked to a file outside: refused by name, nothing written anywhere.
    let backup = claude.join("settings.json.tlc-backup");
    std::os::unix::fs::symlink(&victim, &backup).unwrap();
    let out = run_in(&w, &claude, &["install", "--claude"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("settings.json.tlc-backup is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "an outside file\n");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{\"model\": \"opus\"}\n");
    // Dangling, to a file that does not exist yet: still refused, and nothing is created.
    std::fs::remove_file(&backup).unwrap();
    let created = outside.join("created.txt");
    std::os::unix::fs::symlink(&created, &backup).unwrap();
    let out = run_in(&w, &claude, &["install", "--claude"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!created.exists());
    std::fs::remove_file(&backup).unwrap();

    // Temp names, planted for the next two thousand process ids, old style and new.
    let last: u32 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(1);
    for pid in last..last + 2000 {
        for name in [format!(".settings.json.tlc-{pid}.tmp"), format!(".settings.json.tlc-{pid}-0.tmp")] {
            std::os::unix::fs::symlink(&victim, claude.join(name)).unwrap();
        }
    }
    let out = run_in(&w, &claude, &["install", "--claude"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "an outside file\n");
    let meta = std::fs::symlink_metadata(&settings).unwrap();
    assert!(meta.is_file(), "settings.json is still a regular file");
    assert!(std::fs::read_to_string(&settings).unwrap().contains("hook claude"));
    assert!(std::fs::symlink_metadata(&backup).unwrap().is_file());
    let planted = std::fs::read_dir(&claude)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().unwrap().is_symlink())
        .count();
    assert_eq!(planted, 4000, "the planted links are left as they were");

    // settings.json itself linked to a file outside: refused, the outside file unchanged.
    let fresh = w.dir.path().join("claude2");
    std::fs::create_dir_all(&fresh).unwrap();
    let outside_settings = outside.join("settings.json");
    std::fs::write(&outside_settings, "{}\n").unwrap();
    std::os::unix::fs::symlink(&outside_settings, fresh.join("settings.json")).unwrap();
    for args in [&["install", "--claude"][..], &["install", "--statusline"], &["uninstall"]] {
        let out = run_in(&w, &fresh, args);
        if args[0] == "install" {
            assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).contains("a symbolic link to"), "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).contains("outside"), "{}", stderr(&out));
        }
        assert_eq!(std::fs::read_to_string(&outside_settings).unwrap(), "{}\n", "{args:?}");
        assert!(std::fs::symlink_metadata(fresh.join("settings.json"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(!fresh.join("settings.json.tlc-backup").exists());
    }

    // Linked to a file inside the folder (a dotfiles manager's layout): written through, the link kept.
    let inside = w.dir.path().join("claude3");
    std::fs::create_dir_all(inside.join("dotfiles")).unwrap();
    std::fs::write(inside.join("dotfiles/settings.json"), "{}\n").unwrap();
    std::fs::set_permissions(inside.join("dotfiles/settings.json"), std::fs::Permissions::from_mode(0o640)).unwrap();
    std::os::unix::fs::symlink("dotfiles/settings.json", inside.join("settings.json")).unwrap();
    let out = run_in(&w, &inside, &["install", "--claude"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(inside.join("settings.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    let target = inside.join("dotfiles/settings.json");
    assert!(std::fs::read_to_string(&target).unwrap().contains("hook claude"));
    assert_eq!(
        std::fs::metadata(&target).unwrap().permissions().mode() & 0o777,
        0o640,
        "permissions kept"
    );

    // A read-only settings.json is left as it is.
    let ro = w.dir.path().join("claude4");
    std::fs::create_dir_all(&ro).unwrap();
    std::fs::write(ro.join("settings.json"), "{}\n").unwrap();
    std::fs::set_permissions(ro.join("settings.json"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = run_in(&w, &ro, &["install", "--claude"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(ro.join("settings.json")).unwrap(), "{}\n");
}

/// Issue 28, item 2: concurrent installs and uninstalls beside an editor that takes the same
/// lock lose nothing: every key the editor wrote is still there, and the file is valid JSON
/// holding tlc's entries exactly once or not at all.
#[test]
fn concurrent_installs_lose_no_edit_and_uninstall_removes_only_what_tlc_wrote() {
    let w = World::new();
    let claude = w.dir.path().join("claude");
    std::fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    std::fs::write(&settings, "{}\n").unwrap();
    let editor = r#"
import fcntl, json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    fd = os.open(d, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    p = os.path.join(d, "settings.json")
    v = json.load(open(p))
    v["edit{}".format(i)] = i
    t = p + ".editor"
    open(t, "w").write(json.dumps(v, indent=2))
    os.rename(t, p)
    os.close(fd)
"#;
    let mut ed = std::process::Command::new("python3")
        .args(["-c", editor, claude.to_str().unwrap(), "150"])
        .spawn()
        .unwrap();
    let runners: Vec<_> = (0..4)
        .map(|k| {
            let mut c = w.cmd(&[if k % 2 == 0 { "install" } else { "uninstall" }]);
            c.env("CLAUDE_CONFIG_DIR", &claude)
                .env("CURSOR_CONFIG_DIR", w.dir.path().join("none"));
            std::thread::spawn(move || {
                for _ in 0..10 {
                    let out = c.output().unwrap();
                    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                }
            })
        })
        .collect();
    for r in runners {
        r.join().unwrap();
    }
    assert!(ed.wait().unwrap().success());
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    for i in 0..150 {
        assert_eq!(v[format!("edit{i}")], i, "edit {i} kept: {v}");
    }
    let per_event: Vec<usize> = v["hooks"]
        .as_object()
        .map(|h| h.values().map(|l| l.to_string().matches("hook claude").count()).collect())
        .unwrap_or_default();
    assert!(per_event.iter().all(|&n| n == 1), "tlc's entries once per event or not at all: {v}");

    // Entries that only look like tlc's stay.
    let lookalikes = serde_json::json!({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "/usr/bin/tlc  hook claude"},
        {"type": "cmd", "command": "/usr/bin/tlc hook claude"}
    ]}]}});
    std::fs::write(&settings, serde_json::to_string_pretty(&lookalikes).unwrap()).unwrap();
    let out = run_in(&w, &claude, &["uninstall"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v, lookalikes);
}

/// Issue 51, item 1: `install --claude` turns Claude Code's own sandbox on — no unsandboxed
/// escape, no start without it — with tlc's protected set in its `denyWrite` and in `Edit(…)`
/// deny rules; an operator's stricter values stay, a weaker one is made strict; the dry run shows
/// it; `uninstall` takes back exactly what install added (the operator's own sandbox settings,
/// the weaker value included, are back byte for byte); `--no-sandbox` wires the hooks alone.
#[test]
fn install_wires_claude_codes_sandbox_and_uninstall_takes_exactly_it_back() {
    let w = World::new();
    let claude = w.dir.path().join("claude");
    std::fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    let original = concat!(
        "{\n",
        "  \"sandbox\": {\n",
        "    \"enabled\": false,\n",
        "    \"allowUnsandboxedCommands\": false,\n",
        "    \"filesystem\": {\"denyWrite\": [\"/opt/secret\"]}\n",
        "  },\n",
        "  \"permissions\": {\"deny\": [\"Bash(curl:*)\"]}\n",
        "}\n",
    );
    std::fs::write(&settings, original).unwrap();
    let run = |args: &[&str]| {
        let out = run_in(&w, &claude, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let read = || std::fs::read_to_string(&settings).unwrap();

    let plan = run(&["install", "--claude", "--dry-run"]);
    assert!(
        plan.contains("Claude Code's sandbox (") && plan.contains("sandbox.enabled"),
        "{plan}"
    );
    assert!(
        plan.contains("+      \"enabled\": true") || plan.contains("+    \"enabled\": true"),
        "{plan}"
    );
    assert_eq!(read(), original, "a dry run writes nothing");

    run(&["install", "--claude"]);
    let v: serde_json::Value = serde_json::from_str(&read()).unwrap();
    assert_eq!(v["sandbox"]["enabled"], true, "a weaker value is made strict");
    assert_eq!(v["sandbox"]["allowUnsandboxedCommands"], false);
    assert_eq!(v["sandbox"]["failIfUnavailable"], true);
    let deny_write: Vec<&str> = v["sandbox"]["filesystem"]["denyWrite"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(deny_write[0], "/opt/secret", "the operator's own entry stays first");
    let tlc_home = w.home.display().to_string();
    let user = w.dir.path().join("user");
    for want in [
        tlc_home.clone(),
        settings.display().to_string(),
        user.join(".bashrc").display().to_string(),
        user.join(".gitconfig").display().to_string(),
    ] {
        assert!(deny_write.contains(&want.as_str()), "{want} not in denyWrite: {deny_write:?}");
    }
    let deny: Vec<&str> = v["permissions"]["deny"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(deny[0], "Bash(curl:*)");
    for want in [
        "Edit(//**/.tlc/**)".to_string(),
        format!("Edit(/{tlc_home}/**)"),
        format!("Edit(/{})", user.join(".bashrc").display()),
    ] {
        assert!(deny.contains(&want.as_str()), "{want} not in permissions.deny: {deny:?}");
    }
    let again = run(&["install", "--claude"]);
    assert!(again.contains("nothing to do") && again.contains("sandbox on"), "{again}");

    // What install added is recorded where the agent cannot write: the home database.
    let home_db = rusqlite::Connection::open(w.home.join("state/tlc.db")).unwrap();
    let rows: i64 = home_db
        .query_row("SELECT count(*) FROM client_wiring WHERE provider = 'claude'", [], |r| r.get(0))
        .unwrap();
    assert!(rows >= 10, "{rows} rows recorded");
    let path: String = home_db
        .query_row("SELECT value FROM machine_facts WHERE name = 'operator-path'", [], |r| r.get(0))
        .unwrap();
    assert!(path.contains("/usr/bin") || path.contains("/bin"), "{path}");
    drop(home_db);

    run(&["uninstall"]);
    assert_eq!(read(), original, "uninstall takes back exactly what install added");

    // --no-sandbox: the hooks alone.
    run(&["install", "--claude", "--no-sandbox"]);
    let v: serde_json::Value = serde_json::from_str(&read()).unwrap();
    assert_eq!(v["sandbox"]["enabled"], false);
    assert!(v["hooks"]["PreToolUse"].is_array());
    run(&["uninstall"]);
    assert_eq!(read(), original);
}
