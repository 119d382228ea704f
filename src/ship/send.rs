//! One OTLP/HTTP export request: POST, retries on 429/502/503/504 with backoff honouring
//! `Retry-After`, and the collector's answer read (a partial success included).

use super::endpoint::{Endpoint, Protocol};
use super::Signal;
use std::time::Duration;

/// The longest `Retry-After` a run waits for; a collector asking for more ends the run (the
/// cursor stays, the next scheduled run tries again).
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);
/// Backoff without `Retry-After`: 1 s, 2 s, 4 s, … up to this.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What the collector made of a request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// Acknowledged; `rejected` records of it were refused for good (a partial success).
    Accepted { rejected: i64, message: String },
    /// 413: the body is too large for the collector.
    TooLarge,
    /// Not acknowledged; the detail says why.
    Failed(String),
}

/// Sends export requests to one collector.
pub(crate) struct Sender {
    agent: ureq::Agent,
    endpoint: Endpoint,
    sleep: Box<dyn Fn(Duration)>,
}

impl Sender {
    pub(crate) fn new(endpoint: Endpoint) -> Sender {
        // The collector may be named by host name: resolved without NSS modules (see there).
        crate::sys::resolve_hosts_without_nss_modules();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(endpoint.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("tlc/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Sender {
            agent,
            endpoint,
            sleep: Box::new(std::thread::sleep),
        }
    }

    /// POSTs `body` for `signal`, retrying what OTLP says is retryable.
    pub(crate) fn export(&self, signal: Signal, body: &[u8]) -> Answer {
        let url = self.endpoint.url(signal);
        let mut attempt = 0u32;
        loop {
            let mut req = self.agent.post(url).header("Content-Type", self.endpoint.protocol.content_type());
            for (k, v) in &self.endpoint.headers {
                req = req.header(k.as_str(), v.as_str());
            }
            let mut resp = match req.send(body) {
                Ok(r) => r,
                Err(ureq::Error::Timeout(_)) => {
                    return Answer::Failed(format!(
                        "no answer within {} ms (the collector may still take it: it is sent again next run)",
                        self.endpoint.timeout.as_millis()
                    ))
                }
                Err(e) => return Answer::Failed(format!("cannot send: {e}")),
            };
            let status = resp.status().as_u16();
            let retry_after = resp
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(parse_retry_after);
            let body = resp.body_mut().with_config().limit(1 << 20).read_to_vec();
            if (200..=299).contains(&status) {
                return match body {
                    Ok(bytes) => accepted(signal, self.endpoint.protocol, &bytes),
                    // Longer than any export response: the status stands, the body is not read.
                    Err(ureq::Error::BodyExceedsLimit(_)) => accepted(signal, self.endpoint.protocol, &[]),
                    // Cut short (a closed connection, a body shorter than its length): the
                    // collector's answer is unknown, so nothing counts as acknowledged.
                    Err(e) => Answer::Failed(format!("HTTP {status}, but the answer was cut short ({e}); sent again next run")),
                };
            }
            let bytes = body.unwrap_or_default();
            match status {
                413 => return Answer::TooLarge,
                429 | 502 | 503 | 504 => {
                    if attempt >= self.endpoint.retries {
                        return Answer::Failed(format!("HTTP {status} after {} retries{}", attempt, snippet(&bytes)));
                    }
                    let wait = match retry_after {
                        Some(w) if w > MAX_RETRY_AFTER => {
                            return Answer::Failed(format!(
                                "HTTP {status}: the collector asks to retry after {} s, longer than a run waits ({} s)",
                                w.as_secs(),
                                MAX_RETRY_AFTER.as_secs()
                            ))
                        }
                        Some(w) => w,
                        None => (Duration::from_secs(1) * 2u32.saturating_pow(attempt)).min(MAX_BACKOFF),
                    };
                    (self.sleep)(wait);
                    attempt += 1;
                }
                _ => return Answer::Failed(format!("HTTP {status}{}", snippet(&bytes))),
            }
        }
    }
}

/// What a collector says in a `Retry-After`: seconds, or an HTTP date.
pub(crate) fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let wait = at.with_timezone(&chrono::Utc) - crate::clock::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    let cut: String = text.chars().take(300).collect();
    format!(": {cut}")
}

/// Reads the export response: an empty body, or one that does not decode, is a full success
/// (the status said so); a partial success names what was rejected.
fn accepted(signal: Signal, protocol: Protocol, body: &[u8]) -> Answer {
    use opentelemetry_proto::tonic::collector::{logs::v1 as l, metrics::v1 as m, trace::v1 as t};
    use prost::Message;
    let full = Answer::Accepted {
        rejected: 0,
        message: String::new(),
    };
    if body.is_empty() {
        return full;
    }
    let partial = match (signal, protocol) {
        (Signal::Traces, Protocol::Protobuf) => t::ExportTraceServiceResponse::decode(body)
            .ok()
            .and_then(|r| r.partial_success)
            .map(|p| (p.rejected_spans, p.error_message)),
        (Signal::Logs, Protocol::Protobuf) => l::ExportLogsServiceResponse::decode(body)
            .ok()
            .and_then(|r| r.partial_success)
            .map(|p| (p.rejected_log_records, p.error_message)),
        (Signal::Metrics, Protocol::Protobuf) => m::ExportMetricsServiceResponse::decode(body)
            .ok()
            .and_then(|r| r.partial_success)
            .map(|p| (p.rejected_data_points, p.error_message)),
        (_, Protocol::Json) => json_partial(body),
    };
    match partial {
        Some((rejected, message)) if rejected > 0 || !message.is_empty() => Answer::Accepted { rejected, message },
        _ => full,
    }
}

/// A JSON response's partial success. Read from the JSON itself: protobuf's JSON writes the
/// 64-bit count as a string, which the generated serde types do not take.
fn json_partial(body: &[u8]) -> Option<(i64, String)> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let p = v.get("partialSuccess").or_else(|| v.get("partial_success"))?;
    let rejected = ["rejectedSpans", "rejectedLogRecords", "rejectedDataPoints"]
        .iter()
        .find_map(|k| p.get(*k))
        .and_then(|n| n.as_i64().or_else(|| n.as_str().and_then(|t| t.parse().ok())))
        .unwrap_or(0);
    let message = p.get("errorMessage").and_then(|m| m.as_str()).unwrap_or("").to_string();
    Some((rejected, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_takes_seconds_or_a_date() {
        assert_eq!(parse_retry_after(" 3 "), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn a_partial_success_is_read_in_both_encodings() {
        use opentelemetry_proto::tonic::collector::trace::v1::{ExportTracePartialSuccess, ExportTraceServiceResponse};
        use prost::Message;
        let r = ExportTraceServiceResponse {
            partial_success: Some(ExportTracePartialSuccess {
                rejected_spans: 2,
                error_message: "too old".into(),
            }),
        };
        let want = Answer::Accepted {
            rejected: 2,
            message: "too old".into(),
        };
        assert_eq!(accepted(Signal::Traces, Protocol::Protobuf, &r.encode_to_vec()), want);
        assert_eq!(accepted(Signal::Traces, Protocol::Json, &serde_json::to_vec(&r).unwrap()), want);
        let as_protobuf_json = br#"{"partialSuccess": {"rejectedSpans": "2", "errorMessage": "too old"}}"#;
        assert_eq!(accepted(Signal::Traces, Protocol::Json, as_protobuf_json), want);
        assert_eq!(
            accepted(Signal::Traces, Protocol::Json, b"{}"),
            Answer::Accepted {
                rejected: 0,
                message: String::new()
            }
        );
    }
}
