//! The compiled-in snapshot of LiteLLM chat-model prices (`litellm-snapshot.tsv`, written by
//! `tools/gen-price-snapshot.py`): the litellm plane of a machine that never refreshed, so that a
//! lookup answers offline from the first run without creating any file.

use super::rates::{PriceEntry, Rates};
use std::sync::OnceLock;

const SNAPSHOT: &str = include_str!("litellm-snapshot.tsv");

/// Where the snapshot came from, as `prices status` shows it.
pub(crate) const SOURCE: &str = "built-in snapshot (litellm-model-prices.json, chat models)";

fn field(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

fn rate(s: &str) -> Option<f64> {
    field(s).and_then(|v| v.parse().ok())
}

/// Parses one snapshot row; `None` for a comment or a row that does not fit the columns.
fn parse_row(line: &str) -> Option<PriceEntry> {
    if line.starts_with('#') || line.is_empty() {
        return None;
    }
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 13 {
        return None;
    }
    Some(PriceEntry {
        model_key: f[0].to_string(),
        provider: field(f[1]).map(str::to_string),
        display_name: None,
        context_window: field(f[2]).and_then(|v| v.parse().ok()),
        rates: Rates {
            input: rate(f[3])?,
            output: rate(f[4])?,
            cache_read: rate(f[5]),
            cache_write: rate(f[6]),
            input_above_200k: rate(f[7]),
            output_above_200k: rate(f[8]),
            cache_read_above_200k: rate(f[9]),
            cache_write_above_200k: rate(f[10]),
            cache_write_1h: rate(f[11]),
            cache_write_1h_above_200k: rate(f[12]),
        },
        pool: None,
        billing: None,
    })
}

/// Every snapshot entry, sorted by model key.
pub(crate) fn entries() -> &'static [PriceEntry] {
    static ENTRIES: OnceLock<Vec<PriceEntry>> = OnceLock::new();
    ENTRIES.get_or_init(|| SNAPSHOT.lines().filter_map(parse_row).collect())
}

/// The snapshot entry for exactly `model_key`. A lookup searches the text for the one row rather
/// than parsing all of them: `prices lookup` on a fresh home pays microseconds, not milliseconds.
pub(crate) fn get(model_key: &str) -> Option<PriceEntry> {
    if model_key.is_empty() || model_key.contains(['\t', '\n']) {
        return None;
    }
    let needle = format!("\n{model_key}\t");
    let at = memchr::memmem::find(SNAPSHOT.as_bytes(), needle.as_bytes())? + 1;
    let end = SNAPSHOT[at..].find('\n').map_or(SNAPSHOT.len(), |e| at + e);
    parse_row(&SNAPSHOT[at..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::parse::parse_litellm;

    #[test]
    fn every_snapshot_row_equals_what_the_refresh_parser_yields_from_the_fixture() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/prices/litellm-model-prices.json");
        let bytes = std::fs::read(path).unwrap();
        let parsed: Vec<PriceEntry> = parse_litellm(&bytes)
            .unwrap()
            .entries
            .into_iter()
            .filter(|e| e.mode.as_deref() == Some("chat"))
            .map(|e| e.entry)
            .collect();
        let snap = entries();
        assert_eq!(
            SNAPSHOT.lines().filter(|l| !l.starts_with('#')).count(),
            snap.len(),
            "a snapshot row failed to parse"
        );
        assert_eq!(snap.len(), parsed.len());
        for (s, p) in snap.iter().zip(&parsed) {
            assert_eq!(
                s, p,
                "snapshot row {} differs from the parser's; run tools/gen-price-snapshot.py",
                s.model_key
            );
        }
        assert!(snap.len() > 3000);
        for e in snap {
            assert_eq!(get(&e.model_key).as_ref(), Some(e), "get({}) finds its row", e.model_key);
        }
    }

    #[test]
    fn lookup_by_key() {
        let e = get("claude-sonnet-4-5").unwrap();
        assert_eq!(e.rates.input, 3.0);
        assert_eq!(e.rates.output, 15.0);
        assert!(get("acme-unlisted-model-1").is_none());
    }
}
