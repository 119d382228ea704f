//! Shipping the record to OpenTelemetry (`tlc obs ship`): what the project database recorded
//! since a collector last acknowledged it, as OTLP over HTTP — sessions as traces with model
//! responses, tool calls and subagents as their spans, decisions, floor denials, gate runs,
//! ship-ledger rows, stop outcomes and signal events as log records, token counts as the
//! `gen_ai.client.token.usage` histogram — named by the OpenTelemetry GenAI semantic conventions.
//!
//! The hook never sends: nothing under `hook/` uses this module. Shipping runs from the command,
//! scheduled by the operator.
//!
//! Delivery is at least once: a stream's cursor (in the database itself, per collector URL)
//! moves only after the collector acknowledged a batch, so a failed, timed-out or killed send is
//! sent again by the next run. Span ids are derived from the record, and every log record carries
//! a `tlc.record.uid`, so a backend can drop the copies a resend makes.

pub(crate) mod endpoint;
pub(crate) mod identity;
pub(crate) mod otlp;
pub(crate) mod run;
pub(crate) mod send;
pub(crate) mod store;

pub(crate) use endpoint::Endpoint;
pub(crate) use store::ShipStore;

use crate::store::queries::project::ship as q;

/// The three OTLP signals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Signal {
    Traces,
    Logs,
    Metrics,
}

impl Signal {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Signal::Traces => "traces",
            Signal::Logs => "logs",
            Signal::Metrics => "metrics",
        }
    }

    /// The path OTLP/HTTP appends to a base endpoint for this signal.
    pub(crate) fn path(self) -> &'static str {
        match self {
            Signal::Traces => "/v1/traces",
            Signal::Logs => "/v1/logs",
            Signal::Metrics => "/v1/metrics",
        }
    }
}

/// How a stream's rows become OTLP records.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source {
    /// `spans_after.sql`: model responses, tool calls, subagents and session ends as spans.
    Spans,
    /// `token_usage_after.sql`: model responses as `gen_ai.client.token.usage` data points.
    TokenUsage,
    /// A log stream: the query returns the columns every log stream shares (see
    /// `queries/project/ship/events_after.sql`), one log record per row.
    Logs(&'static str),
}

/// One stream: a table read in id order, with its own cursor, becoming one OTLP signal.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stream {
    /// The cursor's name (`ship_cursor.stream`), shown by `--status`.
    pub name: &'static str,
    pub signal: Signal,
    /// The table whose ids the cursor counts (`table_max_ids.sql` names it too).
    pub table: &'static str,
    pub source: Source,
}

/// Every stream, in the order a run sends them. A new kind of record that is a log record is one
/// query under `queries/project/ship/` returning the shared log columns, one entry here, and its
/// table in `table_max_ids.sql` when no stream reads that table yet (`floor_denials` reads
/// `decisions`, which is there).
pub(crate) const STREAMS: &[Stream] = &[
    Stream {
        name: "spans",
        signal: Signal::Traces,
        table: "events",
        source: Source::Spans,
    },
    Stream {
        name: "token_usage",
        signal: Signal::Metrics,
        table: "events",
        source: Source::TokenUsage,
    },
    Stream {
        name: "events",
        signal: Signal::Logs,
        table: "events",
        source: Source::Logs(q::EVENTS_AFTER),
    },
    Stream {
        name: "decisions",
        signal: Signal::Logs,
        table: "decisions",
        source: Source::Logs(q::DECISIONS_AFTER),
    },
    Stream {
        name: "floor_denials",
        signal: Signal::Logs,
        table: "decisions",
        source: Source::Logs(q::FLOOR_DENIALS_AFTER),
    },
    Stream {
        name: "gate_runs",
        signal: Signal::Logs,
        table: "gate_runs",
        source: Source::Logs(q::GATE_RUNS_AFTER),
    },
    Stream {
        name: "ship_ledger",
        signal: Signal::Logs,
        table: "ship_ledger",
        source: Source::Logs(q::SHIP_LEDGER_AFTER),
    },
    Stream {
        name: "stop_outcomes",
        signal: Signal::Logs,
        table: "stop_outcomes",
        source: Source::Logs(q::STOP_OUTCOMES_AFTER),
    },
    Stream {
        name: "attestations",
        signal: Signal::Logs,
        table: "attestations",
        source: Source::Logs(q::ATTESTATIONS_AFTER),
    },
];

/// What can stop a ship; each names what it is about.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ShipError {
    /// The configuration (machine tier or `OTEL_EXPORTER_OTLP_*`) cannot be used.
    #[error("{0}")]
    Config(String),
    /// `ship.enabled` is off.
    #[error("shipping is off: set `enabled = true` under [ship] in {0} (the machine tier; a project config cannot turn it on)")]
    Off(String),
    /// Another `tlc obs ship` holds the lock of this database.
    #[error("{0}: another `tlc obs ship` is sending from this database; try again when it has finished")]
    Busy(String),
    #[error("{path}: {cause}")]
    Sqlite { path: String, cause: rusqlite::Error },
    /// A request the collector did not acknowledge; the cursor did not move.
    #[error("{url}: {detail}; nothing was lost: the cursor of `{stream}` stays at {cursor} and the next run sends from there")]
    Send {
        url: String,
        stream: &'static str,
        cursor: i64,
        detail: String,
    },
}
