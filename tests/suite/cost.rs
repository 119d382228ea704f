//! Prices and cost through the real binary: real SQLite files, real transcripts, a real HTTP
//! server on 127.0.0.1.

use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tlc::cost::catalog::PriceCatalog;
use tlc::cost::import::{Import, ImportSummary, Options};

const CATALOG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/prices/litellm-model-prices.json");
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/transcripts/sample");
const SHARED_GENERATOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/transcripts/generate.py");
/// The shared generator extended with 1-hour cache writes and Anthropic's published prices.
const GENERATOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/gen-transcripts.py");
const PUBLISHED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cost/anthropic-prices.toml");

/// Runs the repository's transcript generator into `out` with `args` and returns its expected.json.
fn generate(generator: &str, out: &Path, args: &[&str]) -> Value {
    let st = Command::new("python3")
        .arg(generator)
        .arg(out)
        .args(args)
        .status()
        .expect("python3 runs the transcript generator");
    assert!(st.success(), "{generator} {args:?}");
    serde_json::from_str(&std::fs::read_to_string(out.join("expected.json")).unwrap()).unwrap()
}

/// The sample's costs at the published-rate arithmetic: the repository generator with the sample's
/// arguments and Anthropic's list (the sample's own expected.json prices every model from LiteLLM,
/// whose Sonnet 4.5 entry lacks the long-context tier).
fn sample_published() -> Value {
    let dir = tempfile::tempdir().unwrap();
    generate(
        GENERATOR,
        dir.path(),
        &[
            "--sessions",
            "4",
            "--messages",
            "15",
            "--seed",
            "11",
            "--prices",
            CATALOG,
            "--published",
            PUBLISHED,
        ],
    )
}

struct Env {
    _dir: tempfile::TempDir,
    home: PathBuf,
    cwd: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let cwd = dir.path().join("work");
        std::fs::create_dir_all(&cwd).unwrap();
        Env { home, cwd, _dir: dir }
    }

    /// `tlc` in this test's clean environment, to add arguments and variables to.
    fn cmd(&self) -> Command {
        let mut c = Command::new(crate::common::TLC);
        crate::common::isolate(&mut c, &self.home, &self._dir.path().join("user"));
        c.current_dir(&self.cwd);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut c = Command::new(crate::common::TLC);
        crate::common::isolate(&mut c, &self.home, &self._dir.path().join("user"));
        c.args(args).current_dir(&self.cwd).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "tlc {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let s = self.ok(args);
        serde_json::from_str(&s).unwrap_or_else(|e| panic!("tlc {args:?}: not one JSON value ({e}): {s}"))
    }

    fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.home.join("state/tlc.db")).unwrap()
    }

    /// Imports `dir` into this home through the library, with `options` (the command always runs
    /// with the defaults, so this is how a test takes the bulk path on a small set).
    fn import_with(&self, dir: &Path, options: Options) -> ImportSummary {
        let paths = tlc::paths::Paths {
            home: self.home.clone(),
            root: self.cwd.clone(),
            in_git: false,
        };
        let db = paths.home_db();
        let mut home = tlc::store::open_write(tlc::store::DbKind::Home, &db).unwrap();
        // As the command does: the catalog reads prices through a connection of its own.
        let prices = tlc::store::open_read(tlc::store::DbKind::Home, &db).unwrap();
        let catalog = PriceCatalog::new(
            prices.as_ref().map(tlc::store::Store::conn),
            &tlc::cost::catalog::override_file(&paths),
        )
        .unwrap();
        Import::new(home.conn_mut(), &db, &catalog, options)
            .run(dir, &mut |_, _| {})
            .unwrap()
    }
}

/// The bulk path however small the import, in chunks of `chunk_rows` responses.
fn bulk_options(chunk_rows: usize) -> Options {
    Options {
        bulk_min_bytes: 0,
        bulk_chunk_rows: chunk_rows,
        ..Options::default()
    }
}

fn count(conn: &rusqlite::Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Every row of a two-column query.
fn pairs<A: rusqlite::types::FromSql, B: rusqlite::types::FromSql>(conn: &rusqlite::Connection, sql: &str) -> Vec<(A, B)> {
    let mut st = conn.prepare(sql).unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    ((a - b) / b).abs() < 1e-9
}

#[test]
fn imported_sample_matches_expected_totals_and_a_second_import_adds_nothing() {
    let env = Env::new();
    let projects = format!("{SAMPLE}/projects");
    let out = env.ok(&["obs", "import", "transcripts", &projects]);
    assert!(
        out.contains("files: 4") && out.contains("60 new") && out.contains("malformed lines skipped: 7"),
        "{out}"
    );
    let shared: Value = serde_json::from_str(&std::fs::read_to_string(format!("{SAMPLE}/expected.json")).unwrap()).unwrap();
    let expected = sample_published();
    for (model, want) in shared["models"].as_object().unwrap() {
        for f in [
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "responses",
        ] {
            assert_eq!(expected["models"][model][f], want[f], "{model} {f}");
        }
    }
    let report = env.json(&["obs", "cost", "--by", "model", "--json"]);
    let rows = report["rows"].as_array().unwrap();
    let models = expected["models"].as_object().unwrap();
    assert_eq!(rows.len(), models.len());
    for row in rows {
        let key = row["key"].as_str().unwrap();
        let want = &models[key];
        for f in ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"] {
            assert_eq!(row[f], want[f], "{key} {f}");
        }
        let total = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]
            .iter()
            .map(|f| want[*f].as_i64().unwrap())
            .sum::<i64>();
        assert_eq!(row["total_tokens"].as_i64().unwrap(), total);
        if want["cost_complete"].as_bool().unwrap() {
            assert!(
                close(row["cost_usd"].as_f64().unwrap(), want["cost_usd"].as_f64().unwrap()),
                "{key}: {} vs {}",
                row["cost_usd"],
                want["cost_usd"]
            );
            assert_eq!(row["cost_complete"], true);
        } else {
            assert_eq!(row["cost_usd"], Value::Null, "{key}: an unlisted model has no cost");
            assert_eq!(row["cost_complete"], false);
        }
    }
    let totals = &report["totals"];
    assert_eq!(totals["cost_complete"], false);
    assert!(close(totals["cost_usd"].as_f64().unwrap(), expected["cost_usd"].as_f64().unwrap()));
    assert_eq!(totals["responses"], expected["responses"]);

    // By day and by session agree with the expected buckets too.
    let by_day = env.json(&["obs", "cost", "--by", "day", "--json"]);
    for row in by_day["rows"].as_array().unwrap() {
        let want = &expected["days"][row["key"].as_str().unwrap()];
        assert_eq!(row["input_tokens"], want["input_tokens"]);
        assert_eq!(row["cache_read_tokens"], want["cache_read_tokens"]);
        assert!(close(row["cost_usd"].as_f64().unwrap(), want["cost_usd"].as_f64().unwrap()));
    }
    let by_session = env.json(&["obs", "cost", "--by", "session", "--json"]);
    assert_eq!(
        by_session["rows"].as_array().unwrap().len(),
        expected["sessions"].as_object().unwrap().len()
    );
    let by_project = env.json(&["obs", "cost", "--by", "project", "--json"]);
    let keys: Vec<&str> = by_project["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    // Named by the sessions' working directories (/home/dev/project-0, …), not by the folder slugs.
    assert_eq!(keys, ["project-0", "project-1"]);
    for (by, key) in [("week", "2026-W47"), ("month", "2026-11")] {
        let v = env.json(&["obs", "cost", "--by", by, "--json"]);
        assert_eq!(v["rows"][0]["key"], key, "--by {by}");
        assert_eq!(v["totals"]["total_tokens"], report_total_tokens(&expected));
    }
    let one = env.json(&[
        "obs",
        "cost",
        "--by",
        "model",
        "--project",
        "project-0",
        "--since",
        "2026-11-20",
        "--until",
        "2026-11-21",
        "--json",
    ]);
    assert!(one["totals"]["responses"].as_i64().unwrap() < 60);

    let before = count(&env.db(), "SELECT count(*) FROM usage");
    let again = env.ok(&["obs", "import", "transcripts", &projects]);
    assert!(again.contains("0 new"), "{again}");
    assert_eq!(count(&env.db(), "SELECT count(*) FROM usage"), before);
    assert_eq!(env.json(&["obs", "cost", "--by", "model", "--json"]), report);

    let table = env.ok(&["obs", "cost", "--by", "model"]);
    assert!(
        table.contains("cache create") && table.contains("unknown") && table.contains("total"),
        "{table}"
    );
    let csv = env.ok(&["obs", "cost", "--by", "model", "--format", "csv"]);
    assert_eq!(csv.lines().count(), 6, "{csv}");
}

#[test]
fn the_repository_generator_writes_the_shared_sample_unchanged() {
    // Without the new options the extended generator is the shared one: the same expected.json and
    // the same responses (the shared one names a few non-usage lines with random uuids).
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args = ["--sessions", "4", "--messages", "15", "--seed", "11", "--prices", CATALOG];
    let ours = generate(GENERATOR, a.path(), &args);
    let theirs = generate(SHARED_GENERATOR, b.path(), &args);
    assert_eq!(ours, theirs);
    let shared: Value = serde_json::from_str(&std::fs::read_to_string(format!("{SAMPLE}/expected.json")).unwrap()).unwrap();
    assert_eq!(ours, shared);
    let usage_lines = |dir: &Path| -> Vec<String> {
        let mut files: Vec<PathBuf> = Vec::new();
        for p in std::fs::read_dir(dir.join("projects")).unwrap() {
            for f in std::fs::read_dir(p.unwrap().path()).unwrap() {
                files.push(f.unwrap().path());
            }
        }
        files.sort();
        files
            .iter()
            .flat_map(|f| std::fs::read_to_string(f).unwrap().lines().map(str::to_string).collect::<Vec<_>>())
            .filter(|l| l.contains("\"usage\""))
            .collect()
    };
    assert_eq!(usage_lines(a.path()), usage_lines(b.path()));
    assert!(usage_lines(a.path()).len() > 60);
}

/// Transcripts whose cache writes are 70% 1-hour and some of whose prompts exceed 200k tokens.
/// The first transcript file of a generated set in `dir` (`projects/<project>/<session>.jsonl`).
fn first_transcript(dir: &Path) -> PathBuf {
    let first = |d: &Path| std::fs::read_dir(d).unwrap().next().unwrap().unwrap().path();
    first(&first(&dir.join("projects")))
}

fn bill_set(dir: &Path) -> Value {
    generate(
        GENERATOR,
        dir,
        &[
            "--sessions",
            "6",
            "--messages",
            "40",
            "--seed",
            "12",
            "--one-hour",
            "0.7",
            "--prices",
            CATALOG,
            "--published",
            PUBLISHED,
        ],
    )
}

#[test]
fn the_cost_per_model_is_the_published_rate_arithmetic_with_1h_writes_and_long_prompts() {
    let env = Env::new();
    let set = tempfile::tempdir().unwrap();
    let expected = bill_set(set.path());
    // The set has what the bill turns on: 1-hour writes for every model, prompts over 200k.
    let text = std::fs::read_to_string(first_transcript(set.path())).unwrap();
    assert!(text.contains("\"ephemeral_1h_input_tokens\":") && !text.contains("\"ephemeral_1h_input_tokens\":0,\"ephemeral_5m"));
    env.ok(&["obs", "import", "transcripts", set.path().join("projects").to_str().unwrap()]);
    let conn = env.db();
    let long: i64 = count(
        &conn,
        "SELECT count(*) FROM usage WHERE model = 'claude-sonnet-4-5' AND input_tokens + cache_read_tokens + cache_write_tokens > 200000",
    );
    assert!(long > 0, "no Sonnet 4.5 prompt over 200k in the set");
    let report = env.json(&["obs", "cost", "--by", "model", "--json"]);
    let models = expected["models"].as_object().unwrap();
    assert_eq!(report["rows"].as_array().unwrap().len(), models.len());
    let mut priced = 0;
    for row in report["rows"].as_array().unwrap() {
        let key = row["key"].as_str().unwrap();
        let want = &models[key];
        for f in [
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "cache_write_1h_tokens",
        ] {
            assert_eq!(row[f], want[f], "{key} {f}");
        }
        assert!(want["cache_write_1h_tokens"].as_i64().unwrap() * 10 > want["cache_write_tokens"].as_i64().unwrap() * 6);
        if want["cost_complete"].as_bool().unwrap() {
            let (got, want) = (row["cost_usd"].as_f64().unwrap(), want["cost_usd"].as_f64().unwrap());
            assert!(close(got, want), "{key}: {got} vs the published-rate {want}");
            priced += 1;
        } else {
            assert_eq!(row["cost_usd"], Value::Null, "{key}");
        }
    }
    assert_eq!(priced, 4);
    assert!(close(
        report["totals"]["cost_usd"].as_f64().unwrap(),
        expected["cost_usd"].as_f64().unwrap()
    ));
    // Where the entry has no 1-hour rate (gemini-2.5-pro in LiteLLM's catalog), the writes were
    // priced at 2x its input rate and the stored cost_source says so.
    let sources: Vec<(String, String)> = pairs(
        &conn,
        "SELECT DISTINCT model, cost_source FROM usage WHERE cost_source IS NOT NULL ORDER BY 1",
    );
    assert!(
        sources.contains(&("gemini-2.5-pro".into(), "litellm:gemini-2.5-pro+1h=2x-input".into())),
        "{sources:?}"
    );
    assert!(
        sources.contains(&("claude-sonnet-4-5".into(), "anthropic:claude-sonnet-4-5".into())),
        "{sources:?}"
    );
    // By day the same arithmetic holds.
    let by_day = env.json(&["obs", "cost", "--by", "day", "--json"]);
    for row in by_day["rows"].as_array().unwrap() {
        let want = &expected["days"][row["key"].as_str().unwrap()];
        assert_eq!(row["cache_write_1h_tokens"], want["cache_write_1h_tokens"]);
        assert!(close(row["cost_usd"].as_f64().unwrap(), want["cost_usd"].as_f64().unwrap()));
    }
}

#[test]
fn a_rescan_fills_the_1h_split_of_rows_stored_before_it_was_kept() {
    let env = Env::new();
    let set = tempfile::tempdir().unwrap();
    let expected = bill_set(set.path());
    let projects = set.path().join("projects");
    env.ok(&["obs", "import", "transcripts", projects.to_str().unwrap()]);
    let conn = env.db();
    let with_1h = count(&conn, "SELECT count(*) FROM usage WHERE cache_write_1h_tokens > 0");
    let changing = count(&conn, "SELECT count(*) FROM usage WHERE cache_write_1h_tokens > 0 OR cost_usd > 0");
    // As a database migrated from before the split: every write 5-minute, priced so.
    conn.execute_batch(
        "UPDATE usage SET cache_write_1h_tokens = 0, cost_usd = cost_usd * 0.5;
         DELETE FROM usage_rollup; DELETE FROM usage_daily; DELETE FROM usage_hourly;",
    )
    .unwrap();
    let out = env.ok(&["obs", "import", "transcripts", "--rescan", projects.to_str().unwrap()]);
    assert!(with_1h > 100, "{with_1h}");
    assert_eq!(count(&conn, "SELECT count(*) FROM usage WHERE cache_write_1h_tokens > 0"), with_1h);
    assert!(
        out.contains("0 new") && out.contains(&format!("or a new price: {changing}\n")),
        "{out}"
    );
    let report = env.json(&["obs", "cost", "--by", "model", "--json"]);
    for row in report["rows"].as_array().unwrap() {
        let want = &expected["models"][row["key"].as_str().unwrap()];
        assert_eq!(row["cache_write_1h_tokens"], want["cache_write_1h_tokens"]);
        if want["cost_complete"].as_bool().unwrap() {
            assert!(
                close(row["cost_usd"].as_f64().unwrap(), want["cost_usd"].as_f64().unwrap()),
                "{row}"
            );
        }
    }
    // A second rescan changes nothing.
    let again = env.ok(&["obs", "import", "transcripts", "--rescan", projects.to_str().unwrap()]);
    assert!(again.contains("or a new price: 0\n"), "{again}");
    // Rows whose split is right but whose price is stale (priced from an older catalog) are
    // priced again.
    conn.execute_batch(
        "UPDATE usage SET cost_usd = cost_usd * 2, cost_source = 'litellm:old'
         WHERE id IN (SELECT id FROM usage WHERE cost_usd > 0 ORDER BY id LIMIT 10)",
    )
    .unwrap();
    let stale = env.ok(&["obs", "import", "transcripts", "--rescan", projects.to_str().unwrap()]);
    assert!(stale.contains("or a new price: 10\n"), "{stale}");
    assert_eq!(count(&conn, "SELECT count(*) FROM usage WHERE cost_source = 'litellm:old'"), 0);
    let after = env.json(&["obs", "cost", "--by", "model", "--json"]);
    assert!(close(
        after["totals"]["cost_usd"].as_f64().unwrap(),
        expected["cost_usd"].as_f64().unwrap()
    ));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::write(&dest, std::fs::read(e.path()).unwrap()).unwrap();
        }
    }
}

#[test]
fn reimport_reads_only_new_lines_and_a_replaced_file_is_not_counted_twice() {
    let env = Env::new();
    let projects = env.cwd.join("projects");
    copy_dir(Path::new(&format!("{SAMPLE}/projects")), &projects);
    let p = projects.to_str().unwrap();
    env.ok(&["obs", "import", "transcripts", p]);
    let conn = env.db();
    assert_eq!(count(&conn, "SELECT count(*) FROM usage"), 60);

    let file = projects.join("-home-dev-project-0/0ce6ff6c-1d76-c09b-b4d7-072c9a870e44.jsonl");
    let line = r#"{"type":"assistant","sessionId":"0ce6ff6c-1d76-c09b-b4d7-072c9a870e44","requestId":"req_new","timestamp":"2026-11-22T10:00:00.000Z","message":{"id":"msg_new","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}"#;
    let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    // A half-written line is not read until it is complete.
    write!(f, "{line}\n{}", &line[..40]).unwrap();
    drop(f);
    let out = env.ok(&["obs", "import", "transcripts", p]);
    assert!(
        out.contains("1 read, 0 restarted") && out.contains("responses: 1 read, 1 new"),
        "{out}"
    );
    assert_eq!(count(&conn, "SELECT count(*) FROM usage"), 61);

    // Replaced by a shorter file (another inode): read from the top, nothing counted twice.
    let text = std::fs::read_to_string(&file).unwrap();
    let keep: String = text.lines().take(10).map(|l| format!("{l}\n")).collect();
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, keep).unwrap();
    let out = env.ok(&["obs", "import", "transcripts", p]);
    assert!(out.contains("1 restarted") && out.contains(" 0 new"), "{out}");
    assert_eq!(count(&conn, "SELECT count(*) FROM usage"), 61);
    assert_eq!(
        count(&conn, "SELECT sum(responses) FROM usage_rollup"),
        61,
        "the rollup holds every stored response once"
    );
}

#[test]
fn a_fresh_home_looks_up_from_the_snapshot_and_creates_nothing() {
    let env = Env::new();
    // A name of Anthropic's own API answers from the built-in published list, tier and all.
    let v = env.json(&["prices", "lookup", "claude-sonnet-4-5", "--json"]);
    assert_eq!(v["model"], "claude-sonnet-4-5");
    assert_eq!(v["key"], "claude-sonnet-4-5");
    assert_eq!(v["plane"], "anthropic");
    assert_eq!(v["builtin"], true);
    assert_eq!(v["input"], 3.0);
    assert_eq!(v["output"], 15.0);
    assert_eq!(v["cache_read"], 0.3);
    assert_eq!(v["cache_write"], 3.75);
    assert_eq!(v["cache_write_1h"], 6.0);
    assert_eq!(v["input_above_200k"], 6.0);
    assert_eq!(v["cache_write_1h_above_200k"], 12.0);
    let text = env.ok(&["prices", "lookup", "claude-sonnet-4-5"]);
    assert!(
        text.contains("(1-hour)") && text.contains("above 200k") && text.contains("long context"),
        "{text}"
    );
    // Other names still come from the LiteLLM snapshot.
    let v = env.json(&["prices", "lookup", "gemini-2.5-pro", "--json"]);
    assert_eq!((v["plane"].as_str(), v["builtin"].as_bool()), (Some("litellm"), Some(true)));
    let status = env.json(&["prices", "status", "--json"]);
    let litellm = status["planes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["plane"] == "litellm")
        .unwrap()
        .clone();
    assert_eq!(litellm["builtin"], true);
    assert!(litellm["entries"].as_i64().unwrap() > 3000);
    env.ok(&["prices", "list", "--search", "sonnet-4-5", "--format", "json"]);
    env.json(&["obs", "cost", "--json"]);
    assert!(!env.home.exists(), "a read-only command created {}", env.home.display());

    let out = env.run(&["prices", "lookup", "acme-unlisted-model-1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no price for acme-unlisted-model-1"));
}

#[test]
fn normalised_names_resolve() {
    let env = Env::new();
    for (asked, key) in [
        ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),
        ("vertex_ai/claude-opus-4-5@20251101", "vertex_ai/claude-opus-4-5@20251101"),
        ("claude-opus-4-5@20991231", "claude-opus-4-5"),
        (
            "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        ),
        ("bedrock/eu-west-1/eu.anthropic.claude-haiku-4-5-29990101-v1:0", "claude-haiku-4-5"),
        ("claude-haiku-4-5-29990101", "claude-haiku-4-5"),
        ("openrouter/acme/gemini-2.5-pro", "gemini-2.5-pro"),
    ] {
        let v = env.json(&["prices", "lookup", asked, "--json"]);
        assert_eq!(v["key"], key, "{asked}");
    }
}

#[test]
fn override_then_provider_plane_then_litellm() {
    let env = Env::new();
    std::fs::create_dir_all(&env.home).unwrap();
    std::fs::write(
        env.home.join("model-prices.local.toml"),
        "[models.\"claude-sonnet-4-5\"]\ninput = 1.0\noutput = 2.0\n",
    )
    .unwrap();
    // Read straight from the file before any refresh, without creating the database.
    let v = env.json(&["prices", "lookup", "anthropic/claude-sonnet-4-5", "--json"]);
    assert_eq!((v["plane"].as_str(), v["input"].as_f64()), (Some("override"), Some(1.0)));
    assert!(!env.home.join("state").exists());

    let cursor = env.cwd.join("cursor.toml");
    std::fs::write(
        &cursor,
        "[models.\"claude-opus-4-5\"]\ninput = 7.0\noutput = 8.0\npool = \"included\"\nbilling = \"request\"\n",
    )
    .unwrap();
    let out = env.ok(&["prices", "refresh", "cursor", "--from", cursor.to_str().unwrap()]);
    assert!(out.contains("cursor: 1 entries") && out.contains("override: 1 entries"), "{out}");
    let v = env.json(&["prices", "lookup", "claude-opus-4-5", "cursor", "--json"]);
    assert_eq!(
        (v["plane"].as_str(), v["input"].as_f64(), v["pool"].as_str()),
        (Some("cursor"), Some(7.0), Some("included"))
    );
    // No `claude` plane: Anthropic's published list answers before LiteLLM.
    let v = env.json(&["prices", "lookup", "claude-opus-4-5", "claude", "--json"]);
    assert_eq!(v["plane"], "anthropic");
    let v = env.json(&["prices", "lookup", "gemini-2.5-pro", "claude", "--json"]);
    assert_eq!(v["plane"], "litellm");
    let v = env.json(&["prices", "lookup", "claude-sonnet-4-5", "cursor", "--json"]);
    assert_eq!((v["plane"].as_str(), v["builtin"].as_bool()), (Some("override"), Some(false)));
}

#[test]
fn a_refresh_to_fewer_than_half_the_entries_is_refused_and_changes_nothing() {
    let env = Env::new();
    let out = env.ok(&["prices", "refresh", "litellm", "--from", CATALOG]);
    assert!(out.contains("litellm: 3882 entries"), "{out}");
    let v = env.json(&["prices", "lookup", "gemini-2.5-pro", "--json"]);
    assert_eq!(v["builtin"], false);
    let conn = env.db();
    let before: Vec<(String, f64)> = pairs(
        &conn,
        "SELECT model_key, input FROM prices WHERE plane = 'litellm' ORDER BY model_key",
    );

    let doc: serde_json::Map<String, Value> = serde_json::from_str(&std::fs::read_to_string(CATALOG).unwrap()).unwrap();
    let ten: serde_json::Map<String, Value> = doc
        .into_iter()
        .filter(|(k, v)| k != "sample_spec" && v.get("input_cost_per_token").is_some() && v.get("output_cost_per_token").is_some())
        .take(10)
        .collect();
    let small = env.cwd.join("ten.json");
    std::fs::write(&small, serde_json::to_string(&ten).unwrap()).unwrap();
    let out = env.run(&["prices", "refresh", "litellm", "--from", small.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("10") && err.contains("3882") && err.contains("refused"), "{err}");
    let after: Vec<(String, f64)> = pairs(
        &conn,
        "SELECT model_key, input FROM prices WHERE plane = 'litellm' ORDER BY model_key",
    );
    assert_eq!(before, after);
    let outcomes: Vec<String> = {
        let mut st = conn
            .prepare("SELECT outcome FROM price_refreshes WHERE plane = 'litellm' ORDER BY id")
            .unwrap();
        st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert_eq!(outcomes, ["ok", "refused"]);
    let status = env.json(&["prices", "status", "--json"]);
    let litellm = status["planes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["plane"] == "litellm")
        .unwrap()
        .clone();
    assert_eq!(litellm["entries"], 3882);
    assert!(litellm["last_failure"].as_str().unwrap().contains("refused"));
}

#[test]
fn refresh_downloads_from_a_real_http_server() {
    let env = Env::new();
    let body = std::fs::read(CATALOG).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        // A redirect first, then the catalog.
        for i in 0..2 {
            let (mut s, _) = listener.accept().unwrap();
            let mut req = Vec::new();
            let mut buf = [0u8; 1024];
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = s.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                req.extend_from_slice(&buf[..n]);
            }
            let req = String::from_utf8_lossy(&req).into_owned();
            if i == 0 {
                assert!(req.starts_with("GET /old.json HTTP/1.1"), "{req}");
                s.write_all(b"HTTP/1.1 301 Moved\r\nLocation: /prices.json\r\nContent-Length: 0\r\n\r\n")
                    .unwrap();
            } else {
                assert!(req.starts_with("GET /prices.json HTTP/1.1"), "{req}");
                s.write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    )
                    .as_bytes(),
                )
                .unwrap();
                s.write_all(&body).unwrap();
            }
        }
    });
    let url = format!("http://127.0.0.1:{port}/old.json");
    let out = env.ok(&["prices", "refresh", "litellm", "--from", &url]);
    server.join().unwrap();
    assert!(out.contains("litellm: 3882 entries") && out.contains(&url), "{out}");
    let status = env.json(&["prices", "status", "--json"]);
    let litellm = status["planes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["plane"] == "litellm")
        .unwrap()
        .clone();
    assert_eq!(litellm["source"], url.as_str());
    assert_eq!(litellm["builtin"], false);
    let v = env.json(&["prices", "lookup", "gemini-2.5-pro", "--json"]);
    assert_eq!((v["input_above_200k"].as_f64(), v["builtin"].as_bool()), (Some(2.5), Some(false)));

    // A server that is not there: the refresh fails, names the URL, and leaves a history row.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://127.0.0.1:{}/x.json", dead.local_addr().unwrap().port());
    drop(dead);
    let out = env.run(&["prices", "refresh", "litellm", "--from", &dead_url]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&dead_url));
    assert_eq!(count(&env.db(), "SELECT count(*) FROM price_refreshes WHERE outcome = 'failed'"), 1);
}

/// A URL naming its server by host name (`localhost`, from `/etc/hosts`) downloads with the static
/// build, which resolves names without NSS modules (issue 37).
#[test]
fn refresh_downloads_from_a_server_named_by_host_name() {
    let env = Env::new();
    let body = std::fs::read(CATALOG).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 1024];
        while !req.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = s.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            req.extend_from_slice(&buf[..n]);
        }
        let req = String::from_utf8_lossy(&req).into_owned();
        s.write_all(format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len()).as_bytes())
            .unwrap();
        s.write_all(&body).unwrap();
        req
    });
    let url = format!("http://localhost:{port}/prices.json");
    let out = env.ok(&["prices", "refresh", "litellm", "--from", &url]);
    let req = server.join().unwrap();
    assert!(req.starts_with("GET /prices.json HTTP/1.1"), "{req}");
    assert!(req.to_ascii_lowercase().contains(&format!("host: localhost:{port}")), "{req}");
    assert!(out.contains("litellm: 3882 entries") && out.contains(&url), "{out}");
}

#[test]
fn cost_here_reads_the_project_database_and_creates_nothing() {
    let env = Env::new();
    std::fs::create_dir_all(env.cwd.join(".git")).unwrap();
    let v = env.json(&["obs", "cost", "--here", "--by", "session", "--json"]);
    assert_eq!(v["rows"], Value::Array(vec![]));
    assert!(!env.cwd.join(".tlc").exists());
    // With generation events recorded by the hook path, --here sums them.
    let db = env.cwd.join(".tlc/harness/state/tlc.db");
    env.ok(&["db", "migrate"]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let ins = "INSERT INTO events (ts, provider, kind, plane, session_id, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd) VALUES (?1, 'claude', 'generation.end', 'signal', 's1', ?2, 10, 20, 30, 40, ?3)";
    conn.execute(ins, rusqlite::params!["2026-11-20T10:00:00.000Z", "claude-sonnet-4-5", 0.5])
        .unwrap();
    conn.execute(ins, rusqlite::params!["2026-11-20T11:00:00.000Z", "acme", Option::<f64>::None])
        .unwrap();
    let v = env.json(&["obs", "cost", "--here", "--by", "session", "--json"]);
    let row = &v["rows"][0];
    assert_eq!(
        (
            row["key"].as_str(),
            row["total_tokens"].as_i64(),
            row["cost_usd"].as_f64(),
            row["cost_complete"].as_bool()
        ),
        (Some("s1"), Some(200), Some(0.5), Some(false))
    );
}

#[test]
fn the_bulk_import_path_stores_the_same_rows_and_keeps_the_indexes() {
    let slow = Env::new();
    let bulk = Env::new();
    let projects = format!("{SAMPLE}/projects");
    slow.ok(&["obs", "import", "transcripts", &projects]);
    let summary = bulk.import_with(Path::new(&projects), bulk_options(25_000));
    assert_eq!(summary.inserted, 60);
    let rows = |e: &Env| -> Vec<(String, String, i64, Option<f64>)> {
        let conn = e.db();
        let mut st = conn
            .prepare("SELECT dedup_key, ts, cache_read_tokens, cost_usd FROM usage ORDER BY dedup_key")
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(rows(&slow), rows(&bulk));
    assert_same_report(
        &slow.json(&["obs", "cost", "--by", "session", "--json"]),
        &bulk.json(&["obs", "cost", "--by", "session", "--json"]),
    );
    // The triggers the bulk path set aside are back as they were, and `usage_key` holds exactly
    // every row's (tail, id), as the key trigger makes it on the other path.
    let schema = |e: &Env| -> Vec<(String, String)> {
        pairs(
            &e.db(),
            "SELECT name, sql FROM sqlite_master WHERE tbl_name = 'usage' AND sql IS NOT NULL ORDER BY name",
        )
    };
    let names: Vec<String> = schema(&bulk).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "usage",
            "usage_inexact",
            "usage_key_delete",
            "usage_key_insert",
            "usage_key_update",
            "usage_rollup_delete",
            "usage_rollup_insert"
        ]
    );
    assert_eq!(schema(&bulk), schema(&slow));
    let keys = |e: &Env| -> Vec<(String, String)> {
        pairs(
            &e.db(),
            "SELECT k.tail, u.dedup_key FROM usage_key k JOIN usage u ON u.id = k.id ORDER BY 1, 2",
        )
    };
    let bulk_keys = keys(&bulk);
    assert_eq!(bulk_keys.len(), 60);
    assert!(bulk_keys
        .iter()
        .all(|(tail, key)| key.ends_with(tail.as_str()) && tail.chars().count() == 16));
    assert_eq!(bulk_keys, keys(&slow));
    let conn = bulk.db();
    assert_eq!(count(&conn, "SELECT count(*) FROM usage_key"), 60);
    // The bulk path again over the same files, with the rows already there: nothing added.
    assert_eq!(bulk.import_with(Path::new(&projects), bulk_options(25_000)).inserted, 0);
    assert_eq!(count(&conn, "SELECT count(*) FROM usage"), 60);
    // A stored key is found through `usage_key`'s primary key, not by reading the whole table, and
    // inserting it again changes nothing.
    let insert = include_str!("../../queries/home/cost/usage_insert.sql");
    let plan: Vec<String> = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {insert}"))
        .unwrap()
        .query_map(
            rusqlite::params!["k", "s", "p", "r", "s", "c", "t", "m", 1, 2, 3, 4, 0.5, "x", "y", 0],
            |r| r.get(3),
        )
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(plan.iter().any(|p| p.contains("SEARCH k USING PRIMARY KEY (tail=?)")), "{plan:?}");
    assert!(!plan.iter().any(|p| p.starts_with("SCAN") && p != "SCAN CONSTANT ROW"), "{plan:?}");
    let (key, ts): (String, String) = conn
        .query_row("SELECT dedup_key, ts FROM usage LIMIT 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    let n = conn
        .execute(
            insert,
            rusqlite::params![key, "spool", "p", "r", "s", "claude", ts, "m", 1, 2, 3, 4, 0.5, "x", "y", 0],
        )
        .unwrap();
    assert_eq!(n, 0);
    assert_eq!(count(&conn, "SELECT count(*) FROM usage"), 60);
}

#[test]
fn the_bulk_import_path_counts_a_response_once_whether_stored_or_repeated_in_other_files() {
    let slow = Env::new();
    slow.ok(&["obs", "import", "transcripts", &format!("{SAMPLE}/projects")]);
    // The same transcripts, one of them also copied into another project's folder.
    let copy = tempfile::tempdir().unwrap();
    let projects = copy.path().join("projects");
    let mut first_file = None;
    for project in std::fs::read_dir(format!("{SAMPLE}/projects")).unwrap() {
        let project = project.unwrap().path();
        let into = projects.join(project.file_name().unwrap());
        std::fs::create_dir_all(&into).unwrap();
        for f in std::fs::read_dir(&project).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, into.join(f.file_name().unwrap())).unwrap();
            first_file.get_or_insert(f);
        }
    }
    let again = projects.join("-home-dev-elsewhere");
    std::fs::create_dir_all(&again).unwrap();
    let first_file = first_file.unwrap();
    std::fs::copy(&first_file, again.join(first_file.file_name().unwrap())).unwrap();
    // Half of it stored already by the row-by-row path, then the bulk path over all of it.
    let bulk = Env::new();
    let one_project = std::fs::read_dir(&projects).unwrap().next().unwrap().unwrap().path();
    bulk.ok(&["obs", "import", "transcripts", one_project.to_str().unwrap()]);
    let stored_before = count(&bulk.db(), "SELECT count(*) FROM usage");
    assert!(stored_before > 0 && stored_before < 60, "{stored_before}");
    // In chunks of a few responses: a response repeated in a later chunk is known from an earlier one.
    let summary = bulk.import_with(&projects, bulk_options(7));
    assert_eq!(summary.inserted, 60 - stored_before as u64);
    assert_eq!(count(&bulk.db(), "SELECT count(*) FROM usage"), 60);
    let totals = |e: &Env| e.json(&["obs", "cost", "--by", "model", "--json"])["totals"].clone();
    assert_same_report(&totals(&slow), &totals(&bulk));
}

/// Two cost reports are the same: every key, text, count and token sum equal, and every cost
/// equal but for the last bits. The row path adds each response's cost to its rollup row in key
/// order (a trigger per row); the bulk path sums a file's responses per group first: the same
/// numbers added in another order can differ in the last bit of a double (0.500268075 and
/// 0.5002680749999999 were seen), never more than a few units in the last place.
fn assert_same_report(a: &Value, b: &Value) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>());
            for (k, v) in x {
                assert_same_report(v, &y[k]);
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{a} != {b}");
            x.iter().zip(y).for_each(|(v, w)| assert_same_report(v, w));
        }
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-12 * x.abs().max(y.abs()), "{x} != {y}");
        }
        _ => assert_eq!(a, b),
    }
}

#[test]
fn imported_responses_are_tagged_with_the_repository_their_session_ran_in() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("acme-shop");
    std::fs::create_dir_all(repo.join("web/src")).unwrap();
    assert!(Command::new("git").arg("init").arg("-q").arg(&repo).status().unwrap().success());
    let projects = dir.path().join("claude/projects");
    let line = |cwd: Option<&str>, n: u32| {
        let mut v = serde_json::json!({
            "type": "assistant", "sessionId": format!("s-{n}"), "requestId": format!("req_{n}"),
            "timestamp": "2026-11-20T09:00:00.000Z",
            "message": {"id": format!("msg_{n}"), "model": "claude-sonnet-4-5",
                        "usage": {"input_tokens": 1, "output_tokens": 2}}
        });
        if let Some(c) = cwd {
            v["cwd"] = c.into();
        }
        format!("{v}\n")
    };
    let write = |folder: &str, text: String| {
        let d = projects.join(folder);
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("t.jsonl");
        let mut old = std::fs::read_to_string(&f).unwrap_or_default();
        old.push_str(&text);
        std::fs::write(f, old).unwrap();
    };
    // A session in a subfolder of a repository, one in a folder gone from this machine, one that
    // names no working directory.
    let sub = repo.join("web/src");
    write("-slug-a", line(Some(sub.to_str().unwrap()), 1));
    write("-slug-b", line(Some("/gone/elsewhere/tools"), 2));
    write("-slug-c", line(None, 3));
    let env = Env::new();
    env.ok(&["obs", "import", "transcripts", projects.to_str().unwrap()]);
    let keys = |env: &Env| -> Vec<(String, i64)> {
        let v = env.json(&["obs", "cost", "--by", "project", "--json"]);
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["key"].as_str().unwrap().to_string(), r["responses"].as_i64().unwrap()))
            .collect()
    };
    let want = |a: i64| vec![("-slug-c".to_string(), 1), ("acme-shop".to_string(), a), ("tools".to_string(), 1)];
    assert_eq!(keys(&env), want(1));
    // New lines without a cwd, read on from the stored offset, stay with the file's project.
    write("-slug-a", line(None, 4));
    env.ok(&["obs", "import", "transcripts", projects.to_str().unwrap()]);
    assert_eq!(keys(&env), want(2));
}

fn report_total_tokens(expected: &Value) -> Value {
    let models = expected["models"].as_object().unwrap();
    let sum: i64 = models
        .values()
        .map(|m| {
            ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]
                .iter()
                .map(|f| m[*f].as_i64().unwrap())
                .sum::<i64>()
        })
        .sum();
    Value::from(sum)
}

/// Since V6 the database no longer refuses a second copy of a dedup key: every compiled-in insert
/// into `usage` must look the key up in `usage_key` first, except the bulk import's, which checks
/// its keys itself under its write lock. There is one such insert: every writer (the transcript
/// import, the spool, the JSONL import) goes through `cost::usage::UsageWriter`.
#[test]
fn every_insert_into_usage_looks_its_key_up_first() {
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("queries")];
    let mut checked = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let sql = std::fs::read_to_string(&path).unwrap();
            let inserts = sql.lines().any(|l| !l.trim_start().starts_with("--") && l.contains("INTO usage ("));
            if !inserts || path.ends_with("cost/usage_insert_new.sql") {
                continue;
            }
            assert!(
                sql.contains("WHERE NOT EXISTS (SELECT 1 FROM usage_key k JOIN usage u ON u.id = k.id")
                    && sql.contains("WHERE k.tail = substr(?1, -16) AND u.dedup_key = ?1)"),
                "{} inserts into usage without looking its key up in usage_key",
                path.display()
            );
            checked.push(path);
        }
    }
    assert_eq!(checked.len(), 1, "{checked:?}");
}

use crate::cost_tools as tools;

/// ccusage's report of `config_dir` (`<dir>/projects/...`), as JSON.
fn ccusage(config_dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(tools::ccusage())
        .args(args)
        .args(["--json", "--offline"])
        .env("CLAUDE_CONFIG_DIR", config_dir)
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "ccusage {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn blocks_match_ccusage_start_end_and_tokens() {
    // Sessions of a few responses each, 7 hours apart: blocks, and silences longer than 5 hours
    // between them (gaps); and the bill set, whose sessions overlap into back-to-back blocks.
    for args in [
        vec!["--sessions", "5", "--messages", "5", "--seed", "3"],
        vec!["--sessions", "6", "--messages", "40", "--seed", "12", "--one-hour", "0.7"],
    ] {
        let set = tempfile::tempdir().unwrap();
        generate(GENERATOR, set.path(), &args);
        let env = Env::new();
        env.ok(&["obs", "import", "transcripts", set.path().join("projects").to_str().unwrap()]);
        let ours = env.json(&["obs", "cost", "--by", "block", "--json"]);
        let theirs = ccusage(set.path(), &["blocks"]);
        let mut theirs_gaps: Vec<(String, String)> = Vec::new();
        let mut theirs_blocks: Vec<&Value> = Vec::new();
        for b in theirs["blocks"].as_array().unwrap() {
            if b["isGap"] == true {
                theirs_gaps.push((b["startTime"].as_str().unwrap().into(), b["endTime"].as_str().unwrap().into()));
            } else {
                theirs_blocks.push(b);
            }
        }
        theirs_blocks.sort_by_key(|b| b["startTime"].as_str().unwrap().to_string());
        let rows = ours["rows"].as_array().unwrap();
        let (gaps, blocks): (Vec<&Value>, Vec<&Value>) = rows.iter().partition(|r| r["block"]["gap"] == true);
        assert_eq!(blocks.len(), theirs_blocks.len(), "{args:?}");
        assert!(blocks.len() >= 5, "{args:?}");
        for (o, t) in blocks.iter().zip(&theirs_blocks) {
            let b = &o["block"];
            assert_eq!(b["start"], t["startTime"]);
            assert_eq!(b["end"], t["endTime"]);
            assert_eq!(b["actual_end"], t["actualEndTime"]);
            assert_eq!(o["responses"], t["entries"]);
            let tc = &t["tokenCounts"];
            assert_eq!(o["input_tokens"], tc["inputTokens"]);
            assert_eq!(o["output_tokens"], tc["outputTokens"]);
            assert_eq!(o["cache_write_tokens"], tc["cacheCreationInputTokens"]);
            assert_eq!(o["cache_read_tokens"], tc["cacheReadInputTokens"]);
            assert_eq!(o["total_tokens"], t["totalTokens"]);
            let mut models: Vec<&str> = t["models"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
            models.sort();
            assert_eq!(o["models"], serde_json::json!(models));
            assert_eq!(b["active"], false);
        }
        let mut ours_gaps: Vec<(String, String)> = gaps
            .iter()
            .map(|g| {
                (
                    g["block"]["start"].as_str().unwrap().into(),
                    g["block"]["end"].as_str().unwrap().into(),
                )
            })
            .collect();
        ours_gaps.sort();
        theirs_gaps.sort();
        assert_eq!(ours_gaps, theirs_gaps, "{args:?}");
        if args[3] == "5" {
            assert!(!ours_gaps.is_empty(), "sessions 7 hours apart leave gaps");
        }
    }
}

#[test]
fn the_active_block_has_a_burn_rate_and_a_projection() {
    let set = tempfile::tempdir().unwrap();
    generate(GENERATOR, set.path(), &["--sessions", "1", "--messages", "6", "--seed", "3"]);
    let env = Env::new();
    env.ok(&["obs", "import", "transcripts", set.path().join("projects").to_str().unwrap()]);
    let all = env.json(&["obs", "cost", "--by", "block", "--json"]);
    let last = all["rows"].as_array().unwrap().last().unwrap().clone();
    let b = &last["block"];
    // An hour after the last response the block is active; its end is the start plus 5 hours.
    let actual_end = chrono::DateTime::parse_from_rfc3339(b["actual_end"].as_str().unwrap()).unwrap();
    let end = chrono::DateTime::parse_from_rfc3339(b["end"].as_str().unwrap()).unwrap();
    let now = actual_end + chrono::Duration::minutes(10);
    assert!(
        now < end,
        "the set's last block should still be open 10 minutes after its last response"
    );
    let out = env
        .cmd()
        .args(["obs", "cost", "--by", "block", "--json"])
        .env("TLC_NOW", now.to_rfc3339())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let active = v["rows"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(active["block"]["active"], true);
    let rate = &active["block"]["burn_rate"];
    let first =
        chrono::DateTime::parse_from_rfc3339(v["rows"].as_array().unwrap().last().unwrap()["block"]["start"].as_str().unwrap()).unwrap();
    assert!(first <= actual_end);
    let tokens = active["total_tokens"].as_f64().unwrap();
    let tpm = rate["tokens_per_minute"].as_f64().unwrap();
    let cph = rate["cost_per_hour"].as_f64().unwrap();
    assert!(tpm > 0.0 && cph > 0.0, "{rate}");
    let p = &active["block"]["projection"];
    let remaining = (end - now).num_seconds() as f64 / 60.0;
    assert_eq!(p["remaining_minutes"].as_i64().unwrap(), remaining.round() as i64);
    assert_eq!(p["total_tokens"].as_i64().unwrap(), (tokens + tpm * remaining).round() as i64);
    let cost = active["cost_usd"].as_f64().unwrap();
    assert!((p["total_cost"].as_f64().unwrap() - ((cost + cph / 60.0 * remaining) * 100.0).round() / 100.0).abs() < 1e-9);
    // Past the block's end nothing is active.
    let later = env
        .cmd()
        .args(["obs", "cost", "--by", "block", "--json"])
        .env("TLC_NOW", (end + chrono::Duration::minutes(1)).to_rfc3339())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&later.stdout).unwrap();
    assert!(v["rows"].as_array().unwrap().iter().all(|r| r["block"]["active"] == false));
}

#[test]
fn unpriced_is_null_in_the_exported_csv_and_duckdb_sums_it_to_the_json_total() {
    let env = Env::new();
    let set = tempfile::tempdir().unwrap();
    let expected = bill_set(set.path());
    env.ok(&["obs", "import", "transcripts", set.path().join("projects").to_str().unwrap()]);
    let json = env.json(&["obs", "cost", "--by", "model", "--json"]);
    let total = json["totals"]["cost_usd"].as_f64().unwrap();
    assert!(close(total, expected["cost_usd"].as_f64().unwrap()));
    let csv = env.cwd.join("by-model.csv");
    std::fs::write(&csv, env.ok(&["obs", "cost", "--by", "model", "--format", "csv"])).unwrap();
    let export = env.cwd.join("daily.csv");
    env.ok(&["obs", "export", "cost_daily_rows", "--out", export.to_str().unwrap()]);
    for (file, column) in [(&csv, "\"cost (USD)\""), (&export, "cost_usd")] {
        let row = tools::duckdb_row(&format!(
            "SELECT sum({column}), count({column}), count(*), count(*) FILTER (WHERE {column} IS NULL AND model = 'acme-unlisted-model-1') FROM read_csv('{}', header = true)",
            file.display()
        ));
        let sum = row[0].as_f64().unwrap();
        assert!(close(sum, total), "{}: {sum} vs {total}", file.display());
        let (priced, all, unpriced) = (row[1].as_i64().unwrap(), row[2].as_i64().unwrap(), row[3].as_i64().unwrap());
        assert!(unpriced > 0 && priced + unpriced == all, "{}: {row:?}", file.display());
    }
    // sqlite3 over the views: the unpriced model's cost is NULL, not 0.
    let conn = env.db();
    for view in ["cost_rows", "cost_daily_rows", "cost_hourly_rows", "cost_by_model"] {
        let zero = count(
            &conn,
            &format!("SELECT count(*) FROM {view} WHERE model = 'acme-unlisted-model-1' AND cost_usd = 0"),
        );
        let null = count(
            &conn,
            &format!("SELECT count(*) FROM {view} WHERE model = 'acme-unlisted-model-1' AND cost_usd IS NULL"),
        );
        assert!(zero == 0 && null > 0, "{view}: {zero} zero, {null} NULL");
    }
}

#[test]
fn a_first_cost_report_says_what_to_run_when_transcripts_are_not_imported() {
    let env = Env::new();
    let claude = env.cwd.join("claude");
    copy_dir(Path::new(SAMPLE), &claude);
    let report = |args: &[&str]| env.cmd().args(args).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
    // Nothing imported: one line says what to run, and the read-only report creates nothing.
    let out = report(&["obs", "cost"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("4 transcript file(s)") && err.contains("tlc obs import transcripts"),
        "{err}"
    );
    assert!(!env.home.exists());
    let out = report(&["obs", "import", "transcripts"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Everything imported: no hint.
    let out = report(&["obs", "cost"]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("not imported"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A transcript grew: the hint names one file.
    let file = std::fs::read_dir(claude.join("projects/-home-dev-project-0"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all(b"{\"type\":\"user\"}\n").unwrap();
    let out = report(&["obs", "cost", "--json"]);
    assert!(out.stderr.is_empty(), "JSON output stays clean");
    let out = report(&["obs", "cost"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 transcript file(s)"));
}

/// Claude Code's statusLine payload (tests/fixtures/statusline.json, laid out as Claude Code's
/// statusline documentation gives it) for `session` and `transcript`.
fn statusline_payload(session: &str, transcript: &Path) -> String {
    include_str!("statusline.json")
        .replace("SESSION", session)
        .replace("TRANSCRIPT", transcript.to_str().unwrap())
}

fn statusline(env: &Env, stdin: &[u8], now: &str) -> Output {
    let mut child = env
        .cmd()
        .arg("statusline")
        .env("TLC_NOW", now)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_statusline_prints_session_today_block_and_context_from_the_home_database() {
    let env = Env::new();
    let set = tempfile::tempdir().unwrap();
    generate(
        GENERATOR,
        set.path(),
        &["--sessions", "1", "--messages", "6", "--seed", "3", "--one-hour", "0.7"],
    );
    let file = first_transcript(set.path());
    let session = file.file_stem().unwrap().to_str().unwrap().to_string();
    let payload = statusline_payload(&session, &file);

    // Nothing recorded yet: a line all the same — the session's figure Claude Code's own, marked
    // as its (issue 52) — and no file created.
    let out = statusline(&env, payload.as_bytes(), "2026-11-20T12:00:00Z");
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(
        line.starts_with("Sonnet 4.5 | $0.0123 session (client's) · - today · no active block | ctx "),
        "{line}"
    );
    assert!(!env.home.exists());

    env.ok(&["obs", "import", "transcripts", set.path().join("projects").to_str().unwrap()]);
    let by_session = env.json(&["obs", "cost", "--by", "session", "--json"]);
    let session_cost = by_session["totals"]["cost_usd"].as_f64().unwrap();
    let blocks = env.json(&["obs", "cost", "--by", "block", "--json"]);
    let last = blocks["rows"].as_array().unwrap().last().unwrap().clone();
    let now = chrono::DateTime::parse_from_rfc3339(last["block"]["actual_end"].as_str().unwrap()).unwrap() + chrono::Duration::minutes(10);
    let out = statusline(&env, payload.as_bytes(), &now.to_rfc3339());
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    let usd = |v: f64| if v >= 0.01 { format!("${v:.4}") } else { format!("${v:.6}") };
    let today = env.json(&[
        "obs",
        "cost",
        "--by",
        "day",
        "--since",
        &now.to_rfc3339()[..10],
        "--until",
        &now.to_rfc3339()[..10],
        "--json",
    ]);
    assert!(line.contains(&format!("{} session", usd(session_cost))), "{line}");
    assert!(
        line.contains(&format!("{} today", usd(today["totals"]["cost_usd"].as_f64().unwrap()))),
        "{line}"
    );
    assert!(
        line.contains(&format!("{} block (", usd(last["cost_usd"].as_f64().unwrap()))),
        "{line}"
    );
    // The context: the transcript's last response's prompt.
    let last_usage = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .rfind(|v| v["message"]["usage"].is_object())
        .unwrap();
    let u = &last_usage["message"]["usage"];
    let ctx = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
        .iter()
        .map(|k| u[*k].as_i64().unwrap())
        .sum::<i64>();
    let digits = ctx.to_string();
    let grouped: Vec<&str> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    assert!(line.contains(&format!("ctx {} (", grouped.join(","))), "{line}");
    assert_eq!(line.lines().count(), 1);

    // Whatever arrives, a line and exit 0.
    for junk in [&b""[..], b"not json", b"{\"model\": 7}", &[0xff, 0xfe, 0x00][..]] {
        let out = statusline(&env, junk, &now.to_rfc3339());
        assert!(out.status.success());
        assert!(String::from_utf8(out.stdout).unwrap().starts_with("Claude | "));
    }
}

/// The payload as Claude Code 2.1.197 builds it (read from the client's bundled code: the base hook
/// fields `session_id`, `transcript_path`, `cwd`, then `model`, `workspace`, `version` as a string,
/// `output_style`, `cost`, `context_window` with `current_usage` — the last response's usage, `null`
/// before the first — `exceeds_200k_tokens`, `fast_mode`, `thinking`; no `hook_event_name`). The
/// interactive client runs the statusLine command; `claude -p` does not, so it is not captured here.
#[test]
fn the_statusline_reads_the_context_from_the_payload_claude_code_2_1_197_sends() {
    let env = Env::new();
    let set = tempfile::tempdir().unwrap();
    generate(GENERATOR, set.path(), &["--sessions", "1", "--messages", "6", "--seed", "4"]);
    let file = first_transcript(set.path());
    let session = file.file_stem().unwrap().to_str().unwrap().to_string();
    env.ok(&["obs", "import", "transcripts", set.path().join("projects").to_str().unwrap()]);
    let real = |transcript: &Path| {
        include_str!("statusline-2.1.197.json")
            .replace("SESSION", &session)
            .replace("TRANSCRIPT", transcript.to_str().unwrap())
    };
    let session_cost = env.json(&["obs", "cost", "--by", "session", "--json"])["totals"]["cost_usd"]
        .as_f64()
        .unwrap();
    let usd = |v: f64| if v >= 0.01 { format!("${v:.4}") } else { format!("${v:.6}") };

    // current_usage given: input + cache writes + cache reads of it, the transcript not needed.
    let gone = set.path().join("no-such-transcript.jsonl");
    let out = statusline(&env, real(&gone).as_bytes(), "2026-11-20T12:00:00Z");
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.starts_with("Sonnet 4.5 | "), "{line}");
    assert!(line.contains(&format!("{} session", usd(session_cost))), "{line}");
    assert!(line.ends_with("| ctx 60,600 (30%)\n"), "{line}");

    // Before the first response current_usage is null: the transcript's last response instead.
    let before_first = real(&file).replace(
        r#""current_usage": {"input_tokens": 1200, "output_tokens": 910, "cache_creation_input_tokens": 3400, "cache_read_input_tokens": 56000}"#,
        r#""current_usage": null"#,
    );
    assert!(before_first.contains(r#""current_usage": null"#));
    let from_transcript = statusline(&env, before_first.as_bytes(), "2026-11-20T12:00:00Z");
    let from_transcript = String::from_utf8(from_transcript.stdout).unwrap();
    assert!(from_transcript.contains("| ctx "), "{from_transcript}");
    assert!(!from_transcript.contains("ctx 60,600"), "{from_transcript}");
    // ... and with neither, no context part.
    let neither = statusline(&env, real(&gone).replace(r#""current_usage": {"input_tokens": 1200, "output_tokens": 910, "cache_creation_input_tokens": 3400, "cache_read_input_tokens": 56000}"#, r#""current_usage": null"#).as_bytes(), "2026-11-20T12:00:00Z");
    let neither = String::from_utf8(neither.stdout).unwrap();
    assert!(!neither.contains("ctx"), "{neither}");
}

#[test]
fn report_options_breakdown_order_last_compact_days_timezone_and_sessions() {
    let env = Env::new();
    env.ok(&["obs", "import", "transcripts", &format!("{SAMPLE}/projects")]);
    let conn = env.db();
    let rows = |v: &Value| v["rows"].as_array().unwrap().clone();
    let keys = |v: &Value| rows(v).iter().map(|r| r["key"].as_str().unwrap().to_string()).collect::<Vec<_>>();

    // --breakdown: each row's models, summing to the row.
    let v = env.json(&["obs", "cost", "--by", "day", "--breakdown", "--json"]);
    for r in rows(&v) {
        let parts = r["breakdown"].as_array().unwrap();
        assert_eq!(parts.len(), r["models"].as_array().unwrap().len());
        for f in ["responses", "input_tokens", "cache_write_tokens", "total_tokens"] {
            assert_eq!(
                parts.iter().map(|p| p[f].as_i64().unwrap()).sum::<i64>(),
                r[f].as_i64().unwrap(),
                "{f}"
            );
        }
    }
    // In CSV the per-model rows replace the day rows, so a column still sums to the total.
    let csv = env.ok(&["obs", "cost", "--by", "day", "--breakdown", "--format", "csv"]);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(&header[..2], ["day", "model"]);
    let input = header.iter().position(|h| *h == "input").unwrap();
    let sum: i64 = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(input).unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(sum, v["totals"]["input_tokens"].as_i64().unwrap());

    // --order, --last, YYYYMMDD days.
    let asc = keys(&env.json(&["obs", "cost", "--json"]));
    assert!(asc.len() >= 2 && asc.windows(2).all(|w| w[0] < w[1]), "{asc:?}");
    let mut desc = keys(&env.json(&["obs", "cost", "--order", "desc", "--json"]));
    desc.reverse();
    assert_eq!(desc, asc);
    let last = env.json(&["obs", "cost", "--last", "1", "--json"]);
    assert_eq!(keys(&last), [asc.last().unwrap().clone()]);
    assert_eq!(
        last["totals"]["responses"],
        rows(&last)[0]["responses"],
        "the totals are the rows shown"
    );
    assert_eq!(
        env.json(&["obs", "cost", "--since", "20261121", "--until", "20261121", "--json"]),
        env.json(&["obs", "cost", "--since", "2026-11-21", "--until", "2026-11-21", "--json"])
    );

    // --timezone: each response on its local day (sqlite3's own arithmetic as the reference).
    let tokyo = env.json(&["obs", "cost", "--timezone", "Asia/Tokyo", "--json"]);
    let want: Vec<(String, i64)> = pairs(
        &conn,
        "SELECT substr(datetime(ts, '+9 hours'), 1, 10), count(*) FROM usage GROUP BY 1 ORDER BY 1",
    );
    let got: Vec<(String, i64)> = rows(&tokyo)
        .iter()
        .map(|r| (r["key"].as_str().unwrap().to_string(), r["responses"].as_i64().unwrap()))
        .collect();
    assert_eq!(got, want);
    let utc: Vec<(String, i64)> = rows(&env.json(&["obs", "cost", "--json"]))
        .iter()
        .map(|r| (r["key"].as_str().unwrap().to_string(), r["responses"].as_i64().unwrap()))
        .collect();
    assert_ne!(got, utc, "the sample has responses after 15:00 UTC, on the next day in Tokyo");
    let ny = env.json(&[
        "obs",
        "cost",
        "--timezone",
        "America/New_York",
        "--since",
        "20261120",
        "--until",
        "20261120",
        "--json",
    ]);
    let want: i64 = count(
        &conn,
        "SELECT count(*) FROM usage WHERE substr(datetime(ts, '-5 hours'), 1, 10) = '2026-11-20'",
    );
    assert_eq!(ny["totals"]["responses"].as_i64().unwrap(), want);
    // Zones whose offset has minutes: an hour whose responses fall on two local days is read
    // response by response, so the days are exact there too (sqlite3's own arithmetic as the
    // reference; these zones keep one offset all year).
    let mut split_hours = 0;
    for (zone, shift) in [
        ("Asia/Kolkata", "'+5 hours', '+30 minutes'"),
        ("Asia/Kathmandu", "'+5 hours', '+45 minutes'"),
        ("Asia/Tehran", "'+3 hours', '+30 minutes'"),
        ("Australia/Eucla", "'+8 hours', '+45 minutes'"),
        ("Pacific/Marquesas", "'-9 hours', '-30 minutes'"),
    ] {
        let v = env.json(&["obs", "cost", "--timezone", zone, "--json"]);
        let want = pairs(
            &conn,
            &format!("SELECT substr(datetime(ts, {shift}), 1, 10), count(*) || ' ' || sum(input_tokens) FROM usage GROUP BY 1 ORDER BY 1"),
        );
        let got: Vec<(String, String)> = rows(&v)
            .iter()
            .map(|r| {
                let key = r["key"].as_str().unwrap().to_string();
                (
                    key,
                    format!("{} {}", r["responses"].as_i64().unwrap(), r["input_tokens"].as_i64().unwrap()),
                )
            })
            .collect();
        assert_eq!(got, want, "{zone}");
        split_hours += count(
            &conn,
            &format!(
                "SELECT count(*) FROM cost_hourly_rows WHERE substr(datetime(first_ts, {shift}), 1, 10) <> substr(datetime(last_ts, {shift}), 1, 10)"
            ),
        );
    }
    assert!(split_hours > 0, "the sample has an hour that some zone's midnight splits");
    let out = env.run(&["obs", "cost", "--timezone", "Mars/Olympus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Mars/Olympus"));

    // --by session: project and last activity, in time order.
    let s = env.json(&["obs", "cost", "--by", "session", "--json"]);
    let last_seen: Vec<(String, String)> = pairs(&conn, "SELECT session_id, max(ts) FROM usage GROUP BY 1 ORDER BY 2");
    let got: Vec<(String, String)> = rows(&s)
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_string(),
                r["last_activity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got, last_seen);
    assert!(rows(&s).iter().all(|r| r["project"].as_str().unwrap().starts_with("project-")));
}

#[test]
fn a_time_not_of_the_stored_form_keeps_an_hourly_row_of_its_own_and_local_days_count_it_once() {
    let set = tempfile::tempdir().unwrap();
    generate(GENERATOR, set.path(), &["--sessions", "1", "--messages", "6", "--seed", "3"]);
    let env = Env::new();
    env.ok(&["obs", "import", "transcripts", set.path().join("projects").to_str().unwrap()]);
    let conn = env.db();
    // One UTC hour of one project and model: two responses of the stored form either side of
    // Kolkata's midnight (18:30 UTC), and one whose time (no milliseconds) is not of that form.
    let insert = include_str!("../../queries/home/cost/usage_insert.sql");
    for (key, ts, input) in [
        ("odd-a", "2026-11-20T18:10:00.000Z", 1),
        ("odd-b", "2026-11-20T18:50:00.000Z", 10),
        ("odd-c", "2026-11-20T18:20:00Z", 100),
    ] {
        let n = conn
            .execute(
                insert,
                rusqlite::params![
                    key,
                    "spool",
                    "p-odd",
                    "/r",
                    "s-odd",
                    "claude",
                    ts,
                    "m-odd",
                    input,
                    0,
                    0,
                    0,
                    0.5,
                    "x",
                    None::<String>,
                    0
                ],
            )
            .unwrap();
        assert_eq!(n, 1);
    }
    // Stored: a numbered hour and a text one; shown: both under the hour's text.
    let stored: Vec<(String, i64)> = pairs(
        &conn,
        "SELECT typeof(hour), responses FROM usage_hourly h JOIN usage_names p ON p.id = h.project_id
         WHERE p.name = 'p-odd' ORDER BY 1",
    );
    assert_eq!(stored, [("integer".to_string(), 2), ("text".to_string(), 1)]);
    let shown: Vec<(String, String)> = pairs(
        &conn,
        "SELECT hour, first_ts || ' ' || last_ts FROM cost_hourly_rows WHERE project = 'p-odd' ORDER BY 2",
    );
    assert_eq!(
        shown,
        [
            (
                "2026-11-20T18".to_string(),
                "2026-11-20T18:10:00.000Z 2026-11-20T18:50:00.000Z".to_string()
            ),
            ("2026-11-20T18".to_string(), "2026-11-20T18:20:00Z 2026-11-20T18:20:00Z".to_string()),
        ]
    );
    // In Kolkata the numbered row is split over two days and read response by response; the text
    // row lies on one day and counts whole; no response counts twice.
    let v = env.json(&["obs", "cost", "--timezone", "Asia/Kolkata", "--project", "p-odd", "--json"]);
    let got: Vec<(String, i64, i64)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_string(),
                r["responses"].as_i64().unwrap(),
                r["input_tokens"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, [("2026-11-20".to_string(), 2, 101), ("2026-11-21".to_string(), 1, 10)]);
    // The blocks count all three in the hour's block.
    let v = env.json(&["obs", "cost", "--by", "block", "--project", "p-odd", "--json"]);
    let blocks = v["rows"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{v}");
    assert_eq!(blocks[0]["responses"].as_i64(), Some(3));
    assert_eq!(blocks[0]["block"]["start"].as_str(), Some("2026-11-20T18:00:00.000Z"));
}

/// Blocks are activity's, not the window's: a chain of responses every two hours from the evening
/// of 2026-11-18 to 01:10 on the 20th makes blocks starting at 21:00, 03:00, 09:00, 15:00 and
/// 21:00 again — the last one running over midnight. A window that starts at midnight (or the
/// statusline's last hours) must not restart the chain there: `tlc statusline`, `obs cost --by
/// block` and `obs cost --by block --since today` show the same 21:00–02:00 block and cost.
#[test]
fn a_block_over_midnight_is_the_same_block_for_the_statusline_the_report_and_since_today() {
    let env = Env::new();
    let set = tempfile::tempdir().unwrap();
    let session = "5b1c0d2e-0000-4000-8000-00000000b10c";
    let dir = set.path().join("projects/-home-dev-night");
    std::fs::create_dir_all(&dir).unwrap();
    let start = chrono::DateTime::parse_from_rfc3339("2026-11-18T21:10:00Z").unwrap();
    let mut lines = Vec::new();
    for i in 0..15 {
        let ts = (start + chrono::Duration::hours(2 * i)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        lines.push(
            serde_json::json!({"type": "assistant", "sessionId": session, "cwd": "/home/dev/night", "timestamp": ts,
                "requestId": format!("req_night_{i}"), "uuid": format!("u-{i}"),
                "message": {"id": format!("msg_night_{i}"), "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": "ok"}],
                    "usage": {"input_tokens": 10 + i, "output_tokens": 1000 * (i + 1), "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
            .to_string(),
        );
    }
    std::fs::write(dir.join(format!("{session}.jsonl")), lines.join("\n") + "\n").unwrap();
    env.ok(&["obs", "import", "transcripts", set.path().join("projects").to_str().unwrap()]);
    let now = "2026-11-20T01:30:00Z";
    let blocks = |args: &[&str]| -> Value {
        let out = env
            .cmd()
            .args(["obs", "cost", "--by", "block", "--json"])
            .args(args)
            .env("TLC_NOW", now)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let all = blocks(&[]);
    let rows = all["rows"].as_array().unwrap();
    let starts: Vec<&str> = rows.iter().map(|r| r["block"]["start"].as_str().unwrap()).collect();
    assert_eq!(
        starts,
        [
            "2026-11-18T21:00:00.000Z",
            "2026-11-19T03:00:00.000Z",
            "2026-11-19T09:00:00.000Z",
            "2026-11-19T15:00:00.000Z",
            "2026-11-19T21:00:00.000Z"
        ],
        "{all}"
    );
    let last = rows.last().unwrap();
    assert_eq!(last["block"]["active"], true, "{last}");
    assert_eq!(last["block"]["end"], "2026-11-20T02:00:00.000Z");
    assert_eq!(last["responses"], 3, "21:10 and 23:10 on the 19th, 01:10 on the 20th: {last}");
    let cost = last["cost_usd"].as_f64().unwrap();

    // The window starting at midnight shows the block that runs over it, whole.
    for since in [
        &["--since", "today"][..],
        &["--since", "2026-11-20"],
        &["--since", "20261120", "--until", "today"],
    ] {
        let today = blocks(since);
        let rows = today["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 1, "{since:?}: {today}");
        assert_eq!(rows[0]["block"], last["block"], "{since:?}");
        assert_eq!(rows[0]["cost_usd"].as_f64(), Some(cost), "{since:?}");
    }
    // A window of the day before shows its blocks, the one over midnight among them, unchanged.
    let yesterday = blocks(&["--since", "yesterday", "--until", "yesterday"]);
    let rows = yesterday["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "{yesterday}");
    assert_eq!(rows.last().unwrap()["block"]["start"], "2026-11-19T21:00:00.000Z");
    assert_eq!(rows.last().unwrap()["cost_usd"].as_f64(), Some(cost));
    assert_eq!(rows[0]["block"]["start"], "2026-11-18T21:00:00.000Z", "{yesterday}");
    // --last chooses among the same blocks.
    let last_two = blocks(&["--last", "2"]);
    assert_eq!(last_two["rows"].as_array().unwrap()[1]["block"], last["block"]);

    // The statusline's active block: the same cost, ending at 02:00 (30 minutes left).
    let transcript = dir.join(format!("{session}.jsonl"));
    let out = statusline(&env, statusline_payload(session, &transcript).as_bytes(), now);
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    let usd = |v: f64| if v >= 0.01 { format!("${v:.4}") } else { format!("${v:.6}") };
    assert!(
        line.contains(&format!("{} block (0h30m left)", usd(cost))),
        "{line} (want {})",
        usd(cost)
    );
}
