//! Answers: their headers (the Content-Security-Policy, no sniffing, no caching, no framing, the
//! render time), error pages, the compiled-in assets, and sending them through tiny_http.

use super::guard::Refusal;
use super::html::{self, esc, Frame};
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
        let mut a = if r.status == 405 || r.status == 421 || r.status == 401 {
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
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        414 => "URI Too Long",
        421 => "Misdirected Request",
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

fn header(name: &str, value: &str) -> Option<tiny_http::Header> {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

/// Sends `answer`, with the time from the request's arrival to here as `Server-Timing` (for a
/// stream, the time to its first byte).
pub(crate) fn send(rq: tiny_http::Request, answer: Answer, started: Instant) {
    let dur = started.elapsed().as_secs_f64() * 1000.0;
    let mut headers: Vec<tiny_http::Header> = [
        ("Content-Type", answer.content_type),
        ("Content-Security-Policy", csp()),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]
    .iter()
    .filter_map(|(k, v)| header(k, v))
    .collect();
    if !answer.headers.iter().any(|(k, _)| *k == "Cache-Control") {
        headers.extend(header("Cache-Control", "no-store"));
    }
    headers.extend(header("Server-Timing", &format!("render;dur={dur:.3}")));
    headers.extend(answer.headers.iter().filter_map(|(k, v)| header(k, v)));
    let status = tiny_http::StatusCode(answer.status);
    // A client that went away is no error of the server's.
    let _ = match answer.body {
        Body::Bytes(b) => {
            let len = b.len();
            rq.respond(tiny_http::Response::new(status, headers, std::io::Cursor::new(b), Some(len), None))
        }
        Body::Stream(r) => rq.respond(tiny_http::Response::new(status, headers, r, None, None)),
    };
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
