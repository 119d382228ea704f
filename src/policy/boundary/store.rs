//! The boundary's rows in the home database (`client_wiring`, `anchors`, `machine_facts`): the
//! only place their SQL runs. It borrows a home-database connection.

use crate::clock;
use crate::store::queries::home::boundary as q;
use rusqlite::{params, Connection, OptionalExtension};

/// One value tlc added to a client's settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Added {
    /// The JSON pointer of the key (`/sandbox/enabled`) or of the list an item went into.
    pub pointer: String,
    /// The item's JSON text, for a list item; empty for a key.
    pub item: String,
    /// The key's JSON text before tlc set it (`None`: it was absent).
    pub previous: Option<String>,
    /// What tlc wrote (JSON text).
    pub written: String,
    /// An object or list tlc created to hold its values.
    pub container: bool,
}

/// The kinds of anchor.
pub(crate) const BASELINE: &str = "baseline";
pub(crate) const ATTEST_HEAD: &str = "attest-head";

/// The name of the recorded operator `PATH` in `machine_facts`.
pub(crate) const OPERATOR_PATH: &str = "operator-path";

/// One anchored value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Anchor {
    pub hash: String,
    pub content: Option<Vec<u8>>,
    pub seq: Option<i64>,
}

pub(crate) struct BoundaryStore<'c> {
    conn: &'c Connection,
}

impl<'c> BoundaryStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> BoundaryStore<'c> {
        BoundaryStore { conn }
    }

    pub(crate) fn record_added(&self, provider: &str, file: &str, a: &Added) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::WIRING_PUT)?.execute(params![
            provider,
            file,
            a.pointer,
            a.item,
            a.previous,
            a.written,
            a.container,
            clock::now_stamp()
        ])?;
        Ok(())
    }

    pub(crate) fn added(&self, provider: &str, file: &str) -> rusqlite::Result<Vec<Added>> {
        let mut st = self.conn.prepare_cached(q::WIRING_LIST)?;
        let rows = st.query_map(params![provider, file], |r| {
            Ok(Added {
                pointer: r.get(0)?,
                item: r.get(1)?,
                previous: r.get(2)?,
                written: r.get(3)?,
                container: r.get(4)?,
            })
        })?;
        rows.collect()
    }

    pub(crate) fn forget_added(&self, provider: &str, file: &str) -> rusqlite::Result<()> {
        self.conn.prepare_cached(q::WIRING_FORGET)?.execute(params![provider, file])?;
        Ok(())
    }

    pub(crate) fn set_fact(&self, name: &str, value: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::FACT_PUT)?
            .execute(params![name, value, clock::now_stamp()])?;
        Ok(())
    }

    pub(crate) fn fact(&self, name: &str) -> rusqlite::Result<Option<String>> {
        self.conn.prepare_cached(q::FACT_GET)?.query_row([name], |r| r.get(0)).optional()
    }

    pub(crate) fn put_anchor(&self, project: &str, kind: &str, key: &str, a: &Anchor) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::ANCHOR_PUT)?
            .execute(params![project, kind, key, a.hash, a.content, a.seq, clock::now_stamp()])?;
        Ok(())
    }

    pub(crate) fn anchor(&self, project: &str, kind: &str, key: &str) -> rusqlite::Result<Option<Anchor>> {
        self.conn
            .prepare_cached(q::ANCHOR_GET)?
            .query_row(params![project, kind, key], |r| {
                Ok(Anchor {
                    hash: r.get(0)?,
                    content: r.get(1)?,
                    seq: r.get(2)?,
                })
            })
            .optional()
    }

    /// Every anchor of `project` and `kind` whose key starts with `prefix`: (key, anchor).
    pub(crate) fn anchors(&self, project: &str, kind: &str, prefix: &str) -> rusqlite::Result<Vec<(String, Anchor)>> {
        let mut st = self.conn.prepare_cached(q::ANCHOR_PREFIX)?;
        let rows = st.query_map(params![project, kind, prefix], |r| {
            Ok((
                r.get(0)?,
                Anchor {
                    hash: r.get(1)?,
                    content: r.get(2)?,
                    seq: None,
                },
            ))
        })?;
        rows.collect()
    }
}

/// The key of a session's baseline of `source`.
pub(crate) fn baseline_key(provider: &str, session: &str, source: &str) -> String {
    format!("{provider}\u{1f}{session}\u{1f}{source}")
}

/// The prefix every baseline key of a session starts with.
pub(crate) fn session_prefix(provider: &str, session: &str) -> String {
    format!("{provider}\u{1f}{session}\u{1f}")
}
