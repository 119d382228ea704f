//! The README shows commands as they really run: every ```console block's `$ …` commands run here in
//! order, in a scratch home (`HOME` = `<scratch>/home/dev`, the repository `~/src/calc`), and each
//! line the README shows must appear in the output, in order (`…` stands for any text, and a line
//! of `…` for any lines).
//!
//! Two commands are stood in for: `cargo install --locked --path .` (building the crate again is
//! too slow for the suite) by the `tlc` this suite built, which every later `tlc` is — its path is
//! read as `~/.cargo/bin/tlc`, where the install puts it; and `cargo run --release -- demo` by
//! `tlc demo --dir` a folder outside the temp folders. Between "check it" and "read it back", where
//! the README says to work as usual, a recorded Claude Code session is replayed through the command
//! `tlc install --claude` wired into settings.json, run as Claude Code runs it (`sh -c`), with its
//! transcript where Claude Code writes it. `tlc gate test-command`, which the README runs at the
//! operator's terminal, runs at a pseudo-terminal.

use crate::common::{at_terminal, fixtures, isolate, outside_temp_root, TLC};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const README: &str = include_str!("../../README.md");
const SESSION: &str = "5b1f6c2e-8d4a-4f0e-9a37-2c1d7e9b4a10";

/// One `$ command` of a console block and the lines the README shows after it.
#[derive(Debug)]
struct Step {
    command: String,
    shown: Vec<String>,
}

fn steps() -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut in_block = false;
    for line in README.lines() {
        if line.starts_with("```") {
            in_block = line == "```console";
            continue;
        }
        if !in_block {
            continue;
        }
        match line.strip_prefix("$ ") {
            Some(cmd) => out.push(Step {
                command: cmd.to_string(),
                shown: Vec::new(),
            }),
            None => out
                .last_mut()
                .expect("a console block starts with a command")
                .shown
                .push(line.to_string()),
        }
    }
    out
}

/// Whether `actual` is a line `shown` describes: its pieces between `…` in order, the first at the
/// start and the last at the end unless a `…` stands there.
fn line_matches(shown: &str, actual: &str) -> bool {
    let pieces: Vec<&str> = shown.split('…').collect();
    let mut rest = actual;
    for (i, piece) in pieces.iter().enumerate() {
        let last = i == pieces.len() - 1;
        if i == 0 {
            match rest.strip_prefix(piece) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if last && !piece.is_empty() {
            return rest.ends_with(piece);
        } else {
            match rest.find(piece) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
    }
    pieces.len() > 1 || rest.is_empty()
}

/// Each line the README shows, in order, among `output`'s lines; a line the README shows right
/// after another (no `…` line between) must follow it directly.
fn assert_shown(step: &Step, output: &str) {
    let lines: Vec<&str> = output.lines().map(str::trim_end).collect();
    let mut at = 0;
    let mut gap = true;
    for shown in &step.shown {
        if shown == "…" {
            gap = true;
            continue;
        }
        let found = if gap {
            (at..lines.len()).find(|&i| line_matches(shown, lines[i]))
        } else {
            (at < lines.len() && line_matches(shown, lines[at])).then_some(at)
        };
        let Some(i) = found else {
            panic!(
                "README, after `$ {}`: {shown:?} is not what it prints (from line {at}):\n{output}",
                step.command
            );
        };
        at = i + 1;
        gap = false;
    }
    if !gap {
        assert_eq!(
            at,
            lines.len(),
            "README, `$ {}`: it prints more than shown:\n{output}",
            step.command
        );
    }
}

struct Scratch {
    _dir: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir_in(outside_temp_root()).unwrap();
        let home = dir.path().join("home/dev");
        let repo = home.join("src/calc");
        std::fs::create_dir_all(&repo).unwrap();
        assert!(Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()
            .unwrap()
            .success());
        Scratch { _dir: dir, home, repo }
    }

    fn tlc(&self, args: &[&str]) -> String {
        let mut c = Command::new(TLC);
        c.args(args).current_dir(&self.repo).env("COLUMNS", "100").stdin(Stdio::null());
        isolate(&mut c, &self.home.join(".tlc/harness"), &self.home);
        // The README says to set the gate's command at your terminal: it is an operator's command.
        let out = if args.starts_with(&["gate", "test-command"]) {
            at_terminal(&c)
        } else {
            c.output().unwrap()
        };
        assert!(
            out.status.success(),
            "tlc {args:?}: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        self.as_readme_shows(&String::from_utf8_lossy(&out.stdout))
    }

    /// The output with this suite's `tlc` read as `~/.cargo/bin/tlc` and the home as `~`.
    fn as_readme_shows(&self, text: &str) -> String {
        text.replace(TLC, "~/.cargo/bin/tlc").replace(&self.home.display().to_string(), "~")
    }

    /// The replayed session: each payload through the command settings.json wires for its event,
    /// as Claude Code runs a hook command; the transcript grows where Claude Code keeps it.
    fn work_as_usual(&self) {
        let settings: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(self.home.join(".claude/settings.json")).unwrap()).unwrap();
        let slug = self.repo.display().to_string().replace(['/', '.'], "-");
        let projects = self.home.join(".claude/projects").join(slug);
        std::fs::create_dir_all(&projects).unwrap();
        let transcript = projects.join(format!("{SESSION}.jsonl"));
        let session = fixtures().join("providers/claude/session");
        let text = std::fs::read_to_string(session.join("transcript.jsonl")).unwrap();
        std::fs::write(
            &transcript,
            text.replace("\"cwd\":\"/repo\"", &format!("\"cwd\":\"{}\"", self.repo.display())),
        )
        .unwrap();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&session).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        let mut replayed = 0;
        for f in files
            .iter()
            .filter(|f| f.file_name().unwrap().to_string_lossy().starts_with(|c: char| c.is_ascii_digit()))
        {
            let payload = std::fs::read_to_string(f)
                .unwrap()
                .replace("\"/repo", &format!("\"{}", self.repo.display()))
                .replace("TRANSCRIPT", &transcript.display().to_string());
            let event: serde_json::Value = serde_json::from_str(&payload).unwrap();
            let name = event["hook_event_name"].as_str().unwrap();
            let command = settings["hooks"][name][0]["hooks"][0]["command"]
                .as_str()
                .unwrap_or_else(|| panic!("tlc install --claude wired no {name}"));
            let mut c = Command::new("sh");
            c.args(["-c", command])
                .current_dir(&self.repo)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped());
            isolate(&mut c, &self.home.join(".tlc/harness"), &self.home);
            let mut child = c.spawn().unwrap();
            std::io::Write::write_all(&mut child.stdin.take().unwrap(), payload.as_bytes()).unwrap();
            assert!(child.wait_with_output().unwrap().status.success());
            replayed += 1;
        }
        assert_eq!(replayed, 18);
    }
}

#[test]
fn the_readme_commands_print_what_the_readme_shows() {
    let steps = steps();
    let commands: Vec<&str> = steps.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(
        commands,
        [
            "cargo run --release -- demo",
            "cargo install --locked --path .",
            "tlc install --claude",
            "tlc install --cursor",
            "tlc install --statusline",
            "tlc doctor",
            "tlc status",
            "tlc gate test-command python3 -m unittest discover -s tests",
            "tlc obs report",
            "tlc obs why",
            "tlc obs cost",
            "tlc obs import transcripts",
            "tlc uninstall",
        ],
        "the README's everyday steps"
    );
    let s = Scratch::new();
    for step in &steps {
        let output = match step.command.as_str() {
            "cargo run --release -- demo" => {
                let dir = s.home.join("demo");
                s.tlc(&["demo", "--dir", dir.to_str().unwrap()])
            }
            "cargo install --locked --path ." => {
                assert!(Path::new(TLC).is_file(), "the built tlc stands in for the installed one");
                String::new()
            }
            cmd => {
                if cmd == "tlc obs report" {
                    s.work_as_usual();
                }
                let args: Vec<&str> = cmd.strip_prefix("tlc ").expect("a tlc command").split(' ').collect();
                s.tlc(&args)
            }
        };
        assert_shown(step, &output);
    }
    // Taken out: no tlc entry is left in either file.
    for f in [".claude/settings.json", ".cursor/hooks.json"] {
        let text = std::fs::read_to_string(s.home.join(f)).unwrap();
        assert!(!text.contains("tlc"), "{f}: {text}");
    }
}

#[test]
fn the_readme_matcher_can_fail() {
    let step = Step {
        command: "x".into(),
        shown: vec!["a … c".into(), "…".into(), "z".into()],
    };
    assert!(line_matches("a … c", "a b c"));
    assert!(!line_matches("a … c", "a b c d"));
    assert!(!line_matches("a … c", "x a b c"));
    assert!(line_matches("…/user/x, which", "FLOOR: /tmp/user/x, which"));
    assert!(!line_matches("exact", "exactly"));
    assert_shown(&step, "a b c\ny\nz\n");
    for wrong in ["a b d\nz\n", "z\na b c\n", "a b c\ny\nz\nmore\n"] {
        assert!(std::panic::catch_unwind(|| assert_shown(&step, wrong)).is_err(), "{wrong:?}");
    }
}
