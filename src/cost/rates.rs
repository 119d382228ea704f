//! Prices and the one cost function every path uses (import, hook, reports).
//!
//! Rates are USD per 1,000,000 tokens. A request whose prompt (input + cache read + cache write)
//! is over [`TIER_TOKENS`] is priced at the entry's `*_above_200k` rates, rate by rate, falling
//! back to the base rate where the entry has no above-tier rate (exactly as LiteLLM's catalog is
//! read by the transcript generator's `rate()`). A missing cache rate prices those tokens at 0.

use serde::Serialize;

/// The prompt size above which the `*_above_200k` rates apply.
pub const TIER_TOKENS: u64 = 200_000;

/// The rates of one model, USD per 1M tokens. Input and output are always known: an entry
/// without both is not a price.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Rates {
    pub input: f64,
    pub output: f64,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
    pub input_above_200k: Option<f64>,
    pub output_above_200k: Option<f64>,
    pub cache_read_above_200k: Option<f64>,
    pub cache_write_above_200k: Option<f64>,
}

/// One catalog entry as it is stored in a plane.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct PriceEntry {
    pub model_key: String,
    pub provider: Option<String>,
    pub display_name: Option<String>,
    pub rates: Rates,
    pub context_window: Option<i64>,
    /// Which allowance the model draws on where the provider says (for example Cursor's pools).
    pub pool: Option<String>,
    /// How the provider bills it where known (for example `usage`, `included`).
    pub billing: Option<String>,
}

/// The tokens of one API response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TokenUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl TokenUsage {
    /// Input plus cache read plus cache write: what decides the 200k tier.
    pub fn prompt(&self) -> u64 {
        self.input.saturating_add(self.cache_read).saturating_add(self.cache_write)
    }

    pub fn total(&self) -> u64 {
        self.prompt().saturating_add(self.output)
    }
}

/// The USD cost of `usage` at `rates`; `None` when the model has no price (never 0 for unknown).
pub fn cost(rates: Option<&Rates>, usage: &TokenUsage) -> Option<f64> {
    rates.map(|r| priced_cost(r, usage))
}

/// The USD cost of `usage` at `rates`.
pub fn priced_cost(r: &Rates, u: &TokenUsage) -> f64 {
    let above = u.prompt() > TIER_TOKENS;
    let pick = |base: Option<f64>, tier: Option<f64>| if above { tier.or(base) } else { base };
    let input = pick(Some(r.input), r.input_above_200k).unwrap_or(r.input);
    let output = pick(Some(r.output), r.output_above_200k).unwrap_or(r.output);
    let cache_read = pick(r.cache_read, r.cache_read_above_200k).unwrap_or(0.0);
    let cache_write = pick(r.cache_write, r.cache_write_above_200k).unwrap_or(0.0);
    (u.input as f64 * input + u.output as f64 * output + u.cache_read as f64 * cache_read + u.cache_write as f64 * cache_write)
        / 1_000_000.0
}

/// A per-token price as USD per 1M tokens, rounded to 12 significant digits so that the float
/// noise of the multiplication (3e-06 * 1e6 = 2.9999999999999996) does not show. The snapshot
/// generator (`tools/gen-price-snapshot.py`) rounds the same way, so both yield identical floats.
pub fn per_million(per_token: f64) -> f64 {
    round_significant(per_token * 1_000_000.0)
}

fn round_significant(v: f64) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    format!("{v:.11e}").parse().unwrap_or(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sonnet() -> Rates {
        Rates {
            input: 3.0,
            output: 15.0,
            cache_read: Some(0.3),
            cache_write: Some(3.75),
            ..Rates::default()
        }
    }

    fn gemini() -> Rates {
        Rates {
            input: 1.25,
            output: 10.0,
            cache_read: Some(0.125),
            cache_write: None,
            input_above_200k: Some(2.5),
            output_above_200k: Some(15.0),
            cache_read_above_200k: Some(0.25),
            cache_write_above_200k: Some(0.25),
        }
    }

    #[test]
    fn base_rates_times_tokens() {
        let u = TokenUsage {
            input: 1000,
            output: 2000,
            cache_read: 10_000,
            cache_write: 4000,
        };
        let c = priced_cost(&sonnet(), &u);
        let want = (1000.0 * 3.0 + 2000.0 * 15.0 + 10_000.0 * 0.3 + 4000.0 * 3.75) / 1e6;
        assert!((c - want).abs() < 1e-15, "{c} {want}");
    }

    #[test]
    fn the_tier_applies_to_the_whole_request_above_200k_prompt_tokens() {
        let at = TokenUsage {
            input: 0,
            output: 100,
            cache_read: 200_000,
            cache_write: 0,
        };
        let over = TokenUsage {
            input: 1,
            output: 100,
            cache_read: 200_000,
            cache_write: 0,
        };
        let g = gemini();
        assert!((priced_cost(&g, &at) - (100.0 * 10.0 + 200_000.0 * 0.125) / 1e6).abs() < 1e-15);
        assert!((priced_cost(&g, &over) - (2.5 + 100.0 * 15.0 + 200_000.0 * 0.25) / 1e6).abs() < 1e-15);
        // Cache write has no base rate but has an above-tier rate: 0 below, the tier rate above.
        let cw = TokenUsage {
            input: 0,
            output: 0,
            cache_read: 0,
            cache_write: 1000,
        };
        assert_eq!(priced_cost(&g, &cw), 0.0);
        let cw_over = TokenUsage {
            input: 0,
            output: 0,
            cache_read: 200_000,
            cache_write: 1000,
        };
        assert!((priced_cost(&g, &cw_over) - (200_000.0 * 0.25 + 1000.0 * 0.25) / 1e6).abs() < 1e-15);
    }

    #[test]
    fn without_above_rates_the_base_rate_holds_past_the_tier() {
        let u = TokenUsage {
            input: 10,
            output: 10,
            cache_read: 250_000,
            cache_write: 10,
        };
        let want = (10.0 * 3.0 + 10.0 * 15.0 + 250_000.0 * 0.3 + 10.0 * 3.75) / 1e6;
        assert!((priced_cost(&sonnet(), &u) - want).abs() < 1e-15);
    }

    #[test]
    fn a_missing_cache_rate_is_zero_and_an_unknown_model_is_none() {
        let r = Rates {
            input: 1.0,
            output: 2.0,
            ..Rates::default()
        };
        let u = TokenUsage {
            input: 1_000_000,
            output: 1_000_000,
            cache_read: 5_000_000,
            cache_write: 7_000_000,
        };
        assert_eq!(priced_cost(&r, &u), 3.0);
        assert_eq!(cost(None, &u), None);
        assert_eq!(cost(Some(&r), &TokenUsage::default()), Some(0.0));
    }

    #[test]
    fn per_token_prices_become_clean_per_million_prices() {
        assert_eq!(per_million(3e-06), 3.0);
        assert_eq!(per_million(3.75e-06), 3.75);
        assert_eq!(per_million(1.25e-07), 0.125);
        assert_eq!(per_million(0.0), 0.0);
    }
}
