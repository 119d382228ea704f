use super::registry::KEYS;
use super::*;
use std::io::Write;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(text.as_bytes()).unwrap();
    p
}

#[test]
fn template_is_valid_and_lists_every_key_with_its_default_and_a_doc_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "config.toml", TEMPLATE);
    let cfg = Config::load_files(&p, None).expect("the template loads as the machine tier");
    let lines: Vec<&str> = TEMPLATE.lines().collect();
    for spec in KEYS {
        let found = cfg
            .declared
            .iter()
            .find(|(_, k, _, _)| *k == spec.key)
            .unwrap_or_else(|| panic!("template lacks {}", spec.key));
        assert_eq!(found.2, Value::from_default(spec.default), "template default of {}", spec.key);
        let line = found.3.expect("line");
        assert_eq!(lines[line - 2], format!("# {}", spec.doc), "doc line above {}", spec.key);
    }
    assert_eq!(cfg.declared.len(), KEYS.len());
}

#[test]
fn template_is_byte_identical_to_the_docs_copy() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/config-template.toml")).unwrap();
    assert_eq!(
        docs, TEMPLATE,
        "docs/config-template.toml must equal src/config/default-config.toml"
    );
}

#[test]
fn nearest_tier_wins_and_origins_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(dir.path(), "machine.toml", "[grind]\nmaxLoops = 7\nenabled = true\n");
    let p = write(dir.path(), "project.toml", "[grind]\nmaxLoops = 9\n");
    let cfg = Config::load_files(&m, Some(&p)).unwrap();
    assert_eq!(cfg.settings.grind.max_loops, 9);
    assert!(cfg.settings.grind.enabled);
    let (_, origin) = cfg.get("grind.maxLoops").unwrap();
    assert_eq!(origin.tier, Tier::Project);
    assert_eq!(origin.file.as_deref(), Some(p.as_path()));
    assert_eq!(origin.line, Some(2));
    assert_eq!(cfg.get("grind.enabled").unwrap().1.tier, Tier::Machine);
    assert_eq!(cfg.get("obs.retentionDays").unwrap().1.tier, Tier::Default);
    assert_eq!(cfg.inherited("grind.maxLoops"), Some(Value::Int(7)));
}

#[test]
fn errors_name_the_file_the_key_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(dir.path(), "m.toml", "");
    let cases = [
        ("[grind]\nenabled = true\nmaxLoop = 3\n", "grind.maxLoop", 3, "unknown key"),
        (
            "mode = \"solo\"\n\n[obs]\nmaxAttrChars = \"lots\"\n",
            "obs.maxAttrChars",
            4,
            "expected an integer",
        ),
        ("[grind]\nappendFiles = \"sometimes\"\n", "grind.appendFiles", 2, "one of"),
        ("[stable.acme]\nremote = \"file:///x\"\n", "stable", 1, "machine tier"),
        ("[guest]\npaths = []\n", "guest.paths", 2, "machine tier"),
        ("colour = 1\n", "colour", 1, "unknown key"),
    ];
    for (text, key, line, msg) in cases {
        let p = write(dir.path(), "p.toml", text);
        let e = Config::load_files(&m, Some(&p)).unwrap_err();
        assert_eq!(e.file, p);
        assert_eq!(e.key.as_deref(), Some(key), "{text}");
        assert_eq!(e.line, Some(line), "{text}");
        assert!(e.message.contains(msg), "{e}");
        assert!(e.to_string().starts_with(&format!("{}:{line}: key `{key}`", p.display())), "{e}");
    }
}

#[test]
fn a_syntax_error_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "m.toml", "[grind]\nenabled = true\nmaxLoops = = 3\n");
    let e = Config::load_files(&p, None).unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("syntax"), "{e}");
}

#[test]
fn named_tables_are_kept_with_their_tier() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(
        dir.path(),
        "m.toml",
        "[stable.acme]\nremote = \"file:///x\"\npublic = true\n[harness.a]\nmodel = \"x\"\n",
    );
    let p = write(dir.path(), "p.toml", "[harness.a]\nmodel = \"y\"\n");
    let cfg = Config::load_files(&m, Some(&p)).unwrap();
    let stable = cfg.named("stable").next().unwrap();
    assert_eq!(stable.name, "acme");
    assert_eq!(stable.get("remote"), Some(&Value::Str("file:///x".into())));
    let harness: Vec<_> = cfg.named("harness").collect();
    assert_eq!(harness.len(), 2);
    assert_eq!(harness[1].tier, Tier::Project);
}

#[test]
fn cost_alert_can_be_turned_off() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(dir.path(), "m.toml", "[obs]\nsessionCostAlertUsd = false\n");
    let cfg = Config::load_files(&m, None).unwrap();
    assert_eq!(cfg.settings.obs.session_cost_alert_usd, None);
    let m = write(dir.path(), "m.toml", "[obs]\nsessionCostAlertUsd = 2\n");
    assert_eq!(Config::load_files(&m, None).unwrap().settings.obs.session_cost_alert_usd, Some(2.0));
}

#[test]
fn the_editor_keeps_comments_and_layout() {
    let dir = tempfile::tempdir().unwrap();
    let text = "# operator notes\nmode = \"solo\" # mine\n\n[grind]\n# the suite\ntestCommand = [\"make\"]\n";
    let p = write(dir.path(), "c.toml", text);
    let mut edit = edit::ConfigEdit::open(&p).unwrap();
    edit.set("grind.testCommand", toml_edit::Value::from_iter(["cargo", "test"]));
    edit.set("stable.acme.remote", "file:///x".into());
    assert!(edit.save().unwrap());
    let after = std::fs::read_to_string(&p).unwrap();
    assert!(
        after.starts_with("# operator notes\nmode = \"solo\" # mine\n\n[grind]\n# the suite\ntestCommand = [\"cargo\", \"test\"]\n"),
        "{after}"
    );
    assert!(after.contains("[stable.acme]\nremote = \"file:///x\"\n"), "{after}");
    let mut edit = edit::ConfigEdit::open(&p).unwrap();
    edit.set("grind.testCommand", toml_edit::Value::from_iter(["cargo", "test"]));
    assert!(!edit.save().unwrap(), "an edit that changes nothing writes nothing");
}

#[test]
fn comment_lines_are_blanked_keeping_every_line_number() {
    let text = "# head\r\n[obs]\n  # indented\n\tdebug = true # trailing\n#\u{1}bad\n# last";
    assert_eq!(blank_comment_lines(text), "\r\n[obs]\n\n\tdebug = true # trailing\n#\u{1}bad\n");
    // A `#` line may be the content of a multi-line string: such a file is read as written.
    for text in ["a = \"\"\"\n# not a comment\n\"\"\"\n", "a = '''\n# not a comment\n'''\n"] {
        assert_eq!(blank_comment_lines(text), text);
    }
}

#[test]
fn a_control_character_in_a_comment_is_still_rejected_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "config.toml", "# fine\n[obs]\n# bad \u{1} here\n");
    let e = Config::load_files(&p, None).unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
}
