//! Reading price sources: the LiteLLM catalog, and the plane form (TOML or JSON) that provider
//! planes and the operator's `model-prices.local.toml` use.
//!
//! LiteLLM: one object per model key; `sample_spec` is documentation, not a model; an entry is a
//! price only when it has both `input_cost_per_token` and `output_cost_per_token`. Per-token prices
//! become per-1M prices; `max_input_tokens` is the context window.
//!
//! The plane form (documented in docs/prices.md):
//!
//! ```toml
//! [models."claude-sonnet-4-5"]
//! input = 3.0            # USD per 1M tokens (required)
//! output = 15.0          # required
//! cache_read = 0.3
//! cache_write = 3.75     # the 5-minute cache write
//! cache_write_1h = 6.0   # the 1-hour cache write
//! input_above_200k = 6.0 # and output_/cache_read_/cache_write_/cache_write_1h_above_200k
//! context_window = 200000
//! display_name = "Claude Sonnet 4.5"
//! provider = "anthropic"
//! pool = "api"
//! billing = "usage"
//! ```
//!
//! The JSON form is the same document as JSON: `{"models": {"claude-sonnet-4-5": {"input": 3.0, …}}}`.

use super::rates::{per_million, PriceEntry, Rates};
use serde::Deserialize;
use std::collections::BTreeMap;

/// One parsed LiteLLM entry and its `mode` (the snapshot keeps `chat` entries only).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LiteLlmEntry {
    pub entry: PriceEntry,
    pub mode: Option<String>,
}

/// What a LiteLLM catalog yielded.
#[derive(Debug, Default)]
pub(crate) struct LiteLlmCatalog {
    pub entries: Vec<LiteLlmEntry>,
    /// Keys that were not a price (no input or output cost, or not an object).
    pub skipped: usize,
}

fn number(v: Option<&serde_json::Value>) -> Option<f64> {
    match v? {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn text(v: Option<&serde_json::Value>) -> Option<String> {
    v.and_then(|v| v.as_str()).map(str::to_string)
}

/// Why a price source could not be read. The caller names the file or URL.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ParseError {
    #[error("not a LiteLLM price catalog (a JSON object of models): {0}")]
    NotLiteLlm(serde_json::Error),
    #[error(transparent)]
    Toml(#[from] toml::de::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error("not UTF-8 text: {0}")]
    NotText(std::str::Utf8Error),
    #[error("model {model:?}: a price needs both `input` and `output` (USD per 1M tokens)")]
    MissingPrice { model: String },
    #[error("model {model:?}: prices must be finite and not negative")]
    BadPrice { model: String },
}

/// Parses the LiteLLM `model_prices_and_context_window.json` format.
pub(crate) fn parse_litellm(bytes: &[u8]) -> Result<LiteLlmCatalog, ParseError> {
    let doc: BTreeMap<String, serde_json::Value> = serde_json::from_slice(bytes).map_err(ParseError::NotLiteLlm)?;
    let mut out = LiteLlmCatalog::default();
    for (key, v) in &doc {
        if key == "sample_spec" {
            continue;
        }
        let Some(obj) = v.as_object() else {
            out.skipped += 1;
            continue;
        };
        let (Some(input), Some(output)) = (number(obj.get("input_cost_per_token")), number(obj.get("output_cost_per_token"))) else {
            out.skipped += 1;
            continue;
        };
        let per = |k: &str| number(obj.get(k)).map(per_million);
        let rates = Rates {
            input: per_million(input),
            output: per_million(output),
            cache_read: per("cache_read_input_token_cost"),
            cache_write: per("cache_creation_input_token_cost"),
            input_above_200k: per("input_cost_per_token_above_200k_tokens"),
            output_above_200k: per("output_cost_per_token_above_200k_tokens"),
            cache_read_above_200k: per("cache_read_input_token_cost_above_200k_tokens"),
            cache_write_above_200k: per("cache_creation_input_token_cost_above_200k_tokens"),
            cache_write_1h: per("cache_creation_input_token_cost_above_1hr"),
            cache_write_1h_above_200k: per("cache_creation_input_token_cost_above_1hr_above_200k_tokens"),
        };
        let context_window = number(obj.get("max_input_tokens"))
            .filter(|w| *w >= 1.0 && w.fract() == 0.0)
            .map(|w| w as i64);
        out.entries.push(LiteLlmEntry {
            entry: PriceEntry {
                model_key: key.clone(),
                provider: text(obj.get("litellm_provider")),
                display_name: None,
                rates,
                context_window,
                pool: None,
                billing: None,
            },
            mode: text(obj.get("mode")),
        });
    }
    Ok(out)
}

/// One model in the plane form.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlaneModel {
    input: Option<f64>,
    output: Option<f64>,
    cache_read: Option<f64>,
    cache_write: Option<f64>,
    input_above_200k: Option<f64>,
    output_above_200k: Option<f64>,
    cache_read_above_200k: Option<f64>,
    cache_write_above_200k: Option<f64>,
    cache_write_1h: Option<f64>,
    cache_write_1h_above_200k: Option<f64>,
    context_window: Option<i64>,
    display_name: Option<String>,
    provider: Option<String>,
    pool: Option<String>,
    billing: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlaneDoc {
    #[serde(default)]
    models: BTreeMap<String, PlaneModel>,
}

/// Which text form a plane file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PlaneFormat {
    Toml,
    Json,
}

/// Parses the plane form; every entry must have `input` and `output` (the error names the model).
pub(crate) fn parse_plane(text: &str, format: PlaneFormat) -> Result<Vec<PriceEntry>, ParseError> {
    let doc: PlaneDoc = match format {
        PlaneFormat::Toml => toml::from_str(text)?,
        PlaneFormat::Json => serde_json::from_str(text)?,
    };
    let mut out = Vec::with_capacity(doc.models.len());
    for (key, m) in doc.models {
        let (Some(input), Some(output)) = (m.input, m.output) else {
            return Err(ParseError::MissingPrice { model: key });
        };
        let rates = Rates {
            input,
            output,
            cache_read: m.cache_read,
            cache_write: m.cache_write,
            input_above_200k: m.input_above_200k,
            output_above_200k: m.output_above_200k,
            cache_read_above_200k: m.cache_read_above_200k,
            cache_write_above_200k: m.cache_write_above_200k,
            cache_write_1h: m.cache_write_1h,
            cache_write_1h_above_200k: m.cache_write_1h_above_200k,
        };
        let all = [
            Some(input),
            Some(output),
            m.cache_read,
            m.cache_write,
            m.input_above_200k,
            m.output_above_200k,
            m.cache_read_above_200k,
            m.cache_write_above_200k,
            m.cache_write_1h,
            m.cache_write_1h_above_200k,
        ];
        if all.iter().flatten().any(|v| !v.is_finite() || *v < 0.0) {
            return Err(ParseError::BadPrice { model: key });
        }
        out.push(PriceEntry {
            model_key: key,
            provider: m.provider,
            display_name: m.display_name,
            rates,
            context_window: m.context_window,
            pool: m.pool,
            billing: m.billing,
        });
    }
    Ok(out)
}

/// What a source file or download is, judged from its name and its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceFormat {
    LiteLlm,
    Plane(PlaneFormat),
}

/// Guesses the form of `bytes`: TOML by extension or when it does not start with `{`; JSON with a
/// top-level `models` object is the plane form; any other JSON object is LiteLLM's.
pub(crate) fn sniff(name: &str, bytes: &[u8]) -> SourceFormat {
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    if name.ends_with(".toml") || first != Some(b'{') {
        return SourceFormat::Plane(PlaneFormat::Toml);
    }
    let is_plane =
        serde_json::from_slice::<BTreeMap<String, serde::de::IgnoredAny>>(bytes).is_ok_and(|m| m.len() == 1 && m.contains_key("models"));
    if is_plane {
        SourceFormat::Plane(PlaneFormat::Json)
    } else {
        SourceFormat::LiteLlm
    }
}

/// Parses any accepted source into entries.
pub(crate) fn parse_source(name: &str, bytes: &[u8]) -> Result<Vec<PriceEntry>, ParseError> {
    match sniff(name, bytes) {
        SourceFormat::LiteLlm => Ok(parse_litellm(bytes)?.entries.into_iter().map(|e| e.entry).collect()),
        SourceFormat::Plane(f) => {
            let text = std::str::from_utf8(bytes).map_err(ParseError::NotText)?;
            parse_plane(text, f)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_cause_is_printed_once_in_an_error_chain() {
        let cause = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let text = cause.to_string();
        let chain = format!("{:#}", anyhow::Error::from(ParseError::from(cause)));
        assert_eq!(chain, text, "the cause is the error itself, not a second link");
    }

    #[test]
    fn litellm_skips_sample_spec_and_entries_without_both_prices() {
        let json = br#"{
            "sample_spec": {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0, "mode": "chat"},
            "a": {"input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05, "cache_read_input_token_cost": 3e-07,
                  "cache_creation_input_token_cost": 3.75e-06, "input_cost_per_token_above_200k_tokens": 6e-06,
                  "cache_creation_input_token_cost_above_1hr": 6e-06,
                  "cache_creation_input_token_cost_above_1hr_above_200k_tokens": 1.2e-05,
                  "max_input_tokens": 200000, "litellm_provider": "anthropic", "mode": "chat"},
            "embed": {"input_cost_per_token": 1e-07, "mode": "embedding"},
            "odd": "not an object"
        }"#;
        let c = parse_litellm(json).unwrap();
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.skipped, 2);
        let e = &c.entries[0];
        assert_eq!(e.mode.as_deref(), Some("chat"));
        assert_eq!(e.entry.model_key, "a");
        assert_eq!(e.entry.provider.as_deref(), Some("anthropic"));
        assert_eq!(e.entry.context_window, Some(200_000));
        assert_eq!(e.entry.rates.input, 3.0);
        assert_eq!(e.entry.rates.output, 15.0);
        assert_eq!(e.entry.rates.cache_read, Some(0.3));
        assert_eq!(e.entry.rates.cache_write, Some(3.75));
        assert_eq!(e.entry.rates.input_above_200k, Some(6.0));
        assert_eq!(e.entry.rates.output_above_200k, None);
        assert_eq!(e.entry.rates.cache_write_1h, Some(6.0));
        assert_eq!(e.entry.rates.cache_write_1h_above_200k, Some(12.0));
    }

    #[test]
    fn the_plane_form_reads_toml_and_json_and_names_a_bad_model() {
        let toml = "[models.\"m-1\"]\ninput = 1.0\noutput = 2.0\ncache_read = 0.1\npool = \"api\"\n";
        let e = parse_plane(toml, PlaneFormat::Toml).unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].rates.cache_read, Some(0.1));
        assert_eq!(e[0].pool.as_deref(), Some("api"));
        let json = r#"{"models": {"m-2": {"input": 1, "output": 2}}}"#;
        assert_eq!(parse_source("x.json", json.as_bytes()).unwrap()[0].model_key, "m-2");
        let err = parse_plane("[models.m]\ninput = 1.0\n", PlaneFormat::Toml).unwrap_err().to_string();
        assert!(err.contains("\"m\"") && err.contains("output"), "{err}");
        assert!(parse_plane("[models.m]\ninput = 1.0\noutput = 1.0\ninptu = 3\n", PlaneFormat::Toml)
            .unwrap_err()
            .to_string()
            .contains("inptu"));
    }

    #[test]
    fn sniffing_tells_the_forms_apart() {
        assert_eq!(sniff("p.toml", b"[models]"), SourceFormat::Plane(PlaneFormat::Toml));
        assert_eq!(sniff("p", br#"{"models": {}}"#), SourceFormat::Plane(PlaneFormat::Json));
        assert_eq!(sniff("p.json", br#"{"gpt": {"input_cost_per_token": 1}}"#), SourceFormat::LiteLlm);
    }
}
