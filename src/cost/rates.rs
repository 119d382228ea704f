//! Prices and the one cost function every path uses (import, hook, reports).
//!
//! Rates are USD per 1,000,000 tokens. A request whose prompt (input + cache read + cache write)
//! is over [`TIER_TOKENS`] is priced at the entry's `*_above_200k` rates, rate by rate, falling
//! back to the base rate where the entry has no above-tier rate (exactly as LiteLLM's catalog is
//! read by the transcript generator's `rate()`). A missing cache rate prices those tokens at 0,
//! except the 1-hour cache write: without a 1-hour rate those tokens cost twice the input rate
//! that applies (Anthropic's published rule: 1-hour writes are 2x the base input price), and
//! [`PricedCost::one_hour_fallback`] says so, so that the stored `cost_source` can mark it.

use serde::Serialize;

/// The prompt size above which the `*_above_200k` rates apply.
pub(crate) const TIER_TOKENS: u64 = 200_000;

/// The rates of one model, USD per 1M tokens. Input and output are always known: an entry
/// without both is not a price.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub(crate) struct Rates {
    pub input: f64,
    pub output: f64,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
    pub input_above_200k: Option<f64>,
    pub output_above_200k: Option<f64>,
    pub cache_read_above_200k: Option<f64>,
    pub cache_write_above_200k: Option<f64>,
    /// The 1-hour cache write (`cache_write` is the 5-minute one).
    pub cache_write_1h: Option<f64>,
    pub cache_write_1h_above_200k: Option<f64>,
}

/// What the rate of a 1-hour cache write is when an entry has none: this many times the input
/// rate that applies to the request.
pub(crate) const ONE_HOUR_WRITE_PER_INPUT: f64 = 2.0;

/// One catalog entry as it is stored in a plane.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub(crate) struct PriceEntry {
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
pub(crate) struct TokenUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    /// Every cache write, 5-minute and 1-hour alike.
    pub cache_write: u64,
    /// The part of `cache_write` written with the 1-hour TTL (never more than `cache_write`); the
    /// rest is 5-minute. Responses recorded before the split was kept have 0 here.
    pub cache_write_1h: u64,
}

impl TokenUsage {
    /// Input plus cache read plus cache write: what decides the 200k tier.
    pub(crate) fn prompt(&self) -> u64 {
        self.input.saturating_add(self.cache_read).saturating_add(self.cache_write)
    }

    /// The 5-minute cache writes: all writes less the 1-hour ones.
    pub(crate) fn cache_write_5m(&self) -> u64 {
        self.cache_write.saturating_sub(self.cache_write_1h)
    }
}

/// A response's cost and how its 1-hour writes were priced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PricedCost {
    pub usd: f64,
    /// True when the response had 1-hour cache writes and the entry no 1-hour rate, so they were
    /// priced at [`ONE_HOUR_WRITE_PER_INPUT`] times the input rate.
    pub one_hour_fallback: bool,
}

/// The USD cost of `usage` at `rates`; `None` when the model has no price (never 0 for unknown).
#[cfg(test)]
pub(crate) fn cost(rates: Option<&Rates>, usage: &TokenUsage) -> Option<f64> {
    rates.map(|r| priced_cost(r, usage))
}

/// The USD cost of `usage` at `rates`.
#[cfg(test)]
pub(crate) fn priced_cost(r: &Rates, u: &TokenUsage) -> f64 {
    price(r, u).usd
}

/// The USD cost of `usage` at `rates`, each part at its own rate: input, output, cache read,
/// 5-minute and 1-hour cache writes. A prompt over [`TIER_TOKENS`] bills the whole request at
/// the above-tier rates (not only the tokens past the threshold).
pub(crate) fn price(r: &Rates, u: &TokenUsage) -> PricedCost {
    let above = u.prompt() > TIER_TOKENS;
    let pick = |base: Option<f64>, tier: Option<f64>| if above { tier.or(base) } else { base };
    let input = pick(Some(r.input), r.input_above_200k).unwrap_or(r.input);
    let output = pick(Some(r.output), r.output_above_200k).unwrap_or(r.output);
    let cache_read = pick(r.cache_read, r.cache_read_above_200k).unwrap_or(0.0);
    let cache_write = pick(r.cache_write, r.cache_write_above_200k).unwrap_or(0.0);
    let one_hour = pick(r.cache_write_1h, r.cache_write_1h_above_200k);
    let one_hour_fallback = one_hour.is_none() && u.cache_write_1h > 0;
    let cache_write_1h = one_hour.unwrap_or(input * ONE_HOUR_WRITE_PER_INPUT);
    let usd = (u.input as f64 * input
        + u.output as f64 * output
        + u.cache_read as f64 * cache_read
        + u.cache_write_5m() as f64 * cache_write
        + u.cache_write_1h.min(u.cache_write) as f64 * cache_write_1h)
        / 1_000_000.0;
    PricedCost { usd, one_hour_fallback }
}

/// The suffix a `cost_source` carries when the 1-hour writes were priced by the fallback rule.
pub(crate) const ONE_HOUR_FALLBACK_MARK: &str = "+1h=2x-input";

/// The suffix a `cost_source` carries when the response's output tokens are not its final count:
/// its subagent transcript line was written before the response ended (`isSidechain` true,
/// `stop_reason` null), as Claude Code 2.1.197 writes a subagent's lines. It follows
/// [`ONE_HOUR_FALLBACK_MARK`] when both apply; an unpriced response's `cost_source` is the mark
/// alone. `tlc obs cost` counts such responses.
pub(crate) const INEXACT_OUTPUT_MARK: &str = "+inexact-output";

/// Why [`INEXACT_OUTPUT_MARK`]'s responses are inexact, as `tlc obs cost` says it.
pub(crate) const INEXACT_OUTPUT_WHY: &str = "their transcript lines were written before the response ended (stop_reason null), as Claude Code 2.1.197 writes a subagent's transcript, and hold the stream's first output count, not the final one";

/// The `cost_source` to store: `source` as pricing gave it (already marked,
/// `ResolvedPrice::price_marked`), or — for an unpriced response (`None`) whose output count is
/// inexact — the mark alone, so that every such response can be found.
pub(crate) fn marked_source(source: Option<&str>, inexact: bool) -> Option<&str> {
    match (source, inexact) {
        (None, true) => Some(INEXACT_OUTPUT_MARK),
        (s, _) => s,
    }
}

/// A per-token price as USD per 1M tokens, rounded to 12 significant digits so that the float
/// noise of the multiplication (3e-06 * 1e6 = 2.9999999999999996) does not show. The snapshot
/// generator (`tools/gen-price-snapshot.py`) rounds the same way, so both yield identical floats.
pub(crate) fn per_million(per_token: f64) -> f64 {
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
            ..Rates::default()
        }
    }

    fn sonnet_4_5_published() -> Rates {
        Rates {
            input: 3.0,
            output: 15.0,
            cache_read: Some(0.3),
            cache_write: Some(3.75),
            cache_write_1h: Some(6.0),
            input_above_200k: Some(6.0),
            output_above_200k: Some(22.5),
            cache_read_above_200k: Some(0.6),
            cache_write_above_200k: Some(7.5),
            cache_write_1h_above_200k: Some(12.0),
        }
    }

    #[test]
    fn each_part_at_its_rate_five_minute_and_one_hour_writes_apart() {
        let u = TokenUsage {
            input: 10,
            output: 1000,
            cache_read: 50_000,
            cache_write: 10_000,
            cache_write_1h: 7_000,
        };
        let p = price(&sonnet_4_5_published(), &u);
        let want = (10.0 * 3.0 + 1000.0 * 15.0 + 50_000.0 * 0.3 + 3_000.0 * 3.75 + 7_000.0 * 6.0) / 1e6;
        assert!((p.usd - want).abs() < 1e-15, "{} {want}", p.usd);
        assert!(!p.one_hour_fallback);
        // Over 200k prompt tokens the whole request takes the long-context rates.
        let big = TokenUsage { cache_read: 195_000, ..u };
        let p = price(&sonnet_4_5_published(), &big);
        let want = (10.0 * 6.0 + 1000.0 * 22.5 + 195_000.0 * 0.6 + 3_000.0 * 7.5 + 7_000.0 * 12.0) / 1e6;
        assert!((p.usd - want).abs() < 1e-15, "{} {want}", p.usd);
    }

    #[test]
    fn without_a_one_hour_rate_one_hour_writes_cost_twice_the_input_rate_and_say_so() {
        let u = TokenUsage {
            input: 0,
            output: 0,
            cache_read: 0,
            cache_write: 1_000_000,
            cache_write_1h: 400_000,
        };
        let p = price(&sonnet(), &u);
        assert!((p.usd - (600_000.0 * 3.75 + 400_000.0 * 6.0) / 1e6).abs() < 1e-12, "{}", p.usd);
        assert!(p.one_hour_fallback);
        // No 1-hour tokens: nothing was priced by the rule.
        assert!(!price(&sonnet(), &TokenUsage { cache_write_1h: 0, ..u }).one_hour_fallback);
        // Above the tier the rule doubles the tier's input rate.
        let over = TokenUsage { cache_read: 300_000, ..u };
        let g = gemini();
        let p = price(&g, &over);
        let want = (300_000.0 * 0.25 + 600_000.0 * 0.25 + 400_000.0 * 2.5 * 2.0) / 1e6;
        assert!((p.usd - want).abs() < 1e-12, "{} {want}", p.usd);
    }

    #[test]
    fn base_rates_times_tokens() {
        let u = TokenUsage {
            input: 1000,
            output: 2000,
            cache_read: 10_000,
            cache_write: 4000,
            cache_write_1h: 0,
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
            cache_write_1h: 0,
        };
        let over = TokenUsage {
            input: 1,
            output: 100,
            cache_read: 200_000,
            cache_write: 0,
            cache_write_1h: 0,
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
            cache_write_1h: 0,
        };
        assert_eq!(priced_cost(&g, &cw), 0.0);
        let cw_over = TokenUsage {
            input: 0,
            output: 0,
            cache_read: 200_000,
            cache_write: 1000,
            cache_write_1h: 0,
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
            cache_write_1h: 0,
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
            cache_write_1h: 0,
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
