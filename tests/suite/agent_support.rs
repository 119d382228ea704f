//! Shared by the agent integration tests: a runtime home, a project folder, and real stables
//! made as git repositories in temp dirs (file:// remotes).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const MACHINE_CONFIG: &str = "# my machine config — hand-written, keep these comments\nmode = \"solo\" # posture\n\n# gates\n[grind]\nmaxLoops = 4 # four is enough\n";

pub struct Env {
    pub home: tempfile::TempDir,
    pub work: tempfile::TempDir,
    pub remotes: tempfile::TempDir,
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `git <args>` in `dir` with `input` on its stdin; its stdout, trimmed.
pub fn git_input(dir: &Path, args: &[&str], input: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let bytes = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// One entry of a tree object written by [`Repo::tree`]: mode, name (any bytes), object id.
pub type TreeEntry<'a> = (&'a str, &'a [u8], &'a str);

/// A stable repository being authored.
pub struct Repo {
    pub dir: PathBuf,
}

impl Repo {
    pub fn url(&self) -> String {
        format!("file://{}", self.dir.display())
    }

    pub fn write(&self, path: &str, text: &str) -> &Self {
        let p = self.dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        self
    }

    pub fn symlink(&self, path: &str, target: &str) -> &Self {
        let p = self.dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, p).unwrap();
        self
    }

    pub fn remove(&self, path: &str) -> &Self {
        git(&self.dir, &["rm", "-q", "-r", path]);
        self
    }

    pub fn commit(&self, msg: &str) -> String {
        git(&self.dir, &["add", "-A"]);
        git(&self.dir, &["commit", "-q", "-m", msg]);
        self.head()
    }

    pub fn head(&self) -> String {
        git(&self.dir, &["rev-parse", "HEAD"])
    }

    /// Stores `bytes` as a blob; its id.
    pub fn blob(&self, bytes: &[u8]) -> String {
        git_input(&self.dir, &["hash-object", "-w", "--stdin"], bytes)
    }

    /// Stores a tree object holding exactly `entries`, in that order, whatever their names: git
    /// writes such a tree with `--literally` (no checkout would make one, and a clone does not
    /// check it). Its id.
    pub fn tree(&self, entries: &[TreeEntry<'_>]) -> String {
        let mut raw = Vec::new();
        for (mode, name, oid) in entries {
            raw.extend_from_slice(mode.as_bytes());
            raw.push(b' ');
            raw.extend_from_slice(name);
            raw.push(0);
            raw.extend((0..oid.len() / 2).map(|i| u8::from_str_radix(&oid[2 * i..2 * i + 2], 16).unwrap()));
        }
        git_input(&self.dir, &["hash-object", "-t", "tree", "--literally", "-w", "--stdin"], &raw)
    }

    /// Commits `tree` on top of `main` and moves `main` to it; the commit's id.
    pub fn commit_tree(&self, tree: &str, msg: &str) -> String {
        let parent = self.head();
        let sha = git(&self.dir, &["commit-tree", tree, "-p", &parent, "-m", msg]);
        git(&self.dir, &["update-ref", "refs/heads/main", &sha]);
        sha
    }

    pub fn show(&self, sha: &str, path: &str) -> Vec<u8> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&self.dir)
            .args(["show", &format!("{sha}:{path}")])
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    }
}

pub const CLEAN_MANIFEST: &str = r#"# pr-reviewer: reviews pull requests
[package]
name = "pr-reviewer"
version = "1.4.0"
description = "Reviews PRs against the repo's ADRs and specs"
author = "Acme"
homepage = "https://example.com/pr-reviewer"

[harness]
harness = "claude-code"
model = "claude-sonnet-4"
auto_accept = true
max_turns = 12
system_prompt_file = "prompt.md"

[requests]
skill_paths = true
mcp_allow = ["read"]
network = false
"#;

pub const CLEAN_PROMPT: &str = "You review pull requests against the repository's ADRs.\nSummarise each finding with the file and line.\n";
pub const CLEAN_SKILL: &str = "# Review checklist\n\n- Check the tests.\n- Check the docs at https://example.com/pr-reviewer/docs.\n";

impl Env {
    pub fn new() -> Env {
        let env = Env {
            home: tempfile::tempdir().unwrap(),
            work: tempfile::tempdir().unwrap(),
            remotes: tempfile::tempdir().unwrap(),
        };
        std::fs::write(env.machine_config(), MACHINE_CONFIG).unwrap();
        env
    }

    pub fn machine_config(&self) -> PathBuf {
        self.home.path().join("config.toml")
    }

    pub fn project_config(&self) -> PathBuf {
        self.work.path().join(".tlc/harness/config.toml")
    }

    pub fn home_db(&self) -> PathBuf {
        self.home.path().join("state/tlc.db")
    }

    pub fn pin_dir(&self, stable: &str, package: &str, sha: &str) -> PathBuf {
        self.home.path().join("agents/installed").join(stable).join(package).join(sha)
    }

    pub fn clone_dir(&self, stable: &str) -> PathBuf {
        self.home.path().join("agents/stables").join(stable)
    }

    /// A new empty repository on branch main.
    pub fn repo(&self, name: &str) -> Repo {
        let dir = self.remotes.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        git(&dir, &["init", "-q", "-b", "main"]);
        Repo { dir }
    }

    /// The `acme` stable with the clean `pr-reviewer` package, committed.
    pub fn acme(&self) -> Repo {
        let r = self.repo("acme");
        r.write("packages/pr-reviewer/package.toml", CLEAN_MANIFEST)
            .write("packages/pr-reviewer/prompt.md", CLEAN_PROMPT)
            .write("packages/pr-reviewer/skills/review-checklist/SKILL.md", CLEAN_SKILL)
            .write("README.md", "the acme stable\n");
        r.commit("pr-reviewer 1.4.0");
        r
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(crate::common::TLC);
        c.args(args).current_dir(self.work.path()).env("COLUMNS", "200");
        crate::common::isolate(&mut c, self.home.path(), &self.remotes.path().join("user"));
        c
    }

    /// Runs tlc with stdin closed (not a terminal).
    pub fn tlc(&self, args: &[&str]) -> Output {
        self.cmd(args).stdin(Stdio::null()).output().unwrap()
    }

    /// Runs tlc with `input` typed on a stdin it treats as the operator's terminal.
    pub fn tlc_typed(&self, args: &[&str], input: &str) -> Output {
        crate::common::at_terminal_typed(&self.cmd(args), input)
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.tlc(args);
        assert!(out.status.success(), "tlc {args:?} failed: {}\n{}", stderr(&out), stdout(&out));
        stdout(&out)
    }

    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        serde_json::from_str(&self.ok(args)).unwrap()
    }

    pub fn add_stable(&self, name: &str, repo: &Repo) {
        self.ok(&["stable", "add", name, &repo.url()]);
    }

    pub fn machine_text(&self) -> String {
        std::fs::read_to_string(self.machine_config()).unwrap()
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `source = "..."` lines of a config text.
pub fn source_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("source"))
        .map(str::to_string)
        .collect()
}
