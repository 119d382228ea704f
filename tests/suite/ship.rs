//! `tlc obs ship` against a real OTLP/HTTP receiver on 127.0.0.1 that decodes every request with
//! the official OpenTelemetry protocol classes (tests/suite/ship_support/receiver.py), checked against
//! the project database and the cost report; and docs/ship.md's ClickHouse queries on chdb.

use crate::common;
use crate::ship_support;

use common::{at_terminal, fixture, isolate, stderr, stdout, TLC};
use serde_json::{json, Value};
use ship_support::{attrs, data_points, free_port, log_records, spans, Receiver};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A replayed Claude Code session (`tlc demo`) in a scratch folder, with a machine config.
struct Lab {
    dir: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
}

impl Lab {
    /// Writes `machine` as the machine tier, then replays the demo session through the real hook.
    fn new(machine: &str) -> Lab {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("config.toml"), machine).unwrap();
        let lab = Lab {
            repo: dir.path().join("repo"),
            home,
            dir,
        };
        let out = lab.raw(&["demo", "--dir", &lab.dir.path().display().to_string()], lab.dir.path());
        assert!(out.status.success(), "tlc demo: {}", stderr(&out));
        lab
    }

    /// A real git repository (no demo) whose committed project config is `project`, with the
    /// machine tier `machine`.
    fn git(machine: &str, project: &str) -> Lab {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("config.toml"), machine).unwrap();
        let lab = Lab {
            repo: dir.path().join("repo"),
            home,
            dir,
        };
        lab.write(".tlc/harness/config.toml", project);
        lab.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n");
        lab.git_run(&["init", "-q"]);
        lab.git_run(&["add", "-A"]);
        lab.git_run(&["commit", "-qm", "init"]);
        lab
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.repo.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn git_run(&self, args: &[&str]) {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(&self.repo)
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    }

    fn cmd_in(&self, args: &[&str], cwd: &Path) -> Command {
        let mut c = Command::new(TLC);
        c.args(args).current_dir(cwd).stdin(Stdio::null());
        isolate(&mut c, &self.home, &self.dir.path().join("user"));
        c
    }

    fn cmd(&self, args: &[&str]) -> Command {
        self.cmd_in(args, &self.repo)
    }

    fn raw(&self, args: &[&str], cwd: &Path) -> Output {
        self.cmd_in(args, cwd).output().expect("run tlc")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.raw(args, &self.repo)
    }

    /// Runs an operator-only command at a terminal and asserts success.
    fn op_ok(&self, args: &[&str]) {
        let out = at_terminal(&self.cmd(args));
        assert!(out.status.success(), "tlc {args:?} at a terminal failed: {}", stdout(&out));
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "tlc {args:?} failed ({:?}):\n{}\n{}",
            out.status.code(),
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.ok(args)).unwrap_or_else(|e| panic!("tlc {args:?}: not JSON: {e}"))
    }

    fn hook(&self, payload: &str) {
        self.hook_answer(payload);
    }

    /// Runs `tlc hook claude` on `payload`; its answer.
    fn hook_answer(&self, payload: &str) -> String {
        let text = payload.replace("\"/repo", &format!("\"{}", self.repo.display()));
        let out = common::pipe(self.cmd(&["hook", "claude"]), text.as_bytes());
        assert!(out.status.success());
        stdout(&out)
    }

    fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.repo.join(".tlc/harness/state/tlc.db")).unwrap()
    }

    fn count(&self, sql: &str) -> i64 {
        self.db().query_row(sql, [], |r| r.get(0)).expect(sql)
    }

    /// Adds what the demo lacks: denied tool calls (the floor, then policy integrity), gate runs
    /// that pass and fail, and ship-ledger rows.
    fn add_denials_gates_and_ledger(&self) {
        self.hook(&fixture("providers/claude/session-start.json"));
        // Floor denials: `rm -rf /` (the fixture) and a read of the cloud metadata endpoint.
        self.hook(&fixture("providers/claude/pre-tool-use-bash.json"));
        self.hook(&floor_bash("sess-abc", &format!("curl {METADATA}")));
        let cfg = self.repo.join(".tlc/harness/config.toml");
        let mut text = std::fs::read_to_string(&cfg).unwrap();
        text.push_str("# edited behind tlc's back\n");
        std::fs::write(&cfg, text).unwrap();
        self.hook(&fixture("providers/claude/pre-tool-use-edit.json"));
        self.hook(&floor_bash("sess-abc", "ls"));
        self.hook(&fixture("providers/claude/pre-tool-use-read.json"));
        self.op_ok(&["gate", "test-command", "true"]);
        self.op_ok(&["gate", "lint-command", "false"]);
        for _ in 0..3 {
            self.ok(&["gate", "run", "test"]);
        }
        let _ = self.run(&["gate", "run", "lint"]);
        let ledger = self.dir.path().join("ledger.jsonl");
        std::fs::write(
            &ledger,
            "{\"ts\":\"2026-11-29T10:00:00Z\",\"type\":\"claim\",\"session_id\":\"sess-abc\",\"summary\":\"ready\"}\n\
             {\"ts\":\"2026-11-29T10:01:00Z\",\"type\":\"challenge\",\"session_id\":\"sess-abc\",\"summary\":\"no evidence\"}\n",
        )
        .unwrap();
        self.ok(&["obs", "import", "jsonl", &ledger.display().to_string()]);
    }

    fn cursors(&self) -> BTreeMap<String, i64> {
        let st = self.json(&["obs", "ship", "--status", "--json"]);
        st["cursors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["stream"].as_str().unwrap().to_string(), c["last_id"].as_i64().unwrap()))
            .collect()
    }
}

/// A cloud metadata address: reading it is a floor denial (secret-access).
const METADATA: &str = "http://169.254.169.254/latest/meta-data/iam";

/// A Claude Code PreToolUse of Bash running `command` in the lab's repository.
fn floor_bash(session: &str, command: &str) -> String {
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": session,
        "cwd": "/repo",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": format!("toolu_floor_{}", command.len()),
    })
    .to_string()
}

fn machine(endpoint: &str, extra: &str) -> String {
    format!("[ship]\nenabled = true\nendpoint = \"{endpoint}\"\n{extra}")
}

fn receiver(behaviour: Value) -> (tempfile::TempDir, Receiver) {
    let dir = tempfile::tempdir().unwrap();
    let rx = Receiver::start(dir.path(), 0, behaviour);
    (dir, rx)
}

fn span_attr(span: &Value, key: &str) -> Option<Value> {
    attrs(&span["attributes"]).get(key).cloned()
}

fn int(v: Option<Value>) -> i64 {
    v.and_then(|v| v.as_i64()).unwrap_or(0)
}

/// Every span id the receiver took, with how often.
fn span_counts(rx: &Receiver) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for (s, _) in spans(&rx.taken()) {
        *m.entry(s["spanId"].as_str().unwrap().to_string()).or_default() += 1;
    }
    m
}

fn log_uid_counts(rx: &Receiver) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for r in log_records(&rx.taken()) {
        let uid = attrs(&r["attributes"])["tlc.record.uid"].as_str().unwrap().to_string();
        *m.entry(uid).or_default() += 1;
    }
    m
}

/// Spans the database says there should be: responses, finished tool calls, subagent and session ends.
fn expected_spans(lab: &Lab) -> i64 {
    lab.count(
        "SELECT count(*) FROM events WHERE session_id IS NOT NULL AND (kind IN ('generation.end', 'session.end') \
         OR (kind = 'subagent.end' AND span_id IS NOT NULL) OR phase IN ('end', 'fail'))",
    )
}

fn expected_logs(lab: &Lab) -> i64 {
    lab.count("SELECT count(*) FROM events WHERE plane = 'signal' AND kind <> 'generation.end'")
        + lab.count("SELECT count(*) FROM decisions")
        + lab.count("SELECT count(*) FROM floor_denials")
        + lab.count("SELECT count(*) FROM gate_runs")
        + lab.count("SELECT count(*) FROM ship_ledger")
        + lab.count("SELECT count(*) FROM stop_outcomes")
        + lab.count("SELECT count(*) FROM attestations")
}

#[test]
fn a_replayed_session_ships_the_cost_reports_tokens_and_a_second_ship_sends_nothing() {
    let (_d, rx) = receiver(json!({}));
    let lab = Lab::new(&machine(&rx.endpoint(), "user = \"dev@example.com\"\n"));
    assert!(rx.log().is_empty(), "a hook sent something: the hook path must never send");
    lab.add_denials_gates_and_ledger();

    let out = lab.ok(&["obs", "ship"]);
    assert!(out.starts_with("sent "), "{out}");
    let log = rx.log();
    assert!(log.iter().all(|e| e["status"] == 200), "every request decoded: {log:?}");
    let taken = rx.taken();

    // Spans per model equal the cost report of the same database.
    let cost = lab.json(&["obs", "cost", "--by", "model", "--json", "--here"]);
    let all = spans(&taken);
    let chats: Vec<&Value> = all
        .iter()
        .map(|(s, _)| s)
        .filter(|s| span_attr(s, "gen_ai.operation.name") == Some(json!("chat")))
        .collect();
    let rows = cost["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        let model = row["key"].as_str().unwrap();
        let mine: Vec<&&Value> = chats
            .iter()
            .filter(|s| span_attr(s, "gen_ai.response.model") == Some(json!(model)))
            .collect();
        let sum = |k: &str| mine.iter().map(|s| int(span_attr(s, k))).sum::<i64>();
        let (input, output) = (row["input_tokens"].as_i64().unwrap(), row["output_tokens"].as_i64().unwrap());
        let (read, write) = (
            row["cache_read_tokens"].as_i64().unwrap(),
            row["cache_write_tokens"].as_i64().unwrap(),
        );
        assert_eq!(mine.len() as i64, row["responses"].as_i64().unwrap(), "{model}: responses");
        assert_eq!(sum("gen_ai.usage.input_tokens"), input + read + write, "{model}: input");
        assert_eq!(sum("gen_ai.usage.output_tokens"), output, "{model}: output");
        assert_eq!(sum("gen_ai.usage.cache_read.input_tokens"), read, "{model}: cache read");
        assert_eq!(sum("gen_ai.usage.cache_creation.input_tokens"), write, "{model}: cache write");
        let usd: f64 = mine.iter().filter_map(|s| span_attr(s, "tlc.cost_usd")?.as_f64()).sum();
        let want = row["cost_usd"].as_f64().unwrap_or(0.0);
        assert!((usd - want).abs() < 1e-9, "{model}: cost {usd} vs {want}");
        for s in &mine {
            assert_eq!(span_attr(s, "gen_ai.provider.name"), Some(json!("anthropic")));
            assert_eq!(span_attr(s, "gen_ai.request.model"), Some(json!(model)));
        }
    }
    assert_eq!(
        chats.len() as i64,
        lab.count("SELECT count(*) FROM events WHERE kind = 'generation.end'")
    );
    // Tool calls are execute_tool spans, children of their session's trace.
    let tools: Vec<&Value> = all
        .iter()
        .map(|(s, _)| s)
        .filter(|s| span_attr(s, "gen_ai.operation.name") == Some(json!("execute_tool")))
        .collect();
    assert_eq!(
        tools.len() as i64,
        lab.count("SELECT count(*) FROM events WHERE session_id IS NOT NULL AND phase IN ('end', 'fail')")
    );
    assert!(tools
        .iter()
        .all(|t| span_attr(t, "gen_ai.tool.name").is_some() && t["parentSpanId"].is_string()));
    let failed = tools.iter().filter(|t| t["status"]["code"] == "STATUS_CODE_ERROR").count() as i64;
    assert_eq!(failed, lab.count("SELECT count(*) FROM events WHERE phase = 'fail'"));
    let timed = tools
        .iter()
        .find(|t| span_attr(t, "tlc.duration_ms").is_some())
        .expect("a timed tool call");
    let (start, end): (u64, u64) = (
        timed["startTimeUnixNano"].as_str().unwrap().parse().unwrap(),
        timed["endTimeUnixNano"].as_str().unwrap().parse().unwrap(),
    );
    assert_eq!((end - start) / 1_000_000, int(span_attr(timed, "tlc.duration_ms")) as u64);
    assert_eq!(all.len() as i64, expected_spans(&lab));
    // One trace per session.
    let traces: BTreeSet<&str> = all.iter().map(|(s, _)| s["traceId"].as_str().unwrap()).collect();
    assert_eq!(
        traces.len() as i64,
        lab.count("SELECT count(DISTINCT session_id) FROM events WHERE kind = 'generation.end' OR phase IN ('end','fail')")
    );

    // Log records: decisions with rule and verdict, gate runs, ledger rows, signal events.
    let logs = log_records(&taken);
    assert_eq!(logs.len() as i64, expected_logs(&lab));
    let by_kind = |k: &str| {
        logs.iter()
            .filter(|r| attrs(&r["attributes"])["tlc.record.kind"] == k)
            .map(|r| attrs(&r["attributes"]))
            .collect::<Vec<_>>()
    };
    let denials = by_kind("decision").into_iter().filter(|a| a["tlc.verdict"] == "deny").count() as i64;
    assert!(lab.count("SELECT count(*) FROM decisions WHERE permission = 'deny' AND rule = 'policy-integrity'") >= 2);
    assert_eq!(denials, lab.count("SELECT count(*) FROM decisions WHERE permission = 'deny'"));
    // Floor denials: a record of their own per denial (also a decision), rule and verdict, WARN;
    // the command is a payload text and stays home.
    let floor: BTreeMap<String, i64> = by_kind("floor_denial").iter().fold(BTreeMap::new(), |mut m, a| {
        assert_eq!(a["tlc.verdict"], "deny", "{a:?}");
        assert_eq!(a["tlc.decision.subject"], "shell", "{a:?}");
        assert!(
            a.get("tlc.decision.detail").is_none(),
            "a command left without ship.includePayloads"
        );
        *m.entry(a["tlc.rule"].as_str().unwrap().to_string()).or_default() += 1;
        m
    });
    // `rm -rf /` and the metadata read, and the demo's own `rm -rf ~/calc-old-build`.
    assert_eq!(
        floor,
        BTreeMap::from([("outside-project-destruction".to_string(), 2), ("secret-access".to_string(), 1)])
    );
    assert_eq!(lab.count("SELECT count(*) FROM floor_denials"), 3);
    let floor_logs: Vec<&Value> = logs
        .iter()
        .filter(|r| attrs(&r["attributes"])["tlc.record.kind"] == "floor_denial")
        .collect();
    assert!(floor_logs
        .iter()
        .all(|r| r["severityText"] == "WARN" && r["eventName"] == "tlc.floor_denial"));
    assert!(
        !rx.raw_log().contains("meta-data"),
        "a floor denial's command left without payloads"
    );
    let gates = by_kind("gate_run");
    // Three passing `gate run test`, and the demo's own test gate: a failure, then a pass.
    assert_eq!(gates.iter().filter(|a| a["tlc.verdict"] == "pass").count(), 4);
    assert_eq!(
        gates
            .iter()
            .filter(|a| a["tlc.verdict"] == "fail" && a["tlc.rule"] == "test")
            .count(),
        1
    );
    assert_eq!(
        gates
            .iter()
            .filter(|a| a["tlc.verdict"] == "fail" && a["tlc.rule"] == "lint")
            .count(),
        1
    );
    assert_eq!(by_kind("ship_ledger").len(), 2);
    // The demo's stops: sent back by its failing test gate, then let through.
    let stops = by_kind("stop_outcome");
    assert_eq!(stops.len() as i64, lab.count("SELECT count(*) FROM stop_outcomes"));
    let mut verdicts: Vec<&str> = stops.iter().map(|a| a["tlc.verdict"].as_str().unwrap()).collect();
    verdicts.sort_unstable();
    assert_eq!(verdicts, ["allow", "block"], "{stops:?}");
    // Each session's attestation record travels whole, with its place in the chain and its hashes.
    let attestations = by_kind("attestation");
    assert!(lab.count("SELECT count(*) FROM attestations") >= 1, "the demo's session ended");
    assert_eq!(attestations.len() as i64, lab.count("SELECT count(*) FROM attestations"));
    let stored: String = lab
        .db()
        .query_row("SELECT record FROM attestations WHERE seq = 1", [], |r| r.get(0))
        .unwrap();
    let first = attestations
        .iter()
        .find(|a| a["tlc.attestation.seq"].to_string().trim_matches('"') == "1")
        .expect("record 1 shipped");
    assert_eq!(first["tlc.attestation.record"], stored.as_str());

    // The token usage histogram: the conventions' buckets, the same sums.
    let points = data_points(&taken);
    assert!(points.iter().all(|(n, _)| n == "gen_ai.client.token.usage"));
    let bounds: Vec<f64> = points[0].1["explicitBounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_f64().unwrap())
        .collect();
    assert_eq!(
        bounds,
        [1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0, 16777216.0, 67108864.0]
    );
    let hist_sum = |t: &str| -> f64 {
        points
            .iter()
            .filter(|(_, p)| attrs(&p["attributes"])["gen_ai.token.type"] == t)
            .map(|(_, p)| p["sum"].as_f64().unwrap())
            .sum()
    };
    let totals = &cost["totals"];
    let t = |k: &str| totals[k].as_i64().unwrap() as f64;
    assert_eq!(hist_sum("output"), t("output_tokens"));
    assert_eq!(
        hist_sum("input"),
        t("input_tokens") + t("cache_read_tokens") + t("cache_write_tokens")
    );

    // Who sent it: the resource, and never a local path.
    let res = &all[0].1;
    assert_eq!(res["service.name"], "tlc");
    assert_eq!(res["user.name"], "dev@example.com");
    assert_eq!(res["vcs.repository.name"], "repo");
    assert!(res["host.name"].as_str().is_some_and(|h| !h.is_empty()));
    assert_eq!(res["service.version"], env!("CARGO_PKG_VERSION"));
    let raw = rx.raw_log();
    assert!(
        !raw.contains(&lab.dir.path().display().to_string()),
        "a local path left the machine"
    );

    // Everything once; and a second ship sends nothing.
    assert!(span_counts(&rx).values().all(|n| *n == 1));
    assert!(log_uid_counts(&rx).values().all(|n| *n == 1));
    let before = rx.log().len();
    let again = lab.ok(&["obs", "ship"]);
    assert!(again.contains("nothing new to send"), "{again}");
    assert_eq!(rx.log().len(), before, "a second ship sent requests");
    let st = lab.json(&["obs", "ship", "--status", "--json"]);
    let cursors = st["cursors"].as_array().unwrap();
    assert_eq!(cursors.len(), 9, "every stream sent: {st}");
    assert!(cursors.iter().all(|c| c["sent_at"].is_string() && c["error"].is_null()));
}

/// Every span and log record the database holds arrived; none more than `dup_limit` times over.
fn assert_all_arrived(lab: &Lab, rx: &Receiver, dup_limit: usize) {
    let spans = span_counts(rx);
    assert_eq!(spans.len() as i64, expected_spans(lab), "every span arrived");
    let logs = log_uid_counts(rx);
    assert_eq!(logs.len() as i64, expected_logs(lab), "every log record arrived");
    let dups: usize = spans.values().chain(logs.values()).map(|n| n - 1).sum();
    assert!(
        dups <= dup_limit,
        "{dups} duplicates, more than the {dup_limit} one request in flight can make"
    );
}

#[test]
fn with_the_collector_down_the_cursor_stays_and_a_later_run_sends_everything_once() {
    let port = free_port();
    let lab = Lab::new(&machine(&format!("http://127.0.0.1:{port}"), ""));
    let out = lab.run(&["obs", "ship"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("cannot send") && err.contains("nothing was lost"), "{err}");
    assert!(lab.cursors().values().all(|v| *v == 0), "a cursor moved without an acknowledgement");
    let st = lab.json(&["obs", "ship", "--status", "--json"]);
    let c = &st["cursors"][0];
    assert_eq!(c["stream"], "spans", "the first stream failed and the run stopped: {st}");
    assert!(c["error"].as_str().unwrap().contains("cannot send"), "{st}");
    assert!(c["sent_at"].is_null());
    assert_eq!(st["cursors"].as_array().unwrap().len(), 1);

    let dir = tempfile::tempdir().unwrap();
    let rx = Receiver::start(dir.path(), port, json!({}));
    lab.ok(&["obs", "ship"]);
    assert_all_arrived(&lab, &rx, 0);
}

/// A collector named by host name (`localhost`, from `/etc/hosts`) is reached by the static build,
/// which resolves names without NSS modules (issue 37), and with no `USER`, `LOGNAME` or
/// `ship.user` the records carry the login name read from `/etc/passwd` for this process's uid.
#[test]
fn a_collector_named_by_host_name_gets_everything_with_the_login_name_from_the_password_file() {
    let (_d, rx) = receiver(json!({}));
    let lab = Lab::new(&machine(&format!("http://localhost:{}", rx.port), ""));
    let out = lab.cmd(&["obs", "ship"]).env_remove("USER").env_remove("LOGNAME").output().unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with("sent "), "{}", stdout(&out));
    assert_all_arrived(&lab, &rx, 0);

    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata("/proc/self").unwrap().uid();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let name = passwd
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() > 2 && f[2] == uid.to_string()).then(|| f[0].to_string())
        })
        .expect("this uid in /etc/passwd");
    let taken = rx.taken();
    let all = spans(&taken);
    assert!(!all.is_empty());
    assert!(all.iter().all(|(_, res)| res["user.name"] == name.as_str()), "{:?}", all[0].1);
}

#[test]
fn a_503_is_retried_after_its_retry_after_and_the_batch_arrives_once() {
    let (_d, rx) = receiver(json!({"fail": [[503, "1"]]}));
    let lab = Lab::new(&machine(&rx.endpoint(), ""));
    lab.ok(&["obs", "ship"]);
    let log = rx.log();
    assert_eq!(log[0]["status"], 503);
    assert_eq!(log[1]["status"], 200);
    assert_eq!(log[0]["bytes"], log[1]["bytes"], "the same request again");
    let waited = log[1]["t"].as_f64().unwrap() - log[0]["t"].as_f64().unwrap();
    assert!(waited >= 0.95, "Retry-After: 1 not honoured (waited {waited:.3} s)");
    assert_all_arrived(&lab, &rx, 0);
}

#[test]
fn a_413_splits_the_batch_until_the_collector_takes_it() {
    // A limit below the batches but above the largest single record (a session's attestation
    // record, about 2.5 KB; a single record that does not fit is an error naming it and its row).
    let (_d, rx) = receiver(json!({"max_body": 4000}));
    let lab = Lab::new(&machine(&rx.endpoint(), ""));
    let report = lab.json(&["obs", "ship", "--json"]);
    let spans_stream = report["streams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stream"] == "spans")
        .unwrap();
    assert!(spans_stream["splits"].as_i64().unwrap() > 0, "{report}");
    let log = rx.log();
    assert!(log.iter().any(|e| e["status"] == 413));
    assert!(rx.taken().iter().all(|e| e["bytes"].as_i64().unwrap() <= 4000));
    assert_all_arrived(&lab, &rx, 0);
}

#[test]
fn a_slow_collector_times_out_without_losing_anything() {
    let (_d, rx) = receiver(json!({"delay_s": 3}));
    let lab = Lab::new(&machine(&rx.endpoint(), "timeoutMs = 400\n"));
    let started = Instant::now();
    let out = lab.run(&["obs", "ship"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        started.elapsed() < Duration::from_millis(2900),
        "the timeout did not stop the request"
    );
    assert!(stderr(&out).contains("no answer within 400 ms"), "{}", stderr(&out));
    assert!(lab.cursors().values().all(|v| *v == 0));
    // The collector took that request after all (it was only slow): at least once, never lost.
    let in_flight = rx.taken()[0]["records"].as_u64().unwrap() as usize;
    rx.set_behaviour(json!({}));
    lab.ok(&["obs", "ship"]);
    assert_all_arrived(&lab, &rx, in_flight);
}

#[test]
fn a_send_killed_midway_is_sent_again_by_the_next_run() {
    let (_d, rx) = receiver(json!({"delay_s": 30}));
    let lab = Lab::new(&machine(&rx.endpoint(), "maxBatchRecords = 4\ntimeoutMs = 60000\n"));
    let mut child = lab
        .cmd(&["obs", "ship"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while rx.log().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(30), "no request reached the receiver");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: no handler, no cleanup
    let _ = child.wait();
    assert!(
        lab.cursors().values().all(|v| *v == 0),
        "a cursor moved for an unacknowledged request"
    );
    rx.set_behaviour(json!({}));
    lab.ok(&["obs", "ship"]);
    // The killed request's records arrive twice at most: OTLP delivery is at least once.
    assert_all_arrived(&lab, &rx, 4);
}

#[test]
fn the_json_encoding_decodes_with_the_official_schema_and_a_partial_success_is_recorded() {
    let (_d, rx) = receiver(json!({"reject": 1}));
    let lab = Lab::new(&machine(&rx.endpoint(), "protocol = \"http/json\"\n"));
    let out = lab.ok(&["obs", "ship"]);
    assert!(out.contains("partial success"), "{out}");
    let log = rx.log();
    assert!(
        log.iter().all(|e| e["status"] == 200 && e["content_type"] == "application/json"),
        "{log:?}"
    );
    assert_all_arrived(&lab, &rx, 0);
    let st = lab.json(&["obs", "ship", "--status", "--json"]);
    let cursors = st["cursors"].as_array().unwrap();
    let rejected: i64 = cursors.iter().map(|c| c["rejected"].as_i64().unwrap()).sum();
    assert_eq!(rejected as usize, log.len(), "one rejected record per request, counted");
    assert!(cursors
        .iter()
        .all(|c| c["partial"].as_str().unwrap().contains("test receiver rejects 1")));
    // Rejected for good: the cursor moved on, a second run sends nothing.
    let before = rx.log().len();
    lab.ok(&["obs", "ship"]);
    assert_eq!(rx.log().len(), before);
}

#[test]
fn a_dry_run_sends_nothing_moves_nothing_and_creates_nothing() {
    let (_d, rx) = receiver(json!({}));
    let lab = Lab::new(&machine(&rx.endpoint(), ""));
    let report = lab.json(&["obs", "ship", "--dry-run", "--format", "json"]);
    assert!(rx.log().is_empty());
    assert!(lab.cursors().is_empty());
    let requests = report["requests"].as_array().unwrap();
    let spans_in: usize = requests
        .iter()
        .filter(|r| r["signal"] == "traces")
        .map(|r| r["body"]["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().unwrap().len())
        .sum();
    assert_eq!(spans_in as i64, expected_spans(&lab));
    assert!(lab.ok(&["obs", "ship", "--dry-run"]).starts_with("dry run"));

    // In a repository with nothing recorded, a dry run and --status create no file.
    let bare = tempfile::tempdir().unwrap();
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(bare.path())
        .status()
        .unwrap()
        .success());
    let before = common::tree(lab.dir.path());
    let bare_before = common::tree(bare.path());
    for args in [&["obs", "ship", "--dry-run"][..], &["obs", "ship", "--status"][..]] {
        let out = lab.raw(args, bare.path());
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert_eq!(common::tree(bare.path()), bare_before);
    assert_eq!(common::tree(lab.dir.path()), before);
}

#[test]
fn shipping_is_off_by_default_and_a_project_config_cannot_turn_it_on() {
    let (_d, rx) = receiver(json!({}));
    let lab = Lab::new(&format!("[ship]\nendpoint = \"{}\"\n", rx.endpoint()));
    let out = lab.run(&["obs", "ship"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("shipping is off"), "{}", stderr(&out));
    let cfg = lab.repo.join(".tlc/harness/config.toml");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str(&format!("\n[ship]\nenabled = true\nendpoint = \"{}\"\n", rx.endpoint()));
    std::fs::write(&cfg, text).unwrap();
    let out = lab.run(&["obs", "ship"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("ship.enabled") && err.contains("machine tier"), "{err}");
    // Nor can the environment redirect what the machine tier names.
    let out = lab
        .cmd(&["obs", "ship", "--status", "--json"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "the project file still does not load");
    assert!(rx.log().is_empty());
}

/// A turn in a real git repository whose test command fails at the first stop (blocked) and
/// passes at the second (let through), then `tlc obs ship` with `extra` in the machine tier's
/// `[ship]`.
fn ship_a_blocked_then_passed_turn(extra: &str) -> (Lab, tempfile::TempDir, Receiver) {
    let (d, rx) = receiver(json!({}));
    let lab = Lab::git(
        &machine(&rx.endpoint(), extra),
        "[grind]\nenabled = true\ntestCommand = [\"sh\", \"tools/t.sh\"]\n",
    );
    let pass = lab.dir.path().join("pass");
    lab.write(
        "tools/t.sh",
        &format!(
            "#!/bin/sh\nif [ -f {} ]; then echo ok; exit 0; fi\necho 'test adds_two ... FAILED'\nexit 1\n",
            pass.display()
        ),
    );
    lab.git_run(&["add", "-A"]);
    lab.git_run(&["commit", "-qm", "test script"]);
    let stop = |active: bool| {
        lab.hook_answer(&format!(
            "{{\"hook_event_name\":\"Stop\",\"session_id\":\"sess-stop\",\"cwd\":\"/repo\",\"stop_hook_active\":{active},\"last_assistant_message\":\"done\"}}"
        ))
    };
    lab.hook("{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"sess-stop\",\"cwd\":\"/repo\",\"prompt\":\"go\"}");
    lab.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
    assert!(stop(false).contains("\"decision\":\"block\""), "a failing test blocks the stop");
    std::fs::write(&pass, "").unwrap();
    lab.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 2\n}\n");
    assert_eq!(stop(true), "", "a passing test lets the stop through");
    lab.ok(&["obs", "ship"]);
    (lab, d, rx)
}

/// Each log record of kind `kind` the receiver took, with its attributes.
fn records_of_kind(rx: &Receiver, kind: &str) -> Vec<(Value, serde_json::Map<String, Value>)> {
    log_records(&rx.taken())
        .into_iter()
        .map(|r| {
            let a = attrs(&r["attributes"]);
            (r, a)
        })
        .filter(|(_, a)| a["tlc.record.kind"] == kind)
        .collect()
}

fn column(rows: &[(Value, serde_json::Map<String, Value>)], key: &str) -> Vec<Value> {
    rows.iter().map(|(_, a)| a.get(key).cloned().unwrap_or(Value::Null)).collect()
}

#[test]
fn stop_outcomes_ship_as_log_records_beside_the_gate_runs_that_decided_them() {
    // Default: the rule and verdict leave, the block's text stays home.
    let (lab, _d, rx) = ship_a_blocked_then_passed_turn("");
    assert_eq!(log_records(&rx.taken()).len() as i64, expected_logs(&lab));
    let stops = records_of_kind(&rx, "stop_outcome");
    assert_eq!(column(&stops, "tlc.verdict"), [json!("block"), json!("allow")]);
    assert_eq!(column(&stops, "tlc.rule"), [json!("grind-test"), json!("passed")]);
    assert_eq!(
        stops.iter().map(|(r, _)| r["severityText"].clone()).collect::<Vec<_>>(),
        [json!("WARN"), json!("INFO")]
    );
    assert_eq!(stops[0].0["eventName"], "tlc.stop_outcome");
    assert!(stops
        .iter()
        .all(|(_, a)| a["tlc.agent"] == "claude" && a["gen_ai.conversation.id"] == "sess-stop"));
    assert_eq!(stops[0].1["tlc.stop.attempt"], 1);
    assert!(
        stops.iter().all(|(_, a)| a.get("tlc.stop.detail").is_none()),
        "a stop's detail left without ship.includePayloads: {stops:?}"
    );
    let raw = rx.raw_log();
    assert!(!raw.contains("BLOCKED:"), "a block's text left without ship.includePayloads");
    assert!(!raw.contains("adds_two"), "gate output left without ship.includePayloads");

    // The gate runs behind them: provider, the turn's attempt, and the failure's fingerprint,
    // the same one the block names (a fingerprint is a hash, not a payload text).
    let runs = records_of_kind(&rx, "gate_run");
    assert_eq!(column(&runs, "tlc.verdict"), [json!("fail"), json!("pass")]);
    assert!(runs.iter().all(|(_, a)| a["tlc.agent"] == "claude" && a["tlc.rule"] == "test"));
    let fingerprint: String = lab
        .db()
        .query_row("SELECT fingerprint FROM gate_runs WHERE verdict = 'fail'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs[0].1["tlc.gate.fingerprint"], fingerprint.as_str());
    assert_eq!(stops[0].1["tlc.gate.fingerprint"], fingerprint.as_str());
    assert_eq!(runs[0].1["tlc.gate.attempt"], 1);
    assert_eq!(
        runs[1].1["tlc.gate.attempt"],
        lab.count("SELECT attempt FROM gate_runs WHERE verdict = 'pass'")
    );
    assert!(runs[1].1.get("tlc.gate.fingerprint").is_none(), "a pass has no fingerprint");

    // Each stop once; the next run has nothing new.
    assert!(log_uid_counts(&rx).values().all(|n| *n == 1));
    assert!(lab.ok(&["obs", "ship"]).contains("nothing new to send"));
    assert_eq!(lab.cursors()["stop_outcomes"], lab.count("SELECT max(id) FROM stop_outcomes"));

    // With ship.includePayloads: the block's headline, as stored.
    let (lab, _d, rx) = ship_a_blocked_then_passed_turn("includePayloads = true\n");
    let stops = records_of_kind(&rx, "stop_outcome");
    assert_eq!(column(&stops, "tlc.rule"), [json!("grind-test"), json!("passed")]);
    let stored: String = lab
        .db()
        .query_row("SELECT detail FROM stop_outcomes WHERE outcome = 'block'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, "test failed [verification]", "the block's headline");
    assert_eq!(stops[0].1["tlc.stop.detail"], stored.as_str(), "{:?}", stops[0].1);
}

#[test]
fn payload_texts_stay_home_unless_asked_and_what_is_sent_is_redacted() {
    let secret = "ghp_Abcdefghijklmnopqrstuvwxyz0123456789";
    let prompt = format!(
        "{{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"sess-secret\",\"cwd\":\"/repo\",\"prompt\":\"deploy with {secret}\"}}"
    );
    // Default: no payload text leaves.
    // A floor denial whose command holds the secret.
    let denied = floor_bash("sess-secret", &format!("curl -H 'Authorization: token {secret}' {METADATA}"));
    let (_d, rx) = receiver(json!({}));
    let lab = Lab::new(&machine(&rx.endpoint(), ""));
    lab.hook(&prompt);
    lab.hook(&denied);
    lab.ok(&["obs", "ship"]);
    let raw = rx.raw_log();
    assert!(
        !raw.contains("Add subtract() to src/calc.sh"),
        "a prompt left without ship.includePayloads"
    );
    assert!(!raw.contains("deploy with"));
    assert!(
        !raw.contains("meta-data"),
        "a floor denial's command left without ship.includePayloads"
    );
    assert_eq!(
        floor_details(&rx),
        vec![None, None],
        "two floor denials (the demo's and this one), their commands kept home"
    );

    // Stored unredacted (secrets.redactOutput off), shipped with payloads: redacted on the way out.
    let (_d2, rx2) = receiver(json!({}));
    let lab2 = Lab::new(&format!(
        "[secrets]\nredactOutput = false\n\n{}",
        machine(&rx2.endpoint(), "includePayloads = true\n")
    ));
    lab2.hook(&prompt);
    lab2.hook(&denied);
    assert!(lab2.count(&format!("SELECT count(*) FROM events WHERE attrs LIKE '%{secret}%'")) > 0);
    assert_eq!(
        lab2.count(&format!("SELECT count(*) FROM floor_denials WHERE detail LIKE '%{secret}%'")),
        1,
        "stored as it came"
    );
    lab2.ok(&["obs", "ship"]);
    let raw = rx2.raw_log();
    assert!(
        raw.contains("Add subtract() to src/calc.sh"),
        "ship.includePayloads sends the prompt"
    );
    assert!(raw.contains("deploy with [REDACTED:"), "the secret's placeholder");
    assert!(!raw.contains(secret), "a secret left the machine");
    // The floor denial's command, redacted on the way out.
    let details = floor_details(&rx2);
    assert_eq!(details.len(), 2, "the demo's floor denial and this one: {details:?}");
    assert!(
        details.iter().all(Option::is_some),
        "ship.includePayloads sends the commands: {details:?}"
    );
    let command = details.iter().flatten().find(|c| c.starts_with("curl")).expect("the curl command");
    assert!(
        command.starts_with("curl -H 'Authorization: token [REDACTED:") && command.ends_with(METADATA),
        "{command}"
    );
}

/// The command (`tlc.decision.detail`) of every floor-denial log record the receiver took.
fn floor_details(rx: &Receiver) -> Vec<Option<String>> {
    log_records(&rx.taken())
        .iter()
        .map(|r| attrs(&r["attributes"]))
        .filter(|a| a["tlc.record.kind"] == "floor_denial")
        .map(|a| a.get("tlc.decision.detail").and_then(Value::as_str).map(str::to_string))
        .collect()
}

fn num(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn the_clickhouse_queries_in_the_docs_give_the_cost_reports_totals() {
    // The collector is never reached: a dry run needs no collector.
    let lab = Lab::new(&format!(
        "[obs]\nglobalSpool = true\n\n{}",
        machine("http://127.0.0.1:9", "user = \"dana@example.com\"\n")
    ));
    lab.add_denials_gates_and_ledger();
    let dry = lab.dir.path().join("dry-run.json");
    std::fs::write(&dry, lab.ok(&["obs", "ship", "--dry-run", "--format", "json"])).unwrap();
    let out = Command::new(ship_support::python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite/ship_support/clickhouse.py"))
        .arg(&dry)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ship.md"))
        .output()
        .unwrap();
    assert!(out.status.success(), "clickhouse.py: {}", stderr(&out));
    let res: Value = serde_json::from_slice(&out.stdout).unwrap();
    for q in [
        "cost_per_user_per_day",
        "denials_by_rule",
        "floor_denials_by_rule",
        "gate_pass_rate",
        "tokens_per_model",
    ] {
        assert!(res[q].is_array(), "docs/ship.md lost the query {q}: {res}");
    }
    assert_eq!(res["loaded"]["otel_traces"].as_i64().unwrap(), expected_spans(&lab));
    assert_eq!(res["loaded"]["otel_logs"].as_i64().unwrap(), expected_logs(&lab));

    // Cost per user per day sums to the cost report, of the home database (the spool) and here.
    let rows = res["cost_per_user_per_day"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["user"] == "dana@example.com"));
    let sum = |k: &str| rows.iter().map(|r| num(&r[k])).sum::<f64>();
    for cost in [lab.json(&["obs", "cost", "--json"]), lab.json(&["obs", "cost", "--json", "--here"])] {
        let t = &cost["totals"];
        let n = |k: &str| num(&t[k]);
        assert!(n("responses") > 0.0, "{cost}");
        assert_eq!(sum("responses"), n("responses"));
        assert_eq!(sum("output_tokens"), n("output_tokens"));
        assert_eq!(sum("cache_read_tokens"), n("cache_read_tokens"));
        assert_eq!(sum("cache_write_tokens"), n("cache_write_tokens"));
        assert_eq!(
            sum("input_tokens"),
            n("input_tokens") + n("cache_read_tokens") + n("cache_write_tokens")
        );
        assert!(
            (sum("cost_usd") - n("cost_usd")).abs() < 1e-9,
            "{} vs {}",
            sum("cost_usd"),
            n("cost_usd")
        );
    }
    // The days are the cost report's UTC days.
    let days: BTreeSet<String> = rows.iter().map(|r| r["day"].as_str().unwrap().to_string()).collect();
    let by_day = lab.json(&["obs", "cost", "--by", "day", "--json", "--here"]);
    let want: BTreeSet<String> = by_day["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(days, want);

    // Denials by rule: the decisions table.
    let denials: BTreeMap<String, i64> = res["denials_by_rule"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rule"].as_str().unwrap().to_string(), num(&r["denials"]) as i64))
        .collect();
    let db = lab.db();
    let mut stmt = db
        .prepare("SELECT rule, count(*) FROM decisions WHERE permission = 'deny' GROUP BY rule")
        .unwrap();
    let want: BTreeMap<String, i64> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(denials, want);

    // Floor denials by rule: the floor_denials view.
    let floor: BTreeMap<String, i64> = res["floor_denials_by_rule"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rule"].as_str().unwrap().to_string(), num(&r["denials"]) as i64))
        .collect();
    let mut stmt = db.prepare("SELECT rule, count(*) FROM floor_denials GROUP BY rule").unwrap();
    let want: BTreeMap<String, i64> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(want.len(), 2, "two floor rules denied: {want:?}");
    assert_eq!(floor, want);

    // Gate pass rate: the gate_runs table.
    for r in res["gate_pass_rate"].as_array().unwrap() {
        let gate = r["gate"].as_str().unwrap();
        let passed = lab.count(&format!(
            "SELECT count(*) FROM gate_runs WHERE gate = '{gate}' AND verdict = 'pass'"
        ));
        let failed = lab.count(&format!(
            "SELECT count(*) FROM gate_runs WHERE gate = '{gate}' AND verdict IN ('fail', 'config')"
        ));
        assert_eq!((num(&r["passed"]) as i64, num(&r["failed"]) as i64), (passed, failed), "{gate}");
        assert!((num(&r["pass_rate"]) - passed as f64 / (passed + failed) as f64).abs() < 1e-4);
    }
    assert_eq!(res["gate_pass_rate"].as_array().unwrap().len(), 2, "lint and test");

    // Tokens per model from the histogram: the cost report by model.
    let by_model = lab.json(&["obs", "cost", "--by", "model", "--json", "--here"]);
    for row in by_model["rows"].as_array().unwrap() {
        let model = row["key"].as_str().unwrap();
        let tokens = |t: &str| {
            res["tokens_per_model"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["model"] == model && r["token_type"] == t)
                .map(|r| num(&r["tokens"]))
                .unwrap_or_else(|| panic!("no {t} tokens for {model}"))
        };
        let n = |k: &str| num(&row[k]);
        assert_eq!(tokens("output"), n("output_tokens"));
        assert_eq!(
            tokens("input"),
            n("input_tokens") + n("cache_read_tokens") + n("cache_write_tokens")
        );
    }
}
