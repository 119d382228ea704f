//! Issue 14: the attack run's findings, each reproduced against the built binary. Every run of
//! tlc here goes through `timeout` (KILL after a bound), so a hang fails fast instead of hanging
//! the suite; and every test ends by comparing a decoy folder outside the repository and the
//! home with its state before, and by listing what exists beside them: nothing is created or
//! changed outside the repository and `$TLC_HOME`.

use crate::common;
use common::*;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The bound on any one tlc run: generous on a loaded machine, short against a hang.
const LIMIT_SECS: &str = "30";

/// A world with a decoy folder beside the repository and the home, hashed before the attack.
struct Attack {
    w: World,
    decoy: PathBuf,
    before: BTreeMap<PathBuf, String>,
}

/// Every path under `dir` with what it is: a file's length and SHA-256, a link's target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    tree(dir)
        .into_iter()
        .map(|rel| {
            let p = dir.join(&rel);
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let what = if meta.file_type().is_symlink() {
                format!("link -> {}", std::fs::read_link(&p).unwrap().display())
            } else if meta.is_file() {
                let bytes = std::fs::read(&p).unwrap();
                format!("file {} {}", bytes.len(), sha256(&bytes))
            } else if meta.is_dir() {
                "dir".to_string()
            } else {
                "special".to_string()
            };
            (rel, what)
        })
        .collect()
}

fn sha256(bytes: &[u8]) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

impl Attack {
    /// Takes the decoy's state again after the test put its own files there.
    fn mark(&mut self) {
        self.before = snapshot(&self.decoy);
    }

    fn new() -> Attack {
        let w = World::new();
        let decoy = w.dir.path().join("decoy");
        std::fs::create_dir_all(decoy.join("sub")).unwrap();
        std::fs::write(decoy.join("notes.txt"), "the operator's own file\n").unwrap();
        std::fs::write(decoy.join("sub/data.bin"), [0u8, 1, 2, 3, 255]).unwrap();
        let before = snapshot(&decoy);
        Attack { w, decoy, before }
    }

    /// `tlc <args>` in `cwd` under `timeout`, with `stdin` piped and closed after writing.
    fn run_in(&self, cwd: &Path, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new("timeout");
        c.args(["--signal=KILL", LIMIT_SECS, TLC]).args(args).current_dir(cwd);
        isolate(&mut c, &self.w.home, &self.w.dir.path().join("user"));
        for (k, v) in env {
            c.env(k, v);
        }
        let out = pipe(c, stdin);
        assert_ne!(out.status.code(), Some(137), "tlc {args:?} hung and was killed by timeout");
        out
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.w.repo, args, b"", &[])
    }

    /// A hook in the repository; it must answer and exit 0.
    fn hook(&self, provider: &str, payload: &[u8]) -> Output {
        self.hook_in(&self.w.repo, provider, payload)
    }

    fn hook_in(&self, cwd: &Path, provider: &str, payload: &[u8]) -> Output {
        let out = self.run_in(cwd, &["hook", provider], payload, &[]);
        assert!(out.status.success(), "the hook exits 0: {:?} {}", out.status, stderr(&out));
        out
    }

    fn machine_config(&self, text: &str) {
        std::fs::create_dir_all(&self.w.home).unwrap();
        std::fs::write(self.w.home.join("config.toml"), text).unwrap();
    }

    fn fault_log(&self) -> String {
        std::fs::read_to_string(self.w.home.join("state/hook-faults.log")).unwrap_or_default()
    }

    fn faults(&self) -> Vec<String> {
        let db = self.w.db();
        let mut st = db
            .prepare("SELECT json_extract(attrs, '$.fault') FROM events WHERE kind = 'hook.fault' ORDER BY id")
            .unwrap();
        st.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    }

    /// The decoy is as it was, and nothing but the repository, the home, the decoy and what the
    /// test itself made (`allowed`) exists beside them.
    fn nothing_outside(&self, allowed: &[&str]) {
        assert_eq!(snapshot(&self.decoy), self.before, "the decoy folder was changed");
        let mut names: Vec<String> = std::fs::read_dir(self.w.dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for n in &names {
            assert!(
                ["repo", "home", "decoy", "user"].contains(&n.as_str()) || allowed.contains(&n.as_str()),
                "{n} was created beside the repository and the home: {names:?}"
            );
        }
    }
}

fn doctor_row(a: &Attack, id: &str) -> serde_json::Value {
    let out = a.run(&["doctor", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
    let checks = v
        .get("checks")
        .and_then(|c| c.as_array())
        .cloned()
        .unwrap_or_else(|| v.as_array().cloned().unwrap_or_default());
    checks
        .into_iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no doctor row {id}: {v}"))
}

fn start(a: &Attack) -> Vec<u8> {
    a.w.payload("providers/claude/session-start.json").into_bytes()
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

fn foreign_db(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('ada');")
        .unwrap();
}

// ---- 1. A symlinked tlc.db is followed into a foreign database ----

#[test]
fn a_symlinked_project_database_is_refused_named_and_never_written() {
    let mut a = Attack::new();
    let foreign = a.decoy.join("customers.db");
    foreign_db(&foreign);
    a.mark();
    let before = snapshot(&a.decoy);
    let state = a.w.repo.join(".tlc/harness/state");
    std::fs::create_dir_all(&state).unwrap();
    std::os::unix::fs::symlink(&foreign, state.join("tlc.db")).unwrap();

    let out = a.hook("claude", &start(&a));
    assert!(stdout(&out).is_empty(), "neutral answer: {}", stdout(&out));
    assert_eq!(
        snapshot(&a.decoy),
        before,
        "the foreign database was not touched (no tlc schema, no WAL)"
    );
    let log = a.fault_log();
    assert!(
        log.contains("tlc.db: a symbolic link, not a regular file") && log.contains("not recorded"),
        "the refusal is in the home's fault log: {log}"
    );
    let row = doctor_row(&a, "db-project");
    assert_eq!(row["status"], "fail", "{row}");
    assert!(row["detail"].as_str().unwrap().contains("symbolic link"), "{row}");
    for args in [&["db", "check"][..], &["db", "status"]] {
        let out = a.run(args);
        assert_ne!(out.status.code(), Some(0), "tlc {args:?} fails on it");
        assert!(
            (stdout(&out) + &stderr(&out)).contains("symbolic link"),
            "tlc {args:?} names it: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
    assert_eq!(snapshot(&a.decoy), before);
    a.nothing_outside(&[]);
}

#[test]
fn a_symlinked_wal_or_shm_beside_the_project_database_is_refused() {
    let a = Attack::new();
    a.hook("claude", &start(&a));
    let db = a.w.project_db();
    assert!(db.is_file());
    for suffix in ["-wal", "-shm", "-journal"] {
        let side = PathBuf::from(format!("{}{suffix}", db.display()));
        let _ = std::fs::remove_file(&side);
        std::os::unix::fs::symlink(a.decoy.join("notes.txt"), &side).unwrap();
        let out = a.hook("claude", a.w.payload("providers/claude/post-tool-use-bash.json").as_bytes());
        assert!(stdout(&out).is_empty());
        assert!(
            a.fault_log()
                .contains(&format!("tlc.db{suffix}: a symbolic link, not a regular file")),
            "{suffix}: {}",
            a.fault_log()
        );
        std::fs::remove_file(&side).unwrap();
    }
    // A FIFO in the database's place is refused without blocking.
    let fifo_home = a.w.dir.path().join("home/state/tlc.db");
    std::fs::create_dir_all(fifo_home.parent().unwrap()).unwrap();
    // The session's anchors made the home database at its start (issue 51): the FIFO replaces it.
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", fifo_home.display()));
    }
    mkfifo(&fifo_home);
    a.machine_config("[obs]\nglobalSpool = true\n");
    a.hook("claude", a.w.payload("providers/claude/post-tool-use-bash.json").as_bytes());
    assert!(
        a.fault_log().contains("spool not written") && a.fault_log().contains("a FIFO"),
        "{}",
        a.fault_log()
    );
    let row = doctor_row(&a, "db-home");
    assert_eq!(row["status"], "fail", "{row}");
    a.nothing_outside(&[]);
}

#[test]
fn a_symlinked_home_database_is_refused_and_doctor_fails_it() {
    let mut a = Attack::new();
    a.machine_config("[obs]\nglobalSpool = true\n");
    let foreign = a.decoy.join("other.db");
    foreign_db(&foreign);
    a.mark();
    let before = snapshot(&a.decoy);
    std::fs::create_dir_all(a.w.home.join("state")).unwrap();
    std::os::unix::fs::symlink(&foreign, a.w.home_db()).unwrap();
    a.hook("claude", &start(&a));
    assert_eq!(snapshot(&a.decoy), before, "the foreign database was not touched");
    assert!(a.w.project_db().is_file(), "the project record stands");
    assert!(
        a.fault_log().contains("spool not written") && a.fault_log().contains("symbolic link"),
        "{}",
        a.fault_log()
    );
    let row = doctor_row(&a, "db-home");
    assert_eq!(row["status"], "fail", "{row}");
    let out = a.run(&["db", "check"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    a.nothing_outside(&[]);
}

// ---- 2. A config or .git/config that is /dev/zero or a FIFO hangs every hook ----

#[test]
fn configs_and_git_files_that_are_devices_or_fifos_are_faults_never_hangs() {
    // The project config as a symlink to /dev/zero (committed that way), then as a FIFO.
    for make in ["zero", "fifo"] {
        let a = Attack::new();
        let harness = a.w.repo.join(".tlc/harness");
        std::fs::create_dir_all(&harness).unwrap();
        let config = harness.join("config.toml");
        match make {
            "zero" => std::os::unix::fs::symlink("/dev/zero", &config).unwrap(),
            _ => mkfifo(&config),
        }
        let what = if make == "zero" { "a character device" } else { "a FIFO" };
        let t = Instant::now();
        let out = a.hook("claude", &start(&a));
        assert!(t.elapsed() < Duration::from_secs(10), "{make}: answered in {:?}", t.elapsed());
        assert!(stdout(&out).is_empty());
        assert!(
            a.fault_log()
                .contains(&format!("config.toml: not a regular file ({what}); not read")),
            "{make}: {}",
            a.fault_log()
        );
        // `config show` and `doctor` read it the same way: named, at once.
        let out = a.run(&["config", "show"]);
        assert_eq!(out.status.code(), Some(2), "{make}: {}", stderr(&out));
        assert!(stderr(&out).contains(what), "{make}: {}", stderr(&out));
        let row = doctor_row(&a, "config-project");
        assert_eq!(row["status"], "fail");
        assert!(row["detail"].as_str().unwrap().contains(what), "{row}");
        a.nothing_outside(&[]);
    }
}

#[test]
fn a_machine_config_fifo_and_a_git_config_that_is_dev_zero_are_named_faults() {
    let a = Attack::new();
    std::fs::create_dir_all(&a.w.home).unwrap();
    mkfifo(&a.w.home.join("config.toml"));
    let t = Instant::now();
    a.hook("cursor", a.w.payload("providers/cursor/shell-before.json").as_bytes());
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(
        a.fault_log().contains("config.toml: not a regular file (a FIFO)"),
        "{}",
        a.fault_log()
    );
    std::fs::remove_file(a.w.home.join("config.toml")).unwrap();

    // `.git/config` read for the origin at adoption: a device is a fault, the repository is
    // adopted without an owner and the hook answers.
    let git_config = a.w.repo.join(".git/config");
    std::fs::remove_file(&git_config).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &git_config).unwrap();
    a.hook("claude", &start(&a));
    assert!(a.w.repo.join(".tlc/harness/config.toml").is_file(), "adopted");
    let faults = a.faults();
    assert!(
        faults
            .iter()
            .any(|f| f.contains(".git/config: not a regular file (a character device)")),
        "{faults:?}"
    );
    // With guest remotes to match, an unreadable origin makes the repository a guest.
    a.machine_config("[guest]\nremotes = [\"*github.com/acme/*\"]\n");
    std::fs::remove_file(&git_config).unwrap();
    mkfifo(&git_config);
    a.hook("claude", a.w.payload("providers/claude/post-tool-use-bash.json").as_bytes());
    let guests = a.w.home.join("state/guests");
    assert!(guests.is_dir(), "recorded as a guest, under the home");
    a.nothing_outside(&[]);
}

// ---- 5. A transcript line over 8 MiB stalls the hook's reader ----

fn usage_line(session: &str, n: usize, pad: usize) -> String {
    serde_json::json!({
        "type": "assistant", "sessionId": session, "requestId": format!("req_{n}"),
        "timestamp": "2026-11-20T09:00:00.000Z",
        "message": {"id": format!("msg_{n}"), "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "x".repeat(pad)}],
            "usage": {"input_tokens": 3, "output_tokens": 10 + n, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}},
    })
    .to_string()
}

fn transcript_hook(a: &Attack, session: &str, transcript: &Path) -> Output {
    let payload = serde_json::json!({
        "hook_event_name": "PostToolUse", "session_id": session, "transcript_path": transcript,
        "cwd": a.w.repo, "tool_name": "Bash", "tool_input": {"command": "true"},
    });
    a.hook("claude", payload.to_string().as_bytes())
}

#[test]
fn a_transcript_line_over_8_mib_is_read_and_the_offset_moves_on() {
    let a = Attack::new();
    let t = a.w.dir.path().join("repo/t.jsonl");
    let lines = [
        usage_line("s5", 1, 10),
        usage_line("s5", 2, 9 * 1024 * 1024),
        usage_line("s5", 3, 10),
    ];
    std::fs::write(&t, lines.join("\n") + "\n").unwrap();
    for _ in 0..3 {
        transcript_hook(&a, "s5", &t);
    }
    let keys: Vec<String> = {
        let db = a.w.db();
        let mut st = db
            .prepare("SELECT dedup_key FROM events WHERE kind = 'generation.end' ORDER BY dedup_key")
            .unwrap();
        st.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    };
    assert_eq!(
        keys,
        ["gen:msg_1:req_1", "gen:msg_2:req_2", "gen:msg_3:req_3"],
        "every response, the long one included"
    );
    let size = std::fs::metadata(&t).unwrap().len() as i64;
    assert_eq!(a.w.count("SELECT offset FROM transcripts"), size, "read to the end");
    assert_eq!(a.w.count("SELECT oversize_lines FROM transcripts"), 1);
    assert!(
        a.faults().iter().any(|f| f.contains("over the hook's 8 MiB read; read whole")),
        "{:?}",
        a.faults()
    );
    a.nothing_outside(&[]);
}

#[test]
fn a_transcript_line_over_64_mib_is_skipped_counted_and_named() {
    let a = Attack::new();
    let t = a.w.repo.join("t.jsonl");
    let mut f = std::fs::File::create(&t).unwrap();
    writeln!(f, "{}", usage_line("s6", 1, 10)).unwrap();
    let chunk = vec![b'y'; 1024 * 1024];
    f.write_all(b"{\"type\":\"user\",\"text\":\"").unwrap();
    for _ in 0..65 {
        f.write_all(&chunk).unwrap();
    }
    f.write_all(b"\"}\n").unwrap();
    writeln!(f, "{}", usage_line("s6", 2, 10)).unwrap();
    drop(f);
    for _ in 0..3 {
        transcript_hook(&a, "s6", &t);
    }
    assert_eq!(
        a.w.count("SELECT count(*) FROM events WHERE kind = 'generation.end'"),
        2,
        "the line after it is read"
    );
    assert_eq!(a.w.count("SELECT oversize_lines FROM transcripts"), 1);
    assert!(
        a.faults()
            .iter()
            .any(|f| f.contains("skipped (`tlc obs import transcripts` reads it)")),
        "{:?}",
        a.faults()
    );
}

// ---- 6. A stdin that never closes hangs the hook ----

#[test]
fn a_stdin_that_never_closes_is_answered_with_what_arrived() {
    let a = Attack::new();
    let payload = a.w.payload("providers/cursor/shell-before.json");
    let mut child = Command::new("timeout")
        .args(["--signal=KILL", LIMIT_SECS, TLC, "hook", "cursor"])
        .current_dir(&a.w.repo)
        .isolated(&a.w)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(payload.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // `(cat payload; sleep 30) | tlc hook cursor`: the writer keeps the pipe open.
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    let took = t.elapsed();
    drop(stdin);
    assert!(out.status.success(), "{:?}", out.status);
    assert!(took < Duration::from_secs(5), "answered in {took:?}, not after the writer gave up");
    // The fixture's command is `rm -rf /`: the floor's deny shows the payload that arrived was read.
    let answer: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("a JSON answer");
    assert_eq!(answer["permission"], "deny", "{answer}");
    assert!(answer["agent_message"]
        .as_str()
        .unwrap()
        .contains("rule=outside-project-destruction"));
    assert_eq!(
        a.w.count("SELECT count(*) FROM events WHERE kind = 'shell.start'"),
        1,
        "what arrived was recorded"
    );
    assert!(a.faults().iter().any(|f| f.starts_with("stdin was not closed")), "{:?}", a.faults());
    a.nothing_outside(&[]);
}

// ---- 7. The spool loses generations when a hook is killed between its two writes ----

/// Starts `n` hooks, each with its own transcript of two responses, while a test connection holds
/// the home database's write lock; kills each with SIGKILL as soon as its project rows are
/// committed (it is then waiting for the home database). Returns the generations recorded.
fn hooks_killed_between_their_two_writes(a: &Attack, n: usize) -> i64 {
    let holder = rusqlite::Connection::open(a.w.home_db()).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE; DELETE FROM spool WHERE 0;").unwrap();
    for i in 0..n {
        let session = format!("kill-{i}");
        let t = a.w.repo.join(format!("{session}.jsonl"));
        std::fs::write(
            &t,
            format!("{}\n{}\n", usage_line(&session, 2 * i, 5), usage_line(&session, 2 * i + 1, 5)),
        )
        .unwrap();
        let payload = serde_json::json!({
            "hook_event_name": "PostToolUse", "session_id": session, "transcript_path": t,
            "cwd": a.w.repo, "tool_name": "Bash", "tool_input": {"command": "true"},
        });
        let mut child = Command::new(TLC)
            .args(["hook", "claude"])
            .current_dir(&a.w.repo)
            .isolated(&a.w)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let done =
                a.w.db()
                    .query_row(
                        "SELECT count(*) FROM events WHERE session_id = ?1 AND kind = 'generation.end'",
                        [&session],
                        |r| r.get::<_, i64>(0),
                    )
                    .unwrap_or(0);
            if done == 2 {
                break;
            }
            assert!(Instant::now() < deadline, "hook {i} never committed");
            std::thread::sleep(Duration::from_millis(2));
        }
        // Mostly still waiting for the home database's lock; on a stalled machine it may have
        // given up on it already: either way its rows are committed and not spooled.
        let _ = child.kill();
        child.wait().unwrap();
    }
    holder.execute_batch("ROLLBACK").unwrap();
    a.w.count("SELECT count(*) FROM events WHERE kind = 'generation.end'")
}

fn home_usage_keys(a: &Attack) -> Vec<String> {
    let home = rusqlite::Connection::open(a.w.home_db()).unwrap();
    let mut st = home.prepare("SELECT dedup_key FROM usage ORDER BY dedup_key").unwrap();
    st.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

fn project_generation_keys(a: &Attack) -> Vec<String> {
    let db = a.w.db();
    let mut st = db
        .prepare("SELECT substr(dedup_key, 5) FROM events WHERE kind = 'generation.end' ORDER BY 1")
        .unwrap();
    st.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

#[test]
fn hooks_killed_between_the_project_commit_and_the_spool_lose_nothing_after_one_catch_up() {
    let a = Attack::new();
    a.machine_config("[obs]\nglobalSpool = true\n");
    a.hook("claude", &start(&a));
    assert!(a.w.home_db().is_file());
    let spooled_before = home_usage_keys(&a).len();
    let generations = hooks_killed_between_their_two_writes(&a, 12);
    assert_eq!(generations, 24);
    assert_eq!(home_usage_keys(&a).len(), spooled_before, "the killed hooks sent nothing");
    let row = doctor_row(&a, "spool");
    assert_eq!(row["status"], "warn", "doctor compares the counts: {row}");
    assert!(row["detail"].as_str().unwrap().contains("not yet in the home spool"), "{row}");

    let out = a.run(&["obs", "spool", "catch-up"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("sent"), "{}", stdout(&out));
    assert_eq!(
        home_usage_keys(&a),
        project_generation_keys(&a),
        "every completed generation is in the home database"
    );
    let out = a.run(&["obs", "spool", "catch-up", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["caught_up"]["sent"], 0, "once: nothing left to send");
    let spool_rows: i64 = rusqlite::Connection::open(a.w.home_db())
        .unwrap()
        .query_row("SELECT count(*) FROM spool", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        spool_rows,
        a.w.count("SELECT count(*) FROM events"),
        "each project row spooled exactly once"
    );
    assert_eq!(doctor_row(&a, "spool")["status"], "ok");
    a.nothing_outside(&[]);
}

#[test]
fn a_later_hook_sends_what_killed_hooks_left_behind() {
    let a = Attack::new();
    a.machine_config("[obs]\nglobalSpool = true\n");
    a.hook("claude", &start(&a));
    hooks_killed_between_their_two_writes(&a, 5);
    a.hook("claude", a.w.payload("providers/claude/post-tool-use-bash.json").as_bytes());
    assert_eq!(home_usage_keys(&a), project_generation_keys(&a));
    assert_eq!(doctor_row(&a, "spool")["status"], "ok");
}

#[test]
fn hooks_killed_at_random_moments_leave_every_completed_generation_to_one_catch_up() {
    let a = Attack::new();
    a.machine_config("[obs]\nglobalSpool = true\n");
    a.hook("claude", &start(&a));
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for i in 0..40 {
        let session = format!("rnd-{i}");
        let t = a.w.repo.join(format!("{session}.jsonl"));
        std::fs::write(&t, format!("{}\n", usage_line(&session, 1000 + i, 5))).unwrap();
        let payload = serde_json::json!({
            "hook_event_name": "PostToolUse", "session_id": session, "transcript_path": t,
            "cwd": a.w.repo, "tool_name": "Bash", "tool_input": {"command": "true"},
        });
        let mut child = Command::new(TLC)
            .args(["hook", "claude"])
            .current_dir(&a.w.repo)
            .isolated(&a.w)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_micros(seed % 15_000));
        let _ = child.kill();
        child.wait().unwrap();
    }
    let out = a.run(&["obs", "spool", "catch-up"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let check = a.run(&["db", "check"]);
    assert!(check.status.success(), "both databases intact: {}", stdout(&check));
    assert_eq!(home_usage_keys(&a), project_generation_keys(&a));
}

// ---- 9. Terminal escapes from outside reach the operator's terminal ----

#[test]
fn payload_text_in_obs_events_is_printed_escaped() {
    let a = Attack::new();
    let payload = serde_json::json!({
        "hook_event_name": "UserPromptSubmit", "session_id": "esc-1", "cwd": a.w.repo,
        "prompt": "fine\u{1b}[2K\u{1b}[1A\r  all clear\u{9b}31m\u{202e}",
    });
    a.hook("claude", payload.to_string().as_bytes());
    for args in [
        &["obs", "events"][..],
        &["obs", "events", "--json"],
        &["obs", "export", "event_log"],
    ] {
        let out = a.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("fine"), "{args:?}: {text}");
        // CSV ends its records with CRLF: that one carriage return is the format's own.
        let text = text.replace("\r\n", "\n");
        for c in ['\u{1b}', '\r', '\u{9b}', '\u{202e}'] {
            assert!(!text.contains(c), "{args:?} printed {c:?} raw: {text:?}");
        }
    }
}

// ---- 10. The hook writes outside any repository ----

#[test]
fn a_hook_outside_any_repository_records_under_the_home_and_creates_nothing_there() {
    let a = Attack::new();
    // In the decoy folder (not a repository).
    a.hook_in(&a.decoy, "claude", &start(&a));
    a.hook_in(&a.decoy, "cursor", a.w.payload("providers/cursor/shell-before.json").as_bytes());
    assert!(!a.decoy.join(".tlc").exists());
    let guests: Vec<_> = std::fs::read_dir(a.w.home.join("state/guests")).unwrap().flatten().collect();
    assert_eq!(guests.len(), 1, "one state folder for the decoy, under the home");
    let db = guests[0].path().join("tlc.db");
    let n: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM events WHERE kind IN ('session.start', 'shell.start')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 2, "both recorded there");
    // Reached through a symlink inside the repository that points outside it.
    let link = a.w.repo.join("outside");
    std::os::unix::fs::symlink(&a.decoy, &link).unwrap();
    a.hook_in(&link, "claude", a.w.payload("providers/claude/post-tool-use-bash.json").as_bytes());
    assert!(!a.decoy.join(".tlc").exists());
    // And at the file system's root.
    let root_had = Path::new("/.tlc").exists();
    a.hook_in(Path::new("/"), "claude", &start(&a));
    assert_eq!(Path::new("/.tlc").exists(), root_had, "nothing created in /");
    // Commands run there read the same place and create nothing either.
    let out = a.run_in(&a.decoy, &["obs", "events", "--json"], b"", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("session.start"), "{}", stdout(&out));
    a.nothing_outside(&[]);
}

// ---- 11. The smaller ones ----

#[test]
fn a_lone_surrogate_a_bom_and_deep_nesting_are_stored_with_a_fault() {
    let a = Attack::new();
    let deep = format!(
        r#"{{"hook_event_name":"UserPromptSubmit","session_id":"deep","prompt":"p","x":{}0{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "sur",
            br#"{"hook_event_name":"UserPromptSubmit","session_id":"sur","prompt":"a\ud800b"}"#.to_vec(),
            "lone UTF-16 surrogate",
        ),
        (
            "bom",
            [
                &b"\xef\xbb\xbf"[..],
                br#"{"hook_event_name":"UserPromptSubmit","session_id":"bom","prompt":"p"}"#,
            ]
            .concat(),
            "byte-order mark",
        ),
        ("deep", deep.into_bytes(), "nested deeper than 100 levels"),
        (
            "all",
            [
                &b"\xef\xbb\xbf"[..],
                br#"{"hook_event_name":"UserPromptSubmit","session_id":"all","prompt":"\udfff"#,
                b"\xff",
                br#""}"#,
            ]
            .concat(),
            "invalid UTF-8 replaced by U+FFFD; a byte-order mark removed; 1 lone UTF-16 surrogate",
        ),
    ];
    for (session, payload, repair) in &cases {
        a.hook("claude", payload);
        let stored = a.w.count(&format!(
            "SELECT count(*) FROM events WHERE session_id = '{session}' AND kind = 'prompt.submit'"
        ));
        assert_eq!(stored, 1, "{session}: the event is stored");
        assert!(
            a.faults()
                .iter()
                .any(|f| f.starts_with("payload repaired before parsing") && f.contains(repair)),
            "{session}: {:?}",
            a.faults()
        );
    }
    a.nothing_outside(&[]);
}

#[test]
fn a_database_locked_by_another_process_keeps_the_event_for_the_next_hook() {
    let a = Attack::new();
    a.hook("claude", &start(&a));
    let holder = rusqlite::Connection::open(a.w.project_db()).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE; DELETE FROM state WHERE 0;").unwrap();
    let t = Instant::now();
    a.hook("claude", a.w.payload("providers/claude/pre-tool-use-bash.json").as_bytes());
    let waited = t.elapsed();
    assert!(waited < Duration::from_secs(3), "well under the hook's budget: {waited:?}");
    assert!(a.fault_log().contains("kept in"), "{}", a.fault_log());
    let pending = a.w.repo.join(".tlc/harness/state/hook-pending.jsonl");
    assert!(std::fs::metadata(&pending).unwrap().len() > 0);
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    a.hook("claude", a.w.payload("providers/claude/post-tool-use-bash.json").as_bytes());
    assert_eq!(
        a.w.count("SELECT count(*) FROM events WHERE kind = 'shell.start'"),
        1,
        "the locked-out event was recorded by the next hook"
    );
    assert!(
        a.faults().iter().any(|f| f.contains("locked by another process")),
        "{:?}",
        a.faults()
    );
    assert_eq!(std::fs::metadata(&pending).unwrap().len(), 0, "and cleared");
    a.hook("claude", a.w.payload("providers/claude/post-tool-use-bash.json").as_bytes());
    assert_eq!(a.w.count("SELECT count(*) FROM events WHERE kind = 'shell.start'"), 1, "once");
    a.nothing_outside(&[]);
}

/// Runs `db check`, `db status` and `doctor` on a project database tampered with by `tamper`,
/// and asserts each names `needle` (and `db check` fails).
fn tampered(tamper: &str, needles: &[&str]) {
    let a = Attack::new();
    a.hook("claude", &start(&a));
    {
        let c = rusqlite::Connection::open(a.w.project_db()).unwrap();
        c.execute_batch(tamper).unwrap();
    }
    let out = a.run(&["db", "check"]);
    assert_ne!(out.status.code(), Some(0), "{tamper}: db check fails");
    let all = stdout(&out) + &stderr(&out);
    assert!(needles.iter().all(|n| all.contains(n)), "{tamper}: db check: {all}");
    let out = a.run(&["db", "status"]);
    assert_ne!(out.status.code(), Some(0), "{tamper}: db status fails");
    let all = stdout(&out) + &stderr(&out);
    assert!(needles.iter().all(|n| all.contains(n)), "{tamper}: db status: {all}");
    let row = doctor_row(&a, "db-project");
    assert_eq!(row["status"], "fail", "{tamper}: {row}");
    let detail = row["detail"].as_str().unwrap();
    assert!(needles.iter().all(|n| detail.contains(n)), "{tamper}: {row}");
}

#[test]
fn doctor_db_status_and_db_check_name_each_broken_schema() {
    // A newer `user_version` was once "schema version 1 is older than this tlc (version 1)".
    let future = crate::foundation::latest_migration("project") + 1;
    tampered(
        &format!("PRAGMA user_version = {}", future * 1_000_000 + 123),
        &[&format!("schema version {future}"), "newer than this tlc"],
    );
    tampered(
        "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) VALUES (40, 'future', '2030-01-01T00:00:00Z', '1')",
        &["the migration history names V40__future, newer than this tlc"],
    );
    tampered("DROP TABLE decisions; DROP TABLE events", &["table `events` is missing"]);
}

#[test]
fn a_foreign_sqlite_file_in_the_database_place_is_named_and_left_alone() {
    let a = Attack::new();
    let db = a.w.project_db();
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    foreign_db(&db);
    let before = std::fs::read(&db).unwrap();
    a.hook("claude", &start(&a));
    assert_eq!(std::fs::read(&db).unwrap(), before, "no tlc table was migrated into it");
    assert!(a.fault_log().contains("not a tlc database"), "{}", a.fault_log());
    let out = a.run(&["db", "check"]);
    assert_ne!(out.status.code(), Some(0));
    assert!((stdout(&out) + &stderr(&out)).contains("not a tlc database"), "{}", stdout(&out));
    let row = doctor_row(&a, "db-project");
    assert_eq!(row["status"], "fail", "{row}");
    assert!(row["detail"].as_str().unwrap().contains("customers"), "names its tables: {row}");
}

#[test]
fn stale_temp_files_of_killed_adoptions_are_removed() {
    let a = Attack::new();
    let harness = a.w.repo.join(".tlc/harness");
    std::fs::create_dir_all(&harness).unwrap();
    // The id of a process that has exited.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let stale = harness.join(format!(".config.toml.tlc-{dead}.tmp"));
    std::fs::write(&stale, "half a config").unwrap();
    a.hook("claude", &start(&a));
    assert!(harness.join("config.toml").is_file(), "adopted");
    assert!(!stale.exists(), "the killed adoption's temp file is gone");
    // Left beside an existing config (killed between its link and its unlink): a mutating
    // command removes it.
    std::fs::write(&stale, "half a config").unwrap();
    let out = a.run(&["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stale.exists());
}

#[test]
fn a_full_disk_is_reported_as_disk_full() {
    let a = Attack::new();
    a.hook("claude", &start(&a));
    let state = a.w.repo.join(".tlc/harness/state");
    // A small file system mounted over the state folder, in a mount namespace of this run only.
    let payload = serde_json::json!({
        "hook_event_name": "PostToolUse", "session_id": "full", "cwd": a.w.repo, "tool_name": "Bash",
        "tool_input": {"command": "cat big"}, "tool_response": {"stdout": "z".repeat(900 * 1024)},
    });
    let payload_file = a.w.repo.join("payload.json");
    std::fs::write(&payload_file, payload.to_string()).unwrap();
    // The hooks leave their log in the WAL (see `store::checkpoint_if_large`): fold it in, so the
    // copy is the whole database and the hook under test has nothing to migrate.
    rusqlite::Connection::open(a.w.project_db())
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    let db = std::fs::read(a.w.project_db()).unwrap();
    // Room for the database, the WAL index (32 KiB) and less than a hook's WAL frames: the hook's
    // write meets a full disk whatever size the schema has grown to.
    let size_k = db.len().div_ceil(4096) * 4 + 48;
    let script = format!(
        "set -e; mount -t tmpfs -o size={size_k}k tmpfs '{state}' && cp /dev/stdin '{state}/tlc.db' < '{copy}' && timeout -s KILL {LIMIT_SECS} '{TLC}' hook claude < '{payload}'",
        state = state.display(),
        copy = a.w.dir.path().join("db-copy").display(),
        payload = payload_file.display(),
    );
    std::fs::write(a.w.dir.path().join("db-copy"), db).unwrap();
    let mut cmd = Command::new("unshare");
    // Without root, a user namespace maps this user to root inside it.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        cmd.arg("-r");
    }
    let out = cmd
        .args(["-m", "sh", "-c", &script])
        .current_dir(&a.w.repo)
        .isolated(&a.w)
        .output()
        .unwrap();
    if !out.status.success() && stderr(&out).contains("mount") {
        panic!("cannot mount a small file system here (unshare -m): {}", stderr(&out));
    }
    assert!(out.status.success(), "{}", stderr(&out));
    let log = a.fault_log();
    assert!(log.contains("disk full"), "{log}");
    assert!(!log.contains("disk I/O error") || log.contains("disk full"), "{log}");
    std::fs::remove_file(a.w.dir.path().join("db-copy")).unwrap();
    a.nothing_outside(&[]);
}

#[test]
fn fifo_directory_and_device_transcripts_are_faults_never_hangs() {
    let a = Attack::new();
    let fifo = a.w.repo.join("fifo.jsonl");
    mkfifo(&fifo);
    let dir = a.w.repo.join("dir.jsonl");
    std::fs::create_dir(&dir).unwrap();
    let dev = a.w.repo.join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &dev).unwrap();
    for (path, what) in [(&fifo, "a FIFO"), (&dir, "a folder"), (&dev, "a character device")] {
        let t = Instant::now();
        transcript_hook(&a, "tx", path);
        assert!(t.elapsed() < Duration::from_secs(10), "{what}: {:?}", t.elapsed());
        let faults = a.faults();
        assert!(
            faults
                .iter()
                .any(|f| f.contains(&format!("{}: not a regular file ({what})", path.display()))),
            "{what}: {faults:?}"
        );
    }
    a.nothing_outside(&[]);
}

// ---- Issue 28, item 3: an import over a FIFO or a link to /dev/zero never returned ----

#[test]
fn an_import_over_a_dev_zero_link_and_a_fifo_finishes_at_once_naming_both() {
    let a = Attack::new();
    let projects = a.w.dir.path().join("user/projects/p");
    std::fs::create_dir_all(&projects).unwrap();
    std::fs::write(projects.join("ok.jsonl"), usage_line("s28", 1, 10) + "\n").unwrap();
    std::os::unix::fs::symlink("/dev/zero", projects.join("zero.jsonl")).unwrap();
    mkfifo(&projects.join("fifo.jsonl"));
    let root = projects.parent().unwrap().to_str().unwrap().to_string();
    let started = Instant::now();
    let out = a.run(&["obs", "import", "transcripts", &root]);
    let took = started.elapsed();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(took < Duration::from_secs(2), "finished in {took:?}");
    let text = stdout(&out);
    assert!(text.contains("skipped, not regular files: 2"), "{text}");
    assert!(text.contains("zero.jsonl: not a regular file (a symbolic link)"), "{text}");
    assert!(text.contains("fifo.jsonl: not a regular file (a FIFO)"), "{text}");
    assert!(text.contains("1 new"), "the regular transcript is imported: {text}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&a.run(&["obs", "import", "transcripts", &root, "--json"]))).unwrap();
    assert_eq!(json["skipped"], 2, "{json}");
    a.nothing_outside(&["user"]);
}

// ---- Issue 28, item 4: a count of 2^64−1000 was stored as −1000 and sums overflowed ----

fn huge_usage_line(session: &str) -> String {
    serde_json::json!({
        "type": "assistant", "sessionId": session, "requestId": "req_huge",
        "timestamp": "2026-11-20T09:00:00.000Z",
        "message": {"id": "msg_huge", "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": 18446744073709550616u64, "output_tokens": 40,
                      "cache_creation_input_tokens": -5, "cache_read_input_tokens": 1.5}},
    })
    .to_string()
}

#[test]
fn a_count_outside_0_to_2_53_is_refused_per_field_and_every_report_keeps_working() {
    let a = Attack::new();
    let t = a.w.repo.join("t.jsonl");
    std::fs::write(&t, format!("{}\n{}\n", usage_line("s29", 1, 10), huge_usage_line("s29"))).unwrap();
    transcript_hook(&a, "s29", &t);
    // The response is stored, without the refused fields; the others are kept.
    let db = a.w.db();
    let (input, output, cache_write, cache_read): (i64, i64, i64, i64) = db
        .query_row(
            "SELECT input_tokens, output_tokens, cache_write_tokens, cache_read_tokens FROM events WHERE dedup_key = 'gen:msg_huge:req_huge'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!((input, output, cache_write, cache_read), (0, 40, 0, 0));
    let rejected: String = db
        .query_row(
            "SELECT json_extract(attrs, '$.tokens_rejected') FROM events WHERE dedup_key = 'gen:msg_huge:req_huge'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        rejected.contains("usage.input_tokens") && rejected.contains("usage.cache_creation_input_tokens"),
        "{rejected}"
    );
    assert!(
        a.faults()
            .iter()
            .any(|f| f.contains("usage.input_tokens") && f.contains("outside 0..2^53")),
        "{:?}",
        a.faults()
    );
    // Data stored before the edge checked it (or written by anything else): the sums saturate.
    db.execute(
        "UPDATE events SET input_tokens = 9223372036854775807 WHERE kind = 'generation.end'",
        [],
    )
    .unwrap();
    drop(db);
    for args in [
        &["obs", "report"][..],
        &["obs", "cost", "--here"],
        &["obs", "cost", "--here", "--by", "model", "--json"],
        &["obs", "export", "session_rollup"],
        &["obs", "export", "cost_rows", "--format", "json"],
    ] {
        let out = a.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let cost: serde_json::Value = serde_json::from_str(&stdout(&a.run(&["obs", "cost", "--here", "--json"]))).unwrap();
    let total = &cost["totals"];
    assert_eq!(total["input_tokens"], 9223372036854775807i64, "saturated, not wrapped: {total}");
    assert!(total["total_tokens"].as_i64().unwrap() > 0, "{total}");
    // The import refuses the same field and says so.
    let projects = a.w.dir.path().join("user/projects/p");
    std::fs::create_dir_all(&projects).unwrap();
    std::fs::copy(&t, projects.join("s29.jsonl")).unwrap();
    let out = a.run(&["obs", "import", "transcripts", projects.parent().unwrap().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("token count outside 0..2^53, stored without it: 1"),
        "{}",
        stdout(&out)
    );
    let home: serde_json::Value = serde_json::from_str(&stdout(&a.run(&["obs", "cost", "--json"]))).unwrap();
    assert_eq!(home["totals"]["input_tokens"], 3, "{home}");
    assert_eq!(home["totals"]["output_tokens"], 51, "{home}");
}

// ---- Issue 28, item 5: the statusline hung on a FIFO and printed two lines ----

#[test]
fn the_statusline_on_a_fifo_and_a_model_name_with_line_breaks_prints_one_line_at_once() {
    let a = Attack::new();
    let fifo = a.w.dir.path().join("repo/t.jsonl");
    mkfifo(&fifo);
    for name in ["Sonnet\n4.5", "Sonnet\u{2028}4.5\u{2029}", "Sonnet\r\u{85}\u{1b}[2J4.5"] {
        let payload = serde_json::json!({
            "session_id": "s30", "transcript_path": fifo, "cwd": a.w.repo,
            "model": {"id": "claude-sonnet-4-5", "display_name": name},
        });
        let started = Instant::now();
        let out = a.run_in(&a.w.repo, &["statusline"], payload.to_string().as_bytes(), &[]);
        assert!(started.elapsed() < Duration::from_secs(1), "{name:?}: answered at once");
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{name:?}: one line: {text:?}");
        assert!(text.ends_with('\n'));
        assert!(
            !text
                .trim_end()
                .chars()
                .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}'),
            "{text:?}"
        );
        assert!(text.starts_with("Sonnet"), "{text:?}");
    }
}

// ---- Issue 28, item 6: a newline-free sparse region made a hook read gigabytes ----

#[test]
fn a_hook_over_an_8_gb_sparse_transcript_answers_within_two_seconds() {
    let a = Attack::new();
    let t = a.w.repo.join("sparse.jsonl");
    std::fs::write(&t, usage_line("s31", 1, 10) + "\n{\"type\":\"user\",\"text\":\"").unwrap();
    let f = std::fs::OpenOptions::new().append(true).open(&t).unwrap();
    f.set_len(8 * 1024 * 1024 * 1024).unwrap();
    drop(f);
    let mut f = std::fs::OpenOptions::new().append(true).open(&t).unwrap();
    writeln!(f, "\"}}\n{}", usage_line("s31", 2, 10)).unwrap();
    drop(f);
    let prompt = serde_json::json!({
        "hook_event_name": "UserPromptSubmit", "session_id": "s31", "transcript_path": t,
        "cwd": a.w.repo, "prompt": "go on",
    });
    let stop = serde_json::json!({
        "hook_event_name": "Stop", "session_id": "s31", "transcript_path": t,
        "cwd": a.w.repo, "stop_hook_active": false,
    });
    let tool = serde_json::json!({
        "hook_event_name": "PostToolUse", "session_id": "s31", "transcript_path": t,
        "cwd": a.w.repo, "tool_name": "Bash", "tool_input": {"command": "true"},
    });
    // The first reads the first response, the second skips the line across the hole (its
    // sparse part is never read), the third reads on after it.
    for payload in [prompt, stop, tool] {
        let started = Instant::now();
        a.hook("claude", payload.to_string().as_bytes());
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(2),
            "{}: answered in {took:?}",
            payload["hook_event_name"]
        );
    }
    assert_eq!(
        a.w.count("SELECT count(*) FROM events WHERE kind = 'generation.end'"),
        2,
        "the responses on both sides of the hole are read"
    );
    assert!(a.faults().iter().any(|f| f.contains("skipped")), "{:?}", a.faults());
    a.nothing_outside(&[]);
}

// ---- Issue 28, item 8: 1e999 or a raw NUL dropped the whole event; 100 MB logged two faults ----

#[test]
fn a_payload_with_1e999_or_a_raw_nul_is_recorded_with_a_fault_and_an_oversized_one_names_one_fault() {
    let a = Attack::new();
    a.hook("claude", &start(&a));
    let payload = format!(
        "{{\"hook_event_name\":\"PostToolUse\",\"session_id\":\"s32\",\"cwd\":{:?},\"tool_name\":\"Bash\",\"tool_input\":{{\"command\":\"echo a\u{0}b\"}},\"tool_response\":{{\"took\":1e999}}}}",
        a.w.repo.to_str().unwrap()
    );
    a.hook("claude", payload.as_bytes());
    assert_eq!(
        a.w.count("SELECT count(*) FROM events WHERE session_id = 's32' AND kind <> 'hook.fault'"),
        1,
        "the event is recorded"
    );
    let faults = a.faults();
    assert!(
        faults
            .iter()
            .any(|f| f.contains("raw control character") && f.contains("out of any range")),
        "{faults:?}"
    );
    // Over the 64 MiB cap: one fault, the read's, not also an "empty payload".
    let before = a.faults().len();
    let big = vec![b' '; 100 * 1024 * 1024];
    a.hook("claude", &big);
    let new: Vec<String> = a.faults().into_iter().skip(before).collect();
    assert_eq!(new.len(), 1, "{new:?}");
    assert!(new[0].contains("was not parsed") && !new[0].contains("empty payload"), "{new:?}");
}
