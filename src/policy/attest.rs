//! The attestation chain (issue 35): one record per session of what tlc observed of it — the policy
//! in force, policy changes and their acceptance, the rails acting, refusals by rule, stop and gate
//! outcomes, operator commands — appended when the session ends (or at a later session's start for
//! one that never ended) and chained by SHA3-256.
//!
//! Chained, not signed: a rewritten or removed record breaks the chain at that record; nothing here
//! proves who wrote the code, that it is correct, or that anyone reviewed it (docs/policy.md).

use crate::store::queries::project::policy as q;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{json, Map, Value};
use sha3::{Digest, Sha3_256};

/// The first record's `prev_hash`.
pub(crate) const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A session that never ended is attested at another session's start once it has been quiet this
/// long (a session still working beside the new one is left to its own end).
pub(crate) const QUIET_BEFORE_ATTESTED: chrono::Duration = chrono::Duration::minutes(15);

/// At most this many unended sessions are attested by one session start (the rest at the next).
const UNENDED_PER_START: i64 = 20;

/// Rules of the floor: their refusals are marked as such in a record.
fn is_floor_rule(rule: &str) -> bool {
    super::floor::Rule::ALL.iter().any(|r| r.as_str() == rule)
}

/// Why a record was written when it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClosedBy {
    SessionEnd,
    NextSessionStart,
}

impl ClosedBy {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ClosedBy::SessionEnd => "session-end",
            ClosedBy::NextSessionStart => "next-session-start",
        }
    }
}

/// What the hook knows at the moment it attests, besides the record.
#[derive(Debug, Clone)]
pub(crate) struct Observer<'a> {
    /// The rails acting under the policy in force when the record was written.
    pub rails_active: Vec<&'static str>,
    pub posture: &'a str,
    /// The revision of the tlc that wrote the record.
    pub revision: &'a str,
    /// Folders whose absolute paths a record names by a label instead (`("/home/me/repo",
    /// "<project>")`): a record holds no local path, so it can leave the machine (`obs ship`).
    pub folders: Vec<(String, &'static str)>,
    pub now: chrono::DateTime<chrono::Utc>,
}

/// One record of the chain as stored.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Attestation {
    pub seq: i64,
    pub provider: String,
    pub session_id: String,
    pub covered_through: String,
    /// The canonical JSON text that was hashed.
    pub record: String,
    pub prev_hash: String,
    pub hash: String,
}

/// The chain checked: `broken_at` is the first record whose hash or link is wrong.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Verification {
    pub ok: bool,
    pub records: usize,
    pub broken_at: Option<i64>,
    pub reason: Option<String>,
}

/// `source` with a leading folder of `folders` replaced by its label (`<project>/.tlc/…`).
fn label_source(source: &str, folders: &[(String, &'static str)]) -> String {
    for (dir, label) in folders {
        if let Some(rest) = source.strip_prefix(dir.as_str()) {
            if rest.is_empty() || rest.starts_with('/') {
                return format!("{label}{rest}");
            }
        }
    }
    source.to_string()
}

/// The link of a record: SHA3-256 of the previous hash followed by the record's text, exactly as
/// the view `attestation_chain` computes it with SQLite's `sha3(prev_hash || record, 256)`.
pub(crate) fn link_hash(prev_hash: &str, record: &str) -> String {
    let mut h = Sha3_256::new();
    h.update(prev_hash.as_bytes());
    h.update(record.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The canonical JSON form: object keys sorted (byte order), no insignificant whitespace, numbers
/// and strings as serde_json writes them. Equal values give equal text.
pub(crate) fn canonical_json(v: &Value) -> String {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    write(&m[k], out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(x, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// Checks every link of `chain` (in `seq` order): the first record whose hash is not the hash of
/// its link, or whose `prev_hash` is not the previous record's hash, is where the chain broke.
/// No records is a valid chain.
pub(crate) fn verify(chain: &[Attestation]) -> Verification {
    let mut prev = GENESIS.to_string();
    for a in chain {
        let reason = if a.prev_hash != prev {
            Some(format!(
                "record {} names the previous hash {} but the record before it hashes to {}",
                a.seq, a.prev_hash, prev
            ))
        } else if link_hash(&a.prev_hash, &a.record) != a.hash {
            Some(format!(
                "record {} does not hash to its stored hash: its text changed after it was written",
                a.seq
            ))
        } else {
            None
        };
        if let Some(reason) = reason {
            return Verification {
                ok: false,
                records: chain.len(),
                broken_at: Some(a.seq),
                reason: Some(reason),
            };
        }
        prev = a.hash.clone();
    }
    Verification {
        ok: true,
        records: chain.len(),
        broken_at: None,
        reason: None,
    }
}

/// `verification` of `chain` held against its head as anchored in the home database (issue 51):
/// the chain must end exactly at the anchored record, with the anchored hash. A chain cut short
/// (its tail truncated, or emptied), a record rewritten with every later hash recomputed, and
/// records added past the anchor all fail, naming the difference. Without an anchor (a chain
/// started before anchors, or a home database that could not be written) the links alone decide.
pub(crate) fn against_anchor(mut v: Verification, chain: &[Attestation], anchor: Option<(i64, String)>) -> Verification {
    let Some((seq, hash)) = anchor else { return v };
    if !v.ok {
        return v;
    }
    let last = chain.last();
    let reason = match chain.iter().find(|a| a.seq == seq) {
        None if last.is_none_or(|l| l.seq < seq) => Some((
            seq,
            format!(
                "the chain is truncated: it ends at {}, and its head anchored in the home database is record {seq}",
                last.map_or("no record".to_string(), |l| format!("record {}", l.seq))
            ),
        )),
        None => Some((
            seq,
            format!("record {seq}, its head anchored in the home database, is missing from the chain"),
        )),
        Some(a) if a.hash != hash => Some((
            seq,
            format!(
                "record {seq} hashes to {} but its hash anchored in the home database is {hash}: the chain was rewritten",
                a.hash
            ),
        )),
        Some(_) => last.filter(|l| l.seq > seq).map(|l| {
            (
                seq + 1,
                format!(
                    "records {} to {} are past the head anchored in the home database (record {seq}): not written by tlc's hook",
                    seq + 1,
                    l.seq
                ),
            )
        }),
    };
    if let Some((at, why)) = reason {
        v.ok = false;
        v.broken_at = Some(at);
        v.reason = Some(why);
    }
    v
}

/// The one writer of `attestations`; it reads what a record says from the other domains' tables.
pub(crate) struct AttestStore<'c> {
    conn: &'c Connection,
}

impl<'c> AttestStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Self {
        Self { conn }
    }

    /// Appends the record of a session that just ended. Nothing when the chain does not cover the
    /// session (first seen before the chain began) or the session is not in the record.
    pub(crate) fn on_session_end(&self, provider: &str, session: &str, obs: &Observer<'_>) -> rusqlite::Result<Option<i64>> {
        self.attest(provider, session, ClosedBy::SessionEnd, obs)
    }

    /// At a fresh session start: appends the record of each earlier session that never ended and
    /// has been quiet for [`QUIET_BEFORE_ATTESTED`].
    pub(crate) fn on_session_start(&self, provider: &str, session: &str, obs: &Observer<'_>) -> rusqlite::Result<Vec<i64>> {
        let quiet = crate::clock::stamp(obs.now - QUIET_BEFORE_ATTESTED);
        let pending: Vec<(String, String)> = {
            let mut st = self.conn.prepare_cached(q::ATTEST_UNENDED)?;
            let rows = st.query_map(params![quiet, provider, session, UNENDED_PER_START], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let mut out = Vec::new();
        for (p, s) in pending {
            if let Some(seq) = self.attest(&p, &s, ClosedBy::NextSessionStart, obs)? {
                out.push(seq);
            }
        }
        Ok(out)
    }

    fn attest(&self, provider: &str, session: &str, closed_by: ClosedBy, obs: &Observer<'_>) -> rusqlite::Result<Option<i64>> {
        let Some(record) = self.gather(provider, session, closed_by, obs)? else {
            return Ok(None);
        };
        let covered_through = record["last_seen"].as_str().unwrap_or_default().to_string();
        let text = canonical_json(&record);
        let prev: String = self
            .conn
            .prepare_cached(q::ATTEST_LAST_HASH)?
            .query_row([], |r| r.get(0))
            .optional()?
            .unwrap_or_else(|| GENESIS.to_string());
        let hash = link_hash(&prev, &text);
        self.conn
            .prepare_cached(q::ATTEST_INSERT)?
            .execute(params![provider, session, covered_through, text, prev, hash])?;
        Ok(Some(self.conn.last_insert_rowid()))
    }

    /// What tlc observed of one session, as the record's value.
    fn gather(&self, provider: &str, session: &str, closed_by: ClosedBy, obs: &Observer<'_>) -> rusqlite::Result<Option<Value>> {
        type SessionRow = (String, String, Option<String>, Option<String>, bool);
        let row: Option<SessionRow> = self
            .conn
            .prepare_cached(q::ATTEST_SESSION)?
            .query_row(params![provider, session], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .optional()?;
        let Some((first_seen, last_seen, ended_at, model, covered)) = row else {
            return Ok(None);
        };
        if !covered {
            return Ok(None);
        }
        let rows = |sql: &str, f: &dyn Fn(&rusqlite::Row<'_>) -> rusqlite::Result<Value>| -> rusqlite::Result<Vec<Value>> {
            let mut st = self.conn.prepare_cached(sql)?;
            let out = st.query_map(params![provider, session], |r| f(r))?.collect();
            out
        };
        let policy = rows(q::ATTEST_BASELINES, &|r| {
            Ok(
                json!({"source": label_source(&r.get::<_, String>(0)?, &obs.folders), "hash": r.get::<_, Option<String>>(1)?,
                      "recorded_at": r.get::<_, String>(2)?, "reason": r.get::<_, Option<String>>(3)?}),
            )
        })?;
        let changes = rows(q::ATTEST_DIVERGENCES, &|r| {
            Ok(
                json!({"source": label_source(&r.get::<_, String>(0)?, &obs.folders), "baseline_hash": r.get::<_, Option<String>>(1)?,
                      "current_hash": r.get::<_, Option<String>>(2)?, "detected_at": r.get::<_, String>(3)?,
                      "accepted_at": r.get::<_, Option<String>>(4)?}),
            )
        })?;
        let refusals = rows(q::ATTEST_REFUSALS, &|r| {
            let rule: String = r.get(0)?;
            Ok(
                json!({"floor": is_floor_rule(&rule), "rule": rule, "permission": r.get::<_, String>(1)?,
                      "count": r.get::<_, i64>(2)?}),
            )
        })?;
        let stops = rows(q::ATTEST_STOPS, &|r| {
            Ok(json!({"outcome": r.get::<_, String>(0)?, "rule": r.get::<_, Option<String>>(1)?, "count": r.get::<_, i64>(2)?}))
        })?;
        let gates = rows(q::ATTEST_GATE_RUNS, &|r| {
            Ok(
                json!({"gate": r.get::<_, String>(0)?, "verdict": r.get::<_, String>(1)?, "count": r.get::<_, i64>(2)?,
                      "reused": r.get::<_, i64>(3)?}),
            )
        })?;
        let through = ended_at.clone().unwrap_or_else(|| last_seen.clone());
        let operator: Vec<Value> = {
            let mut st = self.conn.prepare_cached(q::ATTEST_OPERATOR)?;
            let out = st
                .query_map(params![first_seen, through], |r| {
                    let ts: String = r.get(0)?;
                    let attrs: String = r.get(1)?;
                    let mut v: Map<String, Value> = serde_json::from_str(&attrs).unwrap_or_default();
                    v.insert("ts".into(), ts.into());
                    Ok(Value::Object(v))
                })?
                .collect::<rusqlite::Result<_>>()?;
            out
        };
        Ok(Some(json!({
            "v": 1,
            "provider": provider,
            "session_id": session,
            "model": model,
            "first_seen": first_seen,
            "last_seen": last_seen,
            "ended_at": ended_at,
            "closed_by": closed_by.as_str(),
            "attested_at": crate::clock::stamp(obs.now),
            "tlc_revision": obs.revision,
            "posture": obs.posture,
            "policy": policy,
            "policy_changes": changes,
            "rails_active": obs.rails_active,
            "refusals": refusals,
            "stops": stops,
            "gate_runs": gates,
            "operator_commands": operator,
        })))
    }

    /// The whole chain, in order.
    pub(crate) fn chain(&self) -> rusqlite::Result<Vec<Attestation>> {
        let mut st = self.conn.prepare_cached(q::ATTEST_LIST)?;
        let rows = st.query_map([], |r| {
            Ok(Attestation {
                seq: r.get(0)?,
                provider: r.get(1)?,
                session_id: r.get(2)?,
                covered_through: r.get(3)?,
                record: r.get(4)?,
                prev_hash: r.get(5)?,
                hash: r.get(6)?,
            })
        })?;
        rows.collect()
    }

    /// The hash of record `seq`, when the chain has it.
    pub(crate) fn hash_of(&self, seq: i64) -> rusqlite::Result<Option<String>> {
        self.conn
            .prepare_cached(q::ATTEST_HASH_OF)?
            .query_row([seq], |r| r.get(0))
            .optional()
    }

    /// The chain's last record: (seq, hash).
    pub(crate) fn head(&self) -> rusqlite::Result<Option<(i64, String)>> {
        self.conn
            .prepare_cached(q::ATTEST_HEAD)?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
    }

    /// Sessions the chain covers whose record is not written yet (still open, or quiet too briefly).
    pub(crate) fn sessions_not_yet_attested(&self) -> rusqlite::Result<i64> {
        self.conn.prepare_cached(q::ATTEST_OPEN_COUNT)?.query_row([], |r| r.get(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn att(seq: i64, prev: &str, record: &str) -> Attestation {
        Attestation {
            seq,
            provider: "claude".into(),
            session_id: format!("s{seq}"),
            covered_through: String::new(),
            record: record.into(),
            prev_hash: prev.into(),
            hash: link_hash(prev, record),
        }
    }

    #[test]
    fn a_source_under_a_known_folder_is_named_by_its_label() {
        let folders = vec![("/home/me/repo".to_string(), "<project>"), ("/home/me".to_string(), "~")];
        assert_eq!(
            label_source("/home/me/repo/.tlc/harness/config.toml", &folders),
            "<project>/.tlc/harness/config.toml"
        );
        assert_eq!(label_source("/home/me/.tlc/config.toml", &folders), "~/.tlc/config.toml");
        assert_eq!(
            label_source("/home/meadow/x", &folders),
            "/home/meadow/x",
            "a prefix that is not a folder"
        );
        assert_eq!(label_source("mode-state", &folders), "mode-state");
    }

    #[test]
    fn sha3_256_matches_the_standard_vector() {
        assert_eq!(
            link_hash("", "abc"),
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"
        );
        assert_eq!(link_hash("ab", "c"), link_hash("", "abc"));
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_depth_and_has_no_whitespace() {
        let a: Value = serde_json::from_str(r#"{"b": 1, "a": {"z": [1, {"y": "x", "c": null}], "é": "\"q\""}}"#).unwrap();
        assert_eq!(canonical_json(&a), r#"{"a":{"z":[1,{"c":null,"y":"x"}],"é":"\"q\""},"b":1}"#);
        let b: Value = serde_json::from_str(&canonical_json(&a)).unwrap();
        assert_eq!(canonical_json(&b), canonical_json(&a));
    }

    #[test]
    fn verification_names_the_first_broken_record() {
        assert!(verify(&[]).ok, "no records is a valid chain");
        let one = att(1, GENESIS, "{\"a\":1}");
        let two = att(2, &one.hash, "{\"b\":2}");
        let three = att(3, &two.hash, "{\"c\":3}");
        let chain = vec![one.clone(), two.clone(), three.clone()];
        assert_eq!(
            verify(&chain),
            Verification {
                ok: true,
                records: 3,
                broken_at: None,
                reason: None
            }
        );

        let mut edited = chain.clone();
        edited[1].record = "{\"b\":3}".into();
        let v = verify(&edited);
        assert_eq!((v.ok, v.broken_at), (false, Some(2)));

        let removed = vec![one, three];
        assert_eq!(verify(&removed).broken_at, Some(3), "a removed record breaks the link of the next");

        let mut rehashed = chain;
        rehashed[0].record = "{\"a\":2}".into();
        rehashed[0].hash = link_hash(GENESIS, "{\"a\":2}");
        assert_eq!(
            verify(&rehashed).broken_at,
            Some(2),
            "a record rewritten with its own hash breaks the next link"
        );
    }
}
