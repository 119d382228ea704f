//! What a person at a terminal and an analyst with their own tools see: tables fitted to a real
//! pseudo-terminal of 80 and 200 columns, colour only on a terminal, every view read back by the
//! system's own `sqlite3`, and an export DuckDB loads with the totals `obs cost` prints.

use crate::common::*;
use crate::terminal_support;
use serde_json::Value;
use std::path::Path;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/transcripts/sample/projects");

/// A world with both databases filled: a replayed Claude Code session in the project database,
/// the sample transcripts imported into the home database.
fn filled() -> World {
    let w = World::new();
    replay_claude_session(&w);
    w.ok(&["obs", "import", "transcripts", SAMPLE]);
    w
}

/// `tlc <args>` on a pseudo-terminal `cols` wide: everything it wrote, as the terminal got it.
fn on_terminal(w: &World, cols: u16, args: &[&str], env: &[(&str, &str)]) -> String {
    let (code, text) = Pty::spawn(w, args, cols, env).finish();
    // doctor exits 1 when a check fails; anything else is a failure of the command.
    assert!(code <= 1, "tlc {args:?} on the pty: exit {code}\n{text}");
    text
}

fn strip_ansi(s: &str) -> String {
    regex::Regex::new(r"\x1b\[[0-9;]*[A-Za-z]").unwrap().replace_all(s, "").into_owned()
}

fn width(line: &str) -> usize {
    line.chars().count()
}

fn thousands(v: i64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Every line of `text` fits `cols`, and each of `whole` appears whole on one line.
fn assert_fits(what: &str, text: &str, cols: usize, whole: &[String]) {
    let plain = strip_ansi(text);
    assert!(plain.lines().count() > 2, "{what}: printed almost nothing:\n{plain}");
    for line in plain.lines() {
        assert!(
            width(line) <= cols,
            "{what}: a line of {} characters at {cols} columns:\n{line}\n\n{plain}",
            width(line)
        );
    }
    for w in whole {
        assert!(
            plain.lines().any(|l| l.contains(w.as_str())),
            "{what}: {w:?} is not whole on any line:\n{plain}"
        );
    }
}

fn json(w: &World, args: &[&str]) -> Value {
    let o = w.run(args);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

#[test]
fn tables_fit_80_and_200_columns_with_no_number_split() {
    let w = filled();
    let cost = json(&w, &["obs", "cost", "--json"]);
    let totals = &cost["totals"];
    let tok = |k: &str| thousands(totals[k].as_i64().unwrap());
    let by_session = json(&w, &["obs", "cost", "--by", "session", "--json"]);
    let report = json(&w, &["obs", "report", "--json"]);
    let events = json(&w, &["obs", "events", "--json"]);
    let doctor = json(&w, &["doctor", "--json"]);
    let session = report["session_id"].as_str().unwrap().to_string();
    assert!(session.len() > 30, "{session}");

    for cols in [80u16, 200] {
        let c = usize::from(cols);
        let out = on_terminal(&w, cols, &["obs", "cost"], &[]);
        let mut whole = vec![tok("input_tokens"), tok("output_tokens"), tok("total_tokens")];
        for r in cost["rows"].as_array().unwrap() {
            whole.push(r["key"].as_str().unwrap().to_string());
        }
        if cols == 200 {
            whole.push(tok("cache_read_tokens"));
            whole.push(tok("cache_write_tokens"));
        }
        assert_fits(&format!("obs cost at {cols}"), &out, c, &whole);
        // At 80 columns the cache columns give way (ccusage's narrow form); at 200 all are shown.
        assert_eq!(strip_ansi(&out).contains("cache read"), cols == 200, "{out}");

        let out = on_terminal(&w, cols, &["obs", "cost", "--by", "session"], &[]);
        // At 80 columns the by-session table keeps input, output and cost (the token detail and
        // the project give way); every number it shows is whole.
        let mut whole = vec![tok("output_tokens")];
        for r in by_session["rows"].as_array().unwrap() {
            whole.push(r["key"].as_str().unwrap()[..8].to_string());
            whole.push(thousands(r["output_tokens"].as_i64().unwrap()));
        }
        assert_fits(&format!("obs cost --by session at {cols}"), &out, c, &whole);
        // Session ids are a unique prefix, never wrapped across lines.
        for r in by_session["rows"].as_array().unwrap() {
            assert!(!out.contains(r["key"].as_str().unwrap()), "a whole session id at {cols}:\n{out}");
        }

        let out = on_terminal(&w, cols, &["obs", "report"], &[]);
        let whole = [
            session.clone(),
            thousands(report["cache_read_tokens"].as_i64().unwrap()),
            thousands(report["cache_write_tokens"].as_i64().unwrap()),
            report["started_at"].as_str().unwrap().to_string(),
        ];
        assert_fits(&format!("obs report at {cols}"), &out, c, &whole);

        let out = on_terminal(&w, cols, &["obs", "events"], &[]);
        let whole: Vec<String> = events
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["ts"].as_str().unwrap()[..19].replace('T', " "))
            .collect();
        assert_fits(&format!("obs events at {cols}"), &out, c, &whole);
        // A row takes at most two lines: the events' rows, the header and the frame.
        let n = events.as_array().unwrap().len();
        assert!(
            strip_ansi(&out).lines().count() <= 2 * n + 4,
            "obs events at {cols}: {} lines for {n} events:\n{out}",
            strip_ansi(&out).lines().count()
        );

        let out = on_terminal(&w, cols, &["status"], &[]);
        assert_fits(&format!("status at {cols}"), &out, c, &["posture:".to_string()]);

        let out = on_terminal(&w, cols, &["doctor"], &[]);
        let checks = doctor["checks"].as_array().unwrap();
        let whole = [format!(
            "{} checks: {} failed, {} warned",
            checks.len(),
            doctor["failed"],
            doctor["warned"]
        )];
        assert_fits(&format!("doctor at {cols}"), &out, c, &whole);
        // Every check's whole detail is there (prose wraps, it is never cut): with the frame and
        // the spaces taken out, a row's continuation lines follow on from its first.
        let bare = |s: &str| s.chars().filter(|c| !c.is_whitespace() && !"│┆".contains(*c)).collect::<String>();
        let flat = bare(&strip_ansi(&out));
        for ch in checks {
            let detail = bare(ch["detail"].as_str().unwrap());
            assert!(flat.contains(&detail), "doctor at {cols} lost part of {:?}:\n{out}", ch["detail"]);
        }
    }
}

#[test]
fn wide_shows_whole_ids_at_any_width() {
    let w = filled();
    let by_session = json(&w, &["obs", "cost", "--by", "session", "--json"]);
    let out = on_terminal(&w, 80, &["obs", "cost", "--by", "session", "--wide"], &[]);
    for r in by_session["rows"].as_array().unwrap() {
        assert!(out.contains(r["key"].as_str().unwrap()), "--wide lost a session id:\n{out}");
    }
    // --compact asks for the narrow form even on a wide terminal.
    let out = on_terminal(&w, 200, &["obs", "cost", "--compact"], &[]);
    assert!(!out.contains("cache read") && out.contains("output"), "{out}");
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let w = filled();
    // Something wrong to colour: a loop budget at Claude Code's own cap (a fresh install warns
    // about nothing).
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(w.home.join("config.toml"), "[grind]\nmaxLoops = 9\n").unwrap();
    let doctor = json(&w, &["doctor", "--json"]);
    assert!(doctor["warned"].as_i64().unwrap() > 0, "the test needs a warning to colour");
    // Every warning names the command that fixes it.
    for c in doctor["checks"].as_array().unwrap().iter().filter(|c| c["status"] != "ok") {
        assert!(c["detail"].as_str().unwrap().contains("`tlc "), "no command in {c}");
    }
    let out = on_terminal(&w, 120, &["doctor"], &[]);
    assert!(out.contains("\x1b["), "doctor on a terminal has no colour:\n{out}");
    assert!(out.contains("\x1b[1m") || out.contains(";1m") || out.contains("\x1b[33"), "{out:?}");
    let out = on_terminal(&w, 120, &["doctor"], &[("NO_COLOR", "1")]);
    assert!(!out.contains('\x1b'), "NO_COLOR still coloured:\n{out:?}");
    let o = w.run(&["doctor"]);
    assert!(!stdout(&o).contains('\x1b'), "colour into a pipe");
}

/// The rows of `sql` on `db` as the system's sqlite3 prints them (CSV with a header).
fn sqlite3_rows(db: &Path, view: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let out = std::process::Command::new("sqlite3")
        .args(["-readonly", "-csv", "-header"])
        .arg(db)
        .arg(format!("SELECT * FROM \"{view}\""))
        .output()
        .expect("the system sqlite3 (installed by .ci/run)");
    assert!(out.status.success(), "sqlite3 on {view}: {}", String::from_utf8_lossy(&out.stderr));
    parse_csv(&out.stdout)
}

fn parse_csv(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(bytes);
    let headers = r.headers().map(|h| h.iter().map(str::to_string).collect()).unwrap_or_default();
    let mut rows: Vec<Vec<String>> = r.records().map(|x| x.unwrap().iter().map(str::to_string).collect()).collect();
    rows.sort();
    (headers, rows)
}

/// Two cells agree when equal, or when both are numbers within a relative 1e-9 (SQLite's shell
/// prints a REAL with 15 significant digits, tlc with all of them).
fn same_cell(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-300),
        _ => false,
    }
}

#[test]
fn the_system_sqlite3_agrees_with_tlc_on_every_view() {
    let w = filled();
    let version = std::process::Command::new("sqlite3").arg("--version").output().expect("sqlite3");
    eprintln!("system sqlite3 {}", String::from_utf8_lossy(&version.stdout).trim());
    let views = json(&w, &["obs", "views", "--json"]);
    let mut compared = 0;
    let mut with_rows = 0;
    for v in views.as_array().unwrap() {
        let (db_name, view) = (v["database"].as_str().unwrap(), v["view"].as_str().unwrap());
        let db = if db_name == "project" { w.project_db() } else { w.home_db() };
        let (h1, mine) = parse_csv(&w.run(&["obs", "export", view, "--db", db_name, "--format", "csv"]).stdout);
        let (h2, theirs) = sqlite3_rows(&db, view);
        // The shell prints no header for an empty result.
        if !theirs.is_empty() {
            assert_eq!(h1, h2, "{db_name} {view}: columns differ");
        }
        assert_eq!(mine.len(), theirs.len(), "{db_name} {view}: row counts differ");
        for (a, b) in mine.iter().zip(&theirs) {
            assert!(
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_cell(x, y)),
                "{db_name} {view}: tlc {a:?}\nsqlite3 {b:?}"
            );
        }
        compared += 1;
        with_rows += usize::from(!mine.is_empty());
    }
    assert!(compared >= 20, "compared {compared} views");
    // The comparison means something only where there are rows: most views have some here.
    assert!(with_rows >= 12, "only {with_rows} views had rows");
    // The week view is where an older sqlite3 used to show NULL.
    let (_, weeks) = sqlite3_rows(&w.home_db(), "cost_by_week");
    assert!(
        !weeks.is_empty() && weeks.iter().all(|r| r[0].len() == 8 && r[0].contains("-W")),
        "{weeks:?}"
    );
}

#[test]
fn a_home_export_loads_in_duckdb_with_the_totals_obs_cost_prints() {
    let w = filled();
    let csv_path = w.dir.path().join("cost_by_day.csv");
    let o = w.run(&[
        "obs",
        "export",
        "cost_by_day",
        "--db",
        "home",
        "--format",
        "csv",
        "--out",
        csv_path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cost = json(&w, &["obs", "cost", "--json"]);
    let t = &cost["totals"];
    let py = terminal_support::python();
    let script = r#"
import duckdb, json, sys
con = duckdb.connect()
cur = con.execute("DESCRIBE SELECT * FROM read_csv(?)", [sys.argv[1]])
types = {r[0]: str(r[1]) for r in cur.fetchall()}
row = con.execute("""SELECT sum(input_tokens), sum(output_tokens), sum(cache_read_tokens),
                 sum(cache_write_tokens), sum(cost_usd), count(*) FROM read_csv(?)""", [sys.argv[1]]).fetchone()
print(json.dumps({"types": types, "sums": [int(row[0]), int(row[1]), int(row[2]), int(row[3]), float(row[4]), int(row[5])]}))
"#;
    let out = std::process::Command::new(py)
        .arg("-c")
        .arg(script)
        .arg(&csv_path)
        .output()
        .expect("python");
    assert!(out.status.success(), "duckdb: {}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sums = got["sums"].as_array().unwrap();
    assert!(sums[5].as_i64().unwrap() > 0, "the export is empty");
    assert_eq!(sums[0].as_i64(), t["input_tokens"].as_i64());
    assert_eq!(sums[1].as_i64(), t["output_tokens"].as_i64());
    assert_eq!(sums[2].as_i64(), t["cache_read_tokens"].as_i64());
    assert_eq!(sums[3].as_i64(), t["cache_write_tokens"].as_i64());
    let (a, b) = (sums[4].as_f64().unwrap(), t["cost_usd"].as_f64().unwrap());
    assert!((a - b).abs() < 1e-9, "cost: DuckDB {a}, obs cost {b}");
    let types = &got["types"];
    assert_eq!(types["day"], "DATE", "{types}");
    assert_eq!(types["input_tokens"], "BIGINT", "{types}");
    assert_eq!(types["cost_usd"], "DOUBLE", "{types}");
}

#[test]
fn export_reads_the_database_named_and_names_it_in_errors() {
    let w = filled();
    // The cost views are in both databases: inside a repository the project's is the default.
    let project = w.run(&["obs", "export", "cost_rows", "--format", "json"]);
    let home = w.run(&["obs", "export", "cost_rows", "--db", "home", "--format", "json"]);
    let (p, h): (Value, Value) = (
        serde_json::from_slice(&project.stdout).unwrap(),
        serde_json::from_slice(&home.stdout).unwrap(),
    );
    assert!(!p.as_array().unwrap().is_empty() && !h.as_array().unwrap().is_empty());
    assert_ne!(p, h, "--db home read the project database");
    // Outside a repository the home database is the default.
    let outside = w.dir.path().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let o = w
        .cmd_in(&outside, &["obs", "export", "cost_rows", "--format", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(serde_json::from_slice::<Value>(&o.stdout).unwrap(), h);
    // A view the named database does not have is an error naming the database.
    let o = w.run(&["obs", "export", "event_log", "--db", "home"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("home database has no view named \"event_log\""),
        "{}",
        stderr(&o)
    );
    // JSON columns holding JSON are objects, and jsonl is a line per row.
    let o = w.run(&["obs", "export", "event_log", "--format", "jsonl"]);
    let lines: Vec<Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.len() > 5);
    assert!(lines.iter().all(|l| l["attrs"].is_object()), "{:?}", lines[0]);
}

#[test]
fn obs_events_json_carries_a_generations_tokens_and_cost() {
    let w = filled();
    let events = json(&w, &["obs", "events", "--kind", "generation", "--json"]);
    let gens = events.as_array().unwrap();
    assert!(!gens.is_empty());
    let rep = json(&w, &["obs", "report", "--json"]);
    let sum = |k: &str| gens.iter().map(|e| e[k].as_i64().unwrap_or(0)).sum::<i64>();
    assert_eq!(sum("cache_read_tokens"), rep["cache_read_tokens"].as_i64().unwrap());
    assert_eq!(sum("output_tokens"), rep["output_tokens"].as_i64().unwrap());
    let cost: f64 = gens.iter().filter_map(|e| e["cost_usd"].as_f64()).sum();
    assert!((cost - rep["estimated_cost_usd"].as_f64().unwrap()).abs() < 1e-9);
    assert!(gens.iter().all(|e| e["attrs"].is_object()));
    // The report counts the generations its tokens and cost sum.
    assert_eq!(rep["generations"].as_i64().unwrap(), gens.len() as i64);
    // snake_case names, with the old camelCase ones kept for one release.
    assert_eq!(rep["gate_time"], rep["gateTime"]);
    assert!(rep["gate_time"]["total_ms"].is_i64() && rep["shell"]["by_rule"].is_object());
}

const GENERATOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/transcripts/generate.py");

/// A generated transcripts folder of a few MiB (the shared generator): its `projects` folder.
fn generated_transcripts(dir: &Path) -> String {
    let st = std::process::Command::new("python3")
        .arg(GENERATOR)
        .arg(dir)
        .args(["--sessions", "12", "--messages", "150", "--seed", "19"])
        .status()
        .expect("python3 runs the transcript generator");
    assert!(st.success());
    dir.join("projects").to_string_lossy().into_owned()
}

#[test]
fn the_import_draws_its_progress_bar_at_a_terminal_and_nothing_into_a_pipe() {
    let set = tempfile::tempdir().unwrap();
    let projects = generated_transcripts(set.path());
    let import = ["obs", "import", "transcripts", projects.as_str()];

    // At a terminal the bar is drawn on it from the start: the label, the bytes read in binary
    // units and the rate, against the total with the time left once the import has measured the
    // folder (a draw a quick import may finish before: redraws are at most ten a second); and
    // cleared once the import is done, before the summary.
    let w = World::new();
    let out = on_terminal(&w, 160, &import, &[]);
    let bar = regex::Regex::new(&format!(
        r"importing {} (\[[#>-]{{25}}\] )?[\d.]+ (B|KiB|MiB)(/[\d.]+ MiB)? [\d.]+ (B|KiB|MiB)/s",
        regex::escape(&projects)
    ))
    .unwrap();
    assert!(bar.is_match(&out), "no progress bar at the terminal:\n{out:?}");
    let cleared = out.rfind("\x1b[2K").expect("the bar is cleared");
    let summary = out.find("files: 12 (12 read").expect("the summary");
    assert!(cleared < summary, "{out:?}");

    // Into a pipe (stdout and stderr), and with stdout piped at a terminal (stderr still on it):
    // the summary alone, no bar text and no escape codes.
    let w = World::new();
    let o = w.run(&import);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("files: 12 (12 read"), "{}", stdout(&o));
    let w = World::new();
    let mut piped = std::process::Command::new("sh");
    piped
        .arg("-c")
        .arg(format!("{} obs import transcripts {} | cat", sh_quote(TLC), sh_quote(&projects)))
        .current_dir(&w.repo)
        .isolated(&w);
    let at_terminal = at_terminal(&piped);
    assert!(at_terminal.status.success(), "{}", stderr(&at_terminal));
    for (what, text) in [
        ("stdout into a pipe", stdout(&o)),
        ("stderr into a pipe", stderr(&o)),
        ("the terminal, stdout piped", stdout(&at_terminal)),
    ] {
        assert!(
            !text.contains('\x1b') && !text.contains("B/s") && !text.contains("eta ") && !text.contains("[--"),
            "{what} got the bar:\n{text:?}"
        );
    }
    assert!(stdout(&at_terminal).contains("files: 12 (12 read"), "{}", stdout(&at_terminal));
}
