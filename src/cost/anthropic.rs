//! The built-in `anthropic` plane: Anthropic's published prices (`anthropic-prices.toml`, with its
//! source and date), compiled in like the LiteLLM snapshot. It answers for the plane while no
//! refresh has stored one (`tlc prices refresh anthropic --from FILE|URL`), and only for names as
//! Anthropic's own API writes them ([`applies_to`]): a Bedrock or Vertex name keeps its own
//! catalog entry, priced as that platform bills it.

use super::parse::{parse_plane, PlaneFormat};
use super::rates::PriceEntry;
use std::sync::OnceLock;

/// The plane's name.
pub(crate) const PLANE: &str = "anthropic";

const PRICES: &str = include_str!("anthropic-prices.toml");

/// Where the built-in entries came from, as `prices status` shows it.
pub(crate) const SOURCE: &str =
    "built-in list (Anthropic's pricing page, platform.claude.com/docs/en/about-claude/pricing, retrieved 2026-11-30)";

/// Every built-in entry, sorted by model key. The file is checked by a unit test, so a parse
/// error here cannot ship; should it happen, the plane is empty rather than the process failing.
pub(crate) fn entries() -> &'static [PriceEntry] {
    static ENTRIES: OnceLock<Vec<PriceEntry>> = OnceLock::new();
    ENTRIES.get_or_init(|| parse_plane(PRICES, PlaneFormat::Toml).unwrap_or_default())
}

/// The built-in entry for exactly `model_key`.
pub(crate) fn get(model_key: &str) -> Option<PriceEntry> {
    entries().iter().find(|e| e.model_key == model_key).cloned()
}

/// Whether `model` is a name the Anthropic API bills: no routing path other than `anthropic/`,
/// no Bedrock region or vendor prefix, no Vertex `@` version, no Bedrock `:` version.
pub(crate) fn applies_to(model: &str) -> bool {
    let name = model.strip_prefix("anthropic/").unwrap_or(model);
    !name.is_empty() && !name.contains(['/', '@', '.', ':'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::rates::{price, TokenUsage};

    #[test]
    fn the_built_in_list_parses_and_carries_both_cache_write_rates_for_every_model() {
        let parsed = parse_plane(PRICES, PlaneFormat::Toml).unwrap();
        assert!(parsed.len() >= 20, "{}", parsed.len());
        assert_eq!(entries().len(), parsed.len());
        for e in entries() {
            let r = e.rates;
            let (five, one) = (r.cache_write.unwrap(), r.cache_write_1h.unwrap());
            // The page's multipliers: 5-minute writes 1.25x input, 1-hour writes 2x; Claude Haiku 3's
            // 5-minute write is published as $0.30 (not 1.25 x $0.25).
            let five_want = if e.model_key == "claude-3-haiku" { 0.3 } else { r.input * 1.25 };
            assert!((five - five_want).abs() < 1e-9, "{}", e.model_key);
            assert!((one - r.input * 2.0).abs() < 1e-9, "{}", e.model_key);
            assert_eq!(e.provider.as_deref(), Some("anthropic"));
        }
    }

    #[test]
    fn sonnet_4_and_4_5_have_the_long_context_tier_and_4_6_does_not() {
        for key in ["claude-sonnet-4-5", "claude-sonnet-4", "claude-sonnet-4-0"] {
            let r = get(key).unwrap().rates;
            assert_eq!(
                (r.input_above_200k, r.output_above_200k, r.cache_read_above_200k),
                (Some(6.0), Some(22.5), Some(0.6)),
                "{key}"
            );
            assert_eq!((r.cache_write_above_200k, r.cache_write_1h_above_200k), (Some(7.5), Some(12.0)));
        }
        for key in ["claude-sonnet-4-6", "claude-opus-4-6", "claude-opus-4-5", "claude-sonnet-5"] {
            assert_eq!(get(key).unwrap().rates.input_above_200k, None, "{key}");
        }
        // A 250k prompt on Sonnet 4.5 is billed entirely at the long-context rates.
        let u = TokenUsage {
            input: 1000,
            output: 2000,
            cache_read: 240_000,
            cache_write: 10_000,
            cache_write_1h: 7_000,
        };
        let want = (1000.0 * 6.0 + 2000.0 * 22.5 + 240_000.0 * 0.6 + 3000.0 * 7.5 + 7000.0 * 12.0) / 1e6;
        assert!((price(&get("claude-sonnet-4-5").unwrap().rates, &u).usd - want).abs() < 1e-12);
    }

    #[test]
    fn only_names_of_anthropics_own_api_are_priced_here() {
        assert!(applies_to("claude-sonnet-4-5-20250929"));
        assert!(applies_to("anthropic/claude-sonnet-4-5"));
        assert!(!applies_to("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"));
        assert!(!applies_to("us.anthropic.claude-sonnet-4-5-20250929-v1:0"));
        assert!(!applies_to("claude-opus-4-5@20251101"));
        assert!(!applies_to("vertex_ai/claude-opus-4-5"));
        assert!(!applies_to(""));
    }
}
