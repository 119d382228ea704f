//! End to end with the real Claude Code CLI (pinned, installed by the test support with npm):
//! `claude -p` in a scratch git repository, tlc's hooks wired by `tlc install --claude`, and a
//! scripted Messages API on 127.0.0.1. Each scenario asserts on the databases and on tlc's reports.
//!
//! The scenarios are independent (each its own world, API and port), so the test harness runs
//! them side by side.

mod e2e_support;

use e2e_support::api::{bash, conversation, text, Role, ScriptedApi, Sent, Step, Usage};
use e2e_support::{HookCall, Scratch};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Hook events counted per `attrs.event` in the project database, one row per hook call.
fn recorded_hook_events(s: &Scratch) -> BTreeMap<String, i64> {
    let db = s.db();
    let mut stmt = db
        .prepare(
            "SELECT json_extract(attrs, '$.event'), count(*) FROM events
             WHERE kind NOT IN ('generation.end', 'hook.fault', 'cost.session_alert', 'config.scaffolded')
             GROUP BY 1",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get::<_, Option<String>>(0)?.unwrap_or_default(), r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn called_hook_events(calls: &[HookCall]) -> BTreeMap<String, i64> {
    let mut m = BTreeMap::new();
    for c in calls {
        *m.entry(c.event.clone()).or_insert(0) += 1;
    }
    m
}

/// Every hook call Claude Code made is one event row in the project database, and no hook
/// recorded a fault.
fn assert_one_row_per_hook_call(s: &Scratch) -> Vec<HookCall> {
    let calls = s.hook_calls();
    assert!(!calls.is_empty(), "the logger saw no hook call");
    assert_eq!(
        recorded_hook_events(s),
        called_hook_events(&calls),
        "hook calls vs rows in the project database"
    );
    let faults: Vec<String> = s
        .db()
        .prepare("SELECT attrs FROM events WHERE kind = 'hook.fault'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(faults.is_empty(), "hook faults: {faults:?}");
    calls
}

/// Tokens per model as the project database's generation rows sum them.
fn db_tokens_by_model(s: &Scratch) -> BTreeMap<String, Usage> {
    let db = s.db();
    let mut stmt = db
        .prepare(
            "SELECT coalesce(model, ''), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens)
             FROM events WHERE kind = 'generation.end' GROUP BY 1",
        )
        .unwrap();
    stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            Usage {
                input: r.get::<_, i64>(1)? as u64,
                output: r.get::<_, i64>(2)? as u64,
                cache_read: r.get::<_, i64>(3)? as u64,
                cache_write: r.get::<_, i64>(4)? as u64,
            },
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Tokens per model from an `obs cost --by model --json` report.
fn report_tokens_by_model(report: &Value) -> BTreeMap<String, Usage> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_string(),
                Usage {
                    input: r["input_tokens"].as_u64().unwrap(),
                    output: r["output_tokens"].as_u64().unwrap(),
                    cache_read: r["cache_read_tokens"].as_u64().unwrap(),
                    cache_write: r["cache_write_tokens"].as_u64().unwrap(),
                },
            )
        })
        .collect()
}

/// What each response's transcript line says: whether Claude Code wrote it before the stream
/// ended (`stop_reason` null) and its `output_tokens`, by `message.id`.
fn transcript_lines(s: &Scratch) -> BTreeMap<String, (bool, u64)> {
    let mut out = BTreeMap::new();
    for path in s.transcripts() {
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
            if v["type"] != "assistant" {
                continue;
            }
            let Some(id) = v["message"]["id"].as_str() else { continue };
            let early = v["message"]["stop_reason"].is_null();
            let output = v["message"]["usage"]["output_tokens"].as_u64().unwrap_or(0);
            out.insert(id.to_string(), (early, output));
        }
    }
    out
}

/// The totals per model the scripted API sent for the conversations `markers`, by the rule
/// docs/cost.md states: a response counts with the usage its transcript line carries — the
/// final usage, except where Claude Code wrote the line before the stream ended (a subagent's
/// lines), which keeps the stream's first `output_tokens`.
fn scripted_totals(sent: &[Sent], markers: &[&str], lines: &BTreeMap<String, (bool, u64)>) -> BTreeMap<String, Usage> {
    let mut totals: BTreeMap<String, Usage> = BTreeMap::new();
    for r in sent {
        let Role::Scripted { marker, .. } = &r.role else { continue };
        if r.status != 200 || !markers.contains(&marker.as_str()) {
            continue;
        }
        let (early, written) = *lines
            .get(&r.message_id)
            .unwrap_or_else(|| panic!("response {} is in no transcript", r.message_id));
        let output = if early { r.first_output } else { r.usage.output };
        assert_eq!(
            written, output,
            "{}: the transcript's output_tokens is the stream's first or final count",
            r.message_id
        );
        let mut u = r.usage;
        u.output = output;
        totals.entry(r.model.clone()).or_default().add(u);
    }
    totals
}

#[allow(dead_code)]
fn final_totals(sent: &[Sent], markers: &[&str]) -> Usage {
    let mut u = Usage::default();
    for r in sent {
        if let Role::Scripted { marker, .. } = &r.role {
            if r.status == 200 && markers.contains(&marker.as_str()) {
                u.add(r.usage);
            }
        }
    }
    u
}

/// The project database and `obs cost --here` hold `want`; after `obs import transcripts` the
/// home database's `obs cost` holds it too. No report names `<synthetic>`.
fn assert_tokens(s: &Scratch, want: &BTreeMap<String, Usage>) {
    assert_eq!(&db_tokens_by_model(s), want, "generation rows in the project database");
    let here = s.tlc_json(&["obs", "cost", "--here", "--by", "model", "--json"]);
    assert_eq!(&report_tokens_by_model(&here), want, "obs cost --here");
    s.tlc(&["obs", "import", "transcripts"]);
    let home = s.tlc_json(&["obs", "cost", "--by", "model", "--json"]);
    assert_eq!(&report_tokens_by_model(&home), want, "obs cost after obs import transcripts");
    for report in [here.to_string(), home.to_string(), s.tlc(&["obs", "report", "--json"])] {
        assert!(!report.contains("<synthetic>"), "a report names <synthetic>: {report}");
    }
    assert_eq!(here["totals"]["cost_complete"], true, "{here}");
}

fn assert_no_unexpected(api: &ScriptedApi) {
    let odd: Vec<Sent> = api
        .sent()
        .into_iter()
        .filter(|r| matches!(r.role, Role::Unexpected { .. }))
        .collect();
    assert!(odd.is_empty(), "requests beyond the script: {odd:?}");
}

fn rollup(s: &Scratch) -> Value {
    s.tlc_json(&["obs", "report", "--json"])
}

fn count(s: &Scratch, sql: &str) -> i64 {
    s.db().query_row(sql, [], |r| r.get(0)).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn ok(run: &e2e_support::Run) {
    assert!(
        run.output.status.success() && run.result["is_error"] == false,
        "claude failed ({:?}): {}\nstderr: {}",
        run.output.status.code(),
        run.result,
        String::from_utf8_lossy(&run.output.stderr)
    );
}

#[test]
fn a_policy_edit_is_denied_and_the_command_does_not_run() {
    let s = Scratch::new();
    let api = ScriptedApi::start(vec![conversation(
        "E2E-POLICY-TASK",
        vec![
            Step::Respond(vec![bash("printf '\\n# appended by the agent\\n' >> .tlc/harness/config.toml")]),
            Step::Respond(vec![bash("touch denied-marker.txt")]),
            Step::Respond(vec![text("finished")]),
        ],
    )]);
    let run = s.claude(&api, "E2E-POLICY-TASK edit the policy", &[]);
    ok(&run);
    assert_no_unexpected(&api);
    assert!(std::fs::read_to_string(s.repo.join(".tlc/harness/config.toml"))
        .unwrap()
        .contains("# appended by the agent"));
    assert!(!s.repo.join("denied-marker.txt").exists(), "the denied command ran");
    assert_one_row_per_hook_call(&s);
    let denied = count(
        &s,
        "SELECT count(*) FROM decisions WHERE permission = 'deny' AND rule = 'policy-integrity' AND detail = 'touch denied-marker.txt'",
    );
    assert_eq!(denied, 1);
    let why = s.tlc_json(&["obs", "why", "--json"]);
    assert!(why.to_string().contains("policy-integrity"), "{why}");
    // Claude Code saw the deny: the command is among its permission denials.
    let denials = run.result["permission_denials"].to_string();
    assert!(denials.contains("touch denied-marker.txt"), "{denials}");
    assert_eq!(rollup(&s)["denials"], 1);
    let lines = transcript_lines(&s);
    assert_tokens(&s, &scripted_totals(&api.sent(), &["E2E-POLICY-TASK"], &lines));
}

/// The repository tlc records into, and that a `cd` never changes: one ended session, all of it
/// in the project database, nothing written under `sub`.
fn assert_stays_in_the_project(s: &Scratch, session: &str, sub: &Path) {
    assert!(!sub.join(".tlc").exists(), "{} gained a .tlc", sub.display());
    let (sessions, ended): (i64, i64) = s
        .db()
        .query_row("SELECT count(*), count(ended_at) FROM sessions", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((sessions, ended), (1, 1), "one ended session");
    let other = count(&s, &format!("SELECT count(*) FROM sessions WHERE session_id <> '{session}'"));
    assert_eq!(other, 0);
}

#[test]
fn a_cd_into_a_subfolder_stays_in_the_project() {
    let s = Scratch::new();
    let api = ScriptedApi::start(vec![conversation(
        "E2E-CD-TASK",
        vec![
            Step::Respond(vec![bash("mkdir -p sub/dir && cd sub/dir && pwd")]),
            Step::Respond(vec![bash("echo in-sub > here.txt && pwd")]),
            Step::Respond(vec![text("cd done")]),
        ],
    )]);
    let run = s.claude(&api, "E2E-CD-TASK go into a subfolder", &[]);
    ok(&run);
    assert_no_unexpected(&api);
    let sub = s.repo.join("sub/dir");
    assert!(sub.join("here.txt").exists());
    let calls = assert_one_row_per_hook_call(&s);
    // Claude Code ran the later hooks in the agent's folder, with the project in CLAUDE_PROJECT_DIR.
    let last = calls.last().unwrap();
    assert_eq!(Path::new(&last.pwd), sub.as_path());
    assert_eq!(Path::new(&last.project_dir), s.repo.as_path());
    assert_stays_in_the_project(&s, run.result["session_id"].as_str().unwrap(), &sub);
    let lines = transcript_lines(&s);
    assert_tokens(&s, &scripted_totals(&api.sent(), &["E2E-CD-TASK"], &lines));
}
