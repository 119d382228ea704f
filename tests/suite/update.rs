//! Issue 35: `tlc update --check` and `tlc update` against a local upstream (a bare repository), a
//! real checkout, real git and a real cargo build of a small crate that stands in for tlc's source.

use crate::common::{stdout, World};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A bare upstream, a clone of it that plays "the checkout tlc was built from", and a second clone
/// where upstream work is made and pushed.
struct Upstream {
    bare: PathBuf,
    checkout: PathBuf,
    work: PathBuf,
}

/// A crate whose binary is named `tlc`: it appends the arguments it was run with to `calls.log`
/// beside the checkout, so the test sees what `tlc update` ran of the binary it rebuilt.
const FAKE_MAIN: &str = r#"use std::io::Write;
fn main() {
    let exe = std::env::current_exe().unwrap();
    let root = exe.ancestors().nth(3).unwrap().to_path_buf();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(root.join("calls.log")).unwrap();
    writeln!(f, "{}", args.join(" ")).unwrap();
}
"#;

impl Upstream {
    fn new(root: &Path) -> Upstream {
        let bare = root.join("upstream.git");
        let work = root.join("work");
        let checkout = root.join("checkout");
        std::fs::create_dir_all(&work).unwrap();
        git(root, &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
        git(&work, &["init", "-q", "-b", "main"]);
        std::fs::create_dir_all(work.join("docs/decisions")).unwrap();
        std::fs::create_dir_all(work.join("src")).unwrap();
        std::fs::write(work.join("docs/decisions/README.md"), "# Decisions\n").unwrap();
        std::fs::write(work.join("docs/decisions/001-first.md"), "# 001 — The first decision\n\nWhy.\n").unwrap();
        std::fs::write(
            work.join("Cargo.toml"),
            "[package]\nname = \"tlc\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(work.join("src/main.rs"), FAKE_MAIN).unwrap();
        std::fs::write(work.join(".gitignore"), "/target\n/calls.log\n").unwrap();
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-q", "-m", "the first revision"]);
        git(&work, &["remote", "add", "origin", bare.to_str().unwrap()]);
        git(&work, &["push", "-q", "-u", "origin", "main"]);
        git(root, &["clone", "-q", bare.to_str().unwrap(), checkout.to_str().unwrap()]);
        Upstream { bare, checkout, work }
    }

    /// One upstream commit adding `note` (a decision note's file name and text).
    fn land(&self, subject: &str, note: Option<(&str, &str)>) {
        if let Some((name, text)) = note {
            std::fs::write(self.work.join("docs/decisions").join(name), text).unwrap();
        }
        std::fs::write(self.work.join("src/landed.txt"), subject).unwrap();
        git(&self.work, &["add", "-A"]);
        git(&self.work, &["commit", "-q", "-m", subject]);
        git(&self.work, &["push", "-q", "origin", "main"]);
    }

    fn head(&self) -> String {
        git(&self.checkout, &["rev-parse", "HEAD"])
    }
}

fn update_json(w: &World, args: &[&str]) -> Value {
    let out = w.cmd(args).stdin(std::process::Stdio::null()).output().unwrap();
    assert!(
        out.status.success(),
        "tlc {args:?}: {}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn check_lists_the_commits_and_decision_notes_that_would_land_without_moving_head() {
    let w = World::new();
    let up = Upstream::new(w.dir.path());
    up.land(
        "the ship gate reads evidence first",
        Some((
            "008-evidence-first.md",
            "# 008 — Evidence before claims\n\nmigration: re-record open claims with `tlc ship ledger`\n\nWhy.\n",
        )),
    );
    let before = up.head();
    let src = up.checkout.to_str().unwrap();
    let text = w.ok(&["update", "--check", "--source", src]);
    assert!(
        text.contains("1 commit(s) would land") && text.contains("the ship gate reads evidence first"),
        "{text}"
    );
    assert!(
        text.contains("008 — Evidence before claims") && text.contains("migration: re-record open claims"),
        "{text}"
    );
    assert!(
        !text.contains("001 — The first decision"),
        "a note already in the checkout is not news: {text}"
    );
    assert_eq!(up.head(), before, "--check never moves HEAD");
    let v = update_json(&w, &["update", "--check", "--source", src, "--json"]);
    assert_eq!(v["commits"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["notes"][0]["path"], "docs/decisions/008-evidence-first.md");
    assert_eq!(v["local_commits"], 0);
    assert_eq!(up.head(), before);
    assert!(up.bare.is_dir());
}

#[test]
fn update_refuses_a_checkout_with_local_commits_and_names_both_ways_out() {
    let w = World::new();
    let up = Upstream::new(w.dir.path());
    up.land("upstream work", None);
    std::fs::write(up.checkout.join("mine.txt"), "local").unwrap();
    git(&up.checkout, &["add", "mine.txt"]);
    git(&up.checkout, &["commit", "-q", "-m", "a local commit"]);
    let before = up.head();
    let out = w.operator(&["update", "--source", up.checkout.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("1 commit(s) that origin/main does not"), "{text}");
    assert!(
        text.contains("reset --hard origin/main") && text.contains("reinstall from a fresh clone"),
        "{text}"
    );
    assert_eq!(up.head(), before, "it runs neither way out");
    assert!(up.checkout.join("mine.txt").is_file());
    // --check says the same in advance.
    let check = w.ok(&["update", "--check", "--source", up.checkout.to_str().unwrap()]);
    assert!(check.contains("would refuse to fast-forward"), "{check}");
}

#[test]
fn update_names_what_is_not_a_checkout_or_follows_no_upstream_and_is_the_operators() {
    let w = World::new();
    let plain = w.dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let out = w.run(&["update", "--check", "--source", plain.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(plain.to_str().unwrap()) && err.contains("not a git checkout"), "{err}");
    let lone = w.dir.path().join("lone");
    std::fs::create_dir_all(&lone).unwrap();
    git(&lone, &["init", "-q", "-b", "main"]);
    let err = String::from_utf8_lossy(&w.run(&["update", "--check", "--source", lone.to_str().unwrap()]).stderr).to_string();
    assert!(err.contains("has no upstream") && err.contains("--set-upstream-to"), "{err}");
    // Without a terminal, `tlc update` itself refuses before doing anything.
    let up = Upstream::new(&w.dir.path().join("u"));
    up.land("more", None);
    let before = up.head();
    let out = w.run(&["update", "--source", up.checkout.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("interactive terminal"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(up.head(), before);
}

#[test]
fn update_fast_forwards_rebuilds_rewires_announces_and_runs_doctor() {
    let w = World::new();
    let up = Upstream::new(w.dir.path());
    // Claude Code is wired (by this tlc); the project has a database (a session started).
    std::fs::create_dir_all(w.dir.path().join("user/.claude")).unwrap();
    w.ok(&["install", "--claude"]);
    w.hook(
        "claude",
        json!({"hook_event_name": "SessionStart", "session_id": "s", "cwd": w.repo, "source": "startup"})
            .to_string()
            .as_bytes(),
    );
    up.land("the second revision", Some(("008-second.md", "# 008 — The second decision\n")));
    let src = up.checkout.to_str().unwrap();

    // The first update of this project records where it stands and announces nothing.
    let out = w.operator(&["update", "--source", src]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert_eq!(up.head(), git(&up.bare, &["rev-parse", "main"]), "fast-forwarded");
    assert!(
        text.contains("landed: 1 commit(s)") && text.contains("updates for the first time"),
        "{text}"
    );
    assert!(!text.contains("008 — The second decision"), "{text}");
    let calls = std::fs::read_to_string(up.checkout.join("calls.log")).expect("the rebuilt binary ran");
    assert_eq!(calls, "install --claude\ndoctor\n", "re-wired what was wired, then doctor");

    // The next update announces the decision that landed since.
    up.land(
        "the third revision",
        Some(("009-third.md", "# 009 — The third decision\n\nmigration: move x to y\n")),
    );
    let text = stdout(&w.operator(&["update", "--source", src]));
    assert!(
        text.contains("decisions that landed") && text.contains("009 — The third decision"),
        "{text}"
    );
    assert!(
        text.contains("migration: move x to y") && !text.contains("008 — The second"),
        "{text}"
    );
}
