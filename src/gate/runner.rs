//! Running one gate command: in its own process group, with its output (stdout and stderr in
//! one pipe, in order) kept in a ring buffer of the last bytes only, killed as a whole group when
//! it passes its timeout, and with whatever it left running killed when it ends — no child
//! outlives the hook. The findings file it may write (`HARNESS_GATE_REPORT`) is read with
//! suspicion: a symlink, a FIFO, more than 1 MiB, or text that is not JSON is refused, and at
//! most [`MAX_FINDINGS`] findings are kept however many it holds.

use std::collections::VecDeque;
use std::io::Read;
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Characters of output kept with a run.
pub(crate) const OUTPUT_TAIL_CHARS: usize = 8000;
/// Bytes the ring buffer holds: enough for [`OUTPUT_TAIL_CHARS`] characters of any UTF-8.
const RING_BYTES: usize = OUTPUT_TAIL_CHARS * 4;
/// Findings kept per run.
pub(crate) const MAX_FINDINGS: usize = 8;
pub(crate) const MAX_SUMMARY_CHARS: usize = 200;
pub(crate) const MAX_DETAIL_CHARS: usize = 500;
/// A findings report larger than this is not read.
pub(crate) const MAX_REPORT_BYTES: u64 = 1024 * 1024;

/// The last bytes written into it, however many were.
#[derive(Debug, Default)]
pub(crate) struct TailBuffer {
    buf: VecDeque<u8>,
    cap: usize,
    /// Every byte ever pushed.
    pub total: u64,
}

impl TailBuffer {
    pub(crate) fn new(cap: usize) -> TailBuffer {
        TailBuffer {
            buf: VecDeque::with_capacity(cap.min(64 * 1024)),
            cap,
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let keep = &bytes[bytes.len().saturating_sub(self.cap)..];
        let overflow = (self.buf.len() + keep.len()).saturating_sub(self.cap);
        self.buf.drain(..overflow.min(self.buf.len()));
        self.buf.extend(keep);
    }

    /// The kept bytes as text: a character cut at the start is dropped, invalid UTF-8 replaced,
    /// and only the last `max_chars` characters kept.
    pub(crate) fn text(&self, max_chars: usize) -> String {
        let (a, b) = self.buf.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        let skip = if self.total > self.buf.len() as u64 {
            bytes.iter().take(3).take_while(|b| (**b & 0xC0) == 0x80).count()
        } else {
            0
        };
        last_chars(&String::from_utf8_lossy(&bytes[skip..]), max_chars)
    }
}

/// The last `max` characters of `s`.
pub(crate) fn last_chars(s: &str, max: usize) -> String {
    let count = s.chars().count();
    if count <= max {
        return s.to_string();
    }
    s.chars().skip(count - max).collect()
}

/// The first `max` characters of `s`.
pub(crate) fn first_chars(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// One thing a gate found.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Finding {
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
}

impl Finding {
    pub(crate) fn new(summary: &str) -> Finding {
        Finding {
            summary: first_chars(summary.trim(), MAX_SUMMARY_CHARS),
            detail: None,
            file: None,
            line: None,
        }
    }
}

/// What reading the findings report gave.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Report {
    /// The child wrote no report.
    Absent,
    /// At most [`MAX_FINDINGS`] findings, and how many the report held.
    Findings(Vec<Finding>, usize),
    /// The report was not used, and why.
    Refused(String),
}

/// Reads the findings report at `path` without following a symlink, blocking on a FIFO, or
/// reading more than [`MAX_REPORT_BYTES`].
pub(crate) fn read_report(path: &Path) -> Report {
    use crate::fsread::{read_capped, Links, ReadError};
    let bytes = match read_capped(path, MAX_REPORT_BYTES, Links::Refuse) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Report::Absent,
        Err(ReadError::NotRegular {
            what: "a symbolic link", ..
        }) => return Report::Refused("the findings report is a symlink; it was not followed".into()),
        Err(ReadError::NotRegular { .. }) => return Report::Refused("the findings report is not a regular file".into()),
        Err(ReadError::TooLarge { size, .. }) => {
            return Report::Refused(format!(
                "the findings report is {size} bytes, over the 1 MiB limit; it was not read"
            ))
        }
        Err(e) => return Report::Refused(format!("the findings report could not be read: {}", e.into_io())),
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => return Report::Refused(format!("the findings report is not JSON: {e}")),
    };
    let Some(items) = value.get("findings").and_then(|f| f.as_array()) else {
        return Report::Refused("the findings report has no \"findings\" array".into());
    };
    let findings = items
        .iter()
        .filter_map(|item| {
            let text = |k: &str| item.get(k).and_then(|v| v.as_str()).map(str::trim).filter(|s| !s.is_empty());
            let summary = text("summary").or_else(|| text("message")).or_else(|| item.as_str())?;
            let mut f = Finding::new(summary);
            f.detail = text("detail").map(|d| first_chars(d, MAX_DETAIL_CHARS));
            f.file = text("file").map(|p| first_chars(p, MAX_SUMMARY_CHARS));
            f.line = item.get("line").and_then(|l| l.as_i64());
            Some(f)
        })
        .take(MAX_FINDINGS)
        .collect();
    Report::Findings(findings, items.len())
}

/// What a gate's output says went wrong, as findings (used when the child wrote no report), each
/// said once, in the order the output says them (issue 52):
///
/// - a Python traceback is one finding: its last frame's file and line and its exception line
///   (`tests/test_calc.py:6: AssertionError: 5 != 4`), never its `Traceback (most recent call
///   last):` header;
/// - every other line that reads as a failure (`error`, `FAILED`, `assert`, …), but for the
///   decoration and the runner's own tallies around them (rules of dashes, `Ran 1 test in 0.001s`,
///   `FAILED (failures=1)`), which say nothing the agent can act on.
pub(crate) fn findings_from_output(output: &str) -> Vec<Finding> {
    const MARKERS: &[&str] = &["error", "fail", "panic", "assert", "exception", "not ok", "✗", "✘", "expected"];
    let lines: Vec<&str> = output.lines().collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut push = |f: Finding, out: &mut Vec<Finding>| {
        let key = format!("{:?}:{:?}:{}", f.file, f.line, f.summary);
        if seen.insert(key) {
            out.push(f);
        }
    };
    let mut i = 0;
    while i < lines.len() && out.len() < MAX_FINDINGS {
        let line = lines[i].trim_end();
        if line.trim() == "Traceback (most recent call last):" {
            let (finding, next) = traceback(&lines, i + 1);
            if let Some(f) = finding {
                push(f, &mut out);
            }
            i = next;
            continue;
        }
        let t = line.trim();
        let lower = t.to_lowercase();
        let decoration = t.chars().all(|c| matches!(c, '-' | '=' | '_' | '*' | '~' | '#' | ' '));
        let tally = lower.starts_with("ran ") && lower.contains(" test")
            || (lower.starts_with("failed (") && lower.ends_with(')'))
            || (lower.starts_with("ok (") && lower.ends_with(')'));
        // A unittest header (`FAIL: test_add (…)`) is followed by the traceback that says what failed.
        let header = (t.starts_with("FAIL: ") || t.starts_with("ERROR: "))
            && lines
                .get(i + 1)
                .is_some_and(|n| n.trim().chars().all(|c| c == '-') && !n.trim().is_empty())
            && lines.get(i + 2).is_some_and(|n| n.trim() == "Traceback (most recent call last):");
        if !t.is_empty() && !decoration && !tally && !header && MARKERS.iter().any(|m| lower.contains(m)) {
            push(Finding::new(t), &mut out);
        }
        i += 1;
    }
    out.truncate(MAX_FINDINGS);
    out
}

/// A Python traceback whose frames start at `lines[start]`: its last frame (file, line) and the
/// exception line that ends it; and the index of the first line after it.
fn traceback(lines: &[&str], start: usize) -> (Option<Finding>, usize) {
    let mut frame: Option<(String, i64)> = None;
    let mut i = start;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("File \"") {
            if let Some((file, after)) = rest.split_once('"') {
                let number = after
                    .split_once("line ")
                    .and_then(|(_, n)| n.split(|c: char| !c.is_ascii_digit()).next())
                    .and_then(|n| n.parse().ok());
                if let Some(n) = number {
                    frame = Some((file.to_string(), n));
                }
            }
            i += 1;
            continue;
        }
        if line.starts_with(' ') || line.starts_with('\t') || t.is_empty() || t.chars().all(|c| matches!(c, '^' | '~' | ' ')) {
            i += 1;
            continue;
        }
        // The first line back at the margin: the exception and its message.
        let mut f = Finding::new(t);
        if let Some((file, n)) = frame {
            f.file = Some(first_chars(&file, MAX_SUMMARY_CHARS));
            f.line = Some(n);
        }
        return (Some(f), i + 1);
    }
    (None, i)
}

/// A finished command.
#[derive(Debug, Clone)]
pub(crate) struct Finished {
    /// False when the command could not be spawned.
    pub started: bool,
    pub timed_out: bool,
    pub exit_code: Option<i32>,
    /// The last [`OUTPUT_TAIL_CHARS`] characters of its output, not yet redacted.
    pub output_tail: String,
    /// Bytes of output it wrote in all (a test's check that every byte was read).
    #[cfg(test)]
    pub output_bytes: u64,
    pub duration_ms: i64,
}

/// A private folder in the temp folder for one run's findings report, removed when dropped.
pub(crate) struct ReportFolder {
    dir: Option<std::path::PathBuf>,
    report: std::path::PathBuf,
}

impl ReportFolder {
    pub(crate) fn new(gate: &str) -> ReportFolder {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("tlc-gate-{}-{gate}-{stamp}", std::process::id()));
        let made = std::fs::DirBuilder::new().mode(0o700).create(&dir).is_ok();
        let report = dir.join("report.json");
        ReportFolder {
            dir: made.then_some(dir),
            report,
        }
    }

    pub(crate) fn report(&self) -> &Path {
        &self.report
    }
}

impl Drop for ReportFolder {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Runs `argv` in `cwd`, in `jail`, with `HARNESS_GATE_REPORT=report`, killing its process group
/// after `timeout`.
pub(crate) fn run(argv: &[String], cwd: &Path, jail: &crate::confine::Jail, report: &Path, timeout: Duration) -> Finished {
    let t = Instant::now();
    let ms = |t: Instant| i64::try_from(t.elapsed().as_millis()).unwrap_or(i64::MAX);
    let not_started = |text: String, code: i32| Finished {
        started: false,
        timed_out: false,
        exit_code: Some(code),
        #[cfg(test)]
        output_bytes: text.len() as u64,
        output_tail: text,
        duration_ms: ms(t),
    };
    let Some(program) = argv.first() else {
        return not_started("the gate command is empty".into(), 127);
    };
    let (reader, writer) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => return not_started(format!("{program}: cannot make a pipe: {e}"), 126),
    };
    let writer2 = match writer.try_clone() {
        Ok(w) => w,
        Err(e) => return not_started(format!("{program}: cannot make a pipe: {e}"), 126),
    };
    if jail.resolve(program).is_none() {
        return not_started(format!("{program}: command not found"), 127);
    }
    let mut cmd = jail.command(program, cwd);
    cmd.args(&argv[1..])
        .env("HARNESS_GATE_REPORT", report)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .process_group(0);
    crate::sys::die_with_parent(&mut cmd);
    let spawned = cmd.spawn();
    // The command holds the pipe's write ends: dropped here, so the reader sees the end once the
    // child's group has closed its copies.
    drop(cmd);
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return not_started(format!("{program}: command not found"), 127),
        Err(e) => return not_started(format!("{program}: cannot run: {e}"), 126),
    };
    let group = child.id();
    let _guard = crate::sys::GroupGuard::new(group);
    let ring = Arc::new(Mutex::new(TailBuffer::new(RING_BYTES)));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    {
        let ring = Arc::clone(&ring);
        let mut reader = reader;
        std::thread::spawn(move || {
            let mut chunk = vec![0u8; 64 * 1024];
            loop {
                match reader.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if let Ok(mut r) = ring.lock() {
                            r.push(&chunk[..n]);
                        }
                    }
                }
            }
            let _ = done_tx.send(());
        });
    }
    let (status_tx, status_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = status_tx.send(child.wait());
    });
    let mut timed_out = false;
    let status = match status_rx.recv_timeout(timeout) {
        Ok(s) => s.ok(),
        Err(_) => {
            timed_out = true;
            crate::sys::kill_group(group);
            status_rx.recv_timeout(Duration::from_secs(5)).ok().and_then(Result::ok)
        }
    };
    // Whatever the command left running in its group goes with it.
    crate::sys::kill_group(group);
    // A descendant that left the group may still hold the pipe: the tail is taken as it is then.
    let _ = done_rx.recv_timeout(Duration::from_secs(2));
    let (output_tail, _output_bytes) = match ring.lock() {
        Ok(r) => (r.text(OUTPUT_TAIL_CHARS), r.total),
        Err(_) => (String::new(), 0),
    };
    Finished {
        started: true,
        timed_out,
        exit_code: if timed_out { None } else { status.and_then(|s| s.code()) },
        output_tail,
        #[cfg(test)]
        output_bytes: _output_bytes,
        duration_ms: ms(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jail() -> crate::confine::Jail {
        crate::confine::Jail::new(Vec::new(), std::env::var_os("PATH").unwrap_or_default())
    }

    #[test]
    fn the_ring_keeps_only_the_last_bytes() {
        let mut r = TailBuffer::new(8);
        r.push(b"abcdef");
        r.push(b"ghij");
        assert_eq!(r.text(100), "cdefghij");
        r.push(&[b'x'; 100]);
        assert_eq!(r.text(100), "xxxxxxxx");
        assert_eq!(r.total, 110);
        let mut r = TailBuffer::new(4);
        r.push("aé€".as_bytes());
        assert_eq!(r.text(100), "€", "a character cut at the start is dropped, not replaced");
        assert_eq!(last_chars("abcdef", 2), "ef");
    }

    #[test]
    fn a_hundred_megabytes_of_output_keep_the_tail_only() {
        let dir = tempfile::tempdir().unwrap();
        let argv: Vec<String> = ["sh", "-c", "head -c 100000000 /dev/zero | tr '\\0' 'a'; echo END"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let f = run(&argv, dir.path(), &jail(), &dir.path().join("r.json"), Duration::from_secs(60));
        assert_eq!(f.exit_code, Some(0));
        assert_eq!(f.output_bytes, 100_000_004);
        assert_eq!(f.output_tail.chars().count(), OUTPUT_TAIL_CHARS);
        assert!(
            f.output_tail.ends_with("aaa\nEND\n") || f.output_tail.ends_with("aEND\n"),
            "{}",
            &f.output_tail[7990..]
        );
    }

    /// Whether a process exists and is not a zombie (a killed orphan waits for init to reap it).
    pub(crate) fn running(pid: i64) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
            .unwrap_or(false)
    }

    #[test]
    fn a_hung_command_is_killed_with_its_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let script = format!("sleep 300 & echo $! > {}; echo started; sleep 300", pids.display());
        let argv = vec!["sh".to_string(), "-c".to_string(), script];
        let t = Instant::now();
        let f = run(&argv, dir.path(), &jail(), &dir.path().join("r.json"), Duration::from_millis(500));
        assert!(t.elapsed() < Duration::from_secs(4), "returned in {:?}", t.elapsed());
        assert!(f.timed_out);
        assert_eq!(f.exit_code, None);
        assert!(f.output_tail.contains("started"));
        let bg: i64 = std::fs::read_to_string(&pids).unwrap().trim().parse().unwrap();
        std::thread::sleep(Duration::from_millis(100));
        assert!(!running(bg), "the background child was killed");
    }

    #[test]
    fn a_missing_program_did_not_start() {
        let dir = tempfile::tempdir().unwrap();
        let f = run(
            &["tlc-no-such-program".to_string()],
            dir.path(),
            &jail(),
            &dir.path().join("r.json"),
            Duration::from_secs(5),
        );
        assert!(!f.started);
        assert_eq!(f.exit_code, Some(127));
    }

    #[test]
    fn hostile_reports_are_refused_and_a_flood_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        assert_eq!(read_report(&p), Report::Absent);
        std::fs::write(&p, "not json").unwrap();
        assert!(matches!(read_report(&p), Report::Refused(m) if m.contains("not JSON")));
        std::fs::write(&p, vec![b' '; 1024 * 1024 + 1]).unwrap();
        assert!(matches!(read_report(&p), Report::Refused(m) if m.contains("1 MiB")));
        std::fs::remove_file(&p).unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, r#"{"findings":[{"summary":"leaked"}]}"#).unwrap();
        std::os::unix::fs::symlink(&secret, &p).unwrap();
        assert!(matches!(read_report(&p), Report::Refused(m) if m.contains("symlink")));
        std::fs::remove_file(&p).unwrap();
        let mut many: Vec<_> = (0..10_000)
            .map(|i| serde_json::json!({ "summary": format!("finding {i}") }))
            .collect();
        many[0] = serde_json::json!({"summary": "x".repeat(300), "detail": "d".repeat(900)});
        std::fs::write(&p, serde_json::json!({ "findings": many }).to_string()).unwrap();
        match read_report(&p) {
            Report::Findings(f, total) => {
                assert_eq!(total, 10_000);
                assert_eq!(f.len(), MAX_FINDINGS);
                assert_eq!(f[0].summary.chars().count(), MAX_SUMMARY_CHARS);
                assert_eq!(f[0].detail.as_ref().unwrap().chars().count(), MAX_DETAIL_CHARS);
            }
            other => panic!("{other:?}"),
        }
    }

    /// Issue 52, item 6: a traceback is its last frame and its exception, not its header; the
    /// runner's tallies and rules are not gaps; nothing is said twice.
    #[test]
    fn a_traceback_is_its_last_frame_and_message_and_nothing_is_said_twice() {
        let unittest = "F\n======================================================================\nFAIL: test_add (test_calc.TestCalc.test_add)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/p/tests/test_calc.py\", line 6, in test_add\n    self.assertEqual(add(2, 2), 4)\nAssertionError: 5 != 4\n\n----------------------------------------------------------------------\nRan 1 test in 0.000s\n\nFAILED (failures=1)\n";
        let f = findings_from_output(unittest);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].summary, "AssertionError: 5 != 4");
        assert_eq!((f[0].file.as_deref(), f[0].line), (Some("/p/tests/test_calc.py"), Some(6)));
        let twice = "error: a\nerror: a\nTraceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: bad\nTraceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: bad\n";
        let f = findings_from_output(twice);
        assert_eq!(
            f.iter().map(|f| f.summary.as_str()).collect::<Vec<_>>(),
            ["error: a", "ValueError: bad"]
        );
    }

    #[test]
    fn findings_are_read_from_failing_lines() {
        let f = findings_from_output("running 3 tests\ntest a ... ok\nthread 'b' panicked at src/lib.rs:3\nerror: 1 test failed\n");
        assert_eq!(f.len(), 2);
        assert!(f[0].summary.contains("panicked"));
    }
}
