//! Stop benchmarks, whole process (run with `cargo bench --bench stop`), interleaved in one run:
//!
//! 1. a Claude Code Stop with grind on whose test verdict is reused (same tree as the run before):
//!    the changed files are read (`git status`), hashed, the verdict found and a reused row
//!    written — nothing else runs;
//! 2. a Stop with every stop rail off (no git process);
//! 3. a plain PostToolUse hook, the baseline "any other hook";
//! 4. a no-op process (`true`) started the same way.
//!
//! With `TLC_BENCH_BASELINE=<a tlc binary>` (for instance the previous commit's), cases 1-3 also
//! run with that binary, in repositories and a home of its own (its schema may be older),
//! interleaved in the same rounds, and each case's ratio to it is printed (issue 30, item 8).
//!
//! Figures are printed: medians and their ratios. Budget (issue 17): 2 costs no more than 3.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{median, tlc};

fn run_once(program: &Path, args: &[&str], payload: &[u8], cwd: &Path, home: &Path) -> (Duration, String) {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("TLC_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    // A no-op may exit before reading: a broken pipe is expected there.
    let _ = child.stdin.take().expect("stdin").write_all(payload);
    let out = child.wait_with_output().expect("wait");
    (start.elapsed(), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn git(repo: &Path, args: &[&str]) {
    let st = Command::new("git")
        .args(["-c", "user.name=bench", "-c", "user.email=bench@example.com"])
        .args(args)
        .current_dir(repo)
        .stdout(Stdio::null())
        .status()
        .expect("git");
    assert!(st.success(), "git {args:?}");
}

fn repo(dir: &Path, config: &str) -> PathBuf {
    std::fs::create_dir_all(dir.join("src")).expect("repo");
    std::fs::create_dir_all(dir.join(".tlc/harness")).expect("config folder");
    git(dir, &["init", "-q"]);
    std::fs::write(dir.join(".tlc/harness/config.toml"), config).expect("config");
    for i in 0..20 {
        std::fs::write(dir.join(format!("src/m{i}.rs")), format!("pub fn f{i}() -> u32 {{ {i} }}\n")).expect("file");
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "init"]);
    // The turn's change: three files under src/.
    for i in 0..3 {
        std::fs::write(dir.join(format!("src/m{i}.rs")), format!("pub fn f{i}() -> u32 {{ {i} + 1 }}\n")).expect("change");
    }
    dir.to_path_buf()
}

fn main() {
    let runs: usize = std::env::var("TLC_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let bin = tlc();
    let scratch = std::env::temp_dir().join(format!("tlc-bench-stop-{}", std::process::id()));
    let home = scratch.join("home");
    let on = repo(&scratch.join("grind-on"), "[grind]\nenabled = true\ntestCommand = [\"true\"]\n");
    let off = repo(&scratch.join("grind-off"), "[grind]\nenabled = false\n");
    let true_bin = PathBuf::from(if Path::new("/bin/true").exists() {
        "/bin/true"
    } else {
        "/usr/bin/true"
    });
    let baseline = std::env::var_os("TLC_BENCH_BASELINE").map(PathBuf::from);
    if let Some(b) = &baseline {
        assert!(b.is_file(), "TLC_BENCH_BASELINE={}: no such file", b.display());
    }
    // The baseline's own repositories and home, made the same way.
    let base = baseline.as_ref().map(|b| {
        let on = repo(
            &scratch.join("base-grind-on"),
            "[grind]\nenabled = true\ntestCommand = [\"true\"]\n",
        );
        let off = repo(&scratch.join("base-grind-off"), "[grind]\nenabled = false\n");
        (b.clone(), on, off, scratch.join("base-home"))
    });
    let prompt = br#"{"hook_event_name":"UserPromptSubmit","session_id":"bench","prompt":"go"}"#;
    let stop = br#"{"hook_event_name":"Stop","session_id":"bench","stop_hook_active":false,"last_assistant_message":"done"}"#;
    let post = br#"{"hook_event_name":"PostToolUse","session_id":"bench","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"}}"#;
    for r in [&on, &off] {
        run_once(&bin, &["hook", "claude"], prompt, r, &home);
    }
    // Warm up; the first stop in the grind repository runs the test command, every later one
    // reuses its verdict.
    if let Some((b, on_b, off_b, home_b)) = &base {
        for r in [on_b, off_b] {
            run_once(b, &["hook", "claude"], prompt, r, home_b);
        }
    }
    for _ in 0..10 {
        run_once(&bin, &["hook", "claude"], stop, &on, &home);
        run_once(&bin, &["hook", "claude"], stop, &off, &home);
        run_once(&bin, &["hook", "claude"], post, &off, &home);
        run_once(&true_bin, &[], post, &off, &home);
        if let Some((b, on_b, off_b, home_b)) = &base {
            run_once(b, &["hook", "claude"], stop, on_b, home_b);
            run_once(b, &["hook", "claude"], stop, off_b, home_b);
            run_once(b, &["hook", "claude"], post, off_b, home_b);
        }
    }
    let db = rusqlite::Connection::open(on.join(".tlc/harness/state/tlc.db")).expect("db");
    let ran_before: i64 = db
        .query_row("SELECT count(*) FROM gate_runs WHERE reused = 0", [], |r| r.get(0))
        .expect("count");
    let (mut reused, mut stop_off, mut plain, mut noop) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut base_reused, mut base_off, mut base_plain) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let (t, out) = run_once(&bin, &["hook", "claude"], stop, &on, &home);
        assert_eq!(out, "", "the stop with a reused passing verdict is let through");
        reused.push(t);
        stop_off.push(run_once(&bin, &["hook", "claude"], stop, &off, &home).0);
        plain.push(run_once(&bin, &["hook", "claude"], post, &off, &home).0);
        noop.push(run_once(&true_bin, &[], post, &off, &home).0);
        if let Some((b, on_b, off_b, home_b)) = &base {
            let (t, out) = run_once(b, &["hook", "claude"], stop, on_b, home_b);
            assert_eq!(out, "", "the baseline's stop with a reused passing verdict is let through");
            base_reused.push(t);
            base_off.push(run_once(b, &["hook", "claude"], stop, off_b, home_b).0);
            base_plain.push(run_once(b, &["hook", "claude"], post, off_b, home_b).0);
        }
    }
    let ran_after: i64 = db
        .query_row("SELECT count(*) FROM gate_runs WHERE reused = 0", [], |r| r.get(0))
        .expect("count");
    let reused_rows: i64 = db
        .query_row("SELECT count(*) FROM gate_runs WHERE reused = 1", [], |r| r.get(0))
        .expect("count");
    assert_eq!(ran_before, ran_after, "no stop in the measured runs ran the command");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (reused, stop_off, plain, noop) = (median(reused), median(stop_off), median(plain), median(noop));
    println!("stop: whole-process Claude Code Stop hooks, {runs} runs each, interleaved");
    println!(
        "  median stop, grind on, reused verdict   {:.3} ms  ({reused_rows} reused rows, the test command ran {ran_after} time(s) in all)",
        ms(reused)
    );
    println!("  median stop, every stop rail off        {:.3} ms", ms(stop_off));
    println!("  median PostToolUse hook (baseline)      {:.3} ms", ms(plain));
    println!("  median no-op (true, started the same way) {:.3} ms", ms(noop));
    println!("  ratio reused stop / no-op               {:.2}x", ms(reused) / ms(noop));
    println!("  ratio reused stop / PostToolUse hook    {:.2}x", ms(reused) / ms(plain));
    println!("  ratio rails-off stop / PostToolUse hook {:.2}x", ms(stop_off) / ms(plain));
    if let Some((b, ..)) = &base {
        println!("  against the baseline {} (same rounds):", b.display());
        for (label, this, theirs) in [
            ("stop, grind on, reused verdict", reused, base_reused),
            ("stop, every stop rail off", stop_off, base_off),
            ("PostToolUse hook", plain, base_plain),
        ] {
            let theirs = median(theirs);
            println!(
                "    {label:<32} {:.3} ms, baseline {:.3} ms: {:.3}x",
                ms(this),
                ms(theirs),
                ms(this) / ms(theirs)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
