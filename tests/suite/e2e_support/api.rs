//! A scripted Anthropic Messages API on 127.0.0.1: what the real Claude Code CLI talks to in the
//! end-to-end tests.
//!
//! Every request is answered and logged. A `POST /v1/messages` is matched to a scripted
//! conversation by a marker in the text of a user message (the last such message wins), and the
//! step is the number of assistant messages after it, so the answer depends only on the request
//! (a subagent's conversation starts from its own prompt, which carries its own marker). A
//! request that asks for a conversation summary (`/compact`) gets a summary; any other request
//! (title generation, quota checks) gets a short text answer. Each response has its own usage,
//! numbered from the response's serial number, so totals can be compared exactly.
//!
//! Streaming answers are sent as Server-Sent Events, paced like a real stream: `message_start`
//! (input and cache counts, and a first `output_tokens` that is not the final one), the content
//! blocks, a pause, then `message_delta` with the final `output_tokens`, then `message_stop`.
//! The server stops when the test drops it, and on its own after a deadline.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// No scripted API outlives this, whatever the test does.
const DEADLINE: Duration = Duration::from_secs(240);
/// The pause before `message_delta`: the final usage arrives after the blocks, as it does from
/// the real API.
const FINAL_USAGE_DELAY: Duration = Duration::from_millis(60);

/// Text the `/compact` request carries in its last user message.
const COMPACT_ASK: &str = "create a detailed summary of the conversation";

/// Token counts of one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl Usage {
    pub fn add(&mut self, o: Usage) {
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
    }

    /// The usage of the response with serial number `n`: every count distinct.
    fn of_serial(n: u64) -> Usage {
        Usage {
            input: 1000 * n + 11,
            output: 100 * n + 37,
            cache_read: 10_000 * n + 503,
            cache_write: 1000 * n + 209,
        }
    }
}

/// One content block of a scripted response.
#[derive(Debug, Clone)]
pub enum Block {
    Text(String),
    Tool { name: String, input: Value },
}

pub fn text(t: &str) -> Block {
    Block::Text(t.to_string())
}

pub fn tool(name: &str, input: Value) -> Block {
    Block::Tool {
        name: name.to_string(),
        input,
    }
}

pub fn bash(command: &str) -> Block {
    tool("Bash", json!({"command": command, "description": "scripted step"}))
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Step {
    Respond(Vec<Block>),
    /// An HTTP error with an Anthropic error body.
    Fail {
        status: u16,
        kind: String,
        message: String,
    },
}

/// A conversation: the marker its prompt carries and its answers in order.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub marker: String,
    pub steps: Vec<Step>,
}

pub fn conversation(marker: &str, steps: Vec<Step>) -> Conversation {
    Conversation {
        marker: marker.to_string(),
        steps,
    }
}

/// What a response answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// Step `step` of the conversation with `marker`.
    Scripted { marker: String, step: usize },
    /// The `/compact` summary request.
    Compact,
    /// A request no conversation claims (title generation and the like).
    Side,
    /// A conversation asked for more steps than it has.
    Unexpected { marker: String, step: usize },
}

/// One response the server sent.
#[derive(Debug, Clone)]
pub struct Sent {
    pub serial: u64,
    pub role: Role,
    pub model: String,
    pub message_id: String,
    pub request_id: String,
    pub stream: bool,
    /// The final usage (a stream's `message_delta`).
    pub usage: Usage,
    /// The `output_tokens` of a stream's `message_start`.
    pub first_output: u64,
    /// HTTP status; 200 unless the step was a failure (then `usage` is zero).
    pub status: u16,
    /// Tool names the response asked for, in order.
    pub tools: Vec<String>,
}

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub body: Option<Value>,
}

#[derive(Default)]
struct Log {
    received: Vec<Received>,
    sent: Vec<Sent>,
    serial: u64,
}

pub struct ScriptedApi {
    port: u16,
    stop: Arc<AtomicBool>,
    log: Arc<Mutex<Log>>,
    thread: Option<JoinHandle<()>>,
}

impl ScriptedApi {
    pub fn start(conversations: Vec<Conversation>) -> ScriptedApi {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the scripted API on 127.0.0.1");
        listener.set_nonblocking(true).expect("non-blocking listener");
        let port = listener.local_addr().expect("local addr").port();
        let stop = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(Log::default()));
        let script = Arc::new(conversations);
        let (stop2, log2) = (stop.clone(), log.clone());
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            let mut workers = Vec::new();
            while !stop2.load(Ordering::SeqCst) && started.elapsed() < DEADLINE {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (stop3, log3, script3) = (stop2.clone(), log2.clone(), script.clone());
                        workers.push(std::thread::spawn(move || serve(stream, &stop3, &log3, &script3, started)));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(5)),
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
            stop2.store(true, Ordering::SeqCst);
            for w in workers {
                let _ = w.join();
            }
        });
        ScriptedApi {
            port,
            stop,
            log,
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn sent(&self) -> Vec<Sent> {
        self.log.lock().unwrap().sent.clone()
    }

    pub fn received(&self) -> Vec<Received> {
        self.log.lock().unwrap().received.clone()
    }

    /// Stops accepting, ends every connection and waits for the server's threads.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for ScriptedApi {
    fn drop(&mut self) {
        self.stop();
    }
}

struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

/// Reads one request; `None` when the peer closed, the server stops, or the request is unusable.
fn read_request(reader: &mut BufReader<TcpStream>, stop: &AtomicBool, started: Instant) -> Option<Request> {
    let mut head = Vec::new();
    loop {
        if stop.load(Ordering::SeqCst) || started.elapsed() > DEADLINE {
            return None;
        }
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return None,
            Ok(_) => {
                head.extend_from_slice(&line);
                if line == b"\r\n" || line == b"\n" {
                    if head.len() == line.len() {
                        head.clear();
                        continue;
                    }
                    break;
                }
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                if !line.is_empty() {
                    head.extend_from_slice(&line);
                }
                continue;
            }
            Err(_) => return None,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut lines = head.lines();
    let mut first = lines.next()?.split_whitespace();
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let mut length = 0usize;
    let mut chunked = false;
    for l in lines {
        if let Some((k, v)) = l.split_once(':') {
            let k = k.trim().to_ascii_lowercase();
            if k == "content-length" {
                length = v.trim().parse().ok()?;
            } else if k == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked") {
                chunked = true;
            }
        }
    }
    let body = if chunked {
        let mut body = Vec::new();
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0u8; n + 2];
            read_full(reader, &mut chunk, started)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
        body
    } else {
        let mut body = vec![0u8; length];
        read_full(reader, &mut body, started)?;
        body
    };
    Some(Request { method, path, body })
}

/// Fills `buf`, waiting out read timeouts until the deadline.
fn read_full(reader: &mut BufReader<TcpStream>, buf: &mut [u8], started: Instant) -> Option<()> {
    let mut at = 0;
    while at < buf.len() {
        match reader.read(&mut buf[at..]) {
            Ok(0) => return None,
            Ok(n) => at += n,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                if started.elapsed() > DEADLINE {
                    return None;
                }
            }
            Err(_) => return None,
        }
    }
    Some(())
}

fn serve(stream: TcpStream, stop: &AtomicBool, log: &Mutex<Log>, script: &[Conversation], started: Instant) {
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    while let Some(req) = read_request(&mut reader, stop, started) {
        let body: Option<Value> = serde_json::from_slice(&req.body).ok();
        log.lock().unwrap().received.push(Received {
            method: req.method.clone(),
            path: req.path.clone(),
            body: body.clone(),
        });
        let ok = if req.method == "POST" && req.path.starts_with("/v1/messages/count_tokens") {
            respond_json(&mut writer, 200, &json!({"input_tokens": 1000}), None)
        } else if req.method == "POST" && req.path.starts_with("/v1/messages") {
            answer_messages(&mut writer, body.as_ref(), log, script)
        } else if req.method == "HEAD" || req.method == "GET" && req.path == "/" {
            respond_json(&mut writer, 200, &json!({}), None)
        } else {
            respond_json(
                &mut writer,
                404,
                &json!({"type": "error", "error": {"type": "not_found_error", "message": format!("scripted API: no {} {}", req.method, req.path)}}),
                None,
            )
        };
        if !ok {
            return;
        }
    }
}

fn respond_json(w: &mut TcpStream, status: u16, body: &Value, request_id: Option<&str>) -> bool {
    let text = body.to_string();
    let reason = if status == 200 { "OK" } else { "Error" };
    let rid = request_id.map(|r| format!("request-id: {r}\r\n")).unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n{rid}content-length: {}\r\n\r\n",
        text.len()
    );
    w.write_all(head.as_bytes()).and_then(|_| w.write_all(text.as_bytes())).is_ok()
}

/// Every text of a message's content (a string, or the text blocks of an array).
fn texts(message: &Value) -> Vec<&str> {
    match message.get("content") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

fn classify(body: &Value, script: &[Conversation]) -> (Role, Option<Step>) {
    let messages = body.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
    if let Some(last) = messages.last() {
        if last.get("role").and_then(Value::as_str) == Some("user") && texts(last).iter().any(|t| t.contains(COMPACT_ASK)) {
            return (Role::Compact, None);
        }
    }
    let mut found: Option<(usize, &Conversation)> = None;
    for (i, m) in messages.iter().enumerate() {
        if m.get("role").and_then(Value::as_str) != Some("user") {
            continue;
        }
        for t in texts(m) {
            if let Some(c) = script.iter().find(|c| t.contains(&c.marker)) {
                found = Some((i, c));
            }
        }
    }
    let Some((at, conv)) = found else {
        return (Role::Side, None);
    };
    let step = messages[at + 1..]
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .count();
    match conv.steps.get(step) {
        Some(s) => (
            Role::Scripted {
                marker: conv.marker.clone(),
                step,
            },
            Some(s.clone()),
        ),
        None => (
            Role::Unexpected {
                marker: conv.marker.clone(),
                step,
            },
            None,
        ),
    }
}

fn answer_messages(w: &mut TcpStream, body: Option<&Value>, log: &Mutex<Log>, script: &[Conversation]) -> bool {
    let empty = json!({});
    let body = body.unwrap_or(&empty);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-sonnet-4-5-20250929")
        .to_string();
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let (role, step) = classify(body, script);
    let blocks = match (&role, step) {
        (_, Some(Step::Fail { status, kind, message })) => {
            let serial = {
                let mut l = log.lock().unwrap();
                l.serial += 1;
                let serial = l.serial;
                l.sent.push(Sent {
                    serial,
                    role: role.clone(),
                    model: model.clone(),
                    message_id: String::new(),
                    request_id: format!("req_e2e_{serial:04}"),
                    stream,
                    usage: Usage::default(),
                    first_output: 0,
                    status,
                    tools: Vec::new(),
                });
                serial
            };
            return respond_json(
                w,
                status,
                &json!({"type": "error", "error": {"type": kind, "message": message}}),
                Some(&format!("req_e2e_{serial:04}")),
            );
        }
        (_, Some(Step::Respond(blocks))) => blocks,
        (Role::Compact, None) => vec![text(
            "<analysis>The user asked for a scripted task; it ran.</analysis>\n<summary>The scripted task ran: a command, a file written.</summary>",
        )],
        (Role::Unexpected { .. }, None) => vec![text("The script has no more steps.")],
        _ => vec![text("Side answer.")],
    };
    let (serial, usage) = {
        let mut l = log.lock().unwrap();
        l.serial += 1;
        (l.serial, Usage::of_serial(l.serial))
    };
    let message_id = format!("msg_e2e_{serial:04}");
    let request_id = format!("req_e2e_{serial:04}");
    let first_output = serial;
    let mut content = Vec::new();
    let mut tools = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        match b {
            Block::Text(t) => content.push(json!({"type": "text", "text": t})),
            Block::Tool { name, input } => {
                tools.push(name.clone());
                content.push(json!({"type": "tool_use", "id": format!("toolu_e2e_{serial:04}_{i}"), "name": name, "input": input}));
            }
        }
    }
    let stop_reason = if tools.is_empty() { "end_turn" } else { "tool_use" };
    log.lock().unwrap().sent.push(Sent {
        serial,
        role,
        model: model.clone(),
        message_id: message_id.clone(),
        request_id: request_id.clone(),
        stream,
        usage,
        first_output,
        status: 200,
        tools,
    });
    let start_usage = json!({
        "input_tokens": usage.input,
        "cache_creation_input_tokens": usage.cache_write,
        "cache_read_input_tokens": usage.cache_read,
        "output_tokens": first_output,
    });
    if !stream {
        let mut full = start_usage;
        full["output_tokens"] = usage.output.into();
        return respond_json(
            w,
            200,
            &json!({"id": message_id, "type": "message", "role": "assistant", "model": model, "content": content,
                    "stop_reason": stop_reason, "stop_sequence": null, "usage": full}),
            Some(&request_id),
        );
    }
    let mut events: Vec<(&str, Value)> = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": message_id, "type": "message", "role": "assistant", "model": model,
               "content": [], "stop_reason": null, "stop_sequence": null, "usage": start_usage}}),
    )];
    for (i, block) in content.iter().enumerate() {
        match block["type"].as_str() {
            Some("text") => {
                events.push((
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}),
                ));
                events.push((
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}}),
                ));
            }
            _ => {
                events.push((
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i,
                           "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}),
                ));
                events.push((
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i,
                           "delta": {"type": "input_json_delta", "partial_json": block["input"].to_string()}}),
                ));
            }
        }
        events.push(("content_block_stop", json!({"type": "content_block_stop", "index": i})));
    }
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nrequest-id: {request_id}\r\ntransfer-encoding: chunked\r\n\r\n"
    );
    if w.write_all(head.as_bytes()).is_err() {
        return false;
    }
    let send = |w: &mut TcpStream, name: &str, data: &Value| {
        let event = format!("event: {name}\ndata: {data}\n\n");
        w.write_all(format!("{:x}\r\n{event}\r\n", event.len()).as_bytes())
            .and_then(|_| w.flush())
            .is_ok()
    };
    for (name, data) in &events {
        if !send(w, name, data) {
            return false;
        }
    }
    std::thread::sleep(FINAL_USAGE_DELAY);
    let ok = send(
        w,
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": {"output_tokens": usage.output}}),
    ) && send(w, "message_stop", &json!({"type": "message_stop"}));
    ok && w.write_all(b"0\r\n\r\n").and_then(|_| w.flush()).is_ok()
}
