//! Where and how to send: the machine tier's `[ship]` keys, else the standard
//! `OTEL_EXPORTER_OTLP_*` environment variables. Where the machine tier sets a key it wins, so
//! that nothing in a process's environment redirects what the operator configured.

use super::{ShipError, Signal};
use crate::config::{Config, Tier};
use std::time::Duration;

/// The OTLP/HTTP encodings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) enum Protocol {
    #[serde(rename = "http/protobuf")]
    Protobuf,
    #[serde(rename = "http/json")]
    Json,
}

impl Protocol {
    pub(crate) fn parse(word: &str, source: &str) -> Result<Protocol, ShipError> {
        match word.trim() {
            "http/protobuf" => Ok(Protocol::Protobuf),
            "http/json" => Ok(Protocol::Json),
            "grpc" => Err(ShipError::Config(format!(
                "{source} = \"grpc\": tlc speaks OTLP over HTTP only; use http/protobuf (port 4318 on a collector)"
            ))),
            other => Err(ShipError::Config(format!(
                "{source} = {other:?}: expected http/protobuf or http/json"
            ))),
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Protocol::Protobuf => "http/protobuf",
            Protocol::Json => "http/json",
        }
    }

    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Protocol::Protobuf => "application/x-protobuf",
            Protocol::Json => "application/json",
        }
    }
}

/// A resolved collector: one URL per signal, headers, timeout, encoding and retries.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub traces: String,
    pub logs: String,
    pub metrics: String,
    /// `(name, value)`; values are secrets and are never printed.
    pub headers: Vec<(String, String)>,
    pub timeout: Duration,
    pub protocol: Protocol,
    pub retries: u32,
}

impl Endpoint {
    pub(crate) fn url(&self, signal: Signal) -> &str {
        match signal {
            Signal::Traces => &self.traces,
            Signal::Logs => &self.logs,
            Signal::Metrics => &self.metrics,
        }
    }
}

/// How the signal URLs, headers, timeout and protocol are chosen; `env` looks a variable up.
pub(crate) fn resolve(config: &Config, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Endpoint>, ShipError> {
    let ship = &config.settings.ship;
    let set_by_machine = |key: &str| config.get(key).is_some_and(|(_, o)| o.tier == Tier::Machine);
    let env = |k: &str| env(k).filter(|v| !v.trim().is_empty());

    let base = if !ship.endpoint.trim().is_empty() {
        Some(("ship.endpoint", ship.endpoint.trim().to_string()))
    } else {
        env("OTEL_EXPORTER_OTLP_ENDPOINT").map(|v| ("OTEL_EXPORTER_OTLP_ENDPOINT", v.trim().to_string()))
    };
    let from_config = !ship.endpoint.trim().is_empty();
    let mut urls = Vec::new();
    for signal in [Signal::Traces, Signal::Logs, Signal::Metrics] {
        let specific_var = format!("OTEL_EXPORTER_OTLP_{}_ENDPOINT", signal.name().to_uppercase());
        let url = match (&base, from_config) {
            (Some((_, b)), true) => Some(join(b, signal)),
            _ => match env(&specific_var) {
                // A signal's own variable is used as it is (OTLP's rule), the base one with the path added.
                Some(v) => Some(v.trim().to_string()),
                None => base.as_ref().map(|(_, b)| join(b, signal)),
            },
        };
        let Some(url) = url else { return Ok(None) };
        check_url(&url, if from_config { "ship.endpoint" } else { &specific_var })?;
        urls.push(url);
    }

    let mut headers = Vec::new();
    if !ship.headers.is_empty() {
        for h in &ship.headers {
            let (k, v) = h
                .split_once('=')
                .filter(|(k, _)| !k.trim().is_empty())
                .ok_or_else(|| ShipError::Config(format!("ship.headers: {:?} is not \"name=value\"", redact_header(h))))?;
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    } else if let Some(v) = env("OTEL_EXPORTER_OTLP_HEADERS") {
        headers = parse_w3c_list(&v, "OTEL_EXPORTER_OTLP_HEADERS")?;
    }

    let timeout_ms =
        if set_by_machine("ship.timeoutMs") {
            ship.timeout_ms
        } else {
            match env("OTEL_EXPORTER_OTLP_TIMEOUT") {
                Some(v) => v.trim().parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                    ShipError::Config(format!("OTEL_EXPORTER_OTLP_TIMEOUT = {v:?}: expected a number of milliseconds > 0"))
                })?,
                None => ship.timeout_ms,
            }
        };
    let protocol = if set_by_machine("ship.protocol") {
        Protocol::parse(&ship.protocol, "ship.protocol")?
    } else {
        match env("OTEL_EXPORTER_OTLP_PROTOCOL") {
            Some(v) => Protocol::parse(&v, "OTEL_EXPORTER_OTLP_PROTOCOL")?,
            None => Protocol::parse(&ship.protocol, "ship.protocol")?,
        }
    };
    let mut urls = urls.into_iter();
    Ok(Some(Endpoint {
        traces: urls.next().unwrap_or_default(),
        logs: urls.next().unwrap_or_default(),
        metrics: urls.next().unwrap_or_default(),
        headers,
        timeout: Duration::from_millis(timeout_ms.max(1) as u64),
        protocol,
        retries: u32::try_from(ship.retries.max(0)).unwrap_or(u32::MAX),
    }))
}

/// `base` with the signal's path: OTLP's rule for `OTEL_EXPORTER_OTLP_ENDPOINT`. The path goes
/// at the end of the base's path, before any query (`…/otlp?key=x` → `…/otlp/v1/traces?key=x`).
fn join(base: &str, signal: Signal) -> String {
    let (path, query) = match base.find(['?', '#']) {
        Some(at) => base.split_at(at),
        None => (base, ""),
    };
    format!("{}{}{query}", path.trim_end_matches('/'), signal.path())
}

fn check_url(url: &str, source: &str) -> Result<(), ShipError> {
    let bad = |why: &str| Err(ShipError::Config(format!("{source}: {:?} {why}", display_url(url))));
    let rest = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://"));
    let Some(rest) = rest.filter(|r| !r.is_empty() && !r.starts_with('/')) else {
        return bad("is not an http:// or https:// URL");
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    // A port after the host (after `]` for an IPv6 literal) must be 1–65535.
    let after_host = host_port.rfind(']').map_or(host_port, |at| &host_port[at + 1..]);
    if let Some((_, port)) = after_host.rsplit_once(':') {
        let valid = !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
        if !valid || !(1..=65535).contains(&port.parse::<u32>().unwrap_or(0)) {
            return bad(&format!("has port {port:?}, not one in 1–65535"));
        }
    }
    Ok(())
}

/// A URL as it may be shown and stored: without user, password or query (where API keys hide).
pub(crate) fn display_url(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, url),
    };
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    match scheme {
        Some(s) => format!("{s}://{host}{path}"),
        None => format!("{host}{path}"),
    }
}

fn redact_header(h: &str) -> String {
    match h.split_once('=') {
        Some((k, _)) => format!("{k}=…"),
        None => "…".into(),
    }
}

/// A W3C-baggage-style list (`k1=v1,k2=v2`, values percent-encoded): the form of
/// `OTEL_EXPORTER_OTLP_HEADERS`.
pub(crate) fn parse_w3c_list(text: &str, source: &str) -> Result<Vec<(String, String)>, ShipError> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .filter(|(k, _)| !k.trim().is_empty())
            .ok_or_else(|| ShipError::Config(format!("{source}: {:?} is not \"name=value\"", redact_header(item))))?;
        out.push((k.trim().to_string(), percent_decode(v.trim())));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() && s.is_char_boundary(i + 3) {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(machine: &str) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(&p, machine).unwrap();
        Config::load_files(&p, None).unwrap()
    }

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn nothing_configured_is_no_endpoint() {
        assert!(resolve(&config(""), &env(&[])).unwrap().is_none());
    }

    #[test]
    fn the_base_variable_gets_the_signal_paths_and_a_signal_variable_is_used_as_is() {
        let e = resolve(
            &config(""),
            &env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318/"),
                ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "https://logs.example/ingest"),
                ("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=abc%3D%3D, team = a"),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(e.traces, "http://c:4318/v1/traces");
        assert_eq!(e.metrics, "http://c:4318/v1/metrics");
        assert_eq!(e.logs, "https://logs.example/ingest");
        assert_eq!(e.headers, vec![("x-api-key".into(), "abc==".into()), ("team".into(), "a".into())]);
        assert_eq!(e.timeout, Duration::from_millis(2500));
        assert_eq!(e.protocol, Protocol::Json);
    }

    #[test]
    fn the_machine_tier_wins_over_the_environment() {
        let c = config(
            "[ship]\nendpoint = \"http://machine:4318\"\nheaders = [\"authorization=Bearer t\"]\ntimeoutMs = 700\nprotocol = \"http/protobuf\"\n",
        );
        let e = resolve(
            &c,
            &env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://agent:4318"),
                ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://agent:4318/t"),
                ("OTEL_EXPORTER_OTLP_HEADERS", "x=y"),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "1"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(e.traces, "http://machine:4318/v1/traces");
        assert_eq!(e.headers, vec![("authorization".into(), "Bearer t".into())]);
        assert_eq!(e.timeout, Duration::from_millis(700));
        assert_eq!(e.protocol, Protocol::Protobuf);
    }

    #[test]
    fn bad_values_are_named() {
        let bad = |vars: &[(&str, &str)]| resolve(&config(""), &env(vars)).unwrap_err().to_string();
        assert!(bad(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "c:4318")]).contains("not an http"));
        assert!(
            bad(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]).contains("OTLP over HTTP only")
        );
        let e = bad(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "secretvalue"),
        ]);
        assert!(e.contains("OTEL_EXPORTER_OTLP_HEADERS") && !e.contains("secretvalue"), "{e}");
        assert!(bad(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_EXPORTER_OTLP_TIMEOUT", "soon")]).contains("TIMEOUT"));
    }

    #[test]
    fn paths_join_before_the_query_and_ports_are_checked() {
        assert_eq!(
            join("http://c:4318/otlp?key=x", Signal::Traces),
            "http://c:4318/otlp/v1/traces?key=x"
        );
        assert_eq!(join("http://c:4318/", Signal::Logs), "http://c:4318/v1/logs");
        assert!(check_url("http://c:4318/v1/traces", "k").is_ok());
        assert!(check_url("http://[::1]:4318", "k").is_ok());
        assert!(check_url("http://u:p@c/x", "k").is_ok());
        for bad in ["http://c:99999", "http://c:0", "http://c:", "http://c:43a8", "http://[::1]:70000"] {
            let e = check_url(bad, "k").unwrap_err().to_string();
            assert!(e.contains("1–65535"), "{bad}: {e}");
        }
    }

    #[test]
    fn shown_urls_lose_credentials_and_queries() {
        assert_eq!(display_url("https://u:p@h:1/v1/traces?key=s#x"), "https://h:1/v1/traces");
        assert_eq!(display_url("http://h"), "http://h");
    }
}
