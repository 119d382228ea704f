//! Gates (grind lint/test): the configured argv, whether `appendFiles = auto` can narrow it,
//! running it under the gate lock, and the `gate_runs` rows `tlc gate show` prints as
//! `harness.gate.v1`.

use crate::clock;
use crate::store::queries::project::gate as q;
use crate::store::PruneCount;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How much of a gate's output is kept.
pub const OUTPUT_TAIL_BYTES: usize = 4000;
/// A lock older than this is reclaimed.
pub const LOCK_STALE: Duration = Duration::from_secs(30 * 60);

/// Which gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Gate {
    Lint,
    Test,
}

impl Gate {
    pub fn as_str(self) -> &'static str {
        match self {
            Gate::Lint => "lint",
            Gate::Test => "test",
        }
    }

    /// The config key holding this gate's argv.
    pub fn key(self) -> &'static str {
        match self {
            Gate::Lint => "grind.lintCommand",
            Gate::Test => "grind.testCommand",
        }
    }
}

/// Where `program` resolves: itself when it names a path, else the first executable on `PATH`.
pub fn resolve_on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(program)).find(|p| executable(p))
}

/// Why `appendFiles = auto` cannot narrow `argv` (so the gate runs in full every attempt), or
/// `None` when appending the changed files does narrow it.
pub fn cannot_narrow(argv: &[String]) -> Option<String> {
    let mut args: Vec<&str> = argv.iter().map(String::as_str).collect();
    // npx / bunx / dlx are transparent: the tool named next decides.
    while let Some(first) = args.first() {
        let base = first.rsplit('/').next().unwrap_or(first);
        if matches!(base, "npx" | "bunx") {
            args.remove(0);
            while args.first().is_some_and(|a| a.starts_with('-')) {
                args.remove(0);
            }
        } else if matches!(base, "pnpm" | "yarn") && args.get(1) == Some(&"dlx") {
            args.drain(..2);
        } else {
            break;
        }
    }
    let first = args.first()?;
    let base = first.rsplit('/').next().unwrap_or(first);
    if matches!(base, "just" | "make" | "task" | "mise" | "rake") {
        return Some(format!(
            "`{base}` is a recipe runner: it takes a target name, and a path reads as a second target"
        ));
    }
    if matches!(base, "npm" | "yarn" | "bun" | "pnpm") {
        let sub = args.get(1).copied().unwrap_or("");
        if matches!(sub, "run" | "test" | "t" | "run-script") || (base != "npm" && !sub.is_empty() && !sub.starts_with('-')) {
            return Some(format!(
                "`{base} {sub}` runs a package script: whether an appended path reaches the runner cannot be known"
            ));
        }
    }
    if let Some(g) = args
        .iter()
        .skip(1)
        .find(|a| a.contains('*') || a.contains('?') || (a.contains('{') && a.contains('}')))
    {
        return Some(format!(
            "`{g}` already globs: appending files widens the run instead of narrowing it"
        ));
    }
    None
}

/// A gate's verdict from its exit code: 0 passes, 127 (or a command that could not start) is a
/// config fault, anything else fails verification.
pub fn verdict(exit_code: Option<i32>) -> (&'static str, Option<&'static str>) {
    match exit_code {
        Some(0) => ("pass", None),
        Some(127) => ("config", Some("config")),
        _ => ("fail", Some("verification")),
    }
}

/// The last `max` bytes of `text`, cut at a character boundary.
pub fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut cut = text.len() - max;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    text[cut..].to_string()
}

/// One finished gate invocation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GateRun {
    pub id: i64,
    pub session_id: Option<String>,
    pub gate: String,
    pub command: Vec<String>,
    pub files: Vec<String>,
    pub exit_code: Option<i64>,
    pub verdict: String,
    pub category: Option<String>,
    pub reused: bool,
    pub inputs_hash: Option<String>,
    pub output_tail: String,
    pub findings: serde_json::Value,
    pub started_at: String,
    pub duration_ms: i64,
}

impl GateRun {
    /// The `harness.gate.v1` object.
    pub fn to_v1(&self) -> serde_json::Value {
        serde_json::json!({
            "schema": "harness.gate.v1",
            "id": self.id,
            "session": self.session_id,
            "gate": self.gate,
            "command": self.command,
            "files": self.files,
            "exitCode": self.exit_code,
            "verdict": self.verdict,
            "category": self.category,
            "reused": self.reused,
            "inputsHash": self.inputs_hash,
            "outputTail": self.output_tail,
            "findings": self.findings,
            "startedAt": self.started_at,
            "durationMs": self.duration_ms,
        })
    }
}

/// Who holds the gate lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockHolder {
    pub session_id: Option<String>,
    pub pid: i64,
    pub host: String,
    pub acquired_at: String,
}

/// The repository of gate runs and the gate lock (`gate_runs`, `gate_lock`): the only place their
/// SQL runs. It borrows a project-database connection.
pub struct GateStore<'c> {
    conn: &'c Connection,
}

impl<'c> GateStore<'c> {
    pub fn new(conn: &'c Connection) -> GateStore<'c> {
        GateStore { conn }
    }

    pub fn insert_run(&self, run: &GateRun) -> rusqlite::Result<i64> {
        self.conn.prepare_cached(q::RUN_INSERT)?.execute(params![
            run.session_id,
            run.gate,
            serde_json::to_string(&run.command).unwrap_or_default(),
            serde_json::to_string(&run.files).unwrap_or_default(),
            run.exit_code,
            run.verdict,
            run.category,
            run.reused,
            run.inputs_hash,
            run.output_tail,
            run.findings.to_string(),
            run.started_at,
            run.duration_ms,
        ])?;
        Ok(self.conn.last_insert_rowid())
    }

    pub fn latest(&self, gate: Option<&str>) -> rusqlite::Result<Option<GateRun>> {
        self.conn
            .prepare_cached(q::RUN_LATEST)?
            .query_row([gate], |r| {
                let list = |s: String| serde_json::from_str::<Vec<String>>(&s).unwrap_or_default();
                Ok(GateRun {
                    id: r.get(0)?,
                    session_id: r.get(1)?,
                    gate: r.get(2)?,
                    command: list(r.get(3)?),
                    files: list(r.get(4)?),
                    exit_code: r.get(5)?,
                    verdict: r.get(6)?,
                    category: r.get(7)?,
                    reused: r.get(8)?,
                    inputs_hash: r.get(9)?,
                    output_tail: r.get::<_, Option<String>>(10)?.unwrap_or_default(),
                    findings: serde_json::from_str(&r.get::<_, String>(11)?).unwrap_or(serde_json::Value::Array(Vec::new())),
                    started_at: r.get(12)?,
                    duration_ms: r.get(13)?,
                })
            })
            .optional()
    }

    fn holder(&self) -> rusqlite::Result<Option<LockHolder>> {
        self.conn
            .prepare_cached(q::LOCK_GET)?
            .query_row([], |r| {
                Ok(LockHolder {
                    session_id: r.get(0)?,
                    pid: r.get(1)?,
                    host: r.get(2)?,
                    acquired_at: r.get(3)?,
                })
            })
            .optional()
    }

    /// Takes the gate lock, reclaiming one that is stale (older than 30 minutes, unreadable, or
    /// whose process is gone on this host). `Err(holder)` when a live holder keeps it.
    pub fn try_lock(conn: &mut Connection, session: Option<&str>) -> rusqlite::Result<Result<(), LockHolder>> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let host = hostname();
        let pid = i64::from(std::process::id());
        let holder = GateStore::new(&tx).holder()?;
        if let Some(h) = holder {
            let stale_age = clock::parse(&h.acquired_at)
                .map(|t| (clock::now() - t).to_std().unwrap_or_default() > LOCK_STALE)
                .unwrap_or(true);
            let gone = h.host == host && !crate::sys::process_exists(h.pid);
            if !(stale_age || gone || (h.host == host && h.pid == pid)) {
                return Ok(Err(h));
            }
        }
        tx.prepare_cached(q::LOCK_PUT)?
            .execute(params![session, pid, host, clock::now_stamp()])?;
        tx.commit()?;
        Ok(Ok(()))
    }

    /// How many gate runs [`GateStore::prune`] would drop at `cutoff` (a stamp).
    pub fn count_prunable(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE_COUNT)?.query_row([cutoff], |r| r.get(0))?;
        Ok(PruneCount { table: "gate_runs", rows })
    }

    /// Drops the gate runs started before `cutoff` (the caller holds the transaction).
    pub fn prune(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE_RUNS)?.execute([cutoff])? as i64;
        Ok(PruneCount { table: "gate_runs", rows })
    }

    pub fn unlock(&self) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::LOCK_RELEASE)?
            .execute(params![i64::from(std::process::id()), hostname()])?;
        Ok(())
    }
}

/// This machine's host name (a pid means nothing on another host).
pub fn hostname() -> String {
    crate::sys::hostname().unwrap_or_else(|| "unknown".into())
}

/// Runs `argv` in `cwd` and returns the finished run (not yet stored). `report` is the path the
/// child may write `{"findings": [...]}` to (`HARNESS_GATE_REPORT`).
pub fn execute(gate: Gate, argv: &[String], cwd: &Path, report: &Path, session: Option<&str>) -> GateRun {
    let started_at = clock::now_stamp();
    let t = Instant::now();
    let _ = std::fs::remove_file(report);
    let result = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(cwd)
        .env("HARNESS_GATE_REPORT", report)
        .stdin(std::process::Stdio::null())
        .output();
    let duration_ms = i64::try_from(t.elapsed().as_millis()).unwrap_or(i64::MAX);
    let (exit_code, output) = match result {
        Ok(out) => {
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            (out.status.code(), text)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Some(127), format!("{}: command not found", argv[0])),
        Err(e) => (Some(126), format!("{}: cannot run: {e}", argv[0])),
    };
    let findings = std::fs::read_to_string(report)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("findings").cloned())
        .filter(serde_json::Value::is_array)
        .unwrap_or(serde_json::Value::Array(Vec::new()));
    let _ = std::fs::remove_file(report);
    let (verdict, category) = verdict(exit_code);
    GateRun {
        id: 0,
        session_id: session.map(str::to_string),
        gate: gate.as_str().into(),
        command: argv.to_vec(),
        files: Vec::new(),
        exit_code: exit_code.map(i64::from),
        verdict: verdict.into(),
        category: category.map(str::to_string),
        reused: false,
        inputs_hash: None,
        output_tail: tail(&output, OUTPUT_TAIL_BYTES),
        findings,
        started_at,
        duration_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn shapes_auto_cannot_narrow() {
        assert!(cannot_narrow(&v(&["make", "test"])).unwrap().contains("recipe runner"));
        assert!(cannot_narrow(&v(&["just"])).is_some());
        assert!(cannot_narrow(&v(&["npm", "test"])).unwrap().contains("package script"));
        assert!(cannot_narrow(&v(&["yarn", "test"])).is_some());
        assert!(cannot_narrow(&v(&["bun", "run", "test"])).is_some());
        assert!(cannot_narrow(&v(&["eslint", "src/**/*.ts"])).unwrap().contains("globs"));
        assert_eq!(cannot_narrow(&v(&["npx", "jest"])), None);
        assert_eq!(cannot_narrow(&v(&["cargo", "test"])), None);
        assert_eq!(cannot_narrow(&v(&["pnpm", "dlx", "vitest"])), None);
        assert!(cannot_narrow(&v(&["npx", "make"])).is_some());
    }

    #[test]
    fn verdicts_and_tails() {
        assert_eq!(verdict(Some(0)).0, "pass");
        assert_eq!(verdict(Some(127)), ("config", Some("config")));
        assert_eq!(verdict(Some(1)), ("fail", Some("verification")));
        assert_eq!(verdict(None).0, "fail");
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("aé", 1), "");
    }

    #[test]
    fn the_lock_has_one_holder_and_a_dead_one_is_reclaimed() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = crate::store::open_write(crate::store::DbKind::Project, &dir.path().join("t.db")).unwrap();
        let conn = store.conn_mut();
        conn.execute(
            "INSERT INTO gate_lock (id, session_id, pid, host, acquired_at) VALUES (1, 's', 1, ?1, ?2)",
            params![hostname(), clock::now_stamp()],
        )
        .unwrap();
        // pid 1 is alive: held.
        assert!(GateStore::try_lock(conn, None).unwrap().is_err());
        conn.execute("UPDATE gate_lock SET pid = 999999999", []).unwrap();
        assert!(GateStore::try_lock(conn, None).unwrap().is_ok(), "a gone process is reclaimed");
        GateStore::new(conn).unlock().unwrap();
        let n: i64 = conn.query_row("SELECT count(*) FROM gate_lock", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 0);
    }
}
