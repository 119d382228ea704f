//! The output contract, read from the clap definitions themselves (the same tree the binary
//! parses with): every command that prints a table takes `--format` (table, json, jsonl, csv,
//! markdown), `--json` and `--wide`; every flag and positional argument has a help line; every
//! command's help ends with examples. A command added without them fails here.

use crate::common::{stderr, stdout, World};

/// Commands that print no table, and why. Everything else must take the output flags.
const NOT_TABLES: &[(&str, &str)] = &[
    ("db migrate", "prints what it applied, a line per database"),
    (
        "demo",
        "a walkthrough: prose around one summary; the data is `tlc obs …` on its scratch folder",
    ),
    ("hook", "answers the provider in its own JSON protocol"),
    ("install", "prints a plan (a diff with --dry-run)"),
    ("uninstall", "prints a plan"),
    ("obs live", "a stream of lines until interrupted; --json prints JSON lines"),
    ("mode", "sets or prints one word"),
    ("pause", "a switch"),
    ("resume", "a switch"),
    ("policy accept", "writes baselines and says so"),
    ("config set", "writes one config key"),
    ("config unset", "removes one config key"),
    ("gate test-command", "writes one config key"),
    ("gate lint-command", "writes one config key"),
    ("gate run", "runs the gate and streams its verdict"),
    ("lessons add", "records one lesson and prints its id"),
    ("lessons promote", "moves one lesson and prints its id"),
    ("lessons pin", "pins one lesson and prints its id"),
    ("lessons unpin", "unpins one lesson and prints its id"),
    ("lessons forget", "deletes one lesson and prints its id"),
    ("prices refresh", "replaces a plane and says how many entries"),
    ("stable add", "writes config and clones"),
    ("stable update", "fetches and says where each head moved"),
    ("stable remove", "writes config"),
    ("agent install", "an interactive review"),
    ("agent upgrade", "an interactive review"),
    ("agent uninstall", "writes config"),
    ("agent stable add", "writes config and clones"),
    ("agent stable update", "fetches"),
    ("agent stable remove", "writes config"),
    ("completions", "prints a shell script"),
    ("man", "prints roff"),
    ("statusline", "prints one status line for Claude Code"),
    (
        "update",
        "fetches, lists or lands commits, and runs git, cargo and doctor; --json prints what landed",
    ),
    ("version", "a few lines of facts about the binary; --json prints them as one object"),
    ("serve", "an HTTP server: its pages are HTML, each page's numbers JSON under /api/"),
];

/// Every command that runs on its own: the leaves, and parents that take arguments themselves.
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<(String, clap::Command)>) {
        let subs: Vec<&clap::Command> = cmd.get_subcommands().filter(|s| s.get_name() != "help").collect();
        let own_args = cmd.get_arguments().any(|a| !is_builtin(a));
        if !path.is_empty() && (subs.is_empty() || own_args) {
            out.push((path.join(" "), cmd.clone()));
        }
        for s in subs {
            let mut p = path.clone();
            p.push(s.get_name().to_string());
            walk(s, p, out);
        }
    }
    let mut cmd = tlc::cli::command();
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, Vec::new(), &mut out);
    out
}

fn is_builtin(a: &clap::Arg) -> bool {
    matches!(a.get_id().as_str(), "help" | "version")
}

#[test]
fn every_table_command_takes_format_json_and_wide() {
    let all = commands();
    assert!(all.len() > 50, "the walk found {} commands", all.len());
    let mut missing = Vec::new();
    for (path, cmd) in &all {
        if NOT_TABLES.iter().any(|(p, _)| p == path) {
            continue;
        }
        let arg = |id: &str| cmd.get_arguments().find(|a| a.get_id() == id);
        match arg("format") {
            None => missing.push(format!("{path}: no --format")),
            Some(f) => {
                let values: Vec<String> = f.get_possible_values().iter().map(|v| v.get_name().to_string()).collect();
                for want in ["table", "json", "jsonl", "csv", "markdown"] {
                    if !values.iter().any(|v| v == want) {
                        missing.push(format!("{path}: --format lacks {want} (has {values:?})"));
                    }
                }
            }
        }
        if arg("json").is_none_or(|a| a.get_long() != Some("json")) {
            missing.push(format!("{path}: no --json"));
        }
        // obs export streams rows; there is no terminal layout to widen.
        if path != "obs export" && arg("wide").is_none() {
            missing.push(format!("{path}: no --wide"));
        }
    }
    assert!(missing.is_empty(), "the output contract is not kept:\n{}", missing.join("\n"));
    // The exempt list names real commands only (a renamed command must not hide here).
    for (p, _) in NOT_TABLES {
        assert!(
            all.iter().any(|(path, _)| path == p),
            "NOT_TABLES names {p:?}, which is not a command"
        );
    }
}

#[test]
fn every_flag_and_argument_has_help_and_every_command_examples() {
    let mut missing = Vec::new();
    for (path, cmd) in commands() {
        for a in cmd.get_arguments().filter(|a| !is_builtin(a)) {
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            if help.trim().is_empty() {
                let name = a.get_long().map_or_else(|| format!("<{}>", a.get_id()), |l| format!("--{l}"));
                missing.push(format!("{path} {name}: no help line"));
            }
        }
        let after = cmd.get_after_help().map(|h| h.to_string()).unwrap_or_default();
        let examples = after
            .split_once("Examples:")
            .map(|(_, rest)| {
                rest.lines()
                    .filter(|l| l.trim_start().starts_with("tlc ") || l.contains("| tlc "))
                    .count()
            })
            .unwrap_or(0);
        if examples == 0 {
            missing.push(format!("{path}: no examples at the end of its help"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn help_text_shows_the_examples_and_the_flags_help() {
    let w = World::new();
    let o = w.run(&["obs", "cost", "--help"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let help = stdout(&o);
    assert!(help.contains("--compact"), "{help}");
    assert!(help.contains("Print JSON (the same as `--format json`)"), "{help}");
    let tail: Vec<&str> = help.trim_end().lines().rev().take(4).collect();
    assert!(
        tail.iter().any(|l| l.trim() == "Examples:"),
        "help does not end with examples:\n{help}"
    );
}

#[test]
fn json_with_another_format_is_refused_and_json_with_json_is_not() {
    let w = World::new();
    let o = w.run(&["obs", "views", "--json", "--format", "csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--json and --format csv"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    let o = w.run(&["obs", "views", "--json", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON value");
    assert!(v.as_array().is_some_and(|a| !a.is_empty()));
}

#[test]
fn table_commands_print_csv_and_json_for_real() {
    // Read-only commands that answer in an empty world: each prints a parseable CSV header and
    // one JSON value.
    let w = World::new();
    for cmd in [
        &["obs", "views"][..],
        &["db", "status"],
        &["doctor"],
        &["status"],
        &["prices", "status"],
        &["config", "show"],
        &["lessons", "list"],
        &["obs", "cost"],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--format", "csv"]);
        let o = w.run(&args);
        // doctor exits 1 when a check fails; its output is still the table.
        assert!(o.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", stderr(&o));
        let text = stdout(&o);
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let headers = r.headers().unwrap_or_else(|e| panic!("{args:?}: not CSV: {e}\n{text}")).clone();
        assert!(!headers.is_empty(), "{args:?}: no header row");
        for rec in r.records() {
            let rec = rec.unwrap_or_else(|e| panic!("{args:?}: bad CSV row: {e}\n{text}"));
            assert_eq!(rec.len(), headers.len(), "{args:?}");
        }
        let mut args = cmd.to_vec();
        args.push("--json");
        let o = w.run(&args);
        assert!(o.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: not one JSON value: {e}"));
    }
    assert!(!w.project_db().exists(), "a read-only command created the project database");
    assert!(!w.home_db().exists(), "a read-only command created the home database");
}

#[test]
fn completions_are_scripts_the_shells_accept() {
    let w = World::new();
    let o = w.run(&["completions", "bash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let script = w.dir.path().join("tlc.bash");
    std::fs::write(&script, &o.stdout).unwrap();
    let check = std::process::Command::new("bash").arg("-n").arg(&script).output().expect("bash");
    assert!(check.status.success(), "bash -n refused the script: {}", stderr(&check));
    let text = stdout(&o);
    assert!(
        text.contains("complete -F") && text.contains("tlc"),
        "{}",
        &text[..text.len().min(400)]
    );
    // The subcommands and their flags come from the clap definitions.
    assert!(
        text.contains("--compact") && text.contains("export"),
        "bash completion lacks commands"
    );
    for shell in ["zsh", "fish"] {
        let o = w.run(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        assert!(stdout(&o).contains("tlc"), "{shell}");
    }
}

#[test]
fn man_page_is_roff_with_every_command() {
    let w = World::new();
    let o = w.run(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH tlc 1"), "{}", &page[..page.len().min(300)]);
    for sub in ["obs", "doctor", "status", "completions"] {
        assert!(page.contains(sub), "man page lacks {sub}");
    }
    let dir = w.dir.path().join("man");
    std::fs::create_dir(&dir).unwrap();
    let o = w.run(&["man", "--out-dir", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("tlc.1").is_file());
    assert!(
        dir.join("tlc-obs-cost.1").is_file(),
        "{:?}",
        std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>()
    );
    let cost = std::fs::read_to_string(dir.join("tlc-obs-cost.1")).unwrap();
    assert!(cost.contains("compact") && cost.contains("Examples"), "{cost}");
}

#[test]
fn version_names_the_commit_and_both_schema_versions() {
    let w = World::new();
    let o = w.run(&["--version"]);
    assert!(o.status.success());
    let v = stdout(&o);
    // No hand-kept number: the commit, its date and the tree's state, then the schemas.
    let re = regex::Regex::new(
        r"^tlc ([0-9a-f]{12}|unknown) \((\d{4}-\d{2}-\d{2}, )?(clean|dirty|unknown); project schema (\d+), home schema (\d+)\)\n$",
    )
    .unwrap();
    let caps = re.captures(&v).unwrap_or_else(|| panic!("--version: {v:?}"));
    assert!(
        !v.contains(env!("CARGO_PKG_VERSION")),
        "the package's hand-kept number is not shown: {v:?}"
    );
    let latest = |db: &str| {
        std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations").join(db))
            .unwrap()
            .filter_map(|e| {
                let n = e.ok()?.file_name().to_string_lossy().into_owned();
                n.strip_prefix('V')?.split("__").next()?.parse::<u32>().ok()
            })
            .max()
            .unwrap()
    };
    assert_eq!(caps[4].parse::<u32>().unwrap(), latest("project"));
    assert_eq!(caps[5].parse::<u32>().unwrap(), latest("home"));
    // `tlc version` prints the same first line.
    let long = stdout(&w.run(&["version"]));
    assert_eq!(long.lines().next(), v.lines().next(), "{long}");
}

/// The words of a shell line: single and double quotes taken off, cut at the first `|`, `>`,
/// `<`, `;` or `&&` outside quotes (what follows is another program or a redirect).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut has_word = false;
    let (mut single, mut double) = (false, false);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' if !double => {
                single = !single;
                has_word = true;
            }
            '"' if !single => {
                double = !double;
                has_word = true;
            }
            '\\' if !single && i + 1 < chars.len() => {
                i += 1;
                word.push(chars[i]);
                has_word = true;
            }
            '|' | '>' | '<' | ';' | '&' if !single && !double => break,
            c if c.is_whitespace() && !single && !double => {
                if has_word {
                    words.push(std::mem::take(&mut word));
                    has_word = false;
                }
            }
            c => {
                word.push(c);
                has_word = true;
            }
        }
        i += 1;
    }
    if has_word {
        words.push(word);
    }
    words
}

/// The `tlc …` lines to check in a Markdown file: the commands of ```console blocks (`$ tlc …`).
fn doc_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_console = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") {
            in_console = t.trim_start_matches('`').starts_with("console") && !in_console;
            continue;
        }
        if in_console {
            if let Some(cmd) = t.strip_prefix("$ ") {
                if cmd.starts_with("tlc ") {
                    out.push(cmd.to_string());
                }
            }
        }
    }
    out
}

/// Issue 52, item 3: every example of every command's `--help`, and every `$ tlc …` line of the
/// README and docs/, runs as printed — the command tree takes its words (a flag an example names
/// that no longer exists, such as `--yes` where there is none, fails here).
#[test]
fn every_example_in_help_and_the_docs_parses_as_printed() {
    let mut lines: Vec<(String, String)> = Vec::new();
    for (path, cmd) in commands() {
        let after = cmd.get_after_help().map(|h| h.to_string()).unwrap_or_default();
        if let Some((_, rest)) = after.split_once("Examples:") {
            for l in rest.lines().map(str::trim).filter(|l| l.starts_with("tlc ")) {
                lines.push((format!("`tlc {path} --help`"), l.to_string()));
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.push(root.join("README.md"));
    for d in docs {
        for l in doc_commands(&std::fs::read_to_string(&d).unwrap()) {
            lines.push((d.display().to_string(), l));
        }
    }
    assert!(lines.len() > 150, "{} example lines found", lines.len());
    let mut broken = Vec::new();
    for (from, line) in &lines {
        let words = shell_words(line);
        if let Err(e) = tlc::cli::command().try_get_matches_from(&words) {
            if !matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) {
                broken.push(format!("{from}: `{line}`: {}", e.kind()));
            }
        }
    }
    assert!(broken.is_empty(), "examples that do not parse:\n{}", broken.join("\n"));
}
