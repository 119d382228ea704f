//! The row path: every import that does not take the bulk path. Each batch is a transaction of its
//! own, and each row goes through the insert's key lookup and the table's triggers, in
//! `usage_key`'s order (see [`in_index_order`]), so that the key trigger adds each batch by a sweep
//! over the table's pages rather than a random descent per row.

use super::batch::{BatchRows, Pending, Stored};
use super::{sq, CostError};
use crate::cost::usage::UsageWriter;
use std::path::Path;

/// Every record of the batch as (tail order, file, record index), in the index's order.
fn in_index_order(batch: &[Pending]) -> Vec<(u128, u32, u32)> {
    let mut order: Vec<(u128, u32, u32)> = batch
        .iter()
        .enumerate()
        .flat_map(|(file, p)| p.grouped.rows.iter().enumerate().map(move |(i, k)| (k.tail, file as u32, i as u32)))
        .collect();
    order.sort_unstable();
    order
}

/// Inserts the batch's responses; one already stored is left as it is (and not counted), except
/// that a `--rescan` gives it its 1-hour cache writes. Returns the responses stored and their
/// costs, for [`super::count::count`].
pub(super) fn insert(db: &Path, writer: &mut UsageWriter<'_>, rows: &mut BatchRows<'_>) -> Result<Stored, CostError> {
    let (mut stored, mut costs) = (Vec::new(), Vec::new());
    for &(_, file, i) in &in_index_order(rows.batch) {
        let (file, i) = (file as usize, i as usize);
        let row = rows.row(file, i);
        if writer.insert_unsummed(&row).map_err(sq(db))? {
            stored.push((file, i));
            costs.push(row.cost_usd);
        } else if rows.rescan && writer.refill(&row).map_err(sq(db))? {
            rows.refilled += 1;
        }
    }
    Ok((stored, costs))
}
