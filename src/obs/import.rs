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

use super::event::Tokens;
use super::recorder::{DecisionRow, EventRow, EventStore, ShipRow};
use super::redact::Redactor;
use super::spool::{Spool, SpoolRow};
use crate::cost::usage::{UsageRow, UsageWriter};
use crate::cost::TokenUsage;
use rusqlite::Connection;
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
            EventStore::new(self.project).touch_session(provider, session, ts, model)?;
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
            tool: attrs.get("tool").and_then(Value::as_str),
            phase: None,
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
        if let (Some(id), Some(d)) = (id, decision_of(&kind, &attrs)) {
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
        Ok(id.is_some())
    }

    fn audit(&self, v: &Value, dedup: &str) -> rusqlite::Result<bool> {
        let ts = ts_of(v).unwrap_or_else(crate::clock::now_stamp);
        let payload = v.get("payload").cloned().unwrap_or(Value::Null);
        let event = s(v, "event").unwrap_or_else(|| "unknown".into());
        let session = s(&payload, "session_id").or_else(|| s(&payload, "conversation_id"));
        let provider = s(v, "provider").unwrap_or_else(|| "import".into());
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
        let record = v.get("record").cloned().unwrap_or(Value::Null);
        let repo = s(v, "repo").unwrap_or_default();
        let project = s(v, "project").unwrap_or_default();
        let stream = s(v, "stream").unwrap_or_else(|| "obs".into());
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

fn decision_of(kind: &str, attrs: &Map<String, Value>) -> Option<ImportedDecision> {
    let text = |k: &str| attrs.get(k).and_then(Value::as_str).filter(|x| !x.is_empty()).map(str::to_string);
    let stated = text("permission").or_else(|| text("decision"));
    let from_kind = kind.strip_prefix("policy.").map(str::to_string);
    let permission = stated.or(from_kind).filter(|p| matches!(p.as_str(), "allow" | "ask" | "deny"))?;
    let family = kind.split('.').next().unwrap_or(kind);
    let subject = text("subject").unwrap_or_else(|| match family {
        "shell" => "shell".to_string(),
        "mcp" => "mcp".to_string(),
        _ if text("command").is_some() => "shell".to_string(),
        _ => "tool".to_string(),
    });
    Some(ImportedDecision {
        subject,
        permission,
        posture: text("posture").unwrap_or_else(|| "unknown".into()),
        rule: text("rule").unwrap_or_else(|| "none".into()),
        reason: text("reason"),
        detail: text("command").or_else(|| text("tool")).or_else(|| text("detail")),
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
        )
        .unwrap();
        assert_eq!(
            (d.subject.as_str(), d.permission.as_str(), d.rule.as_str(), d.posture.as_str()),
            ("shell", "deny", "catastrophic", "solo")
        );
        let d = decision_of("shell.end", &attrs(serde_json::json!({"permission": "allow", "command": "ls"}))).unwrap();
        assert_eq!(
            (d.subject.as_str(), d.permission.as_str(), d.rule.as_str()),
            ("shell", "allow", "none")
        );
        assert_eq!(decision_of("shell.end", &attrs(serde_json::json!({"command": "ls"}))), None);
        assert_eq!(decision_of("prompt.submit", &attrs(serde_json::json!({}))), None);
        assert_eq!(decision_of("policy.deny", &attrs(serde_json::json!({"permission": "maybe"}))), None);
    }
}
