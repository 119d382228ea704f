//! Prices and cost: the price catalog (planes in the home database, the compiled-in LiteLLM
//! snapshot, resolution and normalisation), the one cost function, the transcript usage scanner,
//! the transcript import and the cost reports.
//!
//! For the hook path: [`PriceCatalog::new`] over the home database opened with
//! `store::open_read` (creates nothing; without one the snapshot answers),
//! [`PriceCatalog::resolve`], [`cost`] and [`scan_usage`].

pub(crate) mod anthropic;
mod borrowed_insert;
pub mod catalog;
mod error;
pub(crate) mod fetch;
pub mod import;
pub(crate) mod normalize;
pub(crate) mod parse;
mod plain_line;
pub(crate) mod rates;
pub(crate) mod report;
pub(crate) mod snapshot;
pub(crate) mod statusline;
pub(crate) mod transcript;
pub(crate) mod usage;

pub(crate) use catalog::{CachedResolver, CostError, PriceCatalog};
pub(crate) use rates::{PriceEntry, TokenUsage};
pub(crate) use transcript::scan_usage;
