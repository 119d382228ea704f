//! Headless Chromium driven through its DevTools protocol (a WebSocket), for the `tlc serve`
//! tests: load a page at a viewport, read its DOM, collect its console errors, take a screenshot.
//! Chromium is Debian's `chromium` package, which `.ci/run` installs like sqlite3.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Generous: a loaded two-core machine starts Chromium slowly. Nothing here asserts a time.
const START: Duration = Duration::from_secs(120);
const STEP: Duration = Duration::from_secs(90);

/// The Chromium binary: `TLC_CHROMIUM`, else `chromium` (Debian), else `chromium-browser`.
pub fn binary() -> PathBuf {
    if let Some(p) = std::env::var_os("TLC_CHROMIUM") {
        return PathBuf::from(p);
    }
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!("chromium is not installed: the serve browser tests need Debian's `chromium` package (.ci/run installs it)");
}

pub struct Chromium {
    child: Child,
    _profile: tempfile::TempDir,
    ws: tungstenite::WebSocket<TcpStream>,
    next_id: u64,
    /// Every event received so far (method, params).
    pub events: Vec<(String, Value)>,
}

/// GET on DevTools' HTTP endpoint, which keeps the connection open: the body is read by its
/// Content-Length.
fn http_get(port: u16, path: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to DevTools");
    s.set_read_timeout(Some(STEP)).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n").unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return String::from_utf8_lossy(&buf[end + 4..end + 4 + len]).into_owned();
            }
        }
        match s.read(&mut chunk) {
            Ok(0) => {
                let start = buf.windows(4).position(|w| w == b"\r\n\r\n").map_or(buf.len(), |e| e + 4);
                return String::from_utf8_lossy(&buf[start..]).into_owned();
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) => panic!("read DevTools answer: {e}"),
        }
    }
}

impl Chromium {
    /// Starts Chromium with a fresh profile and attaches to its first page.
    pub fn start() -> Chromium {
        let profile = tempfile::tempdir().expect("profile dir");
        let child = Command::new(binary())
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                "--window-size=1280,800",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromium");
        let port_file = profile.path().join("DevToolsActivePort");
        let deadline = Instant::now() + START;
        let port: u16 = loop {
            if let Some(p) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|t| t.lines().next().and_then(|l| l.trim().parse().ok()))
            {
                break p;
            }
            assert!(Instant::now() < deadline, "chromium wrote no DevToolsActivePort in {START:?}");
            std::thread::sleep(Duration::from_millis(100));
        };
        let ws_url = loop {
            let list: Value = serde_json::from_str(&http_get(port, "/json/list")).unwrap_or(Value::Null);
            if let Some(u) = list
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| t["type"] == "page")
                .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            {
                break u.to_string();
            }
            assert!(Instant::now() < deadline, "chromium listed no page");
            std::thread::sleep(Duration::from_millis(100));
        };
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the page");
        stream.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
        let (ws, _) = tungstenite::client(ws_url.as_str(), stream).expect("DevTools WebSocket");
        let mut c = Chromium {
            child,
            _profile: profile,
            ws,
            next_id: 0,
            events: Vec::new(),
        };
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
            c.call(domain, json!({}));
        }
        c
    }

    fn read(&mut self) -> Option<Value> {
        match self.ws.read() {
            Ok(tungstenite::Message::Text(t)) => serde_json::from_str(t.as_str()).ok(),
            Ok(_) => None,
            Err(tungstenite::Error::Io(e)) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => None,
            Err(e) => panic!("DevTools connection: {e}"),
        }
    }

    /// Calls `method` and returns its result (events that arrive meanwhile are kept).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({ "id": id, "method": method, "params": params }).to_string();
        self.ws.send(tungstenite::Message::text(msg)).expect("send to DevTools");
        let deadline = Instant::now() + STEP;
        loop {
            if let Some(v) = self.read() {
                if v["id"] == id {
                    assert!(v.get("error").is_none(), "{method}: {}", v["error"]);
                    return v["result"].clone();
                }
                if let Some(m) = v["method"].as_str() {
                    self.events.push((m.to_string(), v["params"].clone()));
                }
            }
            assert!(Instant::now() < deadline, "{method}: no answer in {STEP:?}");
        }
    }

    /// Waits for the event `method` after the `seen`-th event.
    fn wait_for(&mut self, method: &str, seen: usize) {
        let deadline = Instant::now() + STEP;
        loop {
            if self.events[seen..].iter().any(|(m, _)| m == method) {
                return;
            }
            if let Some(v) = self.read() {
                if let Some(m) = v["method"].as_str() {
                    self.events.push((m.to_string(), v["params"].clone()));
                }
            }
            assert!(Instant::now() < deadline, "no {method} in {STEP:?}");
        }
    }

    /// The viewport (CSS pixels), and whether it is a phone's.
    pub fn viewport(&mut self, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }),
        );
    }

    pub fn javascript(&mut self, on: bool) {
        self.call("Emulation.setScriptExecutionDisabled", json!({ "value": !on }));
    }

    /// Loads `url` and waits for its load event.
    pub fn load(&mut self, url: &str) {
        let seen = self.events.len();
        let r = self.call("Page.navigate", json!({ "url": url }));
        assert!(r.get("errorText").is_none(), "{url}: {}", r["errorText"]);
        self.wait_for("Page.loadEventFired", seen);
    }

    /// The value of a JavaScript expression evaluated in the page.
    pub fn eval(&mut self, expr: &str) -> Value {
        let r = self.call("Runtime.evaluate", json!({ "expression": expr, "returnByValue": true }));
        assert!(r.get("exceptionDetails").is_none(), "{expr}: {}", r["exceptionDetails"]);
        r["result"]["value"].clone()
    }

    /// The console errors, uncaught exceptions and browser-logged errors (a refused script or
    /// style, a failed load) since the `from`-th event.
    pub fn errors_since(&self, from: usize) -> Vec<String> {
        self.events[from..]
            .iter()
            .filter_map(|(m, p)| match m.as_str() {
                "Runtime.consoleAPICalled" if p["type"] == "error" || p["type"] == "assert" => Some(format!("console: {}", p["args"])),
                "Runtime.exceptionThrown" => Some(format!("exception: {}", p["exceptionDetails"])),
                "Log.entryAdded" if p["entry"]["level"] == "error" => Some(format!("log: {}", p["entry"])),
                "Page.javascriptDialogOpening" => Some(format!("dialog: {}", p["message"])),
                _ => None,
            })
            .collect()
    }

    /// A PNG of the viewport.
    pub fn screenshot(&mut self) -> Vec<u8> {
        use base64::Engine;
        let r = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().expect("screenshot data"))
            .expect("base64 screenshot")
    }

    pub fn save_screenshot(&mut self, path: &Path) {
        let png = self.screenshot();
        std::fs::write(path, png).expect("write screenshot");
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        self.next_id += 1;
        let _ = self.ws.send(tungstenite::Message::text(
            json!({ "id": self.next_id, "method": "Browser.close" }).to_string(),
        ));
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a screenshot holds: (width, height, distinct colours, share of pixels unlike the most
/// common colour).
pub fn picture(png_bytes: &[u8]) -> (u32, u32, usize, f64) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("PNG size")];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    let channels = info.color_type.samples();
    let mut counts: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    for px in buf[..info.buffer_size()].chunks(channels) {
        *counts.entry(px).or_default() += 1;
    }
    let total: usize = counts.values().sum();
    let top = counts.values().copied().max().unwrap_or(0);
    (info.width, info.height, counts.len(), 1.0 - top as f64 / total.max(1) as f64)
}
