//! Answers: their headers (the Content-Security-Policy, no sniffing, no caching, no framing, the
//! render time), error pages, the compiled-in assets, and writing them to the connection.

use super::guard::Refusal;
use super::head::{head, reason, TEXT};
use super::html::{self, esc, Frame};
use super::http::Conn;
use std::io::Read;
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
