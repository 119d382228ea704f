use super::registry::KEYS;
use super::*;
use std::io::Write;
use std::path::PathBuf;

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

/// Compares a committed file with what the key table generates; with `TLC_BLESS=1` rewrites it.
fn generated(rel: &str, want: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have == want {
        return;
    }
    if std::env::var_os("TLC_BLESS").is_some() {
        std::fs::write(&path, want).unwrap();
        return;
    }
    panic!("{rel} differs from what src/config/keys.rs generates: run `TLC_BLESS=1 cargo test --release --lib config::tests` and commit the result");
}

#[test]
fn the_template_and_the_reference_table_are_what_the_key_table_generates() {
    generated("docs/config-template.toml", TEMPLATE);
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/config.md")).unwrap();
    let want = keygen::docs_page(&page, KEYS).expect("docs/config.md keeps the generated table's markers");
    generated("docs/config.md", &want);
}

#[test]
fn the_shipped_defaults_deserialise_to_the_generated_defaults() {
    assert_eq!(Config::defaults().settings, Settings::default());
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "config.toml", TEMPLATE);
    assert_eq!(Config::load_files(&p, None).unwrap().settings, Settings::default());
    let p = write(
        dir.path(),
        "config.toml",
        "mode = \"focus\"\n[grind]\ntestCommand = [\"cargo\", \"test\"]\n[intelligence.lessons]\ndecayLambda = 1\n",
    );
    let s = Config::load_files(&p, None).unwrap().settings;
    assert_eq!(s.mode, "focus");
    assert_eq!(s.grind.test_command, ["cargo", "test"]);
    assert_eq!(s.intelligence.lessons.decay_lambda, 1.0);
    assert_eq!(s.obs, Settings::default().obs);
}

/// Keys no code outside `src/config/` reads yet, each with the reason. A key that is read must
/// not be listed; a key that is not read must be (`every_key_is_read_by_some_code`).
const UNREAD: &[(&str, &str)] = &[];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_key_is_read_by_some_code() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // The config module itself, and the rail catalog (which only shows a switch), do not count.
    let code: String = files
        .iter()
        .filter(|p| !p.starts_with(src.join("config")) && !p.ends_with("policy/catalog.rs"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let code: String = code.split_whitespace().collect::<Vec<_>>().join("");
    let mut problems = Vec::new();
    for spec in KEYS {
        // The field's last two parts as code reads them: `grind.max_loops`, `lessons.decay_lambda`,
        // `settings.mode` (a top-level key: the settings are named so wherever they are read).
        let path = keygen::field_path(spec.key);
        let parts: Vec<&str> = path.split('.').collect();
        let tail = match parts.as_slice() {
            [only] => format!("settings.{only}"),
            [.., section, field] => format!("{section}.{field}"),
            [] => unreachable!("a key has a name"),
        };
        // A field name no other key has is found however its section is bound (`s.evidence_dir`)
        let field = parts.last().copied().unwrap_or_default();
        let unique = KEYS
            .iter()
            .filter(|k| keygen::field_path(k.key).rsplit('.').next() == Some(field))
            .count()
            == 1;
        let read_as = |needle: &str| {
            code.match_indices(needle).any(|(i, _)| {
                let after = code[i + needle.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        };
        // ... provided the section itself is read from the settings somewhere.
        let section_read = parts.len() < 2 || read_as(&format!("settings.{}", parts[..parts.len() - 1].join(".")));
        let read = read_as(&tail) || (unique && section_read && read_as(&format!(".{field}")));
        let excused = UNREAD.iter().any(|(k, _)| *k == spec.key);
        match (read, excused) {
            (false, false) => problems.push(format!(
                "{}: no code reads `{tail}`; act on it, or list it in UNREAD with the reason",
                spec.key
            )),
            (true, true) => problems.push(format!("{}: listed in UNREAD, but code reads `{tail}` now", spec.key)),
            _ => {}
        }
    }
    for (key, _) in UNREAD {
        if !KEYS.iter().any(|s| s.key == *key) {
            problems.push(format!("{key}: listed in UNREAD but not a key"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Adding a key is one entry in `keys.rs`: a scratch copy of the table with one more entry,
/// compiled with the generator alone, yields the field, its default, its template lines and its
/// reference row.
#[test]
fn adding_a_key_is_one_declaration() {
    let dir = tempfile::tempdir().unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/config");
    let keys = std::fs::read_to_string(here.join("keys.rs")).unwrap();
    let end = keys.rfind("];").expect("the table ends");
    let added = "    k(\n        \"grind.scratchLimit\",\n        Kind::Int { min: 0 },\n        Default::Int(7),\n        \"A key the test adds.\",\n    ),\n";
    let keys = format!("{}{added}{}", &keys[..end], &keys[end..]);
    write(dir.path(), "keys.rs", &keys);
    std::fs::copy(here.join("keygen.rs"), dir.path().join("keygen.rs")).unwrap();
    write(
        dir.path(),
        "main.rs",
        "#[allow(dead_code)]\nmod keys;\n#[allow(dead_code)]\nmod keygen;\nfn main() {\n    print!(\"{}\\n=====\\n{}\\n=====\\n{}\", keygen::settings_rust(keys::KEYS), keygen::template(keys::KEYS), keygen::docs_table(keys::KEYS));\n}\n",
    );
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let built = std::process::Command::new(&rustc)
        .args(["--edition", "2021", "-o"])
        .arg(dir.path().join("gen"))
        .arg(dir.path().join("main.rs"))
        .output()
        .expect("rustc runs");
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let out = std::process::Command::new(dir.path().join("gen")).output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let parts: Vec<&str> = out.split("\n=====\n").collect();
    let (rust, template, table) = (parts[0], parts[1], parts[2]);
    assert!(
        rust.contains("    /// A key the test adds.\n    #[serde(rename = \"scratchLimit\")]\n    pub scratch_limit: i64,"),
        "{rust}"
    );
    assert!(rust.contains("            scratch_limit: 7,"), "{rust}");
    let grind = &template[template.find("[grind]").unwrap()..template.find("[shipGate]").unwrap()];
    assert!(grind.contains("# A key the test adds.\nscratchLimit = 7\n"), "{grind}");
    assert!(
        table.contains("| `grind.scratchLimit` | an integer >= 0 | `7` | both | A key the test adds. |"),
        "{table}"
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

#[test]
fn a_renamed_lessons_key_still_loads_as_its_new_name_and_an_unknown_one_fails() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "config.toml",
        "[intelligence.lessons]\nmaxInjected = 3\npromoteAfter = 4\n",
    );
    let c = Config::load_files(&p, None).unwrap();
    assert_eq!(c.settings.intelligence.lessons.max_inject_session, 3);
    assert_eq!(c.settings.intelligence.lessons.promote_hit_count, 4);
    let renamed: Vec<(&str, &str, Option<usize>)> = c.renamed.iter().map(|r| (r.old, r.new, r.line)).collect();
    assert_eq!(
        renamed,
        vec![
            ("intelligence.lessons.maxInjected", "intelligence.lessons.maxInjectSession", Some(2)),
            ("intelligence.lessons.promoteAfter", "intelligence.lessons.promoteHitCount", Some(3)),
        ]
    );
    let p = write(dir.path(), "config.toml", "[intelligence.lessons]\nmaxInjectd = 3\n");
    let e = Config::load_files(&p, None).unwrap_err().to_string();
    assert!(e.contains("intelligence.lessons.maxInjectd") && e.contains("unknown key"), "{e}");
}
