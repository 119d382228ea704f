//! Prices and cost: the price catalog (planes in the home database, the compiled-in LiteLLM
//! snapshot, resolution and normalisation), the one cost function, the transcript usage scanner,
//! the transcript import and the cost reports.
//!
//! For the hook path: [`PriceCatalog::new`] over the home database opened with
//! `store::open_read` (creates nothing; without one the snapshot answers),
//! [`PriceCatalog::resolve`], [`cost`] and [`scan_usage`].

pub mod anthropic;
mod borrowed_insert;
pub mod catalog;
mod error;
pub mod fetch;
pub mod import;
pub mod normalize;
pub mod parse;
mod plain_line;
pub mod rates;
pub mod report;
pub mod snapshot;
pub mod statusline;
pub mod transcript;
pub mod usage;

pub use catalog::{CachedResolver, CostError, PriceCatalog, ResolvedPrice};
pub use rates::{cost, price, PriceEntry, PricedCost, Rates, TokenUsage};
pub use transcript::{scan_usage, UsageRecord, UsageScan};
