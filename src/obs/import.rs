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
//!   for a generation).

use super::redact::Redactor;
use crate::store::queries::home::spool as hq;
use crate::store::queries::project::obs as q;
use rusqlite::{params, Connection};
use serde_json::{Map, Value};

/// What one import did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct ImportCounts {
    pub lines: u64,
    pub observability: u64,
    pub audit: u64,
    pub ship_ledger: u64,
    pub spool: u64,
    /// Lines already imported before (same content).
    pub duplicates: u64,
    pub malformed: u64,
    /// JSON lines of no recognised shape.
    pub unrecognised: u64,
}

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

/// Imports JSONL from `text` (the lines of one file).
pub struct Importer<'c> {
    project: &'c Connection,
    home: Option<&'c Connection>,
    pub counts: ImportCounts,
}

impl<'c> Importer<'c> {
    /// `home` is needed only for spool lines; without it they are counted as unrecognised.
    pub fn new(project: &'c Connection, home: Option<&'c Connection>) -> Importer<'c> {
        Importer {
            project,
            home,
            counts: ImportCounts::default(),
        }
    }

    pub fn line(&mut self, line: &str) -> rusqlite::Result<()> {
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
        let inserted = if v.get("schema").and_then(Value::as_str) == Some("harness.observability.v1") {
            self.counts.observability += 1;
            self.observability(&v, &dedup)?
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
            self.project.prepare_cached(q::SESSION_UPSERT)?.execute(params![
                provider,
                session,
                ts,
                model,
                None::<String>,
                None::<String>,
                None::<String>
            ])?;
        }
        Ok(())
    }

    fn observability(&self, v: &Value, dedup: &str) -> rusqlite::Result<bool> {
        let kind = s(v, "kind").unwrap_or_else(|| "unknown".into());
        let provider = s(v, "provider").unwrap_or_else(|| "unknown".into());
        let ts = ts_of(v).unwrap_or_else(crate::clock::now_stamp);
        let session = s(v, "session_id");
        let model = s(v, "model");
        let mut attrs = v.get("attrs").and_then(Value::as_object).cloned().unwrap_or_else(Map::new);
        let gen = v.get("gen_ai").filter(|g| g.is_object());
        let is_generation = kind == "generation.end";
        let (mut tokens, mut cost, mut source, mut pool, mut duration) = (None, None, None, None, None);
        if let Some(g) = gen {
            if is_generation {
                tokens = Some((
                    i(g, "input_tokens").unwrap_or(0),
                    i(g, "output_tokens").unwrap_or(0),
                    i(g, "cache_read_tokens").unwrap_or(0),
                    i(g, "cache_write_tokens").unwrap_or(0),
                ));
                cost = g.get("cost_usd").and_then(Value::as_f64);
                source = s(g, "cost_source");
                pool = s(g, "cost_pool");
                duration = i(g, "duration_ms");
            } else {
                attrs.insert("gen_ai".into(), g.clone());
            }
        }
        self.upsert_session(&provider, session.as_deref(), &ts, None)?;
        let n = self.project.prepare_cached(q::EVENT_INSERT)?.execute(params![
            ts,
            provider,
            kind,
            plane_of(v.get("level").and_then(Value::as_str), &kind),
            session,
            s(v, "trace_id"),
            s(v, "span_id"),
            s(v, "parent_span_id"),
            model,
            attrs.get("tool").and_then(Value::as_str),
            None::<String>,
            Value::Object(attrs.clone()).to_string(),
            None::<String>,
            duration.or_else(|| i(v, "duration_ms")),
            tokens.map(|t| t.0),
            tokens.map(|t| t.1),
            tokens.map(|t| t.2),
            tokens.map(|t| t.3),
            cost,
            source,
            pool,
            dedup,
        ])?;
        Ok(n == 1)
    }

    fn audit(&self, v: &Value, dedup: &str) -> rusqlite::Result<bool> {
        let ts = ts_of(v).unwrap_or_else(crate::clock::now_stamp);
        let payload = v.get("payload").cloned().unwrap_or(Value::Null);
        let event = s(v, "event").unwrap_or_else(|| "unknown".into());
        let session = s(&payload, "session_id").or_else(|| s(&payload, "conversation_id"));
        let provider = s(v, "provider").unwrap_or_else(|| "import".into());
        let mut attrs = Map::new();
        attrs.insert("event".into(), event.clone().into());
        let n = self.project.prepare_cached(q::EVENT_INSERT)?.execute(params![
            ts,
            provider,
            format!("audit.{event}"),
            "audit",
            session,
            None::<String>,
            None::<String>,
            None::<String>,
            None::<String>,
            s(&payload, "tool_name"),
            None::<String>,
            Value::Object(attrs).to_string(),
            payload.to_string(),
            None::<i64>,
            None::<i64>,
            None::<i64>,
            None::<i64>,
            None::<i64>,
            None::<f64>,
            None::<String>,
            None::<String>,
            dedup,
        ])?;
        Ok(n == 1)
    }

    fn ship(&self, v: &Value, outcome: &str, dedup: &str) -> rusqlite::Result<bool> {
        let ts = ts_of(v).unwrap_or_else(crate::clock::now_stamp);
        let n = self.project.prepare_cached(q::SHIP_INSERT)?.execute(params![
            ts,
            s(v, "session_id").or_else(|| s(v, "sessionId")),
            s(v, "provider"),
            outcome,
            s(v, "summary"),
            v.to_string(),
            dedup
        ])?;
        Ok(n == 1)
    }

    fn spool(&self, v: &Value, dedup: &str) -> rusqlite::Result<bool> {
        let Some(home) = self.home else { return Ok(false) };
        let record = v.get("record").cloned().unwrap_or(Value::Null);
        let repo = s(v, "repo").unwrap_or_default();
        let project = s(v, "project").unwrap_or_default();
        let stream = s(v, "stream").unwrap_or_else(|| "obs".into());
        let ts = ts_of(&record).unwrap_or_else(crate::clock::now_stamp);
        let kind = s(&record, "kind").or_else(|| s(&record, "event"));
        let gen = record.get("gen_ai").filter(|_| kind.as_deref() == Some("generation.end"));
        let tok = |k: &str| gen.and_then(|g| i(g, k));
        let cost = gen.and_then(|g| g.get("cost_usd")).and_then(Value::as_f64);
        let n = home.prepare_cached(hq::APPEND)?.execute(params![
            ts,
            repo,
            project,
            stream,
            kind,
            s(&record, "provider"),
            s(&record, "session_id"),
            s(&record, "model"),
            gen.and_then(|g| i(g, "duration_ms")),
            tok("input_tokens"),
            tok("output_tokens"),
            tok("cache_read_tokens"),
            tok("cache_write_tokens"),
            cost,
            record.to_string(),
            dedup,
        ])?;
        if n == 1 {
            if let Some(g) = gen {
                home.prepare_cached(hq::USAGE_INSERT)?.execute(params![
                    dedup,
                    "jsonl",
                    project,
                    repo,
                    s(&record, "session_id").unwrap_or_default(),
                    s(&record, "provider"),
                    ts,
                    s(&record, "model").unwrap_or_default(),
                    i(g, "input_tokens").unwrap_or(0),
                    i(g, "output_tokens").unwrap_or(0),
                    i(g, "cache_read_tokens").unwrap_or(0),
                    i(g, "cache_write_tokens").unwrap_or(0),
                    cost,
                    s(g, "cost_source"),
                    s(g, "cost_pool"),
                ])?;
            }
        }
        Ok(n == 1)
    }
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
