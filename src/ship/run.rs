//! One `tlc obs ship` run: every stream from its cursor, in batches bounded in records and bytes,
//! each sent, split on 413, and acknowledged before its cursor moves.

use super::endpoint::{display_url, Endpoint, Protocol};
use super::otlp::{self, Shaping};
use super::send::{Answer, Sender};
use super::store::{Rows, ShipStore, UsageRow};
use super::{ShipError, Signal, Stream, STREAMS};
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::metrics::v1::{ResourceMetrics, ScopeMetrics};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use std::path::{Path, PathBuf};

/// Whether a run sends or only shows what it would send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    DryRun,
    Send,
}

/// What a run needs besides the database.
pub(crate) struct Settings {
    pub max_records: usize,
    pub max_bytes: usize,
    pub shaping: Shaping,
    pub resource: Resource,
    /// The encoding bodies are made in (and measured in) when no collector is configured.
    pub protocol: Protocol,
}

/// One request, as a dry run shows it.
#[derive(Debug, serde::Serialize)]
pub(crate) struct ShownRequest {
    pub stream: &'static str,
    pub signal: Signal,
    pub url: String,
    pub first_id: i64,
    pub last_id: i64,
    pub records: usize,
    pub bytes: usize,
    /// The request in OTLP's JSON encoding.
    pub body: serde_json::Value,
}

/// What one stream did in a run.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct StreamReport {
    pub stream: &'static str,
    pub signal: Signal,
    pub url: String,
    pub cursor_before: i64,
    pub cursor_after: i64,
    /// Rows read past the cursor.
    pub rows: usize,
    /// Spans, log records or model responses in the requests.
    pub records: usize,
    pub requests: usize,
    pub bytes: usize,
    /// Records the collector rejected for good (partial success).
    pub rejected: i64,
    /// Requests split in two after a 413.
    pub splits: usize,
}

/// What a run did.
#[derive(Debug, serde::Serialize)]
pub(crate) struct RunReport {
    pub dry_run: bool,
    pub protocol: &'static str,
    pub streams: Vec<StreamReport>,
    /// A partial success's messages, per collector URL.
    pub partial: Vec<String>,
    /// Why the run stopped early (a request the collector did not acknowledge); what was
    /// acknowledged before it stays acknowledged.
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<ShownRequest>,
}

/// A stream's rows made into records, each kept with the id of the row it came from.
enum Items {
    Spans(Vec<(i64, Option<Span>)>),
    Logs(Vec<(i64, LogRecord)>),
    Usage(Vec<UsageRow>),
}

enum Request {
    Traces(ExportTraceServiceRequest),
    Logs(ExportLogsServiceRequest),
    Metrics(ExportMetricsServiceRequest),
}

impl Request {
    fn encode(&self, protocol: Protocol) -> Vec<u8> {
        match protocol {
            Protocol::Protobuf => match self {
                Request::Traces(r) => r.encode_to_vec(),
                Request::Logs(r) => r.encode_to_vec(),
                Request::Metrics(r) => r.encode_to_vec(),
            },
            Protocol::Json => serde_json::to_vec(&self.json()).unwrap_or_default(),
        }
    }

    fn json(&self) -> serde_json::Value {
        let v = match self {
            Request::Traces(r) => serde_json::to_value(r),
            Request::Logs(r) => serde_json::to_value(r),
            Request::Metrics(r) => serde_json::to_value(r),
        };
        v.unwrap_or(serde_json::Value::Null)
    }
}

impl Items {
    fn build(rows: Rows, stream: &Stream, shaping: &Shaping) -> Items {
        match rows {
            Rows::Spans(r) => Items::Spans(r.iter().map(|row| (row.id, otlp::span(row, shaping))).collect()),
            Rows::Logs(r) => Items::Logs(r.iter().map(|row| (row.id, otlp::log_record(row, stream.name, shaping))).collect()),
            Rows::Usage(r) => Items::Usage(r),
        }
    }

    fn len(&self) -> usize {
        match self {
            Items::Spans(v) => v.len(),
            Items::Logs(v) => v.len(),
            Items::Usage(v) => v.len(),
        }
    }

    fn id(&self, i: usize) -> i64 {
        match self {
            Items::Spans(v) => v[i].0,
            Items::Logs(v) => v[i].0,
            Items::Usage(v) => v[i].id,
        }
    }

    fn records(&self, lo: usize, hi: usize) -> usize {
        match self {
            Items::Spans(v) => v[lo..hi].iter().filter(|(_, s)| s.is_some()).count(),
            Items::Logs(_) | Items::Usage(_) => hi - lo,
        }
    }

    /// The protobuf size of item `i` (a model response's data points are a few bytes).
    fn size(&self, i: usize) -> usize {
        match self {
            Items::Spans(v) => v[i].1.as_ref().map_or(0, |s| s.encoded_len() + 4),
            Items::Logs(v) => v[i].1.encoded_len() + 4,
            Items::Usage(_) => 16,
        }
    }

    fn request(&self, lo: usize, hi: usize, resource: &Resource) -> Request {
        let scope = Some(otlp::scope());
        match self {
            Items::Spans(v) => Request::Traces(ExportTraceServiceRequest {
                resource_spans: vec![ResourceSpans {
                    resource: Some(resource.clone()),
                    scope_spans: vec![ScopeSpans {
                        scope,
                        spans: v[lo..hi].iter().filter_map(|(_, s)| s.clone()).collect(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
            }),
            Items::Logs(v) => Request::Logs(ExportLogsServiceRequest {
                resource_logs: vec![ResourceLogs {
                    resource: Some(resource.clone()),
                    scope_logs: vec![ScopeLogs {
                        scope,
                        log_records: v[lo..hi].iter().map(|(_, r)| r.clone()).collect(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
            }),
            Items::Usage(v) => Request::Metrics(ExportMetricsServiceRequest {
                resource_metrics: vec![ResourceMetrics {
                    resource: Some(resource.clone()),
                    scope_metrics: vec![ScopeMetrics {
                        scope,
                        metrics: otlp::token_usage(&v[lo..hi]).into_iter().collect(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
            }),
        }
    }
}

/// Ships every stream of the database behind `store` to `endpoint` (or, in a dry run, shows what
/// would be sent). `now` stamps the cursor and state rows. A request the collector does not
/// acknowledge stops the run after recording it (`RunReport::error`); what was acknowledged
/// before stays acknowledged.
pub(crate) fn ship(
    store: &ShipStore,
    path: &Path,
    endpoint: Option<&Endpoint>,
    settings: &Settings,
    mode: Mode,
    now: &dyn Fn() -> String,
) -> Result<RunReport, ShipError> {
    let protocol = endpoint.map_or(settings.protocol, |e| e.protocol);
    let sender = match (mode, endpoint) {
        (Mode::Send, Some(e)) => Some(Sender::new(e.clone())),
        (Mode::Send, None) => return Err(ShipError::Config(no_endpoint())),
        _ => None,
    };
    let sq = |cause| ShipError::Sqlite {
        path: path.display().to_string(),
        cause,
    };
    let mut report = RunReport {
        dry_run: mode == Mode::DryRun,
        protocol: protocol.name(),
        streams: Vec::new(),
        partial: Vec::new(),
        error: None,
        requests: Vec::new(),
    };
    for stream in STREAMS {
        let url = endpoint.map_or_else(String::new, |e| display_url(e.url(stream.signal)));
        let before = if url.is_empty() {
            0
        } else {
            store.cursor(&url, stream.name).map_err(sq)?
        };
        let mut sr = StreamReport {
            stream: stream.name,
            signal: stream.signal,
            url: url.clone(),
            cursor_before: before,
            cursor_after: before,
            rows: 0,
            records: 0,
            requests: 0,
            bytes: 0,
            rejected: 0,
            splits: 0,
        };
        let result = ship_stream(store, stream, &url, sender.as_ref(), settings, protocol, now, &mut sr, &mut report);
        let cursor = sr.cursor_after;
        report.streams.push(sr);
        match result {
            Ok(()) => {}
            Err(StreamError::Sqlite(cause)) => return Err(sq(cause)),
            Err(StreamError::Send(detail)) => {
                report.error = Some(
                    ShipError::Send {
                        url,
                        stream: stream.name,
                        cursor,
                        detail,
                    }
                    .to_string(),
                );
                break;
            }
        }
    }
    Ok(report)
}

enum StreamError {
    Sqlite(rusqlite::Error),
    Send(String),
}

impl From<rusqlite::Error> for StreamError {
    fn from(e: rusqlite::Error) -> Self {
        StreamError::Sqlite(e)
    }
}

#[allow(clippy::too_many_arguments)]
fn ship_stream(
    store: &ShipStore,
    stream: &Stream,
    url: &str,
    sender: Option<&Sender>,
    settings: &Settings,
    protocol: Protocol,
    now: &dyn Fn() -> String,
    sr: &mut StreamReport,
    report: &mut RunReport,
) -> Result<(), StreamError> {
    let limit = i64::try_from(settings.max_records.max(1)).unwrap_or(i64::MAX);
    loop {
        let rows = store.read(stream, sr.cursor_after, limit)?;
        if rows.ids().is_empty() {
            return Ok(());
        }
        let items = Items::build(rows, stream, &settings.shaping);
        sr.rows += items.len();
        // A prefix that fits the byte bound by its protobuf sizes (JSON is about twice as big).
        let scale = if protocol == Protocol::Json { 2 } else { 1 };
        let mut n = 0;
        let mut bytes = 0;
        while n < items.len() {
            let add = items.size(n) * scale;
            if n > 0 && bytes + add > settings.max_bytes {
                break;
            }
            bytes += add;
            n += 1;
        }
        send_range(store, stream, url, sender, settings, protocol, now, &items, 0, n, sr, report)?;
        // Rows after the prefix are read again from the moved cursor.
    }
}

#[allow(clippy::too_many_arguments)]
fn send_range(
    store: &ShipStore,
    stream: &Stream,
    url: &str,
    sender: Option<&Sender>,
    settings: &Settings,
    protocol: Protocol,
    now: &dyn Fn() -> String,
    items: &Items,
    lo: usize,
    hi: usize,
    sr: &mut StreamReport,
    report: &mut RunReport,
) -> Result<(), StreamError> {
    let last_id = items.id(hi - 1);
    let records = items.records(lo, hi);
    if records == 0 {
        // Rows that make no record (a tool end outside a session): passed over, acknowledged by nobody.
        if sender.is_some() {
            store.acknowledged(url, stream.name, last_id, 0, &now())?;
        }
        sr.cursor_after = last_id;
        return Ok(());
    }
    let request = items.request(lo, hi, &settings.resource);
    let body = request.encode(protocol);
    // Over our own bound (the estimate was short): halve before the collector has to say so.
    if body.len() > settings.max_bytes && hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        send_range(store, stream, url, sender, settings, protocol, now, items, lo, mid, sr, report)?;
        return send_range(store, stream, url, sender, settings, protocol, now, items, mid, hi, sr, report);
    }
    let Some(sender) = sender else {
        report.requests.push(ShownRequest {
            stream: stream.name,
            signal: stream.signal,
            url: url.to_string(),
            first_id: items.id(lo),
            last_id,
            records,
            bytes: body.len(),
            body: request.json(),
        });
        sr.requests += 1;
        sr.records += records;
        sr.bytes += body.len();
        sr.cursor_after = last_id;
        return Ok(());
    };
    match sender.export(stream.signal, &body) {
        Answer::Accepted { rejected, message } => {
            // A collector's count is its word, not a fact: never more than was sent, never negative.
            let rejected = rejected.clamp(0, records as i64);
            let stamp = now();
            store.acknowledged(url, stream.name, last_id, records as i64, &stamp)?;
            if rejected > 0 || !message.is_empty() {
                let text = format!("{rejected} of {records} records rejected: {message}");
                store.partial(url, stream.name, &stamp, rejected, &text)?;
                report.partial.push(format!("{url} ({}): {text}", stream.name));
            }
            sr.requests += 1;
            sr.records += records;
            sr.bytes += body.len();
            sr.rejected += rejected;
            sr.cursor_after = last_id;
            Ok(())
        }
        Answer::TooLarge if hi - lo > 1 => {
            sr.splits += 1;
            let mid = lo + (hi - lo) / 2;
            send_range(
                store,
                stream,
                url,
                Some(sender),
                settings,
                protocol,
                now,
                items,
                lo,
                mid,
                sr,
                report,
            )?;
            send_range(
                store,
                stream,
                url,
                Some(sender),
                settings,
                protocol,
                now,
                items,
                mid,
                hi,
                sr,
                report,
            )
        }
        Answer::TooLarge => {
            let detail = format!(
                "HTTP 413 for a request of one record ({} bytes, {} row {}): raise the collector's request size limit",
                body.len(),
                stream.table,
                items.id(lo)
            );
            store.failed(url, stream.name, &now(), &detail)?;
            Err(StreamError::Send(detail))
        }
        Answer::Failed(detail) => {
            store.failed(url, stream.name, &now(), &detail)?;
            Err(StreamError::Send(detail))
        }
    }
}

pub(crate) fn no_endpoint() -> String {
    "no collector configured: set `endpoint` under [ship] in $TLC_HOME/config.toml, or OTEL_EXPORTER_OTLP_ENDPOINT".into()
}

/// Held while a run sends from one database: two runs at once would send the same batches.
pub(crate) struct ShipLock {
    _file: std::fs::File,
}

impl ShipLock {
    /// Takes the lock beside the database (`ship.lock` in its folder) without waiting.
    pub(crate) fn acquire(db: &Path) -> Result<ShipLock, ShipError> {
        let path: PathBuf = db.with_file_name("ship.lock");
        // A symlink planted at the name (dangling or not) is refused, never created through.
        let file = crate::fswrite::open_regular_for_write(&path, 0o600, false)
            .map_err(|e| ShipError::Config(format!("{}: cannot open: {e}", path.display())))?;
        match file.try_lock() {
            Ok(()) => Ok(ShipLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(ShipError::Busy(db.display().to_string())),
            Err(std::fs::TryLockError::Error(e)) => Err(ShipError::Config(format!("{}: cannot lock: {e}", path.display()))),
        }
    }
}
