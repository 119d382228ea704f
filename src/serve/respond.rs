//! Answers: their headers (the Content-Security-Policy, no sniffing, no caching, no framing, the
//! render time), error pages, the compiled-in assets, and writing them to the connection.

use super::guard::Refusal;
use super::html::{self, esc, Frame};
use super::http::Conn;
use std::io::Read;
use std::sync::OnceLock;
use std::time::Instant;

/// The assets, compiled into the binary: nothing is fetched at run time.
const STYLE: &str = include_str!("assets/style.css");
const ICON: &str = include_str!("assets/icon.svg");

/// What a request is answered with.
pub(crate) struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Body,
    pub headers: Vec<(&'static str, String)>,
}

pub(crate) enum Body {
    Bytes(Vec<u8>),
    /// Written as it is read (chunked): a view's export, row by row.
    Stream(Box<dyn Read + Send>),
}

const HTML: &str = "text/html; charset=utf-8";
const JSON: &str = "application/json; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

impl Answer {
    pub(crate) fn html(status: u16, page: String) -> Answer {
        Answer {
            status,
            content_type: HTML,
            body: Body::Bytes(page.into_bytes()),
            headers: Vec::new(),
        }
    }

    pub(crate) fn json(value: &serde_json::Value) -> Answer {
        let mut text = serde_json::to_vec_pretty(value).unwrap_or_else(|_| b"null".to_vec());
        text.push(b'\n');
        Answer {
            status: 200,
            content_type: JSON,
            body: Body::Bytes(text),
            headers: Vec::new(),
        }
    }

    pub(crate) fn json_stream(body: Box<dyn Read + Send>) -> Answer {
        Answer {
            status: 200,
            content_type: JSON,
            body: Body::Stream(body),
            headers: Vec::new(),
        }
    }

    /// An error: a JSON object `{"error": …}` for the API, a page otherwise.
    pub(crate) fn error(status: u16, message: &str, json: bool) -> Answer {
        if json {
            let mut a = Answer::json(&serde_json::json!({ "error": message, "status": status }));
            a.status = status;
            return a;
        }
        Answer::html(status, error_page(status, message))
    }

    pub(crate) fn refused(r: Refusal) -> Answer {
        let mut a = if matches!(r.status, 403 | 405 | 421) {
            // Refused before any routing: plain text, nothing of the dashboard.
            Answer {
                status: r.status,
                content_type: if r.json { JSON } else { TEXT },
                body: Body::Bytes(if r.json {
                    let mut v = serde_json::to_vec(&serde_json::json!({ "error": r.message, "status": r.status })).unwrap_or_default();
                    v.push(b'\n');
                    v
                } else {
                    format!("{} {}: {}\n", r.status, reason(r.status), r.message).into_bytes()
                }),
                headers: Vec::new(),
            }
        } else {
            Answer::error(r.status, &r.message, r.json)
        };
        a.headers.extend(r.headers);
        a
    }

    pub(crate) fn redirect(location: String, headers: Vec<(&'static str, String)>) -> Answer {
        let mut a = Answer::html(303, String::new());
        a.headers.push(("Location", location));
        a.headers.extend(headers);
        a
    }

    pub(crate) fn asset(name: &str) -> Answer {
        let (content_type, text) = match name {
            "style.css" => ("text/css; charset=utf-8", STYLE),
            "icon.svg" => ("image/svg+xml", ICON),
            _ => return Answer::error(404, "no such asset", false),
        };
        let mut a = Answer {
            status: 200,
            content_type,
            body: Body::Bytes(text.as_bytes().to_vec()),
            headers: Vec::new(),
        };
        a.headers.push(("Cache-Control", "max-age=3600".into()));
        a
    }
}

pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        303 => "See Other",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        414 => "URI Too Long",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// The Content-Security-Policy of every answer: this origin's stylesheet and icon, the one
/// refresh snippet by its hash, `fetch` to this origin only (the refresh), nothing else: no
/// other script, no inline style, no remote origin, no framing.
pub(crate) fn csp() -> &'static str {
    static CSP: OnceLock<String> = OnceLock::new();
    CSP.get_or_init(|| {
        use base64::Engine;
        use sha2::Digest;
        let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(super::html::REFRESH_SNIPPET.as_bytes()));
        format!(
            "default-src 'none'; script-src 'sha256-{hash}'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        )
    })
}

/// The head of an answer: its status line and fields, the connection's fate among them.
fn head(status: u16, content_type: &str, extra: &[(&'static str, String)], framing: &str, dur: f64, keep: bool) -> Vec<u8> {
    let mut h = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    let mut field = |k: &str, v: &str| {
        // A value from a request (a redirect's Location) never splits the head.
        if !v.chars().any(|c| c.is_control() && c != '\t') {
            h.push_str(k);
            h.push_str(": ");
            h.push_str(v);
            h.push_str("\r\n");
        }
    };
    for (k, v) in [
        ("Content-Type", content_type),
        ("Content-Security-Policy", csp()),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ] {
        field(k, v);
    }
    if !extra.iter().any(|(k, _)| *k == "Cache-Control") {
        field("Cache-Control", "no-store");
    }
    field("Server-Timing", &format!("render;dur={dur:.3}"));
    for (k, v) in extra {
        field(k, v);
    }
    h.push_str(framing);
    if !keep {
        h.push_str("Connection: close\r\n");
    }
    h.push_str("\r\n");
    h.into_bytes()
}

/// A whole plain-text answer refusing a connection or a request before it was read whole (408,
/// 414, 431, 503, a head that is not HTTP): the connection closes after it.
pub(crate) fn plain(status: u16, why: &str) -> Vec<u8> {
    let body = format!("{status} {}: {why}\n", reason(status));
    let mut out = head(status, TEXT, &[], &format!("Content-Length: {}\r\n", body.len()), 0.0, false);
    out.extend_from_slice(body.as_bytes());
    out
}

/// Sends `answer`, with the time from the request's arrival to here as `Server-Timing` (for a
/// stream, the time to its first byte). `keep`: the connection stays open after it; `http11`: the
/// client reads chunks (an HTTP/1.0 client's stream ends with the connection).
pub(crate) fn send(conn: &mut Conn, answer: Answer, started: Instant, keep: bool, http11: bool) -> std::io::Result<()> {
    let dur = started.elapsed().as_secs_f64() * 1000.0;
    match answer.body {
        Body::Bytes(b) => {
            let mut out = head(
                answer.status,
                answer.content_type,
                &answer.headers,
                &format!("Content-Length: {}\r\n", b.len()),
                dur,
                keep,
            );
            out.extend_from_slice(&b);
            conn.write_all(&out)
        }
        Body::Stream(mut r) => {
            let (framing, keep) = if http11 {
                ("Transfer-Encoding: chunked\r\n", keep)
            } else {
                ("", false)
            };
            conn.write_all(&head(answer.status, answer.content_type, &answer.headers, framing, dur, keep))?;
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = match r.read(&mut buf) {
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    // A stream that breaks ends without its last chunk: the client sees it cut.
                    Err(e) => return Err(e),
                };
                if !http11 {
                    if n == 0 {
                        return Ok(());
                    }
                    conn.write_all(&buf[..n])?;
                    continue;
                }
                if n == 0 {
                    return conn.write_all(b"0\r\n\r\n");
                }
                let mut chunk = format!("{n:x}\r\n").into_bytes();
                chunk.extend_from_slice(&buf[..n]);
                chunk.extend_from_slice(b"\r\n");
                conn.write_all(&chunk)?;
            }
        }
    }
}

/// A page saying what went wrong (a parameter, a missing session, an unreadable database).
pub(crate) fn error_page(status: u16, message: &str) -> String {
    let title = format!("{status} {}", reason(status));
    html::document(
        &Frame {
            title: &title,
            nav: "",
            project: None,
            api: "/api/overview",
            refresh: None,
        },
        &format!("<p class=\"error\" id=\"error\">{}</p>", esc(message)),
    )
}
