//! Retention: `tlc obs prune` drops records older than `obs.retentionDays` from the project
//! database and the spool, and reclaims the space.

use crate::store::queries::home::spool as hq;
use crate::store::queries::project::obs as q;
use rusqlite::Connection;

/// Rows dropped (or that would be dropped) per table.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct PruneCounts {
    pub table: &'static str,
    pub rows: i64,
}

/// The tables a project prune drops rows from, in the order of `prune_count.sql`'s columns.
const COUNTED_TABLES: [&str; 7] = [
    "events",
    "decisions",
    "sessions",
    "gate_runs",
    "ship_ledger",
    "open_spans",
    "policy_baselines",
];

/// Counts what a prune at `cutoff` (a stamp) would drop from the project database.
pub fn count_project(conn: &Connection, cutoff: &str) -> rusqlite::Result<Vec<PruneCounts>> {
    conn.query_row(q::PRUNE_COUNT, [cutoff], |r| {
        COUNTED_TABLES
            .iter()
            .enumerate()
            .map(|(i, &table)| Ok(PruneCounts { table, rows: r.get(i)? }))
            .collect()
    })
}

/// Drops every project record older than `cutoff` in one transaction, then reclaims the space.
pub fn prune_project(conn: &mut Connection, cutoff: &str) -> rusqlite::Result<Vec<PruneCounts>> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let mut out = Vec::new();
    for (table, sql) in [
        ("decisions", q::PRUNE_DECISIONS),
        ("events", q::PRUNE_EVENTS),
        ("sessions", q::PRUNE_SESSIONS),
        ("gate_runs", q::PRUNE_GATE_RUNS),
        ("ship_ledger", q::PRUNE_SHIP_LEDGER),
        ("open_spans", q::PRUNE_OPEN_SPANS),
        ("policy_baselines", q::PRUNE_BASELINES),
    ] {
        let rows = tx.execute(sql, [cutoff])? as i64;
        out.push(PruneCounts { table, rows });
    }
    tx.commit()?;
    if out.iter().any(|c| c.rows > 0) {
        conn.execute_batch("VACUUM")?;
    }
    Ok(out)
}

/// Counts the spool rows older than `cutoff`.
pub fn count_spool(conn: &Connection, cutoff: &str) -> rusqlite::Result<i64> {
    conn.query_row(hq::PRUNE_COUNT, [cutoff], |r| r.get(0))
}

/// Drops spool rows older than `cutoff` and reclaims the space.
pub fn prune_spool(conn: &mut Connection, cutoff: &str) -> rusqlite::Result<i64> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let n = tx.execute(hq::PRUNE, [cutoff])? as i64;
    if n > 0 {
        // The per-session sums cannot be taken back row by row (first and last times): rebuilt.
        tx.execute(hq::ROLLUP_CLEAR, [])?;
        tx.execute(hq::ROLLUP_REBUILD, [])?;
    }
    tx.commit()?;
    if n > 0 {
        conn.execute_batch("VACUUM")?;
    }
    Ok(n)
}
