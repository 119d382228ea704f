//! The bulk path: a large import into a home database holding few rows compared with it.
//!
//! It writes the import in two transactions (see [`commit_midway`]), in chunks of at least
//! [`super::Options::bulk_chunk_rows`] written while the scanning threads go on. It tells new
//! responses from stored and repeated ones itself (a set of key hashes: the stored keys read under
//! its write lock, then every key it inserts), so that it appends many rows per statement, and it
//! sets the insert triggers aside (adding the rollup sums and `usage_key` rows itself). The price
//! is holding the write lock for most of the import (hooks wait, then record a fault), so it is
//! taken only when it pays (see [`use_bulk_path`]).

use super::batch::{BatchRows, Stored};
use super::scan::{key_tail, order_prefix, KeyHasher};
use super::{sq, CostError};
use crate::cost::usage::{SuspendedTriggers, Tally, UsageWriter};
use crate::hashing::Fx;
use rusqlite::Connection;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::path::Path;

/// Whether to take the bulk path: at least `min_bytes` of new transcript, into a `usage` table
/// holding few rows compared with what they bring.
pub(super) fn use_bulk_path(new_bytes: u64, stored_rows: u64, min_bytes: u64) -> bool {
    // About 1.8 KB of transcript per response in Claude Code's files.
    new_bytes >= min_bytes && stored_rows <= new_bytes / 2000
}

/// The keys the bulk path knows are stored, by their [`KeyHasher`] hash (uniform already, so the
/// set hashes them cheaply).
pub(super) type SeenKeys = HashSet<u128, BuildHasherDefault<Fx>>;

/// The `usage_key` rows of the responses the bulk path stored, added in one sorted pass at the end:
/// their tails in one buffer, so that 900,000 of them are a few allocations.
#[derive(Default)]
pub(super) struct NewKeys {
    tails: Vec<u8>,
    /// (order prefix of the tail, tail's start in `tails`, its length, the row's id)
    rows: Vec<(u128, usize, u8, i64)>,
}

impl NewKeys {
    pub(crate) fn push(&mut self, key: &str, id: i64) {
        let tail = key_tail(key).as_bytes();
        // 16 characters are at most 64 bytes.
        self.rows.push((order_prefix(tail), self.tails.len(), tail.len() as u8, id));
        self.tails.extend_from_slice(tail);
    }

    fn tail(&self, start: usize, len: u8) -> &str {
        // Every tail was pushed whole from a str, so the range is in the buffer and is UTF-8.
        std::str::from_utf8(&self.tails[start..start + usize::from(len)]).unwrap_or_default()
    }

    /// The rows in `usage_key`'s order: (tail, id).
    fn sorted(&mut self) -> impl Iterator<Item = (&str, i64)> {
        let mut rows = std::mem::take(&mut self.rows);
        rows.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| self.tail(a.1, a.2).cmp(self.tail(b.1, b.2)))
                .then(a.3.cmp(&b.3))
        });
        let keys: &NewKeys = self;
        rows.into_iter().map(move |(_, start, len, id)| (keys.tail(start, len), id))
    }
}

/// What the bulk path keeps across its chunks.
pub(super) struct BulkState {
    /// The keys stored or inserted so far, by [`KeyHasher`] hash.
    pub seen: SeenKeys,
    /// The last id given to a row.
    pub last_id: i64,
    pub keys: NewKeys,
    triggers: SuspendedTriggers,
}

/// Starts a bulk transaction: takes the write lock, adds the keys of rows stored after `after_id`
/// to `seen`, and sets the insert triggers aside.
pub(super) fn begin(
    conn: &Connection,
    db: &Path,
    writer: &UsageWriter<'_>,
    hasher: &KeyHasher,
    mut seen: SeenKeys,
    after_id: i64,
) -> Result<BulkState, CostError> {
    // An error from here to the commit leaves the transaction to roll back when the connection
    // closes, the set-aside triggers with it.
    conn.execute_batch("BEGIN IMMEDIATE").map_err(sq(db))?;
    writer
        .keys_after(after_id, |key| {
            seen.insert(hasher.hash(key));
        })
        .map_err(sq(db))?;
    let last_id = writer.max_id().map_err(sq(db))?;
    Ok(BulkState {
        seen,
        last_id,
        keys: NewKeys::default(),
        triggers: SuspendedTriggers::suspend(conn).map_err(sq(db))?,
    })
}

/// Ends a bulk transaction short of its commit: adds the rollup sums of the rows it stored (`sums`,
/// from the counting thread), their `usage_key` rows in one sorted pass, and restores the triggers.
/// Returns what the next transaction starts from (the keys seen, the last id).
pub(super) fn end(
    conn: &Connection,
    db: &Path,
    writer: &mut UsageWriter<'_>,
    mut state: BulkState,
    sums: Tally,
) -> Result<(SeenKeys, i64), CostError> {
    writer.flush().map_err(sq(db))?;
    writer.flush_tally(sums).map_err(sq(db))?;
    let expected = state.keys.rows.len() as u64;
    let added = writer.insert_keys(state.keys.sorted()).map_err(sq(db))?;
    if added != expected {
        return Err(CostError::Unusable(format!(
            "{}: stored {added} of {expected} response keys; this transaction of the import was rolled back",
            db.display()
        )));
    }
    state.triggers.restore(conn).map_err(sq(db))?;
    Ok((state.seen, state.last_id))
}

/// Commits the bulk path's first transaction without checkpointing it here, starts a thread that
/// checkpoints it on a connection of its own while this one goes on, and begins the second
/// transaction. Copying the WAL into the database file (and the two fsyncs around it) was a
/// fifth of an import of 900,000 responses, all of it after the scan; this way about three
/// fifths of it overlap the scan. The cost is a second commit: between the two, hooks may
/// write, so the second transaction reads the keys they stored and numbers its rows on from
/// theirs; an error in the second leaves the first committed, which is consistent (each file's
/// read offset is committed with its rows).
pub(super) fn commit_midway(
    conn: &Connection,
    db: &Path,
    writer: &mut UsageWriter<'_>,
    hasher: &KeyHasher,
    state: BulkState,
    sums: Tally,
) -> Result<(BulkState, std::thread::JoinHandle<()>), CostError> {
    let (seen, last_id) = end(conn, db, writer, state, sums)?;
    let autocheckpoint: i64 = conn.pragma_query_value(None, "wal_autocheckpoint", |r| r.get(0)).map_err(sq(db))?;
    conn.pragma_update(None, "wal_autocheckpoint", 0).map_err(sq(db))?;
    conn.execute_batch("COMMIT").map_err(sq(db))?;
    conn.pragma_update(None, "wal_autocheckpoint", autocheckpoint).map_err(sq(db))?;
    let path = db.to_path_buf();
    let checkpointer = std::thread::spawn(move || {
        // A checkpoint that fails or is skipped here costs nothing but time: the final
        // commit's checkpoint copies whatever is left. The one place a command holds two
        // connections to one database at once: the second works while the first goes on to hold
        // the next write transaction.
        if let Ok(second) = crate::store::open_write(crate::store::DbKind::Home, &path) {
            let _ = second.checkpoint_passive();
        }
    });
    let next = begin(conn, db, writer, hasher, seen, last_id)?;
    Ok((next, checkpointer))
}

/// Appends the batch's new responses in file order under ids it numbers itself, and keeps their
/// keys for `usage_key` (added in one sorted pass by [`end`]). A response whose key hash was seen
/// (stored before, or earlier in this import) is skipped. Returns the responses stored and their
/// costs: the counting thread sums them (see `super::count`).
pub(super) fn insert(
    db: &Path,
    writer: &mut UsageWriter<'_>,
    rows: &mut BatchRows<'_>,
    state: &mut BulkState,
) -> Result<Stored, CostError> {
    let BulkState { seen, last_id, keys, .. } = state;
    let new: Vec<(usize, usize)> = rows
        .batch
        .iter()
        .enumerate()
        .flat_map(|(file, p)| p.grouped.rows.iter().enumerate().map(move |(i, k)| (file, i, k.hash)))
        .filter(|&(_, _, hash)| seen.insert(hash))
        .map(|(file, i, _)| (file, i))
        .collect();
    let mut costs = Vec::with_capacity(new.len());
    let mut count = 0u64;
    let rows_ref = &*rows;
    let stored = writer
        .insert_new(new.iter().map(|&(file, i)| {
            let row = rows_ref.row(file, i);
            *last_id += 1;
            keys.push(row.dedup_key, *last_id);
            costs.push(row.cost_usd);
            count += 1;
            (*last_id, row)
        }))
        .map_err(sq(db))?;
    if stored != count {
        return Err(CostError::Unusable(format!(
            "{}: stored {stored} of {count} new responses; this transaction of the import was rolled back",
            db.display()
        )));
    }
    Ok((new, costs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::usage::UsageRow;

    #[test]
    fn key_tails_are_sqlites_and_new_keys_sort_as_usage_key_does() {
        let keys = [
            "msg_01b6d1e29b6f68bbff53af00:req_011c2ce67ed4d57b1e2feb89",
            "msg_01b6d1e29b6f68bbff53af00:req_2",
            "msg_01b6d1e29b6f68bbff53af00:req_10",
            "req_10",
            "",
            "a",
            "Z",
            "/t/a.jsonl@120",
            "/t/b.jsonl@120",
            "msg_01b6d1e29b6f\u{0}x",
            "msg_01b6d1e29b6f68bbff53af00:req_0\u{0}11c2ce67ed4d57b1e2feb89",
            "\u{0}",
            "/home/é/sessiön-ü.jsonl@9",
            "/x/ééééééééééééééééé",
            "/y/ééééééééééééééééé",
            "8f2c5d3b9a1e4f60b7c2d9e8a1f3b5c7d9e0f1a2b3c4d5e6f708192a3b4c5d6e",
        ];
        let conn = crate::store::in_memory(crate::store::DbKind::Home).unwrap();
        conn.execute_batch("CREATE TABLE k (key TEXT, id INTEGER);").unwrap();
        let mut new = NewKeys::default();
        for (id, k) in keys.iter().enumerate().rev() {
            conn.execute("INSERT INTO k VALUES (?1, ?2)", rusqlite::params![k, id as i64])
                .unwrap();
            let tail: String = conn.query_row("SELECT substr(?1, -16)", [k], |r| r.get(0)).unwrap();
            assert_eq!(key_tail(k), tail, "{k}");
            new.push(k, id as i64);
        }
        let mut st = conn.prepare("SELECT substr(key, -16), id FROM k ORDER BY 1, 2").unwrap();
        let by_sqlite: Vec<(String, i64)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let ours: Vec<(String, i64)> = new.sorted().map(|(t, id)| (t.to_string(), id)).collect();
        assert_eq!(ours, by_sqlite);
    }

    #[test]
    fn the_second_bulk_transaction_counts_what_hooks_stored_after_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.db");
        let store = crate::store::open_write(crate::store::DbKind::Home, &db).unwrap();
        let conn = store.conn();
        let hasher = KeyHasher::default();
        let mut writer = UsageWriter::new(conn).unwrap();
        let row = |key| UsageRow::for_test(key, "2026-11-20T01:00:00.000Z");
        let mut state = begin(conn, &db, &writer, &hasher, SeenKeys::default(), i64::MIN).unwrap();
        assert_eq!(state.last_id, 0);
        for key in ["msg_a:req_a", "msg_b:req_b"] {
            assert!(state.seen.insert(hasher.hash(key)));
            state.last_id += 1;
            state.keys.push(key, state.last_id);
            writer.insert_new([(state.last_id, row(key))]).unwrap();
        }
        let (next, checkpointer) = commit_midway(conn, &db, &mut writer, &hasher, state, Tally::default()).unwrap();
        checkpointer.join().unwrap();
        // The first transaction is committed, its keys in `usage_key`, its triggers restored.
        let other_store = crate::store::open_write(crate::store::DbKind::Home, &db).unwrap();
        let other = other_store.conn();
        let keys: i64 = other.query_row("SELECT count(*) FROM usage_key", [], |r| r.get(0)).unwrap();
        assert_eq!(keys, 2);
        // The second began under the write lock, so a hook's row has to wait for it; its keys and
        // ids are those of the first.
        assert!(next.seen.contains(&hasher.hash("msg_b:req_b")));
        assert_eq!(next.last_id, 2);
        end(conn, &db, &mut writer, next, Tally::default()).unwrap();
        conn.execute_batch("COMMIT").unwrap();
        // A hook stores a response between two bulk transactions: the next one knows its key and
        // numbers its own rows after it.
        let hook_row = include_str!("../../../queries/home/cost/usage_insert.sql");
        other
            .execute(
                hook_row,
                rusqlite::params![
                    "msg_h:req_h",
                    "spool",
                    "p",
                    "/r",
                    "s",
                    "claude",
                    "2026-11-20T02:00:00.000Z",
                    "m",
                    1,
                    2,
                    3,
                    4,
                    0.1,
                    "x",
                    None::<String>,
                    0
                ],
            )
            .unwrap();
        let again = begin(conn, &db, &writer, &hasher, SeenKeys::default(), 2).unwrap();
        assert!(again.seen.contains(&hasher.hash("msg_h:req_h")));
        assert!(!again.seen.contains(&hasher.hash("msg_a:req_a")));
        assert_eq!(again.last_id, 3);
        drop(again);
        conn.execute_batch("ROLLBACK").unwrap();
        let integrity: String = other.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(integrity, "ok");
        let rows: i64 = other.query_row("SELECT count(*) FROM usage_key", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 3);
    }

    #[test]
    fn the_bulk_path_is_for_large_imports_into_a_small_table() {
        let min = super::super::Options::default().bulk_min_bytes;
        assert!(use_bulk_path(2_000_000_000, 0, min));
        assert!(use_bulk_path(2_000_000_000, 900_000, min));
        assert!(!use_bulk_path(2_000_000_000, 2_000_000, min));
        assert!(!use_bulk_path(10_000_000, 0, min));
        assert!(use_bulk_path(10_000_000, 0, 0));
    }
}
