//! `tlc obs import jsonl`: the JSONL state of the TypeScript harness the seeds describe, into
//! the databases, idempotently (each line's hash is its dedup key).
//!
//! Four shapes are recognised per line:
//! - observability records (`"schema": "harness.observability.v1"`) → project events. Tokens and
//!   cost on a `generation.end` record are that generation's own and fill the token columns; a
//!   `gen_ai` reading on any other kind is a sliding-window snapshot, kept in `attrs.gen_ai` and
//!   never summed;
//! - audit records (`{ts, event, payload}`) → project events on the audit plane;
//! - ship-ledger rows (an `outcome`/`type`/`kind`/`event` of `claim`, `challenge` or `pass`) →
//!   `ship_ledger`;
//! - spool lines (`{repo, project, stream, record}`) → the home database's spool (and `usage`
//!   for a generation);
//! - attestation lines (`"schema": "harness.attestation.v1"`, one per session end) → a
//!   `session.end` event that ends the session.
//!
//! harness-toolkit 0.5.0 (../shared/fixtures/harness-toolkit/) keys a session `<provider>-<id>`:
//! the client's own id is what tlc stores, so its sessions meet tlc's own and its transcripts'.
//! A `gate.outcome` record is also a gate run, through the [`GateSink`] the caller passes (the gate
//! domain owns `gate_runs`); like a decision, it is written only with a newly inserted event, so
//! a record counts once over any number of imports.

use super::event::Tokens;
use super::recorder::{DecisionRow, EventRow, EventStore, ShipRow};
use super::redact::Redactor;
use super::spool::{Spool, SpoolRow};
use crate::cost::usage::{UsageRow, UsageWriter};
use crate::cost::TokenUsage;
use rusqlite::Connection;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// What one import did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub(crate) struct ImportCounts {
    pub lines: u64,
    pub observability: u64,
    pub audit: u64,
    pub ship_ledger: u64,
    pub spool: u64,
    pub attestation: u64,
    /// `gate.outcome` records newly stored as gate runs.
    pub gate_runs: u64,
    /// Lines already imported before (same content).
    pub duplicates: u64,
    pub malformed: u64,
    /// JSON lines of no recognised shape.
    pub unrecognised: u64,
}

/// Kinds only tlc itself records, from an operator's terminal or its own checks: an imported
/// line of one is stored as `imported.<kind>`.
pub(crate) const OWN_KINDS: &[&str] = &["operator.command", "config.scaffolded", "hook.fault"];

const DEBUG_KINDS: &[&str] = &[
    "tool.start",
    "tool.end",
    "shell.start",
    "shell.end",
    "mcp.start",
    "mcp.end",
    "file.read",
    "file.edit",
    "agent.thought",
];

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(|x| match x {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

fn i(v: &Value, k: &str) -> Option<i64> {
    v.get(k).and_then(|x| x.as_i64().or_else(|| x.as_f64().map(|f| f as i64)))
}

/// A token count: a whole number in `0..2^53` (see `cost::transcript::MAX_TOKENS`); anything else
/// is left out rather than stored wrapped or overflowing the sums over it.
fn count(v: &Value, k: &str) -> Option<i64> {
    let n = v.get(k)?.as_u64()?;
    (n < crate::cost::transcript::MAX_TOKENS).then_some(n as i64)
}

/// A record's timestamp as a stored stamp: RFC 3339 text or epoch milliseconds.
fn ts_of(v: &Value) -> Option<String> {
    match v.get("ts")? {
        Value::String(t) => crate::clock::parse(t).ok().map(crate::clock::stamp),
        Value::Number(n) => n
            .as_i64()
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map(crate::clock::stamp),
        _ => None,
    }
}

fn plane_of(level: Option<&str>, kind: &str) -> &'static str {
    match level {
        Some("signal") => "signal",
        Some("debug") => "debug",
        Some("audit") => "audit",
        _ if DEBUG_KINDS.contains(&kind) => "debug",
        _ => "signal",
    }
}

/// One `gate.outcome` record, as a gate run to store. harness-toolkit writes it when the run
/// ended (`ts`); a deferred gate (another session held the gate lock) has neither `passed` nor a
/// duration, only whom it deferred to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ImportedGate<'a> {
    pub provider: &'a str,
    pub session_id: Option<&'a str>,
    pub gate: &'a str,
    /// When the outcome was recorded (the run's end).
    pub ts: &'a str,
    /// `None` for a deferred gate.
    pub passed: Option<bool>,
    pub exit_code: Option<i64>,
    pub duration_ms: i64,
    /// The verdict of an identical earlier run, repeated without running.
    pub reused: bool,
    pub deferred_to: Option<&'a str>,
}

/// Where the import's gate outcomes go: the gate domain's store (`gate::GateStore`), passed in by
/// the command so that obs need not know the gate tables.
pub(crate) trait GateSink {
    fn gate_outcome(&self, gate: &ImportedGate<'_>) -> rusqlite::Result<()>;
}

/// Imports JSONL from `text` (the lines of one file).
pub(crate) struct Importer<'c> {
    project: &'c Connection,
    home: Option<&'c Connection>,
    gates: Option<&'c dyn GateSink>,
    /// Each session's posture as its records stated it (harness-toolkit states it on
    /// `session.start` and Bash decisions, not on the other refusals).
    postures: HashMap<String, String>,
    /// Which provider sent a hook payload an audit line holds (harness-toolkit's name none).
    sender: fn(&Value) -> Option<&'static str>,
    pub counts: ImportCounts,
}

impl<'c> Importer<'c> {
    /// `home` is needed only for spool lines; without it they are counted as unrecognised.
    pub(crate) fn new(project: &'c Connection, home: Option<&'c Connection>) -> Importer<'c> {
        Importer {
            project,
            home,
            gates: None,
            postures: HashMap::new(),
            sender: |_| None,
            counts: ImportCounts::default(),
        }
    }

    /// Attributes an audit line's payload to the provider `sender` names (the command line asks
    /// the hook's providers); without it, such a line is attributed to `import`.
    pub(crate) fn with_sender(mut self, sender: fn(&Value) -> Option<&'static str>) -> Importer<'c> {
        self.sender = sender;
        self
    }

    /// Stores `gate.outcome` records as gate runs through `gates` (without it they are events only).
    pub(crate) fn with_gates(mut self, gates: &'c dyn GateSink) -> Importer<'c> {
        self.gates = Some(gates);
        self
    }

    pub(crate) fn line(&mut self, line: &str) -> rusqlite::Result<()> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(());
        }
        self.counts.lines += 1;
        let Ok(mut v) = serde_json::from_str::<Value>(line) else {
            self.counts.malformed += 1;
            return Ok(());
        };
        if !v.is_object() {
            self.counts.malformed += 1;
            return Ok(());
        }
        let dedup = format!("jsonl:{}", crate::hashing::sha256_hex(line.as_bytes()));
        let salt = s(&v, "session_id")
            .or_else(|| v.get("record").and_then(|r| s(r, "session_id")))
            .unwrap_or_default();
        Redactor::new(&salt).redact_value(&mut v);
        let schema = v.get("schema").and_then(Value::as_str);
        let inserted = if schema == Some("harness.observability.v1") {
            self.counts.observability += 1;
            self.observability(&v, &dedup)?
        } else if schema == Some("harness.attestation.v1") {
            self.counts.attestation += 1;
            self.attestation(&v, &dedup)?
        } else if v.get("repo").is_some() && v.get("record").is_some() {
            if self.home.is_none() {
                self.counts.unrecognised += 1;
                return Ok(());
            }
            self.counts.spool += 1;
            self.spool(&v, &dedup)?
        } else if v.get("event").is_some() && v.get("payload").is_some() {
            self.counts.audit += 1;
            self.audit(&v, &dedup)?
        } else if let Some(outcome) = ship_outcome(&v) {
            self.counts.ship_ledger += 1;
            self.ship(&v, outcome, &dedup)?
        } else {
            self.counts.unrecognised += 1;
            return Ok(());
        };
        if !inserted {
            self.counts.duplicates += 1;
        }
        Ok(())
    }

    fn upsert_session(&self, provider: &str, session: Option<&str>, ts: &str, model: Option<&str>) -> rusqlite::Result<()> {
        if let Some(session) = session {
            EventStore::new(self.project).touch_session(provider, session, ts, model)?;
        }
        Ok(())
    }

    fn observability(&mut self, v: &Value, dedup: &str) -> rusqlite::Result<bool> {
        let kind = s(v, "kind").unwrap_or_else(|| "unknown".into());
        // Issue 53: a record of what only tlc itself writes is history, never a fact tlc acts on
        // (an imported `operator.command` would enter a session's attestation as the operator's).
        let kind = if OWN_KINDS.contains(&kind.as_str()) {
            format!("imported.{kind}")
        } else {
            kind
        };
        let provider = s(v, "provider").unwrap_or_else(|| "unknown".into());
        let ts = ts_of(v).unwrap_or_else(crate::clock::now_stamp);
        let session = s(v, "session_id").map(|id| client_session(&provider, id));
        let model = s(v, "model");
        let mut attrs = v.get("attrs").and_then(Value::as_object).cloned().unwrap_or_else(Map::new);
        if let (Some(session), Some(posture)) = (&session, attrs.get("posture").and_then(Value::as_str)) {
            if !self.postures.contains_key(session) {
                self.postures.insert(session.clone(), posture.to_string());
            }
        }
        let (tool, phase) = tool_and_phase(&kind, &attrs);
        let gen = v.get("gen_ai").filter(|g| g.is_object());
        let is_generation = kind == "generation.end";
        let (mut tokens, mut cost, mut source, mut pool, mut duration) = (None, None, None, None, None);
        if let Some(g) = gen {
            if is_generation {
                tokens = Some(tokens_of(g));
                cost = g.get("cost_usd").and_then(Value::as_f64);
                source = s(g, "cost_source");
                pool = s(g, "cost_pool");
                duration = i(g, "duration_ms");
            } else {
                attrs.insert("gen_ai".into(), g.clone());
            }
        }
        self.upsert_session(&provider, session.as_deref(), &ts, None)?;
        let (trace, span, parent) = (s(v, "trace_id"), s(v, "span_id"), s(v, "parent_span_id"));
        let attrs_text = Value::Object(attrs.clone()).to_string();
        let id = EventStore::new(self.project).insert_row(&EventRow {
            ts: &ts,
            provider: &provider,
            kind: &kind,
            plane: plane_of(v.get("level").and_then(Value::as_str), &kind),
            session_id: session.as_deref(),
            trace_id: trace.as_deref(),
            span_id: span.as_deref(),
            parent_span_id: parent.as_deref(),
            model: model.as_deref(),
            tool: tool.as_deref(),
            phase,
            attrs: &attrs_text,
            payload: None,
            duration_ms: duration.or_else(|| i(v, "duration_ms")),
            tokens,
            cost_usd: cost,
            cost_source: source.as_deref(),
            cost_pool: pool.as_deref(),
            dedup_key: Some(dedup),
        })?;
        // A record that states a decision counts as one, as a hook's own would: once, with the
        // event it came with (a record imported again inserts no event, and so no decision).
        let posture = session.as_ref().and_then(|s| self.postures.get(s));
        if let (Some(id), Some(d)) = (id, decision_of(&kind, &attrs, posture.map(String::as_str))) {
            EventStore::new(self.project).insert_decision_row(
                id,
                &DecisionRow {
                    ts: &ts,
                    provider: &provider,
                    session_id: session.as_deref(),
                    subject: &d.subject,
                    permission: &d.permission,
                    posture: &d.posture,
                    rule: &d.rule,
                    reason: d.reason.as_deref(),
                    detail: d.detail.as_deref(),
                },
            )?;
        }
        if let (Some(_), Some(sink), true) = (id, self.gates, kind == "gate.outcome") {
            if let Some(gate) = gate_of(&provider, session.as_deref(), &ts, &attrs) {
                sink.gate_outcome(&gate)?;
                self.counts.gate_runs += 1;
            }
        }
        Ok(id.is_some())
    }

    /// A session end's attestation: harness-toolkit's summary of the session (its rails, its own
    /// decision and gate counts), kept whole as a `session.end` event that ends the session. Its
    /// counts are not added to anything: the records they count are imported themselves.
    fn attestation(&self, v: &Value, dedup: &str) -> rusqlite::Result<bool> {
        let ts = ts_of(v).unwrap_or_else(crate::clock::now_stamp);
        let provider = s(v, "provider").unwrap_or_else(|| "unknown".into());
        let session = s(v, "session")
            .or_else(|| s(v, "session_id"))
            .map(|id| client_session(&provider, id));
        let mut attrs = v.as_object().cloned().unwrap_or_default();
        for k in ["schema", "ts", "provider", "session", "session_id"] {
            attrs.remove(k);
        }
        let attrs = Value::Object(attrs).to_string();
        let id = EventStore::new(self.project).insert_row(&EventRow {
            ts: &ts,
            provider: &provider,
            kind: "session.end",
            plane: "signal",
            session_id: session.as_deref(),
            attrs: &attrs,
            dedup_key: Some(dedup),
            ..EventRow::default()
        })?;
        if let (Some(_), Some(session)) = (id, &session) {
            EventStore::new(self.project).end_session(&provider, session, &ts)?;
        }
        Ok(id.is_some())
    }

    fn audit(&self, v: &Value, dedup: &str) -> rusqlite::Result<bool> {
        let ts = ts_of(v).unwrap_or_else(crate::clock::now_stamp);
        let payload = v.get("payload").cloned().unwrap_or(Value::Null);
        let event = s(v, "event").unwrap_or_else(|| "unknown".into());
        let session = s(&payload, "session_id").or_else(|| s(&payload, "conversation_id"));
        // harness-toolkit's audit lines name no provider; the payload is the client's own.
        let provider = s(v, "provider").unwrap_or_else(|| (self.sender)(&payload).unwrap_or("import").to_string());
        let mut attrs = Map::new();
        attrs.insert("event".into(), event.clone().into());
        let (kind, tool) = (format!("audit.{event}"), s(&payload, "tool_name"));
        let (attrs, payload) = (Value::Object(attrs).to_string(), payload.to_string());
        let id = EventStore::new(self.project).insert_row(&EventRow {
            ts: &ts,
            provider: &provider,
            kind: &kind,
            plane: "audit",
            session_id: session.as_deref(),
            tool: tool.as_deref(),
            attrs: &attrs,
            payload: Some(&payload),
            dedup_key: Some(dedup),
            ..EventRow::default()
        })?;
        Ok(id.is_some())
    }

    fn ship(&self, v: &Value, outcome: &str, dedup: &str) -> rusqlite::Result<bool> {
        let ts = ts_of(v).unwrap_or_else(crate::clock::now_stamp);
        let session = s(v, "session_id").or_else(|| s(v, "sessionId"));
        let (provider, summary, detail) = (s(v, "provider"), s(v, "summary"), v.to_string());
        EventStore::new(self.project).insert_ship(&ShipRow {
            ts: &ts,
            session_id: session.as_deref(),
            provider: provider.as_deref(),
            outcome,
            summary: summary.as_deref(),
            detail: Some(&detail),
            dedup_key: Some(dedup),
            files: &[],
            evidence_dir: None,
        })
    }

    fn spool(&self, v: &Value, dedup: &str) -> rusqlite::Result<bool> {
        let Some(home) = self.home else { return Ok(false) };
        let mut record = v.get("record").cloned().unwrap_or(Value::Null);
        let repo = s(v, "repo").unwrap_or_default();
        let project = s(v, "project").unwrap_or_default();
        let mut stream = s(v, "stream").unwrap_or_else(|| "obs".into());
        if record.get("schema").and_then(Value::as_str) == Some("harness.observability.v1") {
            // harness-toolkit's spool: the stream `obs` holds both planes, the record's level says
            // which (tlc's own spool names the plane); its decisions state `permission`, which the
            // spool's rollup reads as `decision`, as tlc's own hooks write it.
            if let Some(level) = record.get("level").and_then(Value::as_str) {
                stream = plane_of(Some(level), "").to_string();
            }
            let provider = s(&record, "provider").unwrap_or_default();
            if let Some(id) = s(&record, "session_id") {
                record["session_id"] = client_session(&provider, id).into();
            }
            if let Some(attrs) = record.get_mut("attrs").and_then(Value::as_object_mut) {
                if let (false, Some(p)) = (attrs.contains_key("decision"), attrs.get("permission").cloned()) {
                    attrs.insert("decision".into(), p);
                }
            }
        }
        let ts = ts_of(&record).unwrap_or_else(crate::clock::now_stamp);
        let kind = s(&record, "kind").or_else(|| s(&record, "event"));
        let gen = record.get("gen_ai").filter(|_| kind.as_deref() == Some("generation.end"));
        let cost = gen.and_then(|g| g.get("cost_usd")).and_then(Value::as_f64);
        let (provider, session, model) = (s(&record, "provider"), s(&record, "session_id"), s(&record, "model"));
        let text = record.to_string();
        let inserted = Spool::new(home).insert_row(&SpoolRow {
            ts: &ts,
            repo_path: &repo,
            project: &project,
            stream: &stream,
            kind: kind.as_deref(),
            provider: provider.as_deref(),
            session_id: session.as_deref(),
            model: model.as_deref(),
            duration_ms: gen.and_then(|g| i(g, "duration_ms")),
            input_tokens: gen.and_then(|g| count(g, "input_tokens")),
            output_tokens: gen.and_then(|g| count(g, "output_tokens")),
            cache_read_tokens: gen.and_then(|g| count(g, "cache_read_tokens")),
            cache_write_tokens: gen.and_then(|g| count(g, "cache_write_tokens")),
            cache_write_1h_tokens: gen.and_then(|g| count(g, "cache_write_1h_tokens")),
            cost_usd: cost,
            record: &text,
            dedup_key: Some(dedup),
        })?;
        if inserted {
            if let Some(g) = gen {
                let (cost_source, cost_pool) = (s(g, "cost_source"), s(g, "cost_pool"));
                let t = tokens_of(g);
                UsageWriter::new(home)?.insert(&UsageRow {
                    dedup_key: dedup,
                    source: "jsonl",
                    project: &project,
                    repo_path: Some(&repo),
                    session_id: session.as_deref().unwrap_or_default(),
                    provider: provider.as_deref(),
                    ts: &ts,
                    model: model.as_deref().unwrap_or_default(),
                    // `as` round-trips every i64: the counts are stored as the line had them.
                    usage: TokenUsage {
                        input: t.input as u64,
                        output: t.output as u64,
                        cache_read: t.cache_read as u64,
                        cache_write: t.cache_write as u64,
                        cache_write_1h: t.cache_write_1h as u64,
                    },
                    cost_usd: cost,
                    cost_source: cost_source.as_deref(),
                    cost_pool: cost_pool.as_deref(),
                })?;
            }
        }
        Ok(inserted)
    }
}

/// A generation's token counts; a count the record lacks is 0.
fn tokens_of(g: &Value) -> Tokens {
    Tokens {
        input: count(g, "input_tokens").unwrap_or(0),
        output: count(g, "output_tokens").unwrap_or(0),
        cache_read: count(g, "cache_read_tokens").unwrap_or(0),
        cache_write: count(g, "cache_write_tokens").unwrap_or(0),
        cache_write_1h: count(g, "cache_write_1h_tokens").unwrap_or(0),
    }
}

/// The client's session id of a harness-toolkit key: `claude-<id>` → `<id>` for provider
/// `claude` (audit and attestation lines already carry the client's id, and so do tlc's own).
fn client_session(provider: &str, id: String) -> String {
    match id.strip_prefix(provider).and_then(|rest| rest.strip_prefix('-')) {
        Some(rest) if !provider.is_empty() && !rest.is_empty() => rest.to_string(),
        _ => id,
    }
}

/// The tool and phase of a tool record, as tlc's own hooks store them: the tool from
/// `attrs.tool` or `attrs.tool_name` (a shell record is Bash's); `end` for a completed call
/// (`tool.end`, `shell.end`, `mcp.end`, `file.edit`), `fail` for `tool.fail`, `start` for a
/// `tool.start`, `shell.start` or `mcp.start` that did not interrupt. harness-toolkit writes a
/// `shell.start` only for a refused or asked command: the call it describes may never have run.
fn tool_and_phase(kind: &str, attrs: &Map<String, Value>) -> (Option<String>, Option<&'static str>) {
    let named = ["tool", "tool_name"]
        .iter()
        .find_map(|k| attrs.get(*k).and_then(Value::as_str).filter(|t| !t.is_empty()))
        .map(str::to_string);
    let decided = attrs
        .get("permission")
        .or_else(|| attrs.get("decision"))
        .and_then(Value::as_str)
        .is_some_and(|p| p != "allow");
    let phase = match kind {
        "tool.end" | "shell.end" | "mcp.end" | "file.edit" => Some("end"),
        "tool.fail" => Some("fail"),
        "tool.start" | "shell.start" | "mcp.start" if !decided => Some("start"),
        _ => None,
    };
    let tool = named.or_else(|| kind.starts_with("shell.").then(|| "Bash".to_string()));
    let phase = tool.as_ref().and(phase);
    (tool, phase)
}

/// The gate run a `gate.outcome` record states: `passed` (or, without it, `exit_code` 0) for its
/// verdict, or a deferral (`deferred_to`) that is neither a pass nor a failure.
fn gate_of<'a>(provider: &'a str, session: Option<&'a str>, ts: &'a str, attrs: &'a Map<String, Value>) -> Option<ImportedGate<'a>> {
    let gate = attrs.get("gate").and_then(Value::as_str).filter(|g| !g.is_empty())?;
    let exit_code = attrs.get("exit_code").and_then(Value::as_i64);
    let deferred_to = attrs.get("deferred_to").and_then(Value::as_str);
    let passed = attrs.get("passed").and_then(Value::as_bool).or(exit_code.map(|c| c == 0));
    if passed.is_none() && deferred_to.is_none() {
        return None;
    }
    let reused = attrs.get("reused").and_then(Value::as_bool).unwrap_or(false);
    let duration = attrs
        .get("duration_ms")
        .and_then(|d| d.as_i64().or_else(|| d.as_f64().map(|f| f as i64)))
        .unwrap_or(0)
        .max(0);
    Some(ImportedGate {
        provider,
        session_id: session,
        gate,
        ts,
        passed: if deferred_to.is_some() && attrs.get("passed").is_none() {
            None
        } else {
            passed
        },
        exit_code,
        // A reused verdict repeats the original run's duration; no time was spent on it.
        duration_ms: if reused { 0 } else { duration },
        reused,
        deferred_to,
    })
}

fn ship_outcome(v: &Value) -> Option<&'static str> {
    for key in ["outcome", "type", "kind", "event"] {
        match v.get(key).and_then(Value::as_str) {
            Some("claim") => return Some("claim"),
            Some("challenge") => return Some("challenge"),
            Some("pass") => return Some("pass"),
            _ => {}
        }
    }
    None
}

/// A decision an observability record states: `policy.allow|ask|deny` records, and any record
/// whose attributes carry a `permission` (or `decision`) of allow, ask or deny (a `shell.end`
/// the harness decided on). Subject, rule, posture, reason and detail come from the attributes,
/// the subject from the kind's family when the record names none.
#[derive(Debug, Clone, PartialEq)]
struct ImportedDecision {
    subject: String,
    permission: String,
    posture: String,
    rule: String,
    reason: Option<String>,
    detail: Option<String>,
}

fn decision_of(kind: &str, attrs: &Map<String, Value>, session_posture: Option<&str>) -> Option<ImportedDecision> {
    let text = |k: &str| attrs.get(k).and_then(Value::as_str).filter(|x| !x.is_empty()).map(str::to_string);
    let stated = text("permission").or_else(|| text("decision"));
    let from_kind = kind.strip_prefix("policy.").map(str::to_string);
    let permission = stated.or(from_kind).filter(|p| matches!(p.as_str(), "allow" | "ask" | "deny"))?;
    let family = kind.split('.').next().unwrap_or(kind);
    // harness-toolkit names the event a refusal answered (`read.before`, `tool.before`,
    // `subagent.start`): a read is a file decision, as tlc's own floor records one.
    let event = text("event");
    let subject = text("subject").unwrap_or_else(|| match family {
        "shell" => "shell".to_string(),
        "mcp" => "mcp".to_string(),
        _ if text("command").is_some() => "shell".to_string(),
        _ if event.as_deref() == Some("read.before") => "file".to_string(),
        _ => "tool".to_string(),
    });
    Some(ImportedDecision {
        subject,
        permission,
        posture: text("posture")
            .or_else(|| session_posture.map(str::to_string))
            .unwrap_or_else(|| "unknown".into()),
        rule: text("rule").unwrap_or_else(|| "none".into()),
        reason: text("reason"),
        detail: text("command")
            .or_else(|| text("tool"))
            .or_else(|| text("tool_name"))
            .or_else(|| text("file_path"))
            .or_else(|| text("detail"))
            .or(event),
    })
}

#[cfg(test)]
mod decision_tests {
    use super::*;

    fn attrs(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn policy_records_and_decided_shell_records_are_decisions() {
        let d = decision_of(
            "policy.deny",
            &attrs(serde_json::json!({"rule": "catastrophic", "command": "rm -rf /", "posture": "solo"})),
            None,
        )
        .unwrap();
        assert_eq!(
            (d.subject.as_str(), d.permission.as_str(), d.rule.as_str(), d.posture.as_str()),
            ("shell", "deny", "catastrophic", "solo")
        );
        let d = decision_of(
            "shell.end",
            &attrs(serde_json::json!({"permission": "allow", "command": "ls"})),
            None,
        )
        .unwrap();
        assert_eq!(
            (d.subject.as_str(), d.permission.as_str(), d.rule.as_str()),
            ("shell", "allow", "none")
        );
        assert_eq!(decision_of("shell.end", &attrs(serde_json::json!({"command": "ls"})), None), None);
        assert_eq!(decision_of("prompt.submit", &attrs(serde_json::json!({})), None), None);
        assert_eq!(
            decision_of("policy.deny", &attrs(serde_json::json!({"permission": "maybe"})), None),
            None
        );
    }

    #[test]
    fn harness_toolkit_refusals_keep_their_permission_and_take_the_sessions_posture() {
        let d = decision_of(
            "policy.deny",
            &attrs(serde_json::json!({"event": "tool.before", "tool_name": "Edit", "permission": "ask", "rule": "edit-collision"})),
            Some("paired"),
        )
        .unwrap();
        assert_eq!(
            (
                d.subject.as_str(),
                d.permission.as_str(),
                d.rule.as_str(),
                d.posture.as_str(),
                d.detail.as_deref()
            ),
            ("tool", "ask", "edit-collision", "paired", Some("Edit"))
        );
        let d = decision_of(
            "policy.deny",
            &attrs(serde_json::json!({"event": "read.before", "permission": "deny", "rule": "secret-access"})),
            None,
        )
        .unwrap();
        assert_eq!((d.subject.as_str(), d.detail.as_deref()), ("file", Some("read.before")));
    }

    #[test]
    fn harness_toolkit_session_keys_become_the_clients_ids() {
        let id = "4c2f9e1a-6b3d-4f7e-a1c5-8d9e0f1a2b3c";
        assert_eq!(client_session("claude", format!("claude-{id}")), id);
        assert_eq!(client_session("claude", id.to_string()), id);
        assert_eq!(client_session("cursor", "claude-x".to_string()), "claude-x");
        assert_eq!(client_session("claude", "claude-".to_string()), "claude-");
        assert_eq!(client_session("", "-x".to_string()), "-x");
    }

    #[test]
    fn gate_outcomes_pass_fail_reuse_and_defer() {
        let a = attrs(serde_json::json!({"gate": "test", "passed": false, "exit_code": 1, "duration_ms": 601, "reused": true}));
        let g = gate_of("claude", Some("s"), "t", &a).unwrap();
        assert_eq!((g.passed, g.reused, g.duration_ms), (Some(false), true, 0));
        let a = attrs(serde_json::json!({"gate": "test", "deferred_to": "claude session x (pid 1)", "rule": "grind"}));
        let g = gate_of("claude", Some("s"), "t", &a).unwrap();
        assert_eq!(
            (g.passed, g.duration_ms, g.deferred_to),
            (None, 0, Some("claude session x (pid 1)"))
        );
        assert_eq!(gate_of("claude", None, "t", &attrs(serde_json::json!({"gate": "test"}))), None);
    }
}
