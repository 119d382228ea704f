//! Rows to OTLP messages (pure): spans, log records, the token-usage histogram, and the resource
//! every request carries. Names follow the OpenTelemetry GenAI semantic conventions; what tlc adds
//! is under `tlc.`.

use super::store::{LogRow, SpanRow, UsageRow};
use crate::obs::redact::Redactor;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, SeverityNumber};
use opentelemetry_proto::tonic::metrics::v1::{metric, AggregationTemporality, Histogram, HistogramDataPoint, Metric};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{span, status, Span, Status};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The bucket boundaries the conventions give `gen_ai.client.token.usage`.
pub(crate) const TOKEN_USAGE_BOUNDS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0, 16777216.0, 67108864.0,
];

/// What a run sends along with every record, and what it may send.
#[derive(Debug, Clone)]
pub(crate) struct Shaping {
    pub include_payloads: bool,
    /// This database's random id: the first part of every log record's `tlc.record.uid`.
    pub instance: String,
}

pub(crate) fn kv(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(AnyValue { value: Some(value) }),
        ..Default::default()
    }
}

fn s(v: &str) -> any_value::Value {
    any_value::Value::StringValue(v.to_string())
}

fn i(v: i64) -> any_value::Value {
    any_value::Value::IntValue(v)
}

fn d(v: f64) -> any_value::Value {
    any_value::Value::DoubleValue(v)
}

/// A JSON value as an attribute value: strings redacted, objects and arrays as JSON text.
fn json_attr(v: &Value, redactor: &Redactor) -> Option<any_value::Value> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => any_value::Value::BoolValue(*b),
        Value::Number(n) => match n.as_i64() {
            Some(x) => i(x),
            None => d(n.as_f64()?),
        },
        Value::String(t) => s(&redacted(t, redactor)),
        other => {
            let mut copy = other.clone();
            redactor.redact_value(&mut copy);
            s(&copy.to_string())
        }
    })
}

fn redacted(text: &str, redactor: &Redactor) -> String {
    redactor.redact_str(text).unwrap_or_else(|| text.to_string())
}

/// Nanoseconds since the epoch of a stored time (0 when it does not parse).
pub(crate) fn nanos(stamp: &str) -> u64 {
    crate::clock::parse(stamp)
        .ok()
        .and_then(|t| t.timestamp_nanos_opt())
        .map_or(0, |n| u64::try_from(n).unwrap_or(0))
}

fn digest(parts: &[&str]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    h.finalize().into()
}

/// A session's trace id: the same for every record of the session, on every machine.
pub(crate) fn trace_id(session: &str) -> Vec<u8> {
    digest(&["tlc.trace", session])[..16].to_vec()
}

/// A span id derived from what the span is, so a resend carries the same id.
pub(crate) fn span_id(parts: &[&str]) -> Vec<u8> {
    digest(&[&["tlc.span"], parts].concat())[..8].to_vec()
}

/// The session's own span (its root).
pub(crate) fn session_span_id(session: &str) -> Vec<u8> {
    span_id(&["session", session])
}

/// `gen_ai.provider.name` for a model answered through `agent` (the tool the hooks came from).
/// The conventions' well-known values where the model says which; else the agent's name.
pub(crate) fn provider_name(agent: &str, model: Option<&str>) -> String {
    let m = model.unwrap_or("").to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m);
    let known = if m.starts_with("claude") || m.contains("anthropic") {
        "anthropic"
    } else if m.starts_with("gpt") || m.starts_with("o1") || m.starts_with("o3") || m.starts_with("o4") || m.starts_with("codex") {
        "openai"
    } else if m.starts_with("gemini") {
        "gcp.gemini"
    } else if m.starts_with("grok") {
        "x_ai"
    } else if m.starts_with("deepseek") {
        "deepseek"
    } else if m.starts_with("mistral") || m.starts_with("codestral") {
        "mistral_ai"
    } else if agent == "claude" {
        "anthropic"
    } else {
        return agent.to_string();
    };
    known.to_string()
}

/// One row of the `spans` stream as a span; `None` for a row that makes no span.
pub(crate) fn span(row: &SpanRow, shaping: &Shaping) -> Option<Span> {
    let session = row.session_id.as_deref()?;
    let redactor = Redactor::new(session);
    let end = nanos(&row.ts);
    let mut attrs = vec![
        kv("gen_ai.conversation.id", s(session)),
        kv("tlc.agent", s(&row.provider)),
        kv("tlc.event.kind", s(&row.kind)),
    ];
    let trace = trace_id(session);
    let root = session_span_id(session);
    let (name, kind, start, id, parent, status) = match row.kind.as_str() {
        "generation.end" => {
            let model = row.model.as_deref().unwrap_or("unknown");
            let input = row.input_tokens.unwrap_or(0);
            let cache_read = row.cache_read_tokens.unwrap_or(0);
            let cache_write = row.cache_write_tokens.unwrap_or(0);
            attrs.extend([
                kv("gen_ai.operation.name", s("chat")),
                kv("gen_ai.provider.name", s(&provider_name(&row.provider, row.model.as_deref()))),
                kv("gen_ai.request.model", s(model)),
                kv("gen_ai.response.model", s(model)),
                // The conventions count cached tokens in the input; the provider reports them apart.
                kv("gen_ai.usage.input_tokens", i(input + cache_read + cache_write)),
                kv("gen_ai.usage.output_tokens", i(row.output_tokens.unwrap_or(0))),
                kv("gen_ai.usage.cache_read.input_tokens", i(cache_read)),
                kv("gen_ai.usage.cache_creation.input_tokens", i(cache_write)),
            ]);
            if let Some(c) = row.cost_usd {
                attrs.push(kv("tlc.cost_usd", d(c)));
            }
            if let Some(src) = &row.cost_source {
                attrs.push(kv("tlc.cost_source", s(src)));
            }
            let key = row.dedup_key.as_deref().map(|k| k.strip_prefix("gen:").unwrap_or(k).to_string());
            let id = match &key {
                Some(k) => span_id(&["generation", k]),
                None => span_id(&["generation", session, &row.ts, model]),
            };
            (format!("chat {model}"), span::SpanKind::Client, end, id, root.clone(), None)
        }
        "session.end" => {
            attrs.push(kv("gen_ai.operation.name", s("invoke_agent")));
            attrs.push(kv("gen_ai.agent.name", s(&row.provider)));
            let start = row.started_at.as_deref().map_or(end, nanos).min(end);
            (
                format!("invoke_agent {}", row.provider),
                span::SpanKind::Internal,
                start,
                root.clone(),
                Vec::new(),
                None,
            )
        }
        "subagent.end" => {
            let agent = row.span_id.as_deref()?;
            let agent_type = serde_json::from_str::<Value>(&row.attrs).ok().and_then(|a| {
                a.get("agent_type")
                    .or_else(|| a.get("subagent_type"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
            attrs.push(kv("gen_ai.operation.name", s("invoke_agent")));
            attrs.push(kv("gen_ai.agent.id", s(agent)));
            if let Some(t) = &agent_type {
                attrs.push(kv("gen_ai.agent.name", s(&redacted(t, &redactor))));
            }
            let start = row.started_at.as_deref().map_or(end, nanos).min(end);
            let name = format!("invoke_agent {}", agent_type.as_deref().unwrap_or("subagent"));
            (
                name,
                span::SpanKind::Internal,
                start,
                span_id(&["agent", session, agent]),
                root.clone(),
                None,
            )
        }
        _ => {
            // A finished tool call (phase end or fail).
            let tool = row.tool.as_deref().unwrap_or("unknown");
            attrs.push(kv("gen_ai.operation.name", s("execute_tool")));
            attrs.push(kv("gen_ai.tool.name", s(tool)));
            if let Some(call) = &row.span_id {
                attrs.push(kv("gen_ai.tool.call.id", s(call)));
            }
            if let Some(ms) = row.duration_ms {
                attrs.push(kv("tlc.duration_ms", i(ms)));
            }
            let start = row
                .duration_ms
                .map_or(end, |ms| end.saturating_sub(u64::try_from(ms.max(0)).unwrap_or(0) * 1_000_000));
            let id = match &row.span_id {
                Some(call) => span_id(&["tool", session, call]),
                None => span_id(&["tool", session, &row.ts, tool, &row.id.to_string()]),
            };
            let parent = match &row.parent_span_id {
                Some(agent) => span_id(&["agent", session, agent]),
                None => root.clone(),
            };
            let failed = row.phase.as_deref() == Some("fail");
            let status = failed.then(|| {
                attrs.push(kv("error.type", s("tool_error")));
                Status {
                    code: status::StatusCode::Error as i32,
                    message: String::new(),
                }
            });
            if shaping.include_payloads {
                if let Ok(Value::Object(a)) = serde_json::from_str::<Value>(&row.attrs) {
                    for (k, v) in &a {
                        if let Some(v) = json_attr(v, &redactor) {
                            attrs.push(kv(&format!("tlc.attr.{k}"), v));
                        }
                    }
                }
            }
            (format!("execute_tool {tool}"), span::SpanKind::Internal, start, id, parent, status)
        }
    };
    Some(Span {
        trace_id: trace,
        span_id: id,
        parent_span_id: parent,
        name,
        kind: kind as i32,
        start_time_unix_nano: start,
        end_time_unix_nano: end,
        attributes: attrs,
        status,
        ..Default::default()
    })
}

fn severity(word: &str) -> SeverityNumber {
    match word {
        "ERROR" => SeverityNumber::Error,
        "WARN" => SeverityNumber::Warn,
        _ => SeverityNumber::Info,
    }
}

/// One row of a log stream as a log record.
pub(crate) fn log_record(row: &LogRow, stream: &str, shaping: &Shaping) -> LogRecord {
    let session = row.session_id.as_deref().unwrap_or("");
    let redactor = Redactor::new(session);
    let mut attrs = vec![
        kv("tlc.record.kind", s(&row.kind)),
        kv("tlc.record.uid", s(&format!("{}:{stream}:{}", shaping.instance, row.id))),
    ];
    if let Some(p) = &row.provider {
        attrs.push(kv("tlc.agent", s(p)));
    }
    if !session.is_empty() {
        attrs.push(kv("gen_ai.conversation.id", s(session)));
    }
    if let Some(r) = &row.rule {
        attrs.push(kv("tlc.rule", s(r)));
    }
    if let Some(v) = &row.verdict {
        attrs.push(kv("tlc.verdict", s(v)));
    }
    let mut push = |map: &Map<String, Value>| {
        for (k, v) in map {
            if let Some(v) = json_attr(v, &redactor) {
                attrs.push(kv(k, v));
            }
        }
    };
    push(&row.attrs);
    if shaping.include_payloads {
        push(&row.payload);
    }
    let body = match (&row.rule, &row.verdict) {
        (Some(r), Some(v)) => format!("{}: {v} ({r})", row.kind),
        (None, Some(v)) => format!("{}: {v}", row.kind),
        _ => row.kind.clone(),
    };
    let sev = severity(&row.severity);
    let time = nanos(&row.ts);
    let (trace, span) = if session.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        let span = match &row.span_id {
            Some(call) => span_id(&["tool", session, call]),
            None => session_span_id(session),
        };
        (trace_id(session), span)
    };
    LogRecord {
        time_unix_nano: time,
        observed_time_unix_nano: time,
        severity_number: sev as i32,
        severity_text: row.severity.clone(),
        body: Some(AnyValue {
            value: Some(s(&redacted(&body, &redactor))),
        }),
        attributes: attrs,
        trace_id: trace,
        span_id: span,
        event_name: format!("tlc.{}", row.kind),
        ..Default::default()
    }
}

/// The `gen_ai.client.token.usage` histogram over `rows`: one delta data point per provider,
/// model and token type, covering the rows' times.
pub(crate) fn token_usage(rows: &[UsageRow]) -> Option<Metric> {
    #[derive(Default)]
    struct Acc {
        count: u64,
        sum: f64,
        min: f64,
        max: f64,
        buckets: Vec<u64>,
        first: u64,
        last: u64,
    }
    let mut groups: BTreeMap<(String, String, &'static str), Acc> = BTreeMap::new();
    for r in rows {
        let model = r.model.clone().unwrap_or_else(|| "unknown".into());
        let provider = provider_name(&r.provider, r.model.as_deref());
        let t = nanos(&r.ts);
        let input = r
            .input_tokens
            .saturating_add(r.cache_read_tokens)
            .saturating_add(r.cache_write_tokens);
        for (kind, value) in [("input", input), ("output", r.output_tokens)] {
            let v = value.max(0) as f64;
            let acc = groups.entry((provider.clone(), model.clone(), kind)).or_insert_with(|| Acc {
                min: f64::INFINITY,
                max: f64::NEG_INFINITY,
                buckets: vec![0; TOKEN_USAGE_BOUNDS.len() + 1],
                first: u64::MAX,
                ..Default::default()
            });
            acc.count += 1;
            acc.sum += v;
            acc.min = acc.min.min(v);
            acc.max = acc.max.max(v);
            // Bucket i holds (bounds[i-1], bounds[i]]; the last one everything above.
            let b = TOKEN_USAGE_BOUNDS
                .iter()
                .position(|bound| v <= *bound)
                .unwrap_or(TOKEN_USAGE_BOUNDS.len());
            acc.buckets[b] += 1;
            acc.first = acc.first.min(t);
            acc.last = acc.last.max(t);
        }
    }
    if groups.is_empty() {
        return None;
    }
    let points = groups
        .into_iter()
        .map(|((provider, model, kind), acc)| HistogramDataPoint {
            attributes: vec![
                kv("gen_ai.operation.name", s("chat")),
                kv("gen_ai.provider.name", s(&provider)),
                kv("gen_ai.token.type", s(kind)),
                kv("gen_ai.request.model", s(&model)),
                kv("gen_ai.response.model", s(&model)),
            ],
            start_time_unix_nano: acc.first,
            // A delta point covers (start, time]: the last response is inside it.
            time_unix_nano: acc.last.max(acc.first + 1),
            count: acc.count,
            sum: Some(acc.sum),
            bucket_counts: acc.buckets,
            explicit_bounds: TOKEN_USAGE_BOUNDS.to_vec(),
            min: Some(acc.min),
            max: Some(acc.max),
            ..Default::default()
        })
        .collect();
    Some(Metric {
        name: "gen_ai.client.token.usage".into(),
        description: "Number of input and output tokens used.".into(),
        unit: "{token}".into(),
        data: Some(metric::Data::Histogram(Histogram {
            data_points: points,
            aggregation_temporality: AggregationTemporality::Delta as i32,
        })),
        ..Default::default()
    })
}

/// Who and what the records come from.
#[derive(Debug, Clone, Default)]
pub(crate) struct Origin {
    pub host: String,
    pub user: String,
    /// `tlc.project`: the repository's name as `tlc obs cost --by project` shows it.
    pub project: String,
    pub repository_name: Option<String>,
    pub repository_owner: Option<String>,
    /// The `origin` remote, without credentials; `None` when it is a local path (unless asked).
    pub repository_url: Option<String>,
    /// Only with `ship.includeLocalPaths`.
    pub local_path: Option<String>,
    /// `ship.resourceAttributes`, as `(name, value)`.
    pub extra: Vec<(String, String)>,
}

/// The resource every request carries.
pub(crate) fn resource(origin: &Origin) -> Resource {
    let mut attrs = vec![
        kv("service.name", s("tlc")),
        kv("service.version", s(env!("CARGO_PKG_VERSION"))),
        kv("host.name", s(&origin.host)),
        kv("user.name", s(&origin.user)),
        kv("tlc.project", s(&origin.project)),
    ];
    if let Some(n) = &origin.repository_name {
        attrs.push(kv("vcs.repository.name", s(n)));
    }
    if let Some(o) = &origin.repository_owner {
        attrs.push(kv("vcs.owner.name", s(o)));
    }
    if let Some(u) = &origin.repository_url {
        attrs.push(kv("vcs.repository.url.full", s(u)));
    }
    if let Some(p) = &origin.local_path {
        attrs.push(kv("tlc.repository.path", s(p)));
    }
    for (k, v) in &origin.extra {
        // Never let an extra attribute replace one tlc sets: the records must say who they are.
        if !attrs.iter().any(|a| &a.key == k) {
            attrs.push(kv(k, s(v)));
        }
    }
    Resource {
        attributes: attrs,
        ..Default::default()
    }
}

pub(crate) fn scope() -> InstrumentationScope {
    InstrumentationScope {
        name: "tlc".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        ..Default::default()
    }
}

/// A remote URL as it may leave the machine: user and password dropped; `None` for a local path.
pub(crate) fn remote_for_shipping(url: &str) -> Option<String> {
    let url = url.trim();
    if url.is_empty() || url.starts_with('/') || url.starts_with("file:") || url.starts_with('.') || url.starts_with('~') {
        return None;
    }
    if let Some((scheme, rest)) = url.split_once("://") {
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let path = path.split(['?', '#']).next().unwrap_or(path);
        return Some(format!("{scheme}://{host}{path}"));
    }
    // scp-like `git@host:owner/repo.git`: the user is a login name, not a secret.
    url.contains(':').then(|| url.to_string())
}

/// The repository name a remote URL ends with (`.git` dropped).
pub(crate) fn repository_name_of(url: &str) -> Option<String> {
    let path = url.trim().trim_end_matches('/');
    let last = path.rsplit(['/', ':']).next()?;
    let name = last.strip_suffix(".git").unwrap_or(last);
    (!name.is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shaping() -> Shaping {
        Shaping {
            include_payloads: false,
            instance: "db1".into(),
        }
    }

    fn attr<'a>(attrs: &'a [KeyValue], key: &str) -> Option<&'a any_value::Value> {
        attrs
            .iter()
            .find(|a| a.key == key)
            .and_then(|a| a.value.as_ref())
            .and_then(|v| v.value.as_ref())
    }

    #[test]
    fn a_response_is_a_chat_span_counting_cached_tokens_in_the_input() {
        let row = SpanRow {
            id: 7,
            ts: "2026-11-29T10:00:00.000Z".into(),
            provider: "claude".into(),
            kind: "generation.end".into(),
            session_id: Some("s1".into()),
            model: Some("claude-sonnet-4-5".into()),
            input_tokens: Some(10),
            output_tokens: Some(20),
            cache_read_tokens: Some(300),
            cache_write_tokens: Some(4000),
            cost_usd: Some(0.5),
            cost_source: Some("litellm:claude-sonnet-4-5".into()),
            dedup_key: Some("gen:msg_1:req_1".into()),
            ..Default::default()
        };
        let sp = span(&row, &shaping()).unwrap();
        assert_eq!(sp.name, "chat claude-sonnet-4-5");
        assert_eq!(attr(&sp.attributes, "gen_ai.usage.input_tokens"), Some(&i(4310)));
        assert_eq!(attr(&sp.attributes, "gen_ai.usage.cache_read.input_tokens"), Some(&i(300)));
        assert_eq!(attr(&sp.attributes, "gen_ai.usage.cache_creation.input_tokens"), Some(&i(4000)));
        assert_eq!(attr(&sp.attributes, "gen_ai.provider.name"), Some(&s("anthropic")));
        assert_eq!(attr(&sp.attributes, "tlc.cost_usd"), Some(&d(0.5)));
        assert_eq!(sp.trace_id, trace_id("s1"));
        assert_eq!(sp.parent_span_id, session_span_id("s1"));
        // The same response read through the transcript import has the same id.
        assert_eq!(sp.span_id, span_id(&["generation", "msg_1:req_1"]));
    }

    #[test]
    fn a_tool_call_spans_its_duration_and_a_failure_is_an_error() {
        let row = SpanRow {
            id: 3,
            ts: "2026-11-29T10:00:01.000Z".into(),
            provider: "claude".into(),
            kind: "tool.fail".into(),
            phase: Some("fail".into()),
            session_id: Some("s1".into()),
            span_id: Some("toolu_1".into()),
            tool: Some("Bash".into()),
            duration_ms: Some(250),
            attrs: r#"{"command":"cat secret"}"#.into(),
            ..Default::default()
        };
        let sp = span(&row, &shaping()).unwrap();
        assert_eq!(sp.name, "execute_tool Bash");
        assert_eq!(sp.end_time_unix_nano - sp.start_time_unix_nano, 250_000_000);
        assert_eq!(sp.status.as_ref().unwrap().code, status::StatusCode::Error as i32);
        assert!(
            attr(&sp.attributes, "tlc.attr.command").is_none(),
            "payload texts stay home by default"
        );
        let with = span(
            &row,
            &Shaping {
                include_payloads: true,
                ..shaping()
            },
        )
        .unwrap();
        assert_eq!(attr(&with.attributes, "tlc.attr.command"), Some(&s("cat secret")));
    }

    #[test]
    fn log_records_redact_and_keep_payloads_out_unless_asked() {
        let secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
        let mut attrs = Map::new();
        attrs.insert("tlc.decision.subject".into(), "shell".into());
        attrs.insert("leak".into(), format!("token {secret}").into());
        let mut payload = Map::new();
        payload.insert("tlc.decision.detail".into(), "rm -rf /".into());
        let row = LogRow {
            id: 5,
            ts: "2026-11-29T10:00:00.000Z".into(),
            session_id: Some("s1".into()),
            kind: "decision".into(),
            rule: Some("policy-integrity".into()),
            verdict: Some("deny".into()),
            severity: "WARN".into(),
            attrs,
            payload,
            ..Default::default()
        };
        let rec = log_record(&row, "decisions", &shaping());
        assert_eq!(attr(&rec.attributes, "tlc.rule"), Some(&s("policy-integrity")));
        assert_eq!(attr(&rec.attributes, "tlc.record.uid"), Some(&s("db1:decisions:5")));
        assert!(attr(&rec.attributes, "tlc.decision.detail").is_none());
        let leak = format!("{:?}", attr(&rec.attributes, "leak"));
        assert!(!leak.contains(secret) && leak.contains("REDACTED"), "{leak}");
        assert_eq!(rec.severity_number, SeverityNumber::Warn as i32);
    }

    #[test]
    fn the_histogram_uses_the_conventions_buckets() {
        let rows = [
            UsageRow {
                id: 1,
                ts: "2026-11-29T10:00:00.000Z".into(),
                provider: "claude".into(),
                model: Some("m".into()),
                input_tokens: 1,
                output_tokens: 5,
                ..Default::default()
            },
            UsageRow {
                id: 2,
                ts: "2026-11-29T10:00:02.000Z".into(),
                provider: "claude".into(),
                model: Some("m".into()),
                input_tokens: 100_000_000,
                output_tokens: 4,
                ..Default::default()
            },
        ];
        let m = token_usage(&rows).unwrap();
        let Some(metric::Data::Histogram(h)) = m.data else {
            panic!("a histogram")
        };
        let output = h
            .data_points
            .iter()
            .find(|p| attr(&p.attributes, "gen_ai.token.type") == Some(&s("output")))
            .unwrap();
        assert_eq!(output.count, 2);
        assert_eq!(output.sum, Some(9.0));
        assert_eq!(output.bucket_counts[1], 1, "4 is in (1, 4]");
        assert_eq!(output.bucket_counts[2], 1, "5 is in (4, 16]");
        let input = h
            .data_points
            .iter()
            .find(|p| attr(&p.attributes, "gen_ai.token.type") == Some(&s("input")))
            .unwrap();
        assert_eq!(input.bucket_counts[0], 1, "1 is in (-inf, 1]");
        assert_eq!(input.bucket_counts[14], 1, "above the last bound");
        assert_eq!(input.explicit_bounds.len(), 14);
    }

    #[test]
    fn remotes_lose_credentials_and_local_paths_stay_home() {
        assert_eq!(
            remote_for_shipping("https://bob:tok@github.com/acme/w.git?x=1").as_deref(),
            Some("https://github.com/acme/w.git")
        );
        assert_eq!(
            remote_for_shipping("git@github.com:acme/w.git").as_deref(),
            Some("git@github.com:acme/w.git")
        );
        assert_eq!(remote_for_shipping("/srv/git/w.git"), None);
        assert_eq!(remote_for_shipping("file:///srv/git/w.git"), None);
        assert_eq!(repository_name_of("git@github.com:acme/w.git").as_deref(), Some("w"));
    }
}
