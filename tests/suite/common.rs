//! Shared helpers for the integration tests: a scratch git repository and runtime home, the
//! real `tlc` binary, and the fixtures in ../shared/fixtures.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const TLC: &str = env!("CARGO_BIN_EXE_tlc");

/// Replays the recorded Claude Code session in fixtures/providers/claude/session through
/// `tlc hook claude` in `w`'s repository; returns the transcript's path.
pub fn replay_claude_session(w: &World) -> PathBuf {
    let transcript = w.dir.path().join("transcript.jsonl");
    std::fs::copy(fixtures().join("providers/claude/session/transcript.jsonl"), &transcript).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(fixtures().join("providers/claude/session"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for f in files
        .iter()
        .filter(|f| f.file_name().unwrap().to_string_lossy().starts_with(|c: char| c.is_ascii_digit()))
    {
        let text = std::fs::read_to_string(f)
            .unwrap()
            .replace("\"/repo", &format!("\"{}", w.repo.display()))
            .replace("TRANSCRIPT", &transcript.display().to_string());
        assert!(w.hook("claude", text.as_bytes()).status.success());
    }
    transcript
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures")
}

pub fn fixture(rel: &str) -> String {
    std::fs::read_to_string(fixtures().join(rel)).unwrap_or_else(|e| panic!("fixture {rel}: {e}"))
}

/// A scratch world: a git repository, a runtime home, and a plain folder outside both.
pub struct World {
    pub dir: tempfile::TempDir,
    pub repo: PathBuf,
    pub home: PathBuf,
}

impl World {
    pub fn new() -> World {
        World::in_dir(tempfile::tempdir().expect("tempdir"))
    }

    /// A world outside the system temp folder (under the target folder), for the floor: destroying
    /// inside the temp folder is allowed, so a world there would make every path look disposable.
    pub fn outside_temp() -> World {
        World::in_dir(tempfile::tempdir_in(outside_temp_root()).expect("tempdir outside the temp folders"))
    }

    /// [`World::outside_temp`] in a folder every user can reach (each folder above it searchable
    /// by others): the floor's truth suite runs its commands as `nobody` there.
    pub fn outside_temp_for_anyone() -> World {
        World::in_dir(tempfile::tempdir_in(outside_temp_root_for_anyone()).expect("tempdir outside the temp folders"))
    }

    fn in_dir(dir: tempfile::TempDir) -> World {
        let repo = dir.path().join("repo");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&repo).unwrap();
        let st = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()
            .expect("git init");
        assert!(st.success());
        World { dir, repo, home }
    }

    /// `tlc <args>` in the repository with this world's home.
    pub fn cmd(&self, args: &[&str]) -> Command {
        self.cmd_in(&self.repo, args)
    }

    pub fn cmd_in(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(TLC);
        c.args(args).current_dir(cwd);
        isolate(&mut c, &self.home, &self.dir.path().join("user"));
        c
    }

    /// `tlc <args>` as an operator at a terminal: under `script`, whose pseudo-terminal is the
    /// command's stdin. stdout and stderr arrive together on stdout, without carriage returns.
    pub fn operator(&self, args: &[&str]) -> Output {
        self.operator_in(&self.repo, args, &[])
    }

    /// Like [`World::operator`], in `cwd` and with extra environment variables.
    pub fn operator_in(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut base = self.cmd_in(cwd, args);
        for (k, v) in env {
            base.env(k, v);
        }
        at_terminal(&base)
    }

    /// Runs as an operator at a terminal and asserts success; returns the output.
    pub fn op_ok(&self, args: &[&str]) -> String {
        let out = self.operator(args);
        assert!(
            out.status.success(),
            "tlc {args:?} at a terminal failed ({:?}): {}",
            out.status.code(),
            stdout(&out)
        );
        stdout(&out)
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).stdin(Stdio::null()).output().expect("run tlc")
    }

    /// Runs and asserts success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "tlc {args:?} failed ({:?}):\nstdout: {}\nstderr: {}",
            out.status.code(),
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }

    /// Runs with `TLC_NOW` set and asserts success; returns stdout.
    pub fn ok_env(&self, args: &[&str], now: &str) -> String {
        let out = self.cmd(args).env("TLC_NOW", now).stdin(Stdio::null()).output().expect("run tlc");
        assert!(out.status.success(), "tlc {args:?} failed: {}", stderr(&out));
        stdout(&out)
    }

    /// Pipes `payload` into `tlc hook <provider>` in the repository.
    /// Runs `tlc hook <provider>` with `payload` and asserts what every hook owes its agent and
    /// its operator: exit 0, and no fault recorded (no `hook.fault` row in the project database,
    /// no line in the home's fault log). A test that provokes a fault uses [`World::hook_faulty`].
    pub fn hook(&self, provider: &str, payload: &[u8]) -> Output {
        self.hook_with(provider, payload, |_| {})
    }

    /// [`World::hook`] with the command adjusted by `f` (an extra variable, another folder).
    pub fn hook_with(&self, provider: &str, payload: &[u8], f: impl FnOnce(&mut Command)) -> Output {
        let before = self.faults();
        let out = self.hook_faulty_with(provider, payload, f);
        let after = self.faults();
        assert!(
            after.len() == before.len(),
            "tlc hook {provider} recorded a fault: {:?}\npayload: {:.300}",
            &after[before.len().min(after.len())..],
            String::from_utf8_lossy(payload)
        );
        out
    }

    /// [`World::hook`] with a JSON payload; returns what the hook printed.
    pub fn answer(&self, provider: &str, payload: &serde_json::Value) -> String {
        stdout(&self.hook(provider, payload.to_string().as_bytes()))
    }

    /// Writes `text` at `rel` in the repository, making its folders.
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.repo.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// `git <args>` in the repository as a test author (no signing); asserts success, returns
    /// stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(&self.repo)
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// Runs `tlc hook <provider>` and asserts only exit 0: for a test that provokes a fault and
    /// checks it itself.
    pub fn hook_faulty(&self, provider: &str, payload: &[u8]) -> Output {
        self.hook_faulty_with(provider, payload, |_| {})
    }

    pub fn hook_faulty_with(&self, provider: &str, payload: &[u8], f: impl FnOnce(&mut Command)) -> Output {
        let mut c = self.cmd(&["hook", provider]);
        f(&mut c);
        let out = pipe(c, payload);
        assert_eq!(
            out.status.code(),
            Some(0),
            "tlc hook {provider} must exit 0 whatever arrives: {}",
            stderr(&out)
        );
        out
    }

    /// Every fault recorded so far: the project database's `hook.fault` events (oldest first), then
    /// the home's fault log. Reads without creating anything.
    pub fn faults(&self) -> Vec<String> {
        let mut faults = Vec::new();
        let db = self.project_db();
        if db.is_file() {
            let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
            if let Ok(c) = rusqlite::Connection::open_with_flags(&db, flags) {
                let rows = c
                    .prepare("SELECT coalesce(json_extract(attrs, '$.fault'), attrs) FROM events WHERE kind = 'hook.fault' ORDER BY id")
                    .and_then(|mut st| st.query_map([], |r| r.get::<_, Option<String>>(0))?.collect::<Result<Vec<_>, _>>());
                faults.extend(rows.unwrap_or_default().into_iter().flatten());
            }
        }
        if let Ok(log) = std::fs::read_to_string(self.home.join("state/hook-faults.log")) {
            faults.extend(log.lines().map(str::to_string));
        }
        faults
    }

    /// A fixture payload with its `/repo` placeholder pointed at this repository.
    pub fn payload(&self, rel: &str) -> String {
        fixture(rel).replace("\"/repo", &format!("\"{}", self.repo.display()))
    }

    pub fn project_db(&self) -> PathBuf {
        self.repo.join(".tlc/harness/state/tlc.db")
    }

    pub fn home_db(&self) -> PathBuf {
        self.home.join("state/tlc.db")
    }

    pub fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.project_db()).expect("open project db")
    }

    pub fn count(&self, sql: &str) -> i64 {
        self.db().query_row(sql, [], |r| r.get(0)).expect(sql)
    }
}

/// The environment markers of agent sessions (docs/policy.md).
/// Gives `c` the environment every test runs tlc in, whoever runs the suite: `tlc_home` as
/// `TLC_HOME`, `user_home` as `HOME`, git without the system's config, and none of tlc's own
/// variables, an agent session's markers (the suite may itself run inside one, and its markers
/// would make every operator-only command refuse), the agents' folders or an OpenTelemetry
/// collector of the caller's.
pub fn isolate<'c>(c: &'c mut Command, tlc_home: &Path, user_home: &Path) -> &'c mut Command {
    c.env("TLC_HOME", tlc_home).env("HOME", user_home).env("GIT_CONFIG_NOSYSTEM", "1");
    for var in [
        "TLC_PROJECT_DIR",
        "TLC_NOW",
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_CONFIG_DIR",
        "CURSOR_CONFIG_DIR",
    ]
    .iter()
    .chain(AGENT_MARKERS)
    {
        c.env_remove(var);
    }
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("OTEL_") {
            c.env_remove(k);
        }
    }
    c
}

/// [`isolate`] for a world's home, in the middle of a builder chain.
pub trait Isolated {
    fn isolated(&mut self, w: &World) -> &mut Self;
}

impl Isolated for Command {
    fn isolated(&mut self, w: &World) -> &mut Command {
        isolate(self, &w.home, &w.dir.path().join("user"))
    }
}

pub const AGENT_MARKERS: &[&str] = &["CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CURSOR_AGENT", "CURSOR_EXTENSION_HOST_ROLE"];

/// `s` quoted for a POSIX shell.
/// Runs `base` (program, arguments, folder and environment) as an operator would: at a terminal,
/// through script(1)'s pseudo-terminal. Carriage returns the terminal adds are removed from stdout.
pub fn at_terminal(base: &Command) -> Output {
    let mut out = script(base, "").stdin(Stdio::null()).output().expect("run script (util-linux)");
    out.stdout = String::from_utf8_lossy(&out.stdout).replace('\r', "").into_bytes();
    out
}

/// Like [`at_terminal`], with `input` typed at the terminal. stderr is kept apart (redirected to a
/// file inside the pseudo-terminal's shell line) so tests can tell prompts from results; stdout
/// holds the terminal's echo of what was typed.
pub fn at_terminal_typed(base: &Command, input: &str) -> Output {
    let err = tempfile::NamedTempFile::new().unwrap();
    let redirect = format!(" 2>{}", sh_quote(&err.path().to_string_lossy()));
    let mut out = pipe(script(base, &redirect), input.as_bytes());
    out.stdout = String::from_utf8_lossy(&out.stdout).replace('\r', "").into_bytes();
    out.stderr = std::fs::read(err.path()).unwrap();
    out
}

/// script(1) running `base`'s command line (followed by `redirect`) in `base`'s folder and
/// environment.
fn script(base: &Command, redirect: &str) -> Command {
    let line: Vec<String> = std::iter::once(base.get_program())
        .chain(base.get_args())
        .map(|a| sh_quote(&a.to_string_lossy()))
        .collect();
    let mut script = Command::new("script");
    script.args(["-qec", &format!("{}{redirect}", line.join(" ")), "/dev/null"]);
    if let Some(cwd) = base.get_current_dir() {
        script.current_dir(cwd);
    }
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => script.env(k, v),
            None => script.env_remove(k),
        };
    }
    script
}

pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

pub fn pipe(mut c: Command, payload: &[u8]) -> Output {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tlc");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = payload.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait tlc");
    let _ = writer.join();
    out
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every path under `dir` (files and folders), relative to it.
pub fn tree(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            out.insert(p.strip_prefix(dir).unwrap().to_path_buf());
            if p.is_dir() && !p.is_symlink() {
                stack.push(p);
            }
        }
    }
    out
}

/// The files under `dir` whose bytes contain `needle` (empty when none does).
pub fn files_containing(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    tree(dir)
        .into_iter()
        .map(|p| dir.join(p))
        .filter(|p| p.is_file())
        .filter(|p| {
            std::fs::read(p)
                .map(|b| b.windows(needle.len()).any(|w| w == needle))
                .unwrap_or(false)
        })
        .collect()
}

/// A folder outside every system temp folder, for worlds whose home and surroundings must be
/// what a real machine's are (the floor lets an agent remove what lies under a temp folder): the
/// target folder's, unless the checkout itself lies under a temp folder (a CI runner's), then
/// one under the user's cache folder.
pub fn outside_temp_root() -> PathBuf {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let temps: Vec<PathBuf> = [std::env::temp_dir(), "/tmp".into(), "/var/tmp".into()]
        .iter()
        .map(|t| canon(t))
        .collect();
    let outside = |p: &Path| !temps.iter().any(|t| canon(p).starts_with(t));
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    if outside(&target) {
        return target;
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).filter(|h| h.is_absolute());
    let candidates = home
        .map(|h| h.join(".cache/tlc-test-worlds"))
        .into_iter()
        .chain([PathBuf::from("/var/cache/tlc-test-worlds")]);
    for dir in candidates {
        if outside(&dir) && std::fs::create_dir_all(&dir).is_ok() {
            return dir;
        }
    }
    panic!("no writable folder outside the temp folders for the test worlds (tried $HOME/.cache and /var/cache)");
}

/// [`outside_temp_root`], or when another user could not reach it (a checkout under `/root`),
/// `/var/cache/tlc-test-worlds`, made searchable by all.
pub fn outside_temp_root_for_anyone() -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let reachable = |p: &Path| {
        p.ancestors()
            .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
    };
    let root = outside_temp_root();
    if reachable(&root) {
        return root;
    }
    let shared = PathBuf::from("/var/cache/tlc-test-worlds");
    std::fs::create_dir_all(&shared).expect("create /var/cache/tlc-test-worlds");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).expect("chmod /var/cache/tlc-test-worlds");
    assert!(reachable(&shared), "{} is not reachable by every user", shared.display());
    shared
}

/// The build's target folder, where the test support keeps what it installs: the binary is
/// `<this>/<profile>/tlc`, and with the explicit build target of `.cargo/config.toml` this is
/// `target/x86_64-unknown-linux-gnu`.
pub fn target_dir() -> PathBuf {
    let bin = Path::new(TLC);
    bin.parent().and_then(Path::parent).expect("target dir").to_path_buf()
}

/// The python of the venv `target/<name>`, created with the pinned `requirements` (the text of
/// the file at `requirements_path`, relative to the crate) when missing or pinned differently.
/// Several test processes may ask at once: a lock file serialises them.
pub fn python_venv(name: &str, requirements_path: &str, requirements: &str) -> PathBuf {
    let target = target_dir();
    std::fs::create_dir_all(&target).expect("target dir");
    let lock = std::fs::File::create(target.join(format!("{name}.lock"))).expect("lock file");
    lock.lock().expect("lock the venv");
    let venv = target.join(name);
    let stamp = venv.join("tlc-requirements.txt");
    let py = venv.join("bin/python");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(requirements) || !py.exists() {
        let _ = std::fs::remove_dir_all(&venv);
        let st = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 -m venv (the tests need python3 with venv)");
        assert!(st.success(), "python3 -m venv {} failed", venv.display());
        let out = Command::new(&py)
            .args(["-m", "pip", "install", "--disable-pip-version-check", "-q", "-r"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(requirements_path))
            .output()
            .expect("pip");
        assert!(
            out.status.success(),
            "pip install -r {requirements_path} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(&stamp, requirements).expect("stamp");
    }
    py
}

/// `tlc <args>` on a pseudo-terminal of its own (its controlling terminal, `cols` wide, 100 rows),
/// in the world's repository with the test's clean environment (`COLUMNS` and `NO_COLOR` removed,
/// as on a person's terminal, then `env` set): [`Pty::expect`] waits for text, [`Pty::send`] types
/// keys, [`Pty::finish`] waits for the exit and returns everything the terminal showed.
pub struct Pty {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    /// Every byte the terminal showed so far.
    seen: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
    /// How far [`Pty::expect`] has read.
    at: usize,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Pty {
    pub fn spawn(w: &World, args: &[&str], cols: u16, env: &[(&str, &str)]) -> Pty {
        use portable_pty::{native_pty_system, CommandBuilder, PtySize};
        use std::io::Read;
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 100,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pseudo-terminal");
        let base = w.cmd(args);
        let mut cmd = CommandBuilder::new(TLC);
        cmd.args(args);
        cmd.cwd(&w.repo);
        for (k, v) in base.get_envs() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            }
        }
        cmd.env("TERM", "xterm-256color");
        for k in ["COLUMNS", "NO_COLOR"] {
            cmd.env_remove(k);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).expect("spawn tlc on the pty");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("pty reader");
        let writer = pair.master.take_writer().expect("pty writer");
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&seen);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            // Linux answers EIO on the master once the child has closed its side.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&buf[..n]);
            }
        });
        Pty {
            child,
            writer,
            seen,
            reader,
            at: 0,
            _master: pair.master,
        }
    }

    /// Waits (10 s at most) until `text` appears after what was already expected.
    pub fn expect(&mut self, text: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            {
                let seen = self.shown();
                if let Some(i) = seen[self.at..].find(text) {
                    self.at += i + text.len();
                    return;
                }
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{text:?} never appeared; the terminal shows:\n{}",
                self.shown()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    pub fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Waits for the exit (60 s at most) and for the terminal's last output; returns the exit code
    /// and everything the terminal showed, its `\r\n` as `\n`.
    pub fn finish(mut self) -> (u32, String) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(std::time::Instant::now() < deadline, "tlc never exited:\n{}", self.shown());
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        // The reader ends at the EIO that follows the child's last output.
        let drained = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !self.reader.is_finished() && std::time::Instant::now() < drained {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let bytes = self.seen.lock().unwrap().clone();
        let text = String::from_utf8(bytes).expect("UTF-8 on the terminal");
        (status.exit_code(), text.replace("\r\n", "\n"))
    }

    /// What the terminal showed so far (a character cut by the last read shown as U+FFFD).
    fn shown(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }
}

/// When the process `pid` started (`/proc/<pid>/stat`, field 22, in clock ticks since boot), as
/// tlc records a gate lock's holder.
pub fn process_start_time(pid: i64) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}
