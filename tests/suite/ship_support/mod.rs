//! What tests/ship.rs needs besides the binary: a Python venv with the official OTLP classes and
//! chdb (installed here, pinned by requirements.txt, kept under target/), and a test OTLP/HTTP
//! receiver on 127.0.0.1 that decodes every request with them.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const REQUIREMENTS: &str = include_str!("requirements.txt");

fn support_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite/ship_support")
}

/// The venv's python (`target/otel-py`), created once per requirements text.
pub fn python() -> PathBuf {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| crate::common::python_venv("otel-py", "tests/suite/ship_support/requirements.txt", REQUIREMENTS))
        .clone()
}

/// A free port on 127.0.0.1 (nothing listens on it when this returns).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A running test receiver.
pub struct Receiver {
    child: Child,
    pub port: u16,
    dir: PathBuf,
}

impl Receiver {
    /// Starts a receiver in `dir` (its log and behaviour files live there) on `port` (0: any).
    pub fn start(dir: &Path, port: u16, behaviour: Value) -> Receiver {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("behaviour.json"), behaviour.to_string()).unwrap();
        let port_file = dir.join("port");
        let _ = std::fs::remove_file(&port_file);
        let child = Command::new(python())
            .arg(support_dir().join("receiver.py"))
            .args(["--port", &port.to_string(), "--lifetime", "240"])
            .arg("--port-file")
            .arg(&port_file)
            .arg("--log")
            .arg(dir.join("log.jsonl"))
            .arg("--behaviour")
            .arg(dir.join("behaviour.json"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the receiver");
        let started = Instant::now();
        let port = loop {
            if let Ok(p) = std::fs::read_to_string(&port_file) {
                if let Ok(p) = p.trim().parse() {
                    break p;
                }
            }
            assert!(started.elapsed() < Duration::from_secs(30), "the receiver did not start");
            std::thread::sleep(Duration::from_millis(20));
        };
        Receiver {
            child,
            port,
            dir: dir.to_path_buf(),
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn set_behaviour(&self, behaviour: Value) {
        let tmp = self.dir.join("behaviour.json.tmp");
        std::fs::write(&tmp, behaviour.to_string()).unwrap();
        std::fs::rename(tmp, self.dir.join("behaviour.json")).unwrap();
    }

    /// The log as written (one JSON line per request).
    pub fn raw_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log.jsonl")).unwrap_or_default()
    }

    /// Every request it received, in order.
    pub fn log(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join("log.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("log line"))
            .collect()
    }

    /// The requests it took (answered 2xx), decoded.
    pub fn taken(&self) -> Vec<Value> {
        self.log().into_iter().filter(|e| e["status"] == 200).collect()
    }

    pub fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An attribute's value as JSON (`{"stringValue": …}` → its string, `intValue` → its integer).
pub fn value(v: &Value) -> Value {
    if let Some(s) = v.get("stringValue") {
        return s.clone();
    }
    if let Some(i) = v.get("intValue") {
        return match i {
            Value::String(s) => Value::from(s.parse::<i64>().expect("int")),
            other => other.clone(),
        };
    }
    if let Some(d) = v.get("doubleValue") {
        return d.clone();
    }
    if let Some(b) = v.get("boolValue") {
        return b.clone();
    }
    Value::Null
}

/// `attributes` (OTLP's key/value list) as a map.
pub fn attrs(list: &Value) -> serde_json::Map<String, Value> {
    list.as_array()
        .map(|a| {
            a.iter()
                .map(|kv| (kv["key"].as_str().unwrap().to_string(), value(&kv["value"])))
                .collect()
        })
        .unwrap_or_default()
}

/// Every span of the taken trace requests, with its resource attributes.
pub fn spans(taken: &[Value]) -> Vec<(Value, serde_json::Map<String, Value>)> {
    let mut out = Vec::new();
    for e in taken.iter().filter(|e| e["signal"] == "traces") {
        for rs in e["body"]["resourceSpans"].as_array().into_iter().flatten() {
            let res = attrs(&rs["resource"]["attributes"]);
            for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                for s in ss["spans"].as_array().into_iter().flatten() {
                    out.push((s.clone(), res.clone()));
                }
            }
        }
    }
    out
}

/// Every log record of the taken log requests.
pub fn log_records(taken: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for e in taken.iter().filter(|e| e["signal"] == "logs") {
        for rl in e["body"]["resourceLogs"].as_array().into_iter().flatten() {
            for sl in rl["scopeLogs"].as_array().into_iter().flatten() {
                out.extend(sl["logRecords"].as_array().into_iter().flatten().cloned());
            }
        }
    }
    out
}

/// Every histogram data point of the taken metric requests, with its metric's name.
pub fn data_points(taken: &[Value]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for e in taken.iter().filter(|e| e["signal"] == "metrics") {
        for rm in e["body"]["resourceMetrics"].as_array().into_iter().flatten() {
            for sm in rm["scopeMetrics"].as_array().into_iter().flatten() {
                for m in sm["metrics"].as_array().into_iter().flatten() {
                    let name = m["name"].as_str().unwrap().to_string();
                    for p in m["histogram"]["dataPoints"].as_array().into_iter().flatten() {
                        out.push((name.clone(), p.clone()));
                    }
                }
            }
        }
    }
    out
}
