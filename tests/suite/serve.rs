//! `tlc serve` over real HTTP on 127.0.0.1: the pages, the JSON equal to what the commands print,
//! the refusals (foreign Host, other methods, a missing token), bounded parameters, escaping, and
//! read-only purity. The browser's view is in `serve_browser`.

use crate::common::*;
use serde_json::Value;
use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The clock of the recorded world: the sample transcripts' last day, minutes after their last
/// response (10:24), inside its 5-hour block.
pub const NOW: &str = "2026-11-21T10:30:00Z";
pub const SESSION: &str = "5b1f6c2e-8d4a-4f0e-9a37-2c1d7e9b4a10";
/// A session started and not ended: live.
pub const LIVE: &str = "9d2e4f60-1a2b-4c3d-8e9f-0a1b2c3d4e5f";
pub const SCRIPT: &str = "<script>alert(1)</script>";
pub const HOSTILE_TOOL: &str = "<img src=x onerror=alert(2)>";

/// A running `tlc serve`, killed when dropped.
pub struct Served {
    child: Child,
    /// The URL it printed: `http://<host>/?token=<token>`.
    pub url: String,
    /// The URL without the token: `http://<host>/`, what a page's links are relative to.
    pub base: String,
    /// `127.0.0.1:<port>` (or the bound address).
    pub host: String,
    pub port: u16,
    /// The token made at its start (from the printed URL).
    pub token: String,
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Http {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Http {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:.500}", self.text()))
    }
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&body[..end]).split(';').next().unwrap_or("").trim(), 16).unwrap_or(0);
        body = &body[end + 2..];
        if size == 0 {
            break;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
    out
}

/// Sends `request` (a whole HTTP/1.1 request) to `port` on 127.0.0.1 and reads the answer.
pub fn raw(port: u16, request: &str) -> Http {
    raw_to(std::net::Ipv4Addr::LOCALHOST.into(), port, request)
}

/// Sends `request` to `addr:port` and reads the answer.
pub fn raw_to(addr: std::net::IpAddr, port: u16, request: &str) -> Http {
    let mut s = TcpStream::connect((addr, port)).expect("connect to tlc serve");
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).expect("read the answer");
    parse_answer(&buf).expect("an HTTP answer")
}

/// Sends `request` to `port` on 127.0.0.1 and reads the answer, or says why there is none within
/// `wait` (from the connect to the answer's end).
pub fn raw_within(port: u16, request: &str, wait: Duration) -> Result<Http, String> {
    let deadline = std::time::Instant::now() + wait;
    let mut s = TcpStream::connect_timeout(&(std::net::Ipv4Addr::LOCALHOST, port).into(), wait).map_err(|e| format!("connect: {e}"))?;
    s.write_all(request.as_bytes()).map_err(|e| format!("send: {e}"))?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(format!("no whole answer in {wait:?} ({} bytes read)", buf.len()));
        }
        s.set_read_timeout(Some(left)).map_err(|e| e.to_string())?;
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(e) => return Err(format!("read: {e} ({} bytes read)", buf.len())),
        }
    }
    parse_answer(&buf).ok_or_else(|| format!("not an HTTP answer: {:?}", String::from_utf8_lossy(&buf[..buf.len().min(200)])))
}

/// An answer read whole (to the connection's end), its chunks joined.
pub fn parse_answer(buf: &[u8]) -> Option<Http> {
    let head_end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = buf[head_end + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked"))
    {
        body = dechunk(&body);
    }
    Some(Http { status, headers, body })
}

impl Served {
    /// `tlc serve --port 0 <args>` in `cwd` with `w`'s home and the clock at `now`.
    pub fn start_in(w: &World, cwd: &Path, args: &[&str], now: Option<&str>) -> Served {
        Served::start_with(w, cwd, args, now, |_| {})
    }

    /// [`Served::start_in`], the command changed by `also` before it starts (a resource limit).
    pub fn start_with(w: &World, cwd: &Path, args: &[&str], now: Option<&str>, also: impl FnOnce(&mut Command)) -> Served {
        let mut c = Command::new(TLC);
        c.arg("serve").args(["--port", "0"]).args(args).current_dir(cwd);
        isolate(&mut c, &w.home, &w.dir.path().join("user"));
        if let Some(n) = now {
            c.env("TLC_NOW", n);
        }
        also(&mut c);
        let mut child = c
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tlc serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(120)).unwrap_or_default();
        let url = line.trim().to_string();
        let rest = url.strip_prefix("http://").unwrap_or_else(|| {
            let _ = child.kill();
            panic!("tlc serve printed no URL: {line:?}")
        });
        let host = rest.split('/').next().unwrap_or("").to_string();
        let port = host.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port in the URL");
        let token = url.split_once("/?token=").map(|(_, t)| t.to_string()).unwrap_or_else(|| {
            let _ = child.kill();
            panic!("tlc serve printed no token in its URL: {url}")
        });
        Served {
            child,
            base: format!("http://{host}/"),
            url,
            host,
            port,
            token,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The header line that carries the token as the browser sends it, after opening the URL.
    pub fn cookie(&self) -> String {
        format!("Cookie: tlc_token_{}={}\r\n", self.port, self.token)
    }

    pub fn start(w: &World) -> Served {
        Served::start_in(w, &w.repo, &[], Some(NOW))
    }

    /// GET `path` with this server's Host and its token's cookie.
    pub fn get(&self, path: &str) -> Http {
        self.get_with(path, "")
    }

    /// GET `path` with this server's Host, its token's cookie and extra header lines (each ending
    /// in `\r\n`).
    pub fn get_with(&self, path: &str, extra: &str) -> Http {
        raw(
            self.port,
            &format!(
                "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{}{extra}\r\n",
                self.host,
                self.cookie()
            ),
        )
    }

    /// GET `path` and assert 200.
    pub fn ok(&self, path: &str) -> Http {
        let r = self.get(path);
        assert_eq!(r.status, 200, "GET {path}: {:.600}", r.text());
        r
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A world with something on every page: the sample transcripts in the home database; in the
/// project database a replayed Claude Code session, a floor denial, a prompt holding a script, a
/// tool named like markup, and a gate run.
pub fn recorded() -> World {
    let w = World::new();
    let sample = fixtures().join("transcripts/sample/projects");
    w.ok(&["obs", "import", "transcripts", sample.to_str().unwrap()]);
    replay_claude_session(&w);
    let deny = w.payload("providers/claude/pre-tool-use-bash.json").replace("sess-abc", SESSION);
    w.hook("claude", deny.as_bytes());
    let prompt = serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "session_id": SESSION,
        "cwd": w.repo,
        "prompt": SCRIPT,
    });
    w.hook("claude", prompt.to_string().as_bytes());
    let tool = serde_json::json!({
        "hook_event_name": "PreToolUse",
        "session_id": SESSION,
        "cwd": w.repo,
        "tool_name": HOSTILE_TOOL,
        "tool_input": {},
    });
    w.hook("claude", tool.to_string().as_bytes());
    w.op_ok(&["gate", "test-command", "true"]);
    w.ok(&["gate", "run", "test"]);
    let live = w.payload("providers/claude/session-start.json").replace("sess-abc", LIVE);
    w.hook("claude", live.as_bytes());
    w
}

/// The session of [`blocked_stop_world`].
pub const BLOCKED: &str = "b10cced0-5e55-4a1b-9c2d-3e4f5a6b7c8d";
/// The line the failing test prints: the tail of the gate's output.
pub const FAILING_ASSERTION: &str = "assertion failed: add(2, 2) == 5";

/// A repository whose test gate fails (`sh tools/t.sh`, as tests/suite/gates.rs drives it): a
/// Claude Code session is prompted, has `rm -rf /` denied by the floor, edits `src/a.rs`, and its
/// Stop is blocked by the test gate. Returns the world and the follow-up the Stop answered.
pub fn blocked_stop_world() -> (World, String) {
    let w = World::new();
    w.write(
        ".tlc/harness/config.toml",
        "[grind]\nenabled = true\ntestCommand = [\"sh\", \"tools/t.sh\"]\n",
    );
    w.write(
        "tools/t.sh",
        &format!("#!/bin/sh\necho 'test adds_two ... FAILED'\necho '{FAILING_ASSERTION}'\nexit 1\n"),
    );
    w.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n");
    w.git(&["add", "-A"]);
    w.git(&["commit", "-qm", "init"]);
    let at = |m: u32| format!("2026-11-21T10:{m:02}:00Z");
    let hook = |payload: Value, m: u32| {
        let out = w.hook_with("claude", payload.to_string().as_bytes(), |c| {
            c.env("TLC_NOW", at(m));
        });
        stdout(&out)
    };
    hook(
        serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": BLOCKED, "cwd": w.repo, "prompt": "Make add() add"}),
        1,
    );
    let denied = hook(
        serde_json::json!({"hook_event_name": "PreToolUse", "session_id": BLOCKED, "cwd": w.repo, "tool_name": "Bash",
                           "tool_use_id": "toolu_rm", "tool_input": {"command": "rm -rf /"}}),
        2,
    );
    assert!(denied.contains("deny"), "the floor denies rm -rf /: {denied}");
    let edit = serde_json::json!({"session_id": BLOCKED, "cwd": w.repo, "tool_name": "Edit", "tool_use_id": "toolu_edit",
                                  "tool_input": {"file_path": w.repo.join("src/a.rs"), "old_string": "a + b", "new_string": "a + b + 1"}});
    let mut pre = edit.clone();
    pre["hook_event_name"] = "PreToolUse".into();
    hook(pre, 3);
    w.write("src/a.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b + 1\n}\n");
    let mut post = edit;
    post["hook_event_name"] = "PostToolUse".into();
    hook(post, 3);
    let answer = hook(
        serde_json::json!({"hook_event_name": "Stop", "session_id": BLOCKED, "cwd": w.repo, "stop_hook_active": false,
                           "last_assistant_message": "Done: add() now adds."}),
        4,
    );
    let v: Value = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("the Stop answered no JSON ({e}): {answer}"));
    assert_eq!(v["decision"], "block", "{answer}");
    let reason = v["reason"].as_str().unwrap().to_string();
    assert!(reason.starts_with("BLOCKED: test failed"), "{reason}");
    (w, reason)
}

pub fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:.500}"))
}

/// The answer without the keys the page adds around a command's JSON.
fn without(mut v: Value, keys: &[&str]) -> Value {
    if let Some(o) = v.as_object_mut() {
        for k in keys {
            o.remove(*k);
        }
    }
    v
}

/// A command line the server names (`tlc obs cost --by day … --json`) as arguments.
fn args_of(command: &str) -> Vec<String> {
    command.split_whitespace().skip(1).map(str::to_string).collect()
}

#[test]
fn serve_port_0_prints_its_url_and_every_page_answers_with_its_safety_headers() {
    let w = recorded();
    let s = Served::start(&w);
    // One URL to open, with the token made at this start.
    assert_eq!(s.url, format!("http://127.0.0.1:{}/?token={}", s.port, s.token));
    assert!(
        s.port > 0 && s.token.len() == 32 && s.token.bytes().all(|b| b.is_ascii_hexdigit()),
        "{}",
        s.url
    );
    for path in [
        "/",
        "/cost",
        "/cost?by=week",
        "/cost?timezone=Europe/Berlin",
        "/projects",
        "/sessions",
        &format!("/sessions/{SESSION}"),
        "/sessions/5b1f6c2e",
        "/gates",
        "/policy",
        "/prices",
        "/prices?model=claude-sonnet-4-5",
        "/assets/style.css",
        "/assets/icon.svg",
    ] {
        let r = s.ok(path);
        let csp = r.header("Content-Security-Policy").unwrap_or_default();
        assert!(
            csp.contains("default-src 'none'")
                && csp.contains("script-src 'sha256-")
                && !csp.contains("unsafe-inline")
                && !csp.contains("http"),
            "{path}: {csp}"
        );
        assert_eq!(r.header("X-Content-Type-Options"), Some("nosniff"), "{path}");
        assert!(r.header("Server-Timing").is_some_and(|t| t.starts_with("render;dur=")), "{path}");
        if !path.starts_with("/assets/") {
            let t = r.text();
            assert!(t.starts_with("<!DOCTYPE html>") && t.contains("<nav>"), "{path}");
            // Everything is this origin's: no remote script, style or image.
            assert!(!t.contains("src=\"http") && !t.contains("href=\"http"), "{path}");
            // One inline script at most: the refresh snippet the policy names by its hash.
            assert!(t.matches("<script").count() <= 1, "{path}");
        }
    }
    // The pages draw charts from the record.
    assert!(s.ok("/").text().contains("<svg id=\"chart-days\""));
    assert!(s.ok("/cost").text().contains("<svg id=\"chart-cost\""));
    assert!(s.ok("/gates").text().contains("<svg id=\"chart-gates\""));
    assert!(s.ok("/policy").text().contains("<svg id=\"chart-floor\""));
    let session = s.ok(&format!("/sessions/{SESSION}")).text();
    assert!(
        session.contains("<svg id=\"chart-tools\"") && session.contains("<title>"),
        "{session:.2000}"
    );
    assert_eq!(s.get("/no-such-page").status, 404);
    assert_eq!(s.get("/sessions/no-such-session").status, 404);
}

#[test]
fn the_json_equals_what_obs_export_obs_cost_and_obs_report_print() {
    let w = recorded();
    let s = Served::start(&w);
    let cli = |args: &[&str]| json(&w.ok_env(args, NOW));
    // A view, from the database `obs export` picks (the project database inside a repository),
    // and from the home database when named.
    assert_eq!(
        s.ok("/api/cost_by_day").json(),
        cli(&["obs", "export", "cost_by_day", "--format", "json"])
    );
    let home_days = s.ok("/api/cost_by_day?db=home").json();
    assert!(
        !home_days.as_array().unwrap().is_empty(),
        "the sample's responses are in the home database"
    );
    assert_eq!(
        home_days,
        cli(&["obs", "export", "cost_by_day", "--db", "home", "--format", "json"])
    );
    assert_eq!(
        s.ok("/api/event_log?since=2026-01-01").json(),
        cli(&["obs", "export", "event_log", "--since", "2026-01-01", "--format", "json"])
    );
    for view in [
        "session_rollup",
        "tool_stats",
        "floor_denials",
        "gate_runs_by_day",
        "floor_denials_by_rule",
        "spool_repo_rollup",
    ] {
        let db = if view == "spool_repo_rollup" { "home" } else { "project" };
        assert_eq!(
            s.ok(&format!("/api/{view}")).json(),
            cli(&["obs", "export", view, "--db", db, "--format", "json"]),
            "{view}"
        );
    }
    // Each cost report the overview holds is the JSON of the command it names.
    let overview = s.ok("/api/overview").json();
    let commands = overview["commands"].as_object().unwrap().clone();
    assert_eq!(commands.len(), 5);
    for (part, command) in &commands {
        let args = args_of(command.as_str().unwrap());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(overview[part], cli(&args), "{part}: {command}");
    }
    assert_eq!(
        commands["today"], "tlc obs cost --by day --since 2026-11-21 --until 2026-11-21 --json",
        "today is the clock's day"
    );
    assert!(overview["today"]["totals"]["cost_usd"].as_f64().unwrap() > 0.0);
    let active: Vec<&Value> = overview["block"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["block"]["active"] == true)
        .collect();
    assert_eq!(active.len(), 1, "the sample's last block is active at {NOW}");
    assert_eq!(
        overview["live_sessions"],
        cli(&["status", "--json"])["live_sessions"],
        "live sessions as `tlc status` lists them"
    );
    // The cost page's report, with its window, time zone and model breakdown.
    let cost = s
        .ok("/api/cost?by=day&since=2026-11-20&until=2026-11-21&timezone=Europe/Berlin")
        .json();
    assert_eq!(
        cost["command"],
        "tlc obs cost --by day --since 2026-11-20 --until 2026-11-21 --timezone Europe/Berlin --breakdown --json"
    );
    assert_eq!(
        without(cost, &["command", "database"]),
        cli(&[
            "obs",
            "cost",
            "--by",
            "day",
            "--since",
            "2026-11-20",
            "--until",
            "2026-11-21",
            "--timezone",
            "Europe/Berlin",
            "--breakdown",
            "--json"
        ])
    );
    let projects = s.ok("/api/projects").json();
    assert_eq!(projects["cost"], cli(&["obs", "cost", "--by", "project", "--json"]));
    // A session: its report as `obs report --json` (less the camelCase names kept for old
    // scripts), its events on each plane as `obs events --session`.
    let api = s.ok(&format!("/api/sessions/{SESSION}")).json();
    let mut report = cli(&["obs", "report", SESSION, "--json"]);
    strip_legacy(&mut report);
    assert_eq!(api["report"], report);
    for plane in ["signal", "debug", "audit"] {
        assert_eq!(
            api["events"][plane],
            cli(&["obs", "events", "50", "--session", SESSION, "--plane", plane, "--json"]),
            "{plane}"
        );
    }
    // The session list: the `session_rollup` columns it shows, equal to the view's.
    let rollup = cli(&["obs", "export", "session_rollup", "--format", "json"]);
    let list = s.ok("/api/sessions").json();
    let rows = list["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), rollup.as_array().unwrap().len());
    for row in rows {
        let view_row = rollup
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["session_id"] == row["session_id"] && r["provider"] == row["provider"])
            .expect("the session in session_rollup");
        for (k, v) in row.as_object().unwrap() {
            let want = match &view_row[k] {
                // The view's 0/1 flags are booleans in the list.
                Value::Number(n) if v.is_boolean() => Value::Bool(n.as_i64() == Some(1)),
                other => other.clone(),
            };
            assert_eq!(*v, want, "{k} of {}", row["session_id"]);
        }
    }
    let gates = s.ok("/api/gates").json();
    for view in ["gate_runs_by_day", "gate_time", "gate_stagnations", "stop_outcomes_by_rule"] {
        assert_eq!(gates[view], cli(&["obs", "export", view, "--format", "json"]), "{view}");
    }
    assert_eq!(gates["gate_runs_by_day"][0]["runs"], 1, "the gate run is counted");
    let policy = s.ok("/api/policy").json();
    for view in ["floor_denials_by_rule", "interruptions_by_posture"] {
        assert_eq!(policy[view], cli(&["obs", "export", view, "--format", "json"]), "{view}");
    }
    assert_eq!(policy["floor_denials_by_rule"][0]["rule"], "outside-project-destruction");
    assert_eq!(policy["divergences"], cli(&["policy", "--json"])["history"]);
    let prices = s.ok("/api/prices?model=claude-sonnet-4-5").json();
    assert_eq!(prices["planes"], cli(&["prices", "status", "--json"])["planes"]);
    assert_eq!(prices["lookup"], cli(&["prices", "lookup", "claude-sonnet-4-5", "--json"]));
}

/// `obs report --json`'s old camelCase duplicates, which the API does not carry.
fn strip_legacy(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for k in ["gateTime", "totalMs", "worstMs", "byRule"] {
                m.remove(k);
            }
            m.values_mut().for_each(strip_legacy);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_legacy),
        _ => {}
    }
}

#[test]
fn a_foreign_host_another_method_and_a_missing_token_are_refused() {
    let w = recorded();
    let s = Served::start(&w);
    // DNS rebinding: a page of another site whose name now points at 127.0.0.1 sends its own name.
    for host in [
        "evil.example",
        "evil.example:80",
        &format!("evil.example:{}", s.port),
        "127.0.0.1",
        "",
    ] {
        let head = if host.is_empty() {
            String::new()
        } else {
            format!("Host: {host}\r\n")
        };
        let r = raw(s.port, &format!("GET /api/overview HTTP/1.1\r\n{head}Connection: close\r\n\r\n"));
        assert_eq!(r.status, 421, "Host {host:?}: {}", r.text());
        assert!(r.json()["error"].as_str().unwrap().contains("Host"), "{}", r.text());
        assert!(!r.text().contains("cost_usd"));
    }
    let r = raw(s.port, "GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
    assert_eq!(r.status, 421);
    assert!(!r.text().contains("<html"), "nothing of the dashboard: {}", r.text());
    assert_eq!(s.get_with("/", "X-Other: 1\r\n").status, 200);
    assert_eq!(
        raw(
            s.port,
            &format!(
                "GET / HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\n{}\r\n",
                s.port,
                s.cookie()
            )
        )
        .status,
        200,
        "localhost names the loopback bind too"
    );
    for method in ["POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"] {
        let r = raw(
            s.port,
            &format!(
                "{method} / HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                s.host
            ),
        );
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.header("Allow"), Some("GET"), "{method}");
    }
    // An absolute URL in the request line is not this server's.
    let r = raw(
        s.port,
        &format!("GET http://evil.example/ HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", s.host),
    );
    assert_eq!(r.status, 400);
    // The same database read by nothing but GETs: no write went through.
    assert_eq!(
        s.ok("/api/session_rollup").json(),
        json(&w.ok(&["obs", "export", "session_rollup", "--format", "json"]))
    );
}

/// This machine's address on its network (not a loopback one): the address the routing table
/// would send from (a UDP socket's connect sends nothing).
fn network_address() -> std::net::IpAddr {
    let sock = std::net::UdpSocket::bind("0.0.0.0:0").expect("udp socket");
    for probe in ["10.255.255.255:9", "192.0.2.1:9", "8.8.8.8:53"] {
        if sock.connect(probe).is_ok() {
            if let Ok(a) = sock.local_addr() {
                if !a.ip().is_loopback() && !a.ip().is_unspecified() {
                    return a.ip();
                }
            }
        }
    }
    panic!("this machine has no network address besides loopback: the non-loopback bind cannot be tested");
}

#[test]
fn a_non_loopback_bind_requires_its_token_on_every_request() {
    let w = recorded();
    let addr = network_address();
    let s = Served::start_in(&w, &w.repo, &["--bind", &addr.to_string()], Some(NOW));
    assert_eq!(s.host, format!("{addr}:{}", s.port));
    let token = s.url.split("?token=").nth(1).expect("a generated token in the URL").to_string();
    assert_eq!(token.len(), 32, "{token}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    let to = |path: &str, extra: &str| {
        raw_to(
            addr,
            s.port,
            &format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}\r\n", s.host),
        )
    };
    for path in ["/", "/api/overview", "/api/cost_by_day", "/assets/style.css", "/sessions"] {
        let r = to(path, "");
        assert_eq!(r.status, 403, "{path} without the token: {}", r.text());
        assert!(!r.text().contains("cost_usd"));
        assert_eq!(
            to(path, "Authorization: Bearer 0123456789abcdef0123456789abcdef\r\n").status,
            403,
            "{path} with another token"
        );
    }
    // The printed URL: the token moves into a cookie, and the cookie (or the header) lets in.
    let r = to(&format!("/?token={token}"), "");
    assert_eq!(r.status, 303);
    assert_eq!(r.header("Location"), Some("/"));
    let cookie = r.header("Set-Cookie").expect("a cookie").to_string();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    let pair = cookie.split(';').next().unwrap();
    assert_eq!(to("/", &format!("Cookie: {pair}\r\n")).status, 200);
    assert_eq!(to("/api/overview", &format!("Authorization: Bearer {token}\r\n")).status, 200);
    assert_eq!(to(&format!("/api/overview?token={token}"), "").status, 200);
    // With the token, a foreign Host is still refused.
    let r = raw_to(
        addr,
        s.port,
        &format!(
            "GET / HTTP/1.1\r\nHost: localhost:{}\r\nCookie: {pair}\r\nConnection: close\r\n\r\n",
            s.port
        ),
    );
    assert_eq!(r.status, 421);
    // An unspecified address and a short token are refused before listening.
    let out = w.run(&["serve", "--port", "0", "--bind", "0.0.0.0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--bind 0.0.0.0"), "{}", stderr(&out));
    let out = w.run(&["serve", "--port", "0", "--token", "short"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--token"), "{}", stderr(&out));
    let out = w.run(&["serve", "--port", "0", "--bind", "not-an-address"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_parameter_out_of_bounds_gets_a_400_naming_it() {
    let w = World::new();
    let s = Served::start(&w);
    for (path, name) in [
        ("/cost?since=2026-13-01", "since"),
        ("/cost?until=yesterday", "until"),
        ("/cost?by=hour", "by"),
        ("/cost?timezone=Mars/Olympus_Mons", "timezone"),
        ("/cost?bogus=1", "bogus"),
        ("/cost?since=2026-11-01&since=2026-11-02", "since"),
        ("/sessions?limit=100000", "limit"),
        ("/sessions?limit=0", "limit"),
        ("/sessions?offset=-1", "offset"),
        ("/prices?model=%07bell", "model"),
        ("/api/sessions?limit=abc", "limit"),
        ("/api/cost?since=1969-12-31", "since"),
        ("/api/cost_by_day?since=not-a-time", "since"),
        ("/api/cost_by_day?db=other", "db"),
        ("/api/overview?timezone=Nowhere/Land", "timezone"),
        ("/gates?x=1", "x"),
    ] {
        let r = s.get(path);
        assert_eq!(r.status, 400, "{path}: {}", r.text());
        let message = if path.starts_with("/api/") {
            r.json()["error"].as_str().unwrap().to_string()
        } else {
            r.text()
        };
        assert!(message.contains(&format!("parameter {name}")), "{path}: {message}");
    }
    let long = format!("/cost?project={}", "a".repeat(3000));
    assert_eq!(s.get(&long).status, 414);
    assert_eq!(s.get(&format!("/api/sessions/{}", "x".repeat(201))).status, 404);
}

#[test]
fn text_from_the_record_is_escaped_a_script_prompt_shows_as_text() {
    let w = recorded();
    let s = Served::start(&w);
    let page = s.ok(&format!("/sessions/{SESSION}")).text();
    assert!(!page.contains(SCRIPT), "the prompt reached the page as markup");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the prompt is on the page as text"
    );
    assert!(!page.contains(HOSTILE_TOOL) && page.contains("&lt;img src=x onerror=alert(2)&gt;"));
    // The only script is the refresh snippet.
    assert_eq!(page.matches("<script>").count(), 1);
    let events = s.ok(&format!("/api/sessions/{SESSION}")).json();
    assert!(
        events["events"]["signal"].to_string().contains("alert(1)"),
        "the API keeps the text as data"
    );
}

#[test]
fn serving_a_repository_without_tlc_creates_nothing_and_says_how_to_fill_it() {
    let w = World::new();
    let before = tree(w.dir.path());
    let s = Served::start(&w);
    let overview = s.ok("/").text();
    assert!(
        overview.contains("No home database yet") && overview.contains("tlc obs import transcripts"),
        "{overview:.3000}"
    );
    let sessions = s.ok("/sessions").text();
    assert!(
        sessions.contains("No project database yet") && sessions.contains("tlc install"),
        "{sessions:.3000}"
    );
    for path in [
        "/cost",
        "/projects",
        "/gates",
        "/policy",
        "/prices?model=claude-sonnet-4-5",
        "/api/overview",
        "/api/cost",
        "/api/sessions",
        "/api/gates",
        "/api/policy",
        "/api/prices",
        "/api/projects",
    ] {
        s.ok(path);
    }
    assert_eq!(
        s.ok("/api/cost_by_day").json(),
        json(&w.ok(&["obs", "export", "cost_by_day", "--format", "json"]))
    );
    assert_eq!(s.ok("/api/cost").json()["totals"]["key"], "total");
    drop(s);
    assert_eq!(tree(w.dir.path()), before, "tlc serve created something");
    assert!(!w.home.exists());

    // Outside a repository the project pages say where to start it.
    let plain = w.dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let before = tree(w.dir.path());
    let s = Served::start_in(&w, &plain, &[], None);
    assert!(s.ok("/gates").text().contains("outside a git repository"));
    assert_eq!(s.ok("/api/sessions").json()["database"], Value::Null);
    drop(s);
    assert_eq!(tree(w.dir.path()), before);
}

#[test]
fn a_database_that_appears_while_serving_is_read_and_hooks_write_while_clients_read() {
    let w = World::new();
    let s = Served::start_in(&w, &w.repo, &[], None);
    assert!(s.ok("/api/sessions").json()["sessions"].as_array().unwrap().is_empty());
    replay_claude_session(&w);
    let list = s.ok("/api/sessions").json();
    assert_eq!(
        list["sessions"][0]["session_id"], SESSION,
        "the new database is read without a restart"
    );
    // Readers and the hooks' writer at once: every request answered, every event stored.
    let port = s.port;
    let host = s.host.clone();
    let cookie = s.cookie();
    let readers: Vec<_> = (0..4)
        .map(|n| {
            let (host, cookie) = (host.clone(), cookie.clone());
            std::thread::spawn(move || {
                for i in 0..25 {
                    let path = ["/", "/sessions", &format!("/sessions/{SESSION}"), "/api/session_rollup"][(n + i) % 4].to_string();
                    let r = raw(
                        port,
                        &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{cookie}\r\n"),
                    );
                    assert_eq!(r.status, 200, "{path}: {}", r.text());
                    assert!(!r.text().contains("locked"), "{path}: {}", r.text());
                }
            })
        })
        .collect();
    let before = w.count("SELECT count(*) FROM events");
    for n in 0..40 {
        let p = serde_json::json!({
            "hook_event_name": "UserPromptSubmit",
            "session_id": format!("writer-{}", n % 4),
            "cwd": w.repo,
            "prompt": format!("prompt {n}"),
        });
        w.hook("claude", p.to_string().as_bytes());
    }
    for r in readers {
        r.join().expect("a reader failed");
    }
    assert!(w.count("SELECT count(*) FROM events") >= before + 40);
    assert_eq!(s.ok("/api/sessions").json()["sessions"].as_array().unwrap().len(), 5);
}

/// The clock of the docs' screenshots: an hour after the generated transcripts' last response.
pub const DOCS_NOW: &str = "2026-12-02T08:30:00Z";

/// A record for the docs' screenshots: two weeks of generated transcripts in the home database,
/// and in the project database ten days of sessions (the replayed session under new ids), gate
/// runs that pass and fail, floor denials and a paired posture's questions. Needs python3.
pub fn docs_world() -> World {
    let w = World::new();
    let set = w.dir.path().join("transcripts");
    let st = Command::new("python3")
        .arg(fixtures().join("transcripts/generate.py"))
        .arg(&set)
        .args(["--sessions", "40", "--messages", "40", "--seed", "7", "--prices"])
        .arg(fixtures().join("prices/litellm-model-prices.json"))
        .stdout(Stdio::null())
        .status()
        .expect("python3");
    assert!(st.success());
    w.ok(&["obs", "import", "transcripts", set.join("projects").to_str().unwrap()]);
    w.op_ok(&["gate", "test-command", "test", "-f", "pass-marker"]);
    let mut files: Vec<_> = std::fs::read_dir(fixtures().join("providers/claude/session"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|f| f.file_name().unwrap().to_string_lossy().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    files.sort();
    for day in 0..10u32 {
        // 2026-11-22 and the nine days after it (a day that does not exist would stamp the hooks
        // with the machine's clock: TLC_NOW must be a real time).
        let date = match 22 + day {
            d @ ..=30 => format!("2026-11-{d:02}"),
            d => format!("2026-12-{:02}", d - 30),
        };
        let session = format!("7c0d{day:04}-1f2e-4a5b-9c8d-{:012}", day * 7919);
        let transcript = w.dir.path().join(format!("transcript-{day}.jsonl"));
        let lines = std::fs::read_to_string(fixtures().join("providers/claude/session/transcript.jsonl")).unwrap();
        // Each day's copy its own responses (ids are deduplicated across sessions) on its own day.
        let lines = lines
            .replace(SESSION, &session)
            .replace("msg_01", &format!("msg_{day}x01"))
            .replace("req_011", &format!("req_{day}x011"))
            .replace("2026-11-28T", &format!("{date}T"));
        std::fs::write(&transcript, lines).unwrap();
        for (n, f) in files.iter().enumerate() {
            let text = std::fs::read_to_string(f)
                .unwrap()
                .replace("\"/repo", &format!("\"{}", w.repo.display()))
                .replace("TRANSCRIPT", &transcript.display().to_string())
                .replace(SESSION, &session);
            let at = format!("{date}T{:02}:{:02}:00Z", 9 + day % 5, n * 2);
            w.hook_with("claude", text.as_bytes(), |c| {
                c.env("TLC_NOW", &at);
            });
        }
        let at = format!("{date}T15:00:00Z");
        let hostile = ["rm -rf /", "cat ~/.ssh/id_ed25519", "git push --force origin main"];
        for cmd in hostile.iter().take(1 + day as usize % 3) {
            let p = serde_json::json!({
                "hook_event_name": "PreToolUse",
                "session_id": session,
                "cwd": w.repo,
                "tool_name": "Bash",
                "tool_input": { "command": cmd },
            });
            w.hook_with("claude", p.to_string().as_bytes(), |c| {
                c.env("TLC_NOW", &at);
            });
        }
        let marker = w.repo.join("pass-marker");
        if day % 3 == 1 {
            let _ = std::fs::remove_file(&marker);
        } else {
            std::fs::write(&marker, "").unwrap();
        }
        for _ in 0..1 + day % 2 {
            let out = w
                .cmd(&["gate", "run", "test"])
                .env("TLC_NOW", &at)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(out.status.code().is_some());
        }
    }
    w
}

/// Issue 52, item 5: a session's page tells its story — the prompt, the denied call (read as
/// denied, with its rule and command), the blocked stop with its rule, the follow-up it sent the
/// agent and the test gate's output — with the events' attributes as fields, never JSON text; the
/// floor's denial stands apart from the interruption rate, under a title that says so; the Policy
/// page names the command each denial was about.
#[test]
fn a_blocked_stop_is_told_on_its_session_page_and_the_policy_page_names_the_command() {
    let (w, follow_up) = blocked_stop_world();
    let s = Served::start(&w);
    let api = s.ok(&format!("/api/sessions/{BLOCKED}")).json();
    let timeline = api["timeline"].as_array().expect("a timeline").clone();
    let kinds: Vec<&str> = timeline.iter().filter_map(|e| e["kind"].as_str()).collect();
    let at = |k: &str| kinds.iter().position(|x| *x == k).unwrap_or_else(|| panic!("no {k} in {kinds:?}"));
    assert!(at("prompt.submit") < at("stop"), "oldest first: {kinds:?}");
    let denied = timeline
        .iter()
        .find(|e| e["tool"] == "Bash")
        .unwrap_or_else(|| panic!("no Bash call: {timeline:?}"));
    assert_eq!(denied["decisions"][0]["permission"], "deny", "{denied}");
    assert_eq!(denied["decisions"][0]["rule"], "outside-project-destruction", "{denied}");
    assert_eq!(denied["attrs"]["command"], "rm -rf /");
    let stop = &timeline[at("stop")];
    assert_eq!(stop["outcomes"][0]["outcome"], "block", "{stop}");
    assert_eq!(stop["outcomes"][0]["rule"], "grind-test", "{stop}");
    assert_eq!(
        stop["outcomes"][0]["follow_up"], follow_up,
        "the text kept is the text the Stop sent"
    );
    let run = &stop["gate_runs"][0];
    assert_eq!(
        (run["gate"].as_str(), run["verdict"].as_str()),
        (Some("test"), Some("fail")),
        "{stop}"
    );
    assert!(run["output_tail"].as_str().unwrap().contains(FAILING_ASSERTION), "{run}");
    // The report's rails count the stop's block: a stop outcome is a decision.
    assert!(
        api["report"]["rails"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == "grind-test" && r["permission"] == "block"),
        "{}",
        api["report"]
    );

    let page = s.ok(&format!("/sessions/{BLOCKED}")).text();
    let text = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;")
    };
    let first_line = follow_up.lines().next().unwrap();
    assert!(page.contains(&text(first_line)), "the follow-up is on the page: {first_line}");
    assert!(page.contains("class=\"follow-up\""), "{page:.4000}");
    assert!(page.contains(&text(FAILING_ASSERTION)), "the gate's output tail is on the page");
    assert!(page.contains("Stop blocked") && page.contains("grind-test"), "{page:.4000}");
    assert!(
        page.contains(">Denied</strong> by rule <code>outside-project-destruction</code>"),
        "{page:.6000}"
    );
    assert!(page.contains(">rm -rf /<"), "the denied command is named");
    // The reason as `obs why` prints it: the rule is named beside it, not repeated as `rule=`.
    assert!(page.contains("FLOOR: `rm` removes /"), "{page:.6000}");
    assert!(!page.contains("rule=outside-project-destruction"), "{page:.6000}");
    assert!(!page.contains("No rail decided anything"), "a blocked stop decided something");
    // Attributes as fields: no JSON object reaches the page as text.
    assert!(page.contains("<dl class=\"fields\">"), "{page:.4000}");
    assert!(!page.contains("{&quot;"), "JSON text on the page");
    // The floor apart from the interruption rate, each table under its own title.
    assert!(page.contains("<h2>Interruptions by rule (the rails a posture calibrates)</h2>"));
    let floor_title = "<h2>Floor denials (kept out of the interruption rate: no posture chooses them)</h2>";
    let floor = page.find(floor_title).expect("the floor's table has its title");
    assert!(
        page[floor..].find("<table id=\"floor\"") < page[floor..].find("<h2>Rails that fired"),
        "the floor's denial is in its own table"
    );
    assert!(page[floor..].contains("<td>outside-project-destruction</td>"));
    assert!(page.contains("<h2>Rails that fired"), "the rails' table has a title");

    let policy = s.ok("/policy").text();
    assert!(policy.contains(floor_title), "{policy:.3000}");
    let recent = policy.find("<table id=\"recent-denials\"").expect("the denials one by one");
    let row = &policy[recent..];
    assert!(
        row.contains("<code>rm -rf /</code>") && row.contains("outside-project-destruction"),
        "{row:.2000}"
    );
    let api = s.ok("/api/policy").json();
    assert_eq!(api["recent_interruptions"][0]["detail"], "rm -rf /", "{api}");
    assert_eq!(api["recent_interruptions"][0]["floor"], true);
}

/// The clock of [`hooks_only_world`]: the replayed session's day, after its last response.
pub const HOOKS_NOW: &str = "2026-11-28T12:00:00Z";
/// A session whose one response used no token: a known cost of zero.
pub const ZERO: &str = "0e0e0e0e-0000-4000-8000-000000000000";
/// A session whose responses came from a model without a price: a cost unknown.
pub const UNPRICED: &str = "9a9a9a9a-0000-4000-8000-000000000000";
/// A session with a prompt and no response.
pub const QUIET: &str = "9e9e9e9e-0000-4000-8000-000000000000";

/// One response of `model` in a transcript, at `ts`.
fn transcript_line(session: &str, id: &str, ts: &str, model: &str, input: i64, output: i64) -> String {
    serde_json::json!({
        "type": "assistant", "sessionId": session, "cwd": "/repo", "uuid": format!("{id}-0"), "requestId": format!("req_{id}"),
        "timestamp": ts,
        "message": {"id": format!("msg_{id}"), "type": "message", "role": "assistant", "model": model,
                    "content": [{"type": "text", "text": "ok"}],
                    "usage": {"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": output}},
    })
    .to_string()
}

/// A record written by the hooks alone — no `tlc obs import`: the replayed Claude Code session
/// (its responses on 2026-11-28), a session whose one response used no token, one of a model
/// without a price, and one with a prompt and no response.
pub fn hooks_only_world() -> World {
    let w = World::new();
    replay_claude_session(&w);
    for (session, line) in [
        (
            ZERO,
            transcript_line(ZERO, "zero", "2026-11-28T11:00:00.000Z", "claude-sonnet-4-5-20250929", 0, 0),
        ),
        (
            UNPRICED,
            transcript_line(UNPRICED, "unpriced", "2026-11-28T11:10:00.000Z", "acme-unpriced-1", 100, 20),
        ),
    ] {
        let transcript = w.dir.path().join(format!("{session}.jsonl"));
        std::fs::write(&transcript, line + "\n").unwrap();
        for event in ["UserPromptSubmit", "Stop"] {
            let p = serde_json::json!({"hook_event_name": event, "session_id": session, "cwd": w.repo,
                                       "transcript_path": transcript, "prompt": "go", "stop_hook_active": false});
            w.hook("claude", p.to_string().as_bytes());
        }
    }
    let p = serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": QUIET, "cwd": w.repo, "prompt": "hello"});
    w.hook("claude", p.to_string().as_bytes());
    w
}

/// The cells of the table row that links to `session` (text between the tags).
fn session_row(page: &str, session: &str) -> Vec<String> {
    let at = page
        .find(&format!("<a href=\"/sessions/{session}\">"))
        .unwrap_or_else(|| panic!("no row for {session}"));
    let start = page[..at].rfind("<tr>").unwrap();
    let end = at + page[at..].find("</tr>").unwrap();
    let cell = regex::Regex::new(r"<td[^>]*>(.*?)</td>").unwrap();
    let tag = regex::Regex::new(r"<[^>]+>").unwrap();
    cell.captures_iter(&page[start..end])
        .map(|c| tag.replace_all(&c[1], "").into_owned())
        .collect()
}

/// Issue 52, items 4 and 10: the overview's cost is the sessions' — for a session the hooks
/// alone recorded (no import), the overview's today is what the sessions page shows, not
/// "unknown"; a session's tokens are one total everywhere (`obs cost`'s "total tokens"); a zero
/// that is known reads `$0.00`, one that is not reads "unknown", and no cost is written with six
/// zeros beside "none".
#[test]
fn the_overview_the_session_list_and_obs_cost_agree_on_a_session_the_hooks_alone_recorded() {
    let w = hooks_only_world();
    let s = Served::start_in(&w, &w.repo, &[], Some(HOOKS_NOW));
    let cli = |args: &[&str]| json(&w.ok_env(args, HOOKS_NOW));
    let overview = s.ok("/api/overview").json();
    let today = &overview["today"]["totals"];
    let list = s.ok("/api/sessions").json();
    let sessions = list["sessions"].as_array().unwrap();
    let cost_of = |id: &str| {
        sessions
            .iter()
            .find(|r| r["session_id"] == id)
            .unwrap_or_else(|| panic!("no {id} in {list}"))["estimated_cost_usd"]
            .as_f64()
    };
    let session_cost = cost_of(SESSION).expect("the replayed session is priced");
    assert!(session_cost > 0.0);
    assert_eq!(cost_of(ZERO), Some(0.0), "a response of no token costs a known zero");
    assert_eq!(cost_of(UNPRICED), None);
    let today_cost = today["cost_usd"]
        .as_f64()
        .unwrap_or_else(|| panic!("the overview says unknown: {today}"));
    assert!(
        (today_cost - session_cost).abs() <= 1e-12 * session_cost,
        "today on the overview {today_cost} against the sessions' {session_cost}"
    );
    let overview_page = s.ok("/").text();
    let card = regex::Regex::new(r#"<div class="card" id="today">.*?<div class="figure"[^>]*>([^<]*)</div>"#).unwrap();
    let figure = card.captures(&overview_page).expect("the today card")[1].to_string();
    let list_page = s.ok("/sessions").text();
    let row = session_row(&list_page, SESSION);
    // Part of today had no price (the unpriced session): the overview marks it, the session's own
    // figure is whole.
    assert_eq!(figure.trim_end_matches('*'), row[10], "the overview's today and the session's cost");
    assert!(figure.ends_with('*'), "{figure}");

    // One total of tokens, named as `obs cost` names it.
    assert!(list_page.contains("<th>total tokens</th>") && !list_page.contains("in+out"));
    let by_session = cli(&["obs", "cost", "--here", "--by", "session", "--json"]);
    let cost_row = by_session["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == SESSION)
        .expect("the session in obs cost --here --by session")
        .clone();
    let total = cost_row["total_tokens"].as_i64().unwrap();
    assert_eq!(row[9].replace(',', ""), total.to_string(), "the list's total tokens: {row:?}");
    let page = s.ok(&format!("/sessions/{SESSION}")).text();
    assert!(
        page.contains(&format!(
            "<div class=\"label\">Total tokens</div><div class=\"figure\" data-value=\"{total}\">"
        )),
        "{page:.3000}"
    );

    // Zero, unknown and none, and never six decimals.
    assert_eq!(session_row(&list_page, ZERO)[10], "$0.00");
    assert_eq!(session_row(&list_page, UNPRICED)[10], "unknown");
    assert_eq!(session_row(&list_page, QUIET)[10], "none");
    for path in ["/sessions", "/", &format!("/sessions/{ZERO}"), "/cost", "/projects"] {
        let t = s.ok(path).text();
        assert!(!t.contains("$0.000000"), "{path}: a zero written as a measured figure");
    }
    assert!(s.ok(&format!("/sessions/{ZERO}")).text().contains(">$0.00<"));
}

/// The `<svg id="{id}" …>…</svg>` of `page`.
fn chart<'p>(page: &'p str, id: &str) -> &'p str {
    let at = page
        .find(&format!("<svg id=\"{id}\""))
        .unwrap_or_else(|| panic!("no chart {id}: {page:.3000}"));
    let end = at + page[at..].find("</svg>").expect("the chart ends");
    &page[at..end]
}

/// Issue 52, item 10: a chart of one day is one narrow bar (as wide as a day of a week), not a
/// bar across the plot; a session id on the Sessions chart is drawn from its start (anchored at
/// the left edge, its whole id in its title; only its end is cut), and its bar says what the
/// table's cost column says.
#[test]
fn one_day_is_a_narrow_bar_and_a_session_id_is_drawn_from_its_start() {
    let w = hooks_only_world();
    let s = Served::start_in(&w, &w.repo, &[], Some(HOOKS_NOW));
    let number = |svg: &str, re: &str| -> Vec<f64> {
        regex::Regex::new(re)
            .unwrap()
            .captures_iter(svg)
            .map(|c| c[1].parse::<f64>().unwrap())
            .collect()
    };
    for (path, id) in [("/", "chart-days"), ("/cost", "chart-cost")] {
        let page = s.ok(path).text();
        let svg = chart(&page, id);
        let width = number(svg, r#"viewBox="0 0 ([0-9.]+) "#)[0];
        let xs = number(svg, r#"<rect x="([0-9.]+)""#);
        let widths = number(svg, r#"<rect x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)""#);
        assert!(!widths.is_empty(), "{path}: no bar in {svg}");
        let days: std::collections::BTreeSet<String> = xs.iter().map(|x| format!("{x:.1}")).collect();
        assert_eq!(days.len(), 1, "{path}: one day of responses, one bar: {svg}");
        for bar in widths {
            assert!(bar < width / 8.0, "{path}: one day's bar is {bar} of a {width} wide chart");
        }
    }

    let page = s.ok("/sessions").text();
    let svg = chart(&page, "chart-sessions");
    assert!(
        !svg.contains("text-anchor=\"end\""),
        "a label anchored at its end is cut at its start: {svg}"
    );
    let label =
        regex::Regex::new(r#"<text x="([0-9.]+)" y="[0-9.]+" class="tick" text-anchor="start"><title>([^<]*)</title>([^<]*)</text>"#)
            .unwrap();
    let labels: Vec<(f64, String, String)> = label
        .captures_iter(svg)
        .map(|c| (c[1].parse().unwrap(), c[2].to_string(), c[3].to_string()))
        .collect();
    assert!(labels.iter().any(|l| l.1 == SESSION), "{svg}");
    for (x, whole, drawn) in &labels {
        assert!(*x >= 0.0, "{whole} starts at {x}");
        let kept = drawn.trim_end_matches('…');
        assert!(whole.starts_with(kept) && kept.len() >= 20, "{whole} drawn as {drawn}");
    }
    // The bar's figure is the table's: "$0.00" for a known zero, the session's cost otherwise.
    let row = session_row(&page, SESSION);
    assert!(svg.contains(&format!(">{}</text>", row[10])), "the bar writes {}: {svg}", row[10]);
}

/// The titles of `page` (its `<h1>`, then each `<h2>`) and, for each, the ids of the tables (or
/// their empty notes) under it before the next title.
fn tables_by_title(page: &str) -> Vec<(String, Vec<String>)> {
    let piece = regex::Regex::new(r#"<h[12]>([^<]*)</h[12]>|<table id="([^"]+)"|<p class="empty" id="([^"]+)""#).unwrap();
    let mut out: Vec<(String, Vec<String>)> = vec![(String::new(), Vec::new())];
    for c in piece.captures_iter(page) {
        match (c.get(1), c.get(2).or(c.get(3))) {
            (Some(title), _) => out.push((title.as_str().to_string(), Vec::new())),
            (None, Some(id)) => out.last_mut().unwrap().1.push(id.as_str().to_string()),
            _ => {}
        }
    }
    out
}

/// Issue 52, item 10: no table stands without a title of its own — on a session page the rails
/// that fired no longer sit unlabelled under "Interruptions", the floor's denials are a table of
/// their own — on the session, Policy and Gates pages alike.
#[test]
fn every_table_has_a_title_of_its_own() {
    let (w, _) = blocked_stop_world();
    let s = Served::start(&w);
    for path in [
        format!("/sessions/{BLOCKED}"),
        "/policy".into(),
        "/gates".into(),
        "/sessions".into(),
    ] {
        let page = s.ok(&path).text();
        let sections = tables_by_title(&page);
        assert!(sections[0].1.is_empty(), "{path}: a table before any title: {sections:?}");
        for (title, ids) in &sections[1..] {
            assert!(ids.len() <= 1, "{path}: {ids:?} share the title {title:?}");
        }
        if path.starts_with("/sessions/") {
            let under = |t: &str| {
                sections
                    .iter()
                    .find(|(title, _)| title.starts_with(t))
                    .unwrap_or_else(|| panic!("{path}: no title {t}: {sections:?}"))
                    .1
                    .clone()
            };
            assert_eq!(under("Interruptions by rule"), ["interruptions"]);
            assert_eq!(under("Floor denials"), ["floor"]);
            assert_eq!(under("Rails that fired"), ["rails"]);
        }
    }
}
