//! What passes between the import's stages: a file's scan waiting in a batch ([`Pending`]), the
//! batch's rows as they are priced and written ([`BatchRows`]), and what a bulk write stored
//! ([`Stored`]). The writer (`write.rs`) drives the stages; the stages use these and not it.

use super::scan::Grouped;
use super::PROVIDER;
use super::SOURCE;
use crate::cost::catalog::{CachedResolver, ResolvedPrice};
use crate::cost::transcript::UsageScan;
use crate::cost::usage::UsageRow;

/// One file's scan waiting in a batch.
pub(super) struct Pending {
    pub job_index: usize,
    pub start: u64,
    pub head_hash: String,
    pub scan: UsageScan,
    pub grouped: Grouped,
    pub project: String,
}

/// A batch's rows as they are written: each record with its price, and the counts of those stored.
pub(super) struct BatchRows<'b> {
    pub batch: &'b [Pending],
    /// Per file, the price of each of its models (`None`: unpriced).
    pub prices: Vec<Vec<Option<&'b ResolvedPrice>>>,
    /// Per file, rows stored.
    pub inserted: Vec<u64>,
    pub unpriced: u64,
    /// `--rescan`: stored rows are given their 1-hour writes ([`UsageWriter::refill`]).
    pub rescan: bool,
    pub refilled: u64,
}

impl<'b> BatchRows<'b> {
    pub(crate) fn new(batch: &'b [Pending], resolver: &'b CachedResolver<'_>, rescan: bool) -> BatchRows<'b> {
        BatchRows {
            batch,
            prices: batch
                .iter()
                .map(|p| p.grouped.models.iter().map(|m| resolver.resolved(m)).collect())
                .collect(),
            inserted: vec![0; batch.len()],
            unpriced: 0,
            rescan,
            refilled: 0,
        }
    }

    /// Record `i` of file `file`, priced.
    pub(crate) fn row(&self, file: usize, i: usize) -> UsageRow<'b> {
        let p = &self.batch[file];
        let r = &p.scan.records[i];
        let g = &p.grouped.sessions[p.grouped.rows[i].session as usize];
        let price = self.prices[file][g.model];
        let priced = price.map(|p| p.price_marked(&r.usage, r.inexact_output));
        UsageRow {
            dedup_key: &r.dedup_key,
            source: SOURCE,
            project: &p.project,
            repo_path: None,
            session_id: &g.session,
            provider: Some(PROVIDER),
            ts: &r.ts,
            model: &p.grouped.models[g.model],
            usage: r.usage,
            cost_usd: priced.map(|(usd, _)| usd),
            cost_source: crate::cost::rates::marked_source(priced.map(|(_, source)| source), r.inexact_output),
            cost_pool: price.and_then(|p| p.entry.pool.as_deref()),
        }
    }

    /// Counts what either path stored: rows per file, and those without a price.
    pub(crate) fn count_stored(&mut self, (stored, costs): &Stored) {
        for &(file, _) in stored {
            self.inserted[file] += 1;
        }
        self.unpriced += costs.iter().filter(|c| c.is_none()).count() as u64;
    }
}

/// The responses a bulk batch stored, as (file, record), and the cost of each.
pub(super) type Stored = (Vec<(usize, usize)>, Vec<Option<f64>>);
