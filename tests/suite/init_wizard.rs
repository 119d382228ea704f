//! Issue 35, items 5 and 6: `tlc init` at a real pseudo-terminal walks the capability catalog and
//! writes only what was chosen; without a terminal, or with `--defaults`, it writes the commented
//! template; `tlc doctor` lists the opt-ins left off in one info row (exit 0, no warning), naming
//! each key, `tlc init` and `tlc config set`.

use crate::common::*;
use serde_json::Value;
use tlc::config::catalog::CATALOG;

/// The config's lines that are neither comments nor blank: what the file decides.
fn live_lines(w: &World) -> Vec<String> {
    std::fs::read_to_string(w.repo.join(".tlc/harness/config.toml"))
        .expect("the project config")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

fn doctor(w: &World) -> (Option<i32>, Value) {
    let out = w.run(&["doctor", "--json"]);
    let v = serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("doctor --json ({e}): {}", stdout(&out)));
    (out.status.code(), v)
}

fn check<'a>(doctor: &'a Value, id: &str) -> &'a Value {
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id}: {doctor}"))
}

/// Answers every catalog question after grind's with Enter (the value shown).
fn keep_the_rest(p: &mut Pty) {
    for opt in CATALOG.iter().skip(1) {
        p.expect(&format!("({})", opt.key));
        p.send("\r");
    }
}

#[test]
fn the_wizard_writes_grind_with_the_detected_cargo_test_and_nothing_else() {
    let w = World::new();
    std::fs::write(w.repo.join("Cargo.toml"), "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n").unwrap();
    assert!(CATALOG[0].key == "grind.enabled");
    let mut p = Pty::spawn(&w, &["init"], 200, &[]);
    // One question each, the default shown: off.
    p.expect("(grind.enabled) [y/N]");
    p.send("y");
    // The test command the repository suggests is first, and taken with Enter.
    p.expect("test command (grind.testCommand)");
    p.expect("cargo test (from Cargo.toml)");
    p.expect("none");
    p.send("\r");
    // The lint command suggested is cargo clippy; "none" is one down.
    p.expect("lint command (grind.lintCommand)");
    p.expect("cargo clippy --all-targets -- -D warnings (from Cargo.toml)");
    p.expect("none");
    p.send("j");
    p.send("\r");
    keep_the_rest(&mut p);
    let (code, screen) = p.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("2 set as chosen"), "{screen}");
    assert_eq!(
        live_lines(&w),
        [
            "[project]",
            "owner = \"\"",
            "repo = \"\"",
            "[grind]",
            "enabled = true",
            "testCommand = [\"cargo\", \"test\"]",
        ],
        "only what was chosen is uncommented"
    );
    // The rest of the template is still there, commented: inherited.
    let text = std::fs::read_to_string(w.repo.join(".tlc/harness/config.toml")).unwrap();
    assert!(text.contains("# [shipGate]") && text.contains("# lintCommand = []"), "{text}");
    let shown: Value = serde_json::from_str(&w.ok(&["config", "show", "--json"])).unwrap();
    assert_eq!(shown["grind.testCommand"], serde_json::json!(["cargo", "test"]));
    assert_eq!(shown["grind.lintCommand"], serde_json::json!([]));
    // Doctor: grind is on now; every other opt-in is in the info row of those off, and nothing fails.
    let (code, d) = doctor(&w);
    assert_eq!(code, Some(0), "{d}");
    assert_eq!(check(&d, "opt-in-grind.enabled")["status"], "ok", "{d}");
    let off = check(&d, "opt-ins-off");
    assert_eq!(off["status"], "info", "{d}");
    let listed = off["detail"].as_str().unwrap();
    assert!(listed.contains("shipGate.enabled") && !listed.contains("grind.enabled"), "{listed}");
    assert_eq!(check(&d, "restated-keys")["status"], "ok", "the wizard restates nothing: {d}");
    // Adopted by init: one config.scaffolded event.
    assert_eq!(w.count("SELECT count(*) FROM events WHERE kind = 'config.scaffolded'"), 1);
}

#[test]
fn leaving_the_wizard_with_ctrl_c_writes_nothing() {
    let w = World::new();
    let before = tree(&w.repo);
    let mut p = Pty::spawn(&w, &["init"], 200, &[]);
    p.expect("(grind.enabled) [y/N]");
    p.send("y");
    p.expect("test command (grind.testCommand)");
    p.send("\x03");
    let (code, screen) = p.finish();
    assert_ne!(code, 0, "{screen}");
    assert_eq!(tree(&w.repo), before, "not even adopted: {screen}");
}

#[test]
fn an_adopted_repository_gets_the_questions_too_and_an_answer_back_to_the_inherited_value_unsets_it() {
    let w = World::new();
    // Adopted by a script (no terminal): the commented template, as before.
    let out = w.ok(&["init"]);
    assert!(out.contains("written (every policy key commented out"), "{out}");
    assert_eq!(live_lines(&w), ["[project]", "owner = \"\"", "repo = \"\"",]);
    // `--defaults` at a terminal asks nothing.
    let out = w.op_ok(&["init", "--defaults"]);
    assert!(out.contains("present, nothing changed"), "{out}");
    // The operator's own choice already in the file: the wizard shows it as the default.
    let path = w.repo.join(".tlc/harness/config.toml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\n[comments]\nenabled = true\n");
    std::fs::write(&path, text).unwrap();
    let mut p = Pty::spawn(&w, &["init"], 200, &[]);
    let answer = |p: &mut Pty, key: &str, keys: &str| {
        p.expect(&format!("({key})"));
        p.send(keys);
    };
    answer(&mut p, "grind.enabled", "\r");
    answer(&mut p, "docs.command", "\r");
    answer(&mut p, "shipGate.enabled", "\r");
    p.expect("(comments.enabled) [Y/n]");
    p.send("n");
    answer(&mut p, "duplication.enabled", "\r");
    answer(&mut p, "supplyChain.enabled", "\r");
    answer(&mut p, "intelligence.lessons.enabled", "y");
    answer(&mut p, "subagents.requireModel", "\r");
    // The allowlist needs its models: an empty answer is refused, then two are named.
    answer(&mut p, "subagents.enforceAllowlist", "y");
    p.expect("(subagents.allowedModels)");
    p.send("\r");
    p.expect("an empty list enforces nothing");
    p.send("opus, sonnet\r");
    // minEffort is a choice: two down from "off" is "medium".
    answer(&mut p, "subagents.minEffort", "jj\r");
    answer(&mut p, "subagents.blockParentFast", "\r");
    answer(&mut p, "untrustedContent.enabled", "\r");
    answer(&mut p, "planGate.enabled", "\r");
    answer(&mut p, "rules.enabled", "\r");
    let (code, screen) = p.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("present; 5 set as chosen"), "{screen}");
    let shown: Value = serde_json::from_str(&w.ok(&["config", "show", "--json"])).unwrap();
    assert_eq!(shown["comments.enabled"], false);
    assert_eq!(shown["intelligence.lessons.enabled"], true);
    assert_eq!(shown["subagents.allowedModels"], serde_json::json!(["opus", "sonnet"]));
    assert_eq!(shown["subagents.minEffort"], "medium");
    // Turning comments back off is the inherited value: the key left the file, not restated.
    let live = live_lines(&w);
    assert!(!live.iter().any(|l| l.starts_with("[comments]")), "{live:?}");
    let (code, d) = doctor(&w);
    assert_eq!(code, Some(0), "{d}");
    assert_eq!(check(&d, "restated-keys")["status"], "ok", "{d}");
    assert_eq!(check(&d, "subagent-allowlist")["status"], "ok", "{d}");
    for key in ["intelligence.lessons.enabled", "subagents.enforceAllowlist", "subagents.minEffort"] {
        assert_eq!(check(&d, &format!("opt-in-{key}"))["status"], "ok", "{key}: {d}");
    }
    let off = check(&d, "opt-ins-off")["detail"].as_str().unwrap().to_string();
    assert!(off.contains("comments.enabled") && !off.contains("subagents.minEffort"), "{off}");
}

#[test]
fn doctor_lists_every_opt_in_left_off_in_one_info_row_naming_its_key_init_and_config_set() {
    let w = World::new();
    let (code, d) = doctor(&w);
    assert_eq!(code, Some(0), "{d}");
    assert_eq!(d["failed"], 0, "{d}");
    let c = check(&d, "opt-ins-off");
    assert_eq!(c["status"], "info", "{c}");
    let detail = c["detail"].as_str().unwrap();
    for opt in CATALOG {
        assert!(detail.contains(opt.key), "{}: {detail}", opt.key);
        assert!(
            d["checks"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["id"] != format!("opt-in-{}", opt.key)),
            "no row of its own while off: {}",
            opt.key
        );
    }
    assert!(detail.contains("`tlc init`") && detail.contains("`tlc config set"), "{detail}");
    // A fresh install warns about nothing: features off by design are not faults.
    assert_eq!(d["warned"], 0, "{d}");
    // The table says it in one INFO line and exits 0.
    let out = w.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(0));
    let table = stdout(&out);
    assert_eq!(
        table.lines().filter(|l| l.contains("INFO") && l.contains("opt-ins off")).count(),
        1,
        "{table}"
    );
    assert!(!table.contains("WARN"), "{table}");
    // The rails that act name an always-on rail as such, never "((none))".
    let rails = check(&d, "rails")["detail"].as_str().unwrap().to_string();
    assert!(
        rails.contains("policy integrity (always on)") && !rails.contains("(none)"),
        "{rails}"
    );
    // Turned on in the machine tier: that opt-in gets an ok row naming where; never turned on by
    // doctor.
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), "[duplication]\nenabled = true\n").unwrap();
    let (code, d) = doctor(&w);
    assert_eq!(code, Some(0), "{d}");
    let c = check(&d, "opt-in-duplication.enabled");
    assert_eq!(c["status"], "ok", "{c}");
    assert!(c["detail"].as_str().unwrap().contains("machine config"), "{c}");
    assert!(!check(&d, "opt-ins-off")["detail"].as_str().unwrap().contains("duplication.enabled"));
    assert!(!w.repo.join(".tlc").exists(), "doctor writes nothing");
}
