//! Model-name normalisation: the keys a lookup tries, in order, inside each plane.
//!
//! Resolution is plane-major: every candidate is tried in the override plane, then every candidate
//! in the provider's plane, then in litellm. So an exact key in a lower plane never beats an
//! override for the normalised name. Candidates, each derived from the previous one and tried only
//! when it differs from every earlier one:
//!
//! 1. the name as asked (exact);
//! 2. each path suffix after a `/`, left to right (`bedrock/us-east-1/anthropic.claude-x` tries
//!    `us-east-1/anthropic.claude-x`, then `anthropic.claude-x`);
//! 3. without a bedrock region prefix (`us.`, `eu.`, `apac.`, `global.`, `jp.`, `au.`, `us-gov.`);
//! 4. without a bedrock vendor prefix (`anthropic.`, `meta.`, `amazon.`, `mistral.`, `cohere.`,
//!    `ai21.`, `deepseek.`, `openai.`, `qwen.`, `writer.`);
//! 5. without a version suffix `-v1:0` / `-v2` / `:0`;
//! 6. without an `@…` suffix (`claude-opus-4-5@20251101`);
//! 7. without a date suffix `-YYYYMMDD` or `-YYYY-MM-DD`;
//!
//! and finally the lowercase form of each, when the name has capitals.

const REGIONS: &[&str] = &["us.", "eu.", "apac.", "global.", "jp.", "au.", "us-gov."];
const VENDORS: &[&str] = &[
    "anthropic.",
    "meta.",
    "amazon.",
    "mistral.",
    "cohere.",
    "ai21.",
    "deepseek.",
    "openai.",
    "qwen.",
    "writer.",
];

fn push(out: &mut Vec<String>, s: &str) {
    if !s.is_empty() && !out.iter().any(|c| c == s) {
        out.push(s.to_string());
    }
}

fn strip_version(s: &str) -> &str {
    // `-v1:0`, `-v2`, `-v1`, and a bare `:0` throughput suffix.
    let base = match s.rfind(':') {
        Some(i) if i + 1 < s.len() && s[i + 1..].bytes().all(|b| b.is_ascii_digit()) => &s[..i],
        _ => s,
    };
    match base.rfind("-v") {
        Some(i) if i + 2 < base.len() && base[i + 2..].bytes().all(|b| b.is_ascii_digit()) => &base[..i],
        _ => base,
    }
}

fn strip_at(s: &str) -> &str {
    match s.find('@') {
        Some(i) if i > 0 => &s[..i],
        _ => s,
    }
}

fn strip_date(s: &str) -> &str {
    let b = s.as_bytes();
    let digits = |r: &[u8]| r.iter().all(u8::is_ascii_digit);
    // -YYYYMMDD
    if b.len() > 9 && b[b.len() - 9] == b'-' && digits(&b[b.len() - 8..]) && b[b.len() - 8] == b'2' {
        return &s[..s.len() - 9];
    }
    // -YYYY-MM-DD
    if b.len() > 11 {
        let t = &b[b.len() - 11..];
        if t[0] == b'-' && digits(&t[1..5]) && t[5] == b'-' && digits(&t[6..8]) && t[8] == b'-' && digits(&t[9..11]) {
            return &s[..s.len() - 11];
        }
    }
    s
}

/// The keys to try for `model`, most specific first.
pub(crate) fn candidates(model: &str) -> Vec<String> {
    let model = model.trim();
    let mut out = Vec::with_capacity(8);
    push(&mut out, model);
    let mut cur = model;
    while let Some(i) = cur.find('/') {
        cur = &cur[i + 1..];
        push(&mut out, cur);
    }
    if let Some(r) = REGIONS.iter().find_map(|p| cur.strip_prefix(p)) {
        cur = r;
        push(&mut out, cur);
    }
    if let Some(r) = VENDORS.iter().find_map(|p| cur.strip_prefix(p)) {
        cur = r;
        push(&mut out, cur);
    }
    for step in [strip_version as fn(&str) -> &str, strip_at, strip_date] {
        cur = step(cur);
        push(&mut out, cur);
    }
    if model.bytes().any(|b| b.is_ascii_uppercase()) {
        let lower: Vec<String> = out.iter().map(|c| c.to_ascii_lowercase()).collect();
        for l in lower {
            push(&mut out, &l);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(m: &str) -> Vec<String> {
        candidates(m)
    }

    #[test]
    fn exact_comes_first_and_nothing_repeats() {
        assert_eq!(c("claude-sonnet-4-5"), ["claude-sonnet-4-5"]);
        assert_eq!(c("gpt-4o"), ["gpt-4o"]);
    }

    #[test]
    fn provider_prefixes_are_stripped_segment_by_segment() {
        assert_eq!(
            c("anthropic/claude-sonnet-4-5"),
            ["anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"]
        );
        assert_eq!(c("vertex_ai/gemini-2.5-pro"), ["vertex_ai/gemini-2.5-pro", "gemini-2.5-pro"]);
        assert_eq!(
            c("openrouter/anthropic/claude-opus-4-5"),
            [
                "openrouter/anthropic/claude-opus-4-5",
                "anthropic/claude-opus-4-5",
                "claude-opus-4-5"
            ]
        );
    }

    #[test]
    fn bedrock_region_vendor_version_and_date() {
        assert_eq!(
            c("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            [
                "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                "anthropic.claude-sonnet-4-5-20250929-v1:0",
                "claude-sonnet-4-5-20250929-v1:0",
                "claude-sonnet-4-5-20250929",
                "claude-sonnet-4-5",
            ]
        );
        assert_eq!(c("global.anthropic.claude-haiku-4-5-v1:0").last().unwrap(), "claude-haiku-4-5");
        assert_eq!(c("eu.anthropic.claude-opus-4-5-20251101-v2").last().unwrap(), "claude-opus-4-5");
    }

    #[test]
    fn vertex_at_suffix_and_dashed_dates() {
        assert_eq!(
            c("vertex_ai/claude-opus-4-5@20251101"),
            ["vertex_ai/claude-opus-4-5@20251101", "claude-opus-4-5@20251101", "claude-opus-4-5"]
        );
        assert_eq!(c("gpt-4o-2024-08-06"), ["gpt-4o-2024-08-06", "gpt-4o"]);
        assert_eq!(c("claude-3-5-haiku-20241022"), ["claude-3-5-haiku-20241022", "claude-3-5-haiku"]);
    }

    #[test]
    fn names_that_merely_look_similar_are_left_alone() {
        // A 4-digit tail is not a date; `-v` followed by letters is not a version.
        assert_eq!(c("model-1234"), ["model-1234"]);
        assert_eq!(c("claude-vision"), ["claude-vision"]);
        assert_eq!(c("Claude-Sonnet-4-5"), ["Claude-Sonnet-4-5", "claude-sonnet-4-5"]);
    }
}
