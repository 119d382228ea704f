//! The head of every answer `tlc serve` writes — status line, the security fields, framing —
//! and the whole plain answer its connection loop sends before a request is read. Its own file:
//! both the loop (`http`) and the answers (`respond`) write heads, and neither uses the other
//! for it.

use std::sync::OnceLock;

pub(crate) const TEXT: &str = "text/plain; charset=utf-8";

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
pub(crate) fn head(status: u16, content_type: &str, extra: &[(&'static str, String)], framing: &str, dur: f64, keep: bool) -> Vec<u8> {
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
