//! Gates on stop: the grind (lint and test), the docs gate, the ship gate and the checks on
//! what a turn wrote, with the gate lock, verdict reuse, gate sessions (`gate_runs` rows that
//! `tlc gate show` prints as `harness.gate.v1`), stop outcomes and the handoff.
//!
//! The pure parts — what changed, path matching, narrowing, classification, fingerprints,
//! follow-ups, inputs hashes — live in their own modules; [`GateStore`] is the only place the
//! gate tables' SQL runs; [`stop`] puts them together on the hook path.

pub(crate) mod changes;
pub(crate) mod classify;
pub(crate) mod detect;
pub(crate) mod followup;
pub(crate) mod inputs;
pub(crate) mod intelligence;
pub(crate) mod lessons;
pub(crate) mod narrow;
pub(crate) mod observe;
pub(crate) mod plan;
pub(crate) mod runner;
pub(crate) mod ship;
pub(crate) mod stop;
pub(crate) mod turn;
pub(crate) mod written;

use crate::clock;
use crate::obs::redact::Redactor;
use crate::store::queries::project::gate as q;
use crate::store::PruneCount;
use runner::Finding;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why a stop check could not run: git could not say what changed, or the project database
/// could not be read or written. The hook records it as a fault and lets the stop through.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GateError {
    #[error("{root}: git {command} failed: {cause}")]
    Git { root: PathBuf, command: String, cause: String },
    /// git was not started: it would block on a file planted in the git directory
    /// (`gitfiles::would_block_git` says which). A stop refuses the turn on it.
    #[error("{why}")]
    GitWouldBlock { why: String },
    #[error("{db}: {cause}")]
    Store { db: PathBuf, cause: rusqlite::Error },
}

impl GateError {
    /// A database error, naming the database.
    pub(crate) fn store(db: &Path) -> impl Fn(rusqlite::Error) -> GateError + Copy + '_ {
        move |cause| GateError::Store {
            db: db.to_path_buf(),
            cause,
        }
    }
}

/// A lock older than this is reclaimed.
pub(crate) const LOCK_STALE: Duration = Duration::from_secs(30 * 60);
/// How long a stop waits for the gate lock before deferring (`TLC_GATE_LOCK_WAIT_MS`).
pub(crate) const LOCK_WAIT_DEFAULT: Duration = Duration::from_secs(10);
/// Resolutions kept per repository.
pub(crate) const MAX_RESOLUTIONS: i64 = 200;
/// Files named per resolution.
pub(crate) const MAX_RESOLUTION_FILES: usize = 8;

/// Which gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Gate {
    Lint,
    Test,
    Docs,
}

impl Gate {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Gate::Lint => "lint",
            Gate::Test => "test",
            Gate::Docs => "docs",
        }
    }

    /// The config key holding this gate's argv.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Gate::Lint => "grind.lintCommand",
            Gate::Test => "grind.testCommand",
            Gate::Docs => "docs.command",
        }
    }

    /// The command an operator fixes this gate's argv with.
    pub(crate) fn setter(self) -> &'static str {
        match self {
            Gate::Lint => "tlc gate lint-command <cmd> [args...]",
            Gate::Test => "tlc gate test-command <cmd> [args...]",
            Gate::Docs => "edit docs.command in .tlc/harness/config.toml",
        }
    }

    /// The rule a stop outcome decided by this gate names.
    pub(crate) fn rule(self) -> &'static str {
        match self {
            Gate::Lint => "grind-lint",
            Gate::Test => "grind-test",
            Gate::Docs => "docs-gate",
        }
    }
}

/// Where `program` resolves: itself when it names a path, else the first executable on `PATH`.
pub(crate) fn resolve_on_path(program: &str) -> Option<PathBuf> {
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

/// One gate invocation, as stored.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub(crate) struct GateRun {
    pub id: i64,
    pub provider: Option<String>,
    pub session_id: Option<String>,
    /// The turn's attempt this run answered (1-based); `None` outside a stop.
    pub attempt: Option<i64>,
    pub gate: String,
    pub command: Vec<String>,
    pub files: Vec<String>,
    pub exit_code: Option<i64>,
    /// `pass`, `fail`, `config` or `skipped`.
    pub verdict: String,
    /// `verification`, `config`, `timeout`, `deferred` (none when it passed).
    pub category: Option<String>,
    pub reused: bool,
    pub reused_from: Option<i64>,
    pub inputs_hash: Option<String>,
    pub file_hashes: BTreeMap<String, String>,
    pub fingerprint: Option<String>,
    pub output_tail: String,
    pub findings: Vec<Finding>,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub duration_ms: i64,
    /// Who held the lock when this run deferred.
    pub deferred_to: Option<String>,
}

impl GateRun {
    pub(crate) fn passed(&self) -> bool {
        self.verdict == "pass"
    }

    /// `pass`, or the failure's category (`verification`, `config`, `timeout`, `deferred`).
    pub(crate) fn classification(&self) -> &str {
        if self.passed() {
            "pass"
        } else {
            self.category.as_deref().unwrap_or(self.verdict.as_str())
        }
    }

    /// The `harness.gate.v1` object.
    pub(crate) fn to_v1(&self) -> serde_json::Value {
        serde_json::json!({
            "schema": "harness.gate.v1",
            "id": self.id,
            "session": self.session_id,
            "provider": self.provider,
            "gate": self.gate,
            "command": self.command,
            "files": self.files,
            "exitCode": self.exit_code,
            "verdict": self.verdict,
            "passed": self.passed(),
            "category": self.category,
            "classification": self.classification(),
            "reused": self.reused,
            "reusedFrom": self.reused_from,
            "inputsHash": self.inputs_hash,
            "fingerprint": self.fingerprint,
            "attempt": self.attempt,
            "outputTail": self.output_tail,
            "findings": self.findings,
            "ts": self.finished_at.as_deref().unwrap_or(&self.started_at),
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
            "durationMs": self.duration_ms,
            "deferredTo": self.deferred_to,
        })
    }

    fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<GateRun> {
        let list = |s: String| serde_json::from_str::<Vec<String>>(&s).unwrap_or_default();
        let findings = r
            .get::<_, Option<String>>(11)?
            .and_then(|t| serde_json::from_str::<Vec<Finding>>(&t).ok())
            .unwrap_or_default();
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
            findings,
            started_at: r.get(12)?,
            duration_ms: r.get(13)?,
            provider: r.get(14)?,
            attempt: r.get(15)?,
            finished_at: r.get(16)?,
            fingerprint: r.get(17)?,
            reused_from: r.get(18)?,
            deferred_to: r.get(19)?,
            file_hashes: serde_json::from_str(&r.get::<_, String>(20)?).unwrap_or_default(),
        })
    }
}

/// An imported `gate.outcome` (harness-toolkit's records, `tlc obs import jsonl`) is a gate run
/// like this tlc's own: a pass or a failure with its exit code and time, a reused verdict (no
/// time spent), or a deferral, stored `skipped` as this tlc stores its own (neither a failure nor
/// time). The record names no command.
impl crate::obs::import::GateSink for GateStore<'_> {
    fn gate_outcome(&self, g: &crate::obs::import::ImportedGate<'_>) -> rusqlite::Result<()> {
        let ended = clock::parse(g.ts).unwrap_or_else(|_| clock::now());
        let started = ended - chrono::Duration::milliseconds(g.duration_ms);
        let (verdict, category) = match g.passed {
            Some(true) => ("pass", None),
            Some(false) => ("fail", Some("verification")),
            None => ("skipped", Some("deferred")),
        };
        self.insert_run(&GateRun {
            provider: Some(g.provider.to_string()),
            session_id: g.session_id.map(str::to_string),
            gate: g.gate.to_string(),
            exit_code: g.exit_code,
            verdict: verdict.into(),
            category: category.map(str::to_string),
            reused: g.reused,
            started_at: clock::stamp(started),
            finished_at: Some(clock::stamp(ended)),
            duration_ms: g.duration_ms,
            deferred_to: g.deferred_to.map(str::to_string),
            ..GateRun::default()
        })?;
        Ok(())
    }
}

/// Who holds the gate lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LockHolder {
    pub session_id: Option<String>,
    pub pid: i64,
    pub host: String,
    pub acquired_at: String,
    pub provider: Option<String>,
    /// When the holding process started (`sys::process_start_time`); `None` in a row written
    /// before the column existed.
    pub pid_start: Option<i64>,
}

impl LockHolder {
    /// Whether the process named by this row is the one alive on this host now: a process with
    /// its pid exists and, where the row recorded it, started when the row says. A row of another
    /// host cannot be checked and counts as alive.
    pub(crate) fn alive(&self, host: &str) -> bool {
        if self.host != host {
            return true;
        }
        if !crate::sys::process_exists(self.pid) {
            return false;
        }
        let now = crate::sys::process_start_time(self.pid).and_then(|s| i64::try_from(s).ok());
        match self.pid_start {
            Some(start) => now == Some(start),
            // tlc records the start time wherever it can read one: a row without it, for a
            // process whose start time can be read, was not written by a holder alive now.
            None => now.is_none(),
        }
    }

    /// `provider claude, session s1, pid 123 on host since …`.
    pub(crate) fn describe(&self) -> String {
        format!(
            "provider {}, session {}, pid {} on {} since {}",
            self.provider.as_deref().unwrap_or("none"),
            self.session_id.as_deref().unwrap_or("none"),
            self.pid,
            self.host,
            self.acquired_at
        )
    }
}

/// The repository of gate runs, the gate lock and resolution history (`gate_runs`, `gate_lock`,
/// `gate_resolutions`): the only place their SQL runs. It borrows a project-database connection.
pub(crate) struct GateStore<'c> {
    conn: &'c Connection,
}

impl<'c> GateStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> GateStore<'c> {
        GateStore { conn }
    }

    pub(crate) fn insert_run(&self, run: &GateRun) -> rusqlite::Result<i64> {
        self.conn.prepare_cached(q::RUN_INSERT)?.execute(params![
            run.session_id,
            run.gate,
            json(&run.command),
            json(&run.files),
            run.exit_code,
            run.verdict,
            run.category,
            run.reused,
            run.inputs_hash,
            run.output_tail,
            json(&run.findings),
            run.started_at,
            run.duration_ms,
            run.provider,
            run.attempt,
            run.finished_at,
            run.fingerprint,
            run.reused_from,
            run.deferred_to,
            json(&run.file_hashes),
        ])?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The latest run, of one gate and one session when named.
    pub(crate) fn latest(&self, gate: Option<&str>, session: Option<&str>) -> rusqlite::Result<Option<GateRun>> {
        self.conn
            .prepare_cached(q::RUN_LATEST)?
            .query_row(params![gate, session], GateRun::from_row)
            .optional()
    }

    /// A session's last `limit` runs, oldest first (`tlc serve`'s session timeline: each stop's
    /// gate and the tail of its output).
    pub(crate) fn session_runs(&self, provider: &str, session: &str, limit: i64) -> rusqlite::Result<Vec<GateRun>> {
        let mut st = self.conn.prepare_cached(q::RUNS_OF_SESSION)?;
        let rows = st.query_map(params![provider, session, limit], GateRun::from_row)?;
        rows.collect()
    }

    /// The latest run of `gate` with a verdict of its own (not deferred).
    pub(crate) fn latest_verdict(&self, gate: &str) -> rusqlite::Result<Option<GateRun>> {
        self.conn
            .prepare_cached(q::RUN_LATEST_VERDICT)?
            .query_row([gate], GateRun::from_row)
            .optional()
    }

    /// The latest run of `gate` before `before_id` that ran (not deferred, not reused).
    pub(crate) fn verdict_before(&self, gate: &str, before_id: i64) -> rusqlite::Result<Option<GateRun>> {
        self.conn
            .prepare_cached(q::RUN_VERDICT_BEFORE)?
            .query_row(params![gate, before_id], GateRun::from_row)
            .optional()
    }

    /// Whether a run before `before_id` already failed with this fingerprint.
    pub(crate) fn fingerprint_seen(&self, fingerprint: &str, before_id: i64) -> rusqlite::Result<bool> {
        self.conn
            .prepare_cached(q::FINGERPRINT_SEEN)?
            .query_row(params![fingerprint, before_id], |r| r.get(0))
    }

    /// Records that `files` changed between the failing run and the passing one, keeping the
    /// newest [`MAX_RESOLUTIONS`].
    pub(crate) fn add_resolution(&self, failing: &GateRun, passing: &GateRun, files: &[String]) -> rusqlite::Result<()> {
        let Some(fp) = &failing.fingerprint else { return Ok(()) };
        let files: Vec<&String> = files.iter().take(MAX_RESOLUTION_FILES).collect();
        self.conn.prepare_cached(q::RESOLUTION_INSERT)?.execute(params![
            fp,
            failing.gate,
            serde_json::to_string(&files).unwrap_or_default(),
            failing.id,
            passing.id,
            clock::now_stamp()
        ])?;
        self.conn.prepare_cached(q::RESOLUTION_PRUNE)?.execute([MAX_RESOLUTIONS])?;
        Ok(())
    }

    /// The newest resolution of failure `fingerprint`: (files, when).
    pub(crate) fn resolution(&self, fingerprint: &str) -> rusqlite::Result<Option<(Vec<String>, String)>> {
        self.conn
            .prepare_cached(q::RESOLUTION_FIND)?
            .query_row([fingerprint], |r| {
                Ok((
                    serde_json::from_str::<Vec<String>>(&r.get::<_, String>(0)?).unwrap_or_default(),
                    r.get(1)?,
                ))
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
                    provider: r.get(4)?,
                    pid_start: r.get(5)?,
                })
            })
            .optional()
    }

    /// Takes the gate lock, reclaiming one that is stale (older than 30 minutes, unreadable, or
    /// whose process is not alive on this host as the row recorded it: gone, or its pid now
    /// another process's). `Err(holder)` when a live holder keeps it.
    pub(crate) fn try_lock(
        conn: &mut Connection,
        provider: Option<&str>,
        session: Option<&str>,
    ) -> rusqlite::Result<Result<(), LockHolder>> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let host = hostname();
        let pid = i64::from(std::process::id());
        let holder = match GateStore::new(&tx).holder() {
            Ok(h) => h,
            // A row that cannot be read is reclaimed.
            Err(rusqlite::Error::FromSqlConversionFailure(..) | rusqlite::Error::InvalidColumnType(..)) => None,
            Err(e) => return Err(e),
        };
        if let Some(h) = holder {
            let stale_age = clock::parse(&h.acquired_at)
                .map(|t| (clock::now() - t).to_std().unwrap_or_default() > LOCK_STALE)
                .unwrap_or(true);
            // A time in the future is as unreadable as garbage: no live holder took it then.
            let future = clock::parse(&h.acquired_at).is_ok_and(|t| t > clock::now() + chrono::Duration::minutes(5));
            let gone = !h.alive(&host);
            if !(stale_age || future || gone || (h.host == host && h.pid == pid)) {
                return Ok(Err(h));
            }
        }
        let start = crate::sys::process_start_time(pid).and_then(|s| i64::try_from(s).ok());
        tx.prepare_cached(q::LOCK_PUT)?
            .execute(params![session, pid, host, clock::now_stamp(), provider, start])?;
        tx.commit()?;
        Ok(Ok(()))
    }

    /// How many gate runs [`GateStore::prune`] would drop at `cutoff` (a stamp).
    pub(crate) fn count_prunable(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE_COUNT)?.query_row([cutoff], |r| r.get(0))?;
        Ok(PruneCount { table: "gate_runs", rows })
    }

    /// Drops the gate runs started before `cutoff` (the caller holds the transaction).
    pub(crate) fn prune(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE_RUNS)?.execute([cutoff])? as i64;
        Ok(PruneCount { table: "gate_runs", rows })
    }

    /// Waits up to `wait` for the gate lock; `Err(holder)` when a live holder kept it throughout.
    pub(crate) fn acquire(
        conn: &mut Connection,
        provider: Option<&str>,
        session: Option<&str>,
        wait: Duration,
    ) -> rusqlite::Result<Result<(), LockHolder>> {
        let t = Instant::now();
        loop {
            match GateStore::try_lock(conn, provider, session)? {
                Ok(()) => return Ok(Ok(())),
                Err(h) if t.elapsed() >= wait => return Ok(Err(h)),
                Err(_) => std::thread::sleep(Duration::from_millis(50).min(wait.saturating_sub(t.elapsed()))),
            }
        }
    }

    /// Takes the gate lock whoever holds it (after the holder kept it through too many stops).
    pub(crate) fn take_over(conn: &mut Connection, provider: Option<&str>, session: Option<&str>) -> rusqlite::Result<()> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let pid = i64::from(std::process::id());
        let start = crate::sys::process_start_time(pid).and_then(|s| i64::try_from(s).ok());
        tx.prepare_cached(q::LOCK_PUT)?
            .execute(params![session, pid, hostname(), clock::now_stamp(), provider, start])?;
        tx.commit()
    }

    pub(crate) fn unlock(&self) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::LOCK_RELEASE)?
            .execute(params![i64::from(std::process::id()), hostname()])?;
        Ok(())
    }
}

/// A JSON column's text; a value that cannot serialise stores as an empty one.
fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// This machine's host name (a pid means nothing on another host).
pub(crate) fn hostname() -> String {
    crate::sys::hostname().unwrap_or_else(|| "unknown".into())
}

/// How long a stop waits for the gate lock: `TLC_GATE_LOCK_WAIT_MS`, else 10 s.
pub(crate) fn lock_wait() -> Duration {
    std::env::var("TLC_GATE_LOCK_WAIT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(LOCK_WAIT_DEFAULT, Duration::from_millis)
}

/// One gate command to run.
pub(crate) struct RunRequest<'a> {
    pub gate: Gate,
    /// The argv as run (changed files appended where they narrow it).
    pub argv: Vec<String>,
    pub root: &'a Path,
    /// The jail the command runs in (issue 51: the protected set read-only, a fixed environment).
    pub jail: &'a crate::confine::Jail,
    pub timeout: Duration,
    pub provider: Option<String>,
    pub session: Option<String>,
    pub attempt: Option<i64>,
    pub files: Vec<String>,
    pub inputs: inputs::Inputs,
}

/// Runs the command and returns its run (not yet stored): output tail and findings redacted
/// with `redactor`, classified, fingerprinted when it did not pass.
pub(crate) fn execute(req: &RunRequest<'_>, redactor: Option<&Redactor>) -> GateRun {
    let started_at = clock::now_stamp();
    // The findings report is written in a private folder of the temp folder: the child sees the
    // project's state folder read-only, and a name it could guess is never one it can plant.
    let folder = runner::ReportFolder::new(req.gate.as_str());
    let finished = runner::run(&req.argv, req.root, req.jail, folder.report(), req.timeout);
    let report = runner::read_report(folder.report());
    drop(folder);
    let redact = |s: String| match redactor {
        Some(r) => r.redact_str(&s).unwrap_or(s),
        None => s,
    };
    let mut output_tail = redact(finished.output_tail);
    let runner = narrow::program(&req.argv);
    let category = classify::classify(
        finished.started,
        finished.timed_out,
        finished.exit_code,
        &output_tail,
        runner.as_deref(),
    );
    let mut findings = match report {
        runner::Report::Findings(f, total) => {
            if total > f.len() {
                output_tail = runner::last_chars(
                    &format!(
                        "{output_tail}\n[tlc: the findings report held {total} findings; the first {} are kept]",
                        f.len()
                    ),
                    runner::OUTPUT_TAIL_CHARS,
                );
            }
            f
        }
        runner::Report::Refused(why) => {
            output_tail = runner::last_chars(&format!("{output_tail}\n[tlc: {why}]"), runner::OUTPUT_TAIL_CHARS);
            Vec::new()
        }
        runner::Report::Absent => Vec::new(),
    };
    if findings.is_empty() && category != classify::Category::Pass {
        findings = runner::findings_from_output(&output_tail);
    }
    if category == classify::Category::Timeout {
        output_tail = runner::last_chars(
            &format!(
                "{output_tail}\n[tlc: killed with its process group after {} s (gateTimeoutSeconds)]",
                req.timeout.as_secs()
            ),
            runner::OUTPUT_TAIL_CHARS,
        );
    }
    for f in &mut findings {
        f.summary = redact(std::mem::take(&mut f.summary));
        f.detail = f.detail.take().map(redact);
    }
    let exit_code = finished.exit_code.map(i64::from);
    let fingerprint =
        (category != classify::Category::Pass).then(|| followup::fingerprint(req.gate.as_str(), exit_code, &req.files, &output_tail));
    GateRun {
        id: 0,
        provider: req.provider.clone(),
        session_id: req.session.clone(),
        attempt: req.attempt,
        gate: req.gate.as_str().into(),
        command: req.argv.clone(),
        files: req.files.clone(),
        exit_code,
        verdict: category.verdict().into(),
        category: (category != classify::Category::Pass).then(|| category.as_str().to_string()),
        reused: false,
        reused_from: None,
        inputs_hash: req.inputs.hash.clone(),
        file_hashes: req.inputs.files.clone(),
        fingerprint,
        output_tail,
        findings,
        started_at,
        finished_at: Some(clock::now_stamp()),
        duration_ms: finished.duration_ms,
        deferred_to: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_lock_has_one_holder_and_a_dead_one_is_reclaimed() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = crate::store::open_write(crate::store::DbKind::Project, &dir.path().join("t.db")).unwrap();
        let conn = store.conn_mut();
        let init_start = crate::sys::process_start_time(1).map(|s| s as i64);
        conn.execute(
            "INSERT INTO gate_lock (id, session_id, pid, host, acquired_at, provider, pid_start) VALUES (1, 's', 1, ?1, ?2, 'claude', ?3)",
            params![hostname(), clock::now_stamp(), init_start],
        )
        .unwrap();
        // pid 1 is alive as recorded: held, and a bounded wait gives up naming the holder.
        let t = Instant::now();
        let held = GateStore::acquire(conn, Some("cursor"), Some("me"), Duration::from_millis(200)).unwrap();
        assert!(t.elapsed() >= Duration::from_millis(200));
        assert!(held.unwrap_err().describe().starts_with("provider claude, session s, pid 1 on"));
        conn.execute("UPDATE gate_lock SET pid = 999999999", []).unwrap();
        assert!(
            GateStore::try_lock(conn, None, None).unwrap().is_ok(),
            "a gone process is reclaimed"
        );
        GateStore::new(conn).unlock().unwrap();
        let n: i64 = conn.query_row("SELECT count(*) FROM gate_lock", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 0);
        conn.execute(
            "INSERT INTO gate_lock (id, session_id, pid, host, acquired_at) VALUES (1, 's', 1, ?1, 'garbage')",
            params![hostname()],
        )
        .unwrap();
        assert!(
            GateStore::try_lock(conn, None, None).unwrap().is_ok(),
            "an unreadable time is stale"
        );
        conn.execute("UPDATE gate_lock SET pid = 1, acquired_at = '2020-01-01T00:00:00.000Z'", [])
            .unwrap();
        assert!(GateStore::try_lock(conn, None, None).unwrap().is_ok(), "older than 30 minutes");
        // Forged rows (issue 51): pid 1 with another start time, with none, or taken in 2099.
        for (start, at) in [
            (init_start.map(|s| s + 1), clock::now_stamp()),
            (None, clock::now_stamp()),
            (init_start, "2099-01-01T00:00:00.000Z".to_string()),
        ] {
            conn.execute(
                "INSERT OR REPLACE INTO gate_lock (id, session_id, pid, host, acquired_at, pid_start) VALUES (1, 's', 1, ?1, ?2, ?3)",
                params![hostname(), at, start],
            )
            .unwrap();
            assert!(
                GateStore::try_lock(conn, None, None).unwrap().is_ok(),
                "a forged holder ({start:?}, {at}) is reclaimed"
            );
        }
        let start: Option<i64> = conn.query_row("SELECT pid_start FROM gate_lock", [], |r| r.get(0)).unwrap();
        assert_eq!(
            start,
            crate::sys::process_start_time(i64::from(std::process::id())).map(|s| s as i64)
        );
    }

    #[test]
    fn runs_round_trip_and_resolutions_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(crate::store::DbKind::Project, &dir.path().join("t.db")).unwrap();
        let conn = store.conn();
        let st = GateStore::new(conn);
        let mut run = GateRun {
            gate: "test".into(),
            verdict: "fail".into(),
            category: Some("verification".into()),
            fingerprint: Some("fp".into()),
            findings: vec![Finding::new("boom")],
            started_at: clock::now_stamp(),
            ..GateRun::default()
        };
        run.id = st.insert_run(&run).unwrap();
        let back = st.latest(Some("test"), None).unwrap().unwrap();
        assert_eq!(back.findings, run.findings);
        assert_eq!(back.to_v1()["passed"], false);
        assert_eq!(back.to_v1()["classification"], "verification");
        for _ in 0..(MAX_RESOLUTIONS + 5) {
            st.add_resolution(&run, &run, &v(&["a", "b", "c", "d", "e", "f", "g", "h", "i"]))
                .unwrap();
        }
        let n: i64 = conn.query_row("SELECT count(*) FROM gate_resolutions", [], |r| r.get(0)).unwrap();
        assert_eq!(n, MAX_RESOLUTIONS);
        assert_eq!(st.resolution("fp").unwrap().unwrap().0.len(), MAX_RESOLUTION_FILES);
    }
}
