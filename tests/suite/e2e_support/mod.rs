//! Support for the end-to-end tests with the real Claude Code CLI: the pinned client installed
//! with npm under `target/`, a scratch world (repository, home, Claude Code's config folder,
//! tlc's home), tlc's hooks wired by `tlc install --claude` beside a logger that keeps every
//! payload Claude Code sends, and a bounded run of `claude -p` against the scripted API.
#![allow(dead_code)]

pub mod api;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub const TLC: &str = env!("CARGO_BIN_EXE_tlc");
/// The Claude Code release these tests drive (npm `@anthropic-ai/claude-code`): the current one.
pub const CLAUDE_CODE_VERSION: &str = "2.1.332";
/// The release before it, which a smaller set of scenarios still drives (a user may not have
/// updated yet): synchronous subagents, no PermissionRequest in `-p` mode.
pub const CLAUDE_CODE_PREVIOUS: &str = "2.1.197";
/// The main model the runs ask for.
pub const MODEL: &str = "claude-sonnet-4-5-20250929";
/// One `claude -p` run is stopped after this.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

use crate::common::target_dir;

/// The native Claude Code binary of `version` (one of the two above), installed with npm under
/// `<target>/e2e/` on first use ([`target_dir`]).
///
/// The install is idempotent and safe when several tests (threads or processes) start at once:
/// they take an exclusive lock on a file beside the install folder, and the install goes to a
/// staging folder that is renamed into place only once its binary answers with the pinned
/// version.
pub fn claude_binary(version: &'static str) -> PathBuf {
    static CURRENT: OnceLock<PathBuf> = OnceLock::new();
    static PREVIOUS: OnceLock<PathBuf> = OnceLock::new();
    match version {
        CLAUDE_CODE_VERSION => CURRENT.get_or_init(|| install_claude_code(CLAUDE_CODE_VERSION)).clone(),
        CLAUDE_CODE_PREVIOUS => PREVIOUS.get_or_init(|| install_claude_code(CLAUDE_CODE_PREVIOUS)).clone(),
        other => panic!("Claude Code {other} is not one of the versions these tests pin"),
    }
}

fn native_binary(prefix: &Path) -> PathBuf {
    prefix.join("node_modules/@anthropic-ai/claude-code-linux-x64/claude")
}

fn version_of(bin: &Path) -> Option<String> {
    let out = Command::new(bin).arg("--version").stdin(Stdio::null()).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn install_claude_code(version: &str) -> PathBuf {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        panic!("the Claude Code end-to-end tests drive the linux-x64 build of Claude Code {version}; this machine is another platform");
    }
    let root = target_dir().join("e2e");
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let prefix = root.join(format!("claude-code-{version}"));
    let bin = native_binary(&prefix);
    let want = format!("{version} (Claude Code)");
    let lock_path = root.join("claude-code.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .unwrap_or_else(|e| panic!("{}: {e}", lock_path.display()));
    lock.lock().unwrap_or_else(|e| panic!("lock {}: {e}", lock_path.display()));
    if version_of(&bin).as_deref() == Some(want.as_str()) {
        return bin;
    }
    let npm_version = Command::new("npm").arg("--version").stdin(Stdio::null()).output();
    match npm_version {
        Ok(o) if o.status.success() => {}
        _ => panic!(
            "npm is not on PATH: the Claude Code end-to-end tests install @anthropic-ai/claude-code@{version} \
             with it. Install Node.js and npm (Debian: apt-get install nodejs npm) and run the tests again."
        ),
    }
    let staging = root.join(format!("claude-code-{version}.staging-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).unwrap();
    let started = Instant::now();
    // Scripts stay off: the wrapper's postinstall only copies the native binary over a
    // placeholder, and the tests run the native package's binary directly.
    let out = Command::new("npm")
        .args([
            "install",
            "--prefix",
            &staging.to_string_lossy(),
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            "--ignore-scripts",
            "--save-exact",
            &format!("@anthropic-ai/claude-code@{version}"),
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run npm");
    assert!(
        out.status.success(),
        "npm install @anthropic-ai/claude-code@{version} failed ({:?}):\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let got = version_of(&native_binary(&staging));
    assert_eq!(
        got.as_deref(),
        Some(want.as_str()),
        "{} after npm install",
        native_binary(&staging).display()
    );
    let _ = std::fs::remove_dir_all(&prefix);
    std::fs::rename(&staging, &prefix).unwrap_or_else(|e| panic!("rename {} to {}: {e}", staging.display(), prefix.display()));
    eprintln!(
        "installed Claude Code {version} under {} in {:.1} s",
        prefix.display(),
        started.elapsed().as_secs_f64()
    );
    drop(lock);
    bin
}

/// A scratch world for one scenario.
pub struct Scratch {
    pub dir: tempfile::TempDir,
    /// The git repository Claude Code works in.
    pub repo: PathBuf,
    /// `HOME`.
    pub home: PathBuf,
    /// `CLAUDE_CONFIG_DIR`.
    pub claude_config: PathBuf,
    /// `TLC_HOME`.
    pub tlc_home: PathBuf,
    /// Where the logger hook keeps each payload.
    pub calls: PathBuf,
    /// The Claude Code release the world's runs use.
    pub client: &'static str,
    /// `--permission-mode` of its runs: `bypassPermissions` unless a test needs Claude Code's
    /// own permission flow (`default`: a tool not in `--allowedTools` opens the dialog).
    pub permission_mode: &'static str,
}

/// What one `claude -p` run printed.
pub struct Run {
    pub output: Output,
    pub result: Value,
    pub took: Duration,
}

impl Scratch {
    /// A world in the system temp folder.
    pub fn new() -> Scratch {
        Scratch::in_dir(tempfile::tempdir().expect("tempdir"), true)
    }

    /// A world wired by `tlc install --claude --no-sandbox`: the agent's commands run outside
    /// Claude Code's sandbox, and only tlc's recognition of the agent stands (issue 51).
    pub fn without_sandbox() -> Scratch {
        Scratch::in_dir(tempfile::tempdir().expect("tempdir"), false)
    }

    /// A world outside the system temp folders (`common::outside_temp_root`), as a real home is:
    /// the floor lets an agent remove what is under the temp folder outside the home.
    pub fn outside_temp() -> Scratch {
        let parent = crate::common::outside_temp_root().join("e2e-worlds");
        std::fs::create_dir_all(&parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
        let dir = tempfile::Builder::new()
            .prefix("world-")
            .tempdir_in(&parent)
            .unwrap_or_else(|e| panic!("a world under {}: {e}", parent.display()));
        for t in ["/tmp", "/var/tmp"] {
            assert!(!dir.path().starts_with(t), "{} is in a temp folder", dir.path().display());
        }
        Scratch::in_dir(dir, true)
    }

    fn in_dir(dir: tempfile::TempDir, sandbox: bool) -> Scratch {
        let repo = dir.path().join("repo");
        let home = dir.path().join("home");
        let claude_config = dir.path().join("claude-config");
        let tlc_home = dir.path().join("tlc-home");
        let calls = dir.path().join("calls");
        for d in [&repo, &home, &claude_config, &calls] {
            std::fs::create_dir_all(d).unwrap();
        }
        git(&repo, &["init", "-q"]);
        std::fs::write(repo.join("README.md"), "# scratch\n").unwrap();
        let s = Scratch {
            dir,
            repo,
            home,
            claude_config,
            tlc_home,
            calls,
            client: CLAUDE_CODE_VERSION,
            permission_mode: "bypassPermissions",
        };
        s.wire_hooks(sandbox);
        s
    }

    fn env(&self, c: &mut Command) {
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("TLC_HOME", &self.tlc_home)
            .env("CLAUDE_CONFIG_DIR", &self.claude_config)
            .env("LANG", "C.UTF-8");
    }

    /// `tlc <args>` in `cwd` with this world's environment.
    pub fn tlc_in(&self, cwd: &Path, args: &[&str]) -> Output {
        self.tlc_command(cwd, args).stdin(Stdio::null()).output().expect("run tlc")
    }

    /// The command `tlc <args>` in `cwd` with this world's environment, not started (for a
    /// pseudo-terminal or a payload on stdin).
    pub fn tlc_command(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(TLC);
        self.env(&mut c);
        c.args(args).current_dir(cwd);
        c
    }

    /// `tlc <args>` in the repository; asserts success and returns stdout.
    pub fn tlc(&self, args: &[&str]) -> String {
        let out = self.tlc_in(&self.repo, args);
        assert!(
            out.status.success(),
            "tlc {args:?} failed ({:?}):\n{}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn tlc_json(&self, args: &[&str]) -> Value {
        let text = self.tlc(args);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("tlc {args:?}: not JSON ({e}):\n{text}"))
    }

    /// `tlc install --claude` (`--no-sandbox` unless `sandbox`), then a logger hook beside tlc's
    /// on every event tlc wired.
    fn wire_hooks(&self, sandbox: bool) {
        if sandbox {
            self.tlc(&["install", "--claude"]);
        } else {
            self.tlc(&["install", "--claude", "--no-sandbox"]);
        }
        let logger = self.dir.path().join("log-hook.sh");
        std::fs::write(
            &logger,
            format!(
                "#!/bin/sh\nf=\"{}/$(date +%s%N)-$$\"\nprintf '%s\\n%s\\n' \"$PWD\" \"$CLAUDE_PROJECT_DIR\" > \"$f.env\"\ncat > \"$f.part\" && mv \"$f.part\" \"$f.json\"\n",
                self.calls.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&logger, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = self.claude_config.join("settings.json");
        let mut settings: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let hooks = settings["hooks"].as_object_mut().expect("tlc install wrote hooks");
        assert!(!hooks.is_empty());
        for groups in hooks.values_mut() {
            groups.as_array_mut().unwrap().push(serde_json::json!({
                "matcher": "*",
                "hooks": [{"type": "command", "command": logger.to_string_lossy(), "timeout": 30}]
            }));
        }
        std::fs::write(&path, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    }

    /// Takes `event` out of Claude Code's settings (tlc's entry and the logger's alike), as if it
    /// had never been wired.
    pub fn unwire(&self, event: &str) {
        let path = self.claude_config.join("settings.json");
        let mut settings: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        settings["hooks"]
            .as_object_mut()
            .unwrap()
            .remove(event)
            .expect("the event was wired");
        std::fs::write(&path, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    }

    /// The events tlc wired in Claude Code's settings.
    pub fn wired_events(&self) -> Vec<String> {
        let path = self.claude_config.join("settings.json");
        let settings: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        settings["hooks"].as_object().unwrap().keys().cloned().collect()
    }

    /// Runs `claude -p <prompt> <extra>` in `cwd` against `api`, bounded in time.
    pub fn claude_in(&self, cwd: &Path, api: &api::ScriptedApi, prompt: &str, extra: &[&str]) -> Run {
        let mut c = Command::new(claude_binary(self.client));
        self.env(&mut c);
        c.env("ANTHROPIC_BASE_URL", api.url())
            .env("ANTHROPIC_API_KEY", "sk-ant-e2e-scripted")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            // Running as root, bypassPermissions refuses to start without it.
            .env("IS_SANDBOX", "1")
            .args([
                "-p",
                prompt,
                "--output-format",
                "json",
                "--model",
                MODEL,
                "--permission-mode",
                self.permission_mode,
            ])
            .args(extra)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let started = Instant::now();
        let mut child = c.spawn().expect("start claude");
        let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let reader = std::thread::spawn(move || {
            use std::io::Read;
            let mut o = Vec::new();
            let _ = out.read_to_end(&mut o);
            o
        });
        let reader_err = std::thread::spawn(move || {
            use std::io::Read;
            let mut e = Vec::new();
            let _ = err.read_to_end(&mut e);
            e
        });
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait claude") {
                break s;
            }
            if started.elapsed() > RUN_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                panic!("claude -p {prompt:?} did not finish within {RUN_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let output = Output {
            status,
            stdout: reader.join().unwrap(),
            stderr: reader_err.join().unwrap(),
        };
        let took = started.elapsed();
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let result = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
            panic!(
                "claude -p {prompt:?}: stdout is not one JSON value ({e}):\n{text}\nstderr:\n{}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        Run { output, result, took }
    }

    pub fn claude(&self, api: &api::ScriptedApi, prompt: &str, extra: &[&str]) -> Run {
        self.claude_in(&self.repo.clone(), api, prompt, extra)
    }

    /// Every payload Claude Code sent to the hooks, in the order the logger saw them, with the
    /// hook process's working directory and `CLAUDE_PROJECT_DIR`.
    pub fn hook_calls(&self) -> Vec<HookCall> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&self.calls)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        names.sort();
        names
            .into_iter()
            .map(|p| {
                let payload: Value =
                    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                let env = std::fs::read_to_string(p.with_extension("env")).unwrap_or_default();
                let mut lines = env.lines();
                HookCall {
                    event: payload["hook_event_name"].as_str().unwrap_or("").to_string(),
                    payload,
                    pwd: lines.next().unwrap_or("").to_string(),
                    project_dir: lines.next().unwrap_or("").to_string(),
                }
            })
            .collect()
    }

    /// Whether the project database exists yet.
    pub fn db_exists(&self) -> bool {
        self.project_db_path().is_file()
    }

    pub fn project_db_path(&self) -> PathBuf {
        self.repo.join(".tlc/harness/state/tlc.db")
    }

    pub fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open_with_flags(self.project_db_path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("open the project database")
    }

    /// The transcripts Claude Code wrote (main and subagent), under its config folder.
    pub fn transcripts(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![self.claude_config.join("projects")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    }
}

/// One hook call as the logger saw it.
#[derive(Debug, Clone)]
pub struct HookCall {
    pub event: String,
    pub payload: Value,
    pub pwd: String,
    pub project_dir: String,
}

pub fn git(dir: &Path, args: &[&str]) {
    let st = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .status()
        .expect("git");
    assert!(st.success(), "git {args:?} in {}", dir.display());
}
