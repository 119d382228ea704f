//! Secret redaction, before anything reaches a database: AWS access key ids, GitHub, Slack and
//! Stripe tokens, PEM private-key blocks, JWTs and unlabelled high-entropy strings become
//! `[REDACTED:<kind>:<hash>]`. The hash is of the session and the value, so the same value gives
//! the same placeholder within a session and a different one elsewhere.
//!
//! The detectors are hand-written scanners rather than regexes: this runs on every hook, and
//! compiling a regex set costs more than the whole scan of a typical payload.

use serde_json::Value;

/// A redactor for one session.
pub struct Redactor {
    salt: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hit {
    start: usize,
    end: usize,
    kind: &'static str,
}

/// Runs of at least this many token characters are tested for entropy.
const ENTROPY_MIN_LEN: usize = 32;
/// Shannon entropy (bits per character) from which a run counts as a secret.
const ENTROPY_BITS: f64 = 4.2;

impl Redactor {
    pub fn new(session_salt: &str) -> Redactor {
        Redactor {
            salt: session_salt.to_string(),
        }
    }

    fn placeholder(&self, kind: &str, secret: &str) -> String {
        let digest = crate::hashing::sha256_hex(format!("{}\u{0}{secret}", self.salt).as_bytes());
        format!("[REDACTED:{kind}:{}]", &digest[..12])
    }

    /// `s` with every secret replaced; `None` when there was nothing to replace.
    pub fn redact_str(&self, s: &str) -> Option<String> {
        let hits = find_secrets(s);
        if hits.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(s.len());
        let mut at = 0;
        for h in hits {
            out.push_str(&s[at..h.start]);
            out.push_str(&self.placeholder(h.kind, &s[h.start..h.end]));
            at = h.end;
        }
        out.push_str(&s[at..]);
        Some(out)
    }

    /// Redacts every string (and object key) in `v` in place; returns how many were changed.
    pub fn redact_value(&self, v: &mut Value) -> usize {
        match v {
            Value::String(s) => match self.redact_str(s) {
                Some(r) => {
                    *s = r;
                    1
                }
                None => 0,
            },
            Value::Array(items) => items.iter_mut().map(|i| self.redact_value(i)).sum(),
            Value::Object(map) => {
                let mut n = 0;
                let keys: Vec<String> = map.keys().cloned().collect();
                for k in keys {
                    if let Some(new_key) = self.redact_str(&k) {
                        if let Some(val) = map.remove(&k) {
                            map.insert(new_key, val);
                        }
                        n += 1;
                    }
                }
                for val in map.values_mut() {
                    n += self.redact_value(val);
                }
                n
            }
            _ => 0,
        }
    }
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'+' || b == b'='
}

/// Every secret in `s`, sorted and non-overlapping.
fn find_secrets(s: &str) -> Vec<Hit> {
    let b = s.as_bytes();
    let mut hits = Vec::new();
    pem_blocks(s, &mut hits);
    prefixed(b, &mut hits);
    jwts(b, &mut hits);
    // Unlabelled runs only count where no labelled detector matched: `token=ghp_…` is a GitHub
    // token, not one long random string.
    let labelled = hits.clone();
    high_entropy(b, &mut hits, &labelled);
    hits.sort_by_key(|h| (h.start, std::cmp::Reverse(h.end)));
    let mut merged: Vec<Hit> = Vec::new();
    for h in hits {
        match merged.last_mut() {
            Some(last) if h.start < last.end => {
                if h.end > last.end {
                    last.end = h.end;
                }
            }
            _ => merged.push(h),
        }
    }
    // A hit must start and end on character boundaries for slicing; all detectors match ASCII
    // runs bounded by ASCII, so this only guards against surprises.
    merged.retain(|h| s.is_char_boundary(h.start) && s.is_char_boundary(h.end));
    merged
}

fn pem_blocks(s: &str, hits: &mut Vec<Hit>) {
    let mut from = 0;
    while let Some(i) = s[from..].find("-----BEGIN ") {
        let start = from + i;
        let header_end = s[start..].find('\n').map_or(s.len(), |n| start + n);
        let header = &s[start..header_end];
        if !header.contains("PRIVATE KEY-----") {
            from = start + 11;
            continue;
        }
        let end = match s[start + 11..].find("-----END ") {
            Some(j) => {
                let end_start = start + 11 + j;
                match s[end_start..].find("PRIVATE KEY-----") {
                    Some(k) => end_start + k + "PRIVATE KEY-----".len(),
                    None => s.len(),
                }
            }
            None => s.len(),
        };
        hits.push(Hit {
            start,
            end,
            kind: "private_key",
        });
        from = end;
        if from >= s.len() {
            break;
        }
    }
}

/// A token recognised by a fixed prefix: (prefix, kind, allowed body bytes, minimum body length).
type PrefixRule = (&'static str, &'static str, fn(u8) -> bool, usize);

const PREFIXES: &[PrefixRule] = &[
    ("AKIA", "aws_access_key", upper_digit, 16),
    ("ASIA", "aws_access_key", upper_digit, 16),
    ("ABIA", "aws_access_key", upper_digit, 16),
    ("ACCA", "aws_access_key", upper_digit, 16),
    ("ghp_", "github_token", alnum, 36),
    ("gho_", "github_token", alnum, 36),
    ("ghu_", "github_token", alnum, 36),
    ("ghs_", "github_token", alnum, 36),
    ("ghr_", "github_token", alnum, 36),
    ("github_pat_", "github_token", alnum_underscore, 22),
    ("xoxb-", "slack_token", alnum_dash, 10),
    ("xoxa-", "slack_token", alnum_dash, 10),
    ("xoxp-", "slack_token", alnum_dash, 10),
    ("xoxo-", "slack_token", alnum_dash, 10),
    ("xoxs-", "slack_token", alnum_dash, 10),
    ("xoxr-", "slack_token", alnum_dash, 10),
    ("xapp-", "slack_token", alnum_dash, 10),
    ("sk_live_", "stripe_key", alnum, 16),
    ("sk_test_", "stripe_key", alnum, 16),
    ("rk_live_", "stripe_key", alnum, 16),
    ("rk_test_", "stripe_key", alnum, 16),
    ("whsec_", "stripe_key", alnum, 16),
];

fn upper_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}
fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn alnum_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
fn alnum_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

fn prefixed(b: &[u8], hits: &mut Vec<Hit>) {
    for (prefix, kind, body, min) in PREFIXES {
        let p = prefix.as_bytes();
        let mut i = 0;
        while i + p.len() <= b.len() {
            let Some(off) = find(&b[i..], p) else { break };
            let start = i + off;
            let left_ok = start == 0 || !b[start - 1].is_ascii_alphanumeric();
            let mut end = start + p.len();
            while end < b.len() && body(b[end]) {
                end += 1;
            }
            let len = end - start - p.len();
            let aws = kind.starts_with("aws");
            let len_ok = if aws { len == *min } else { len >= *min };
            if left_ok && len_ok {
                hits.push(Hit { start, end, kind });
                i = end;
            } else {
                i = start + 1;
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn jwts(b: &[u8], hits: &mut Vec<Hit>) {
    let seg = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let mut i = 0;
    while let Some(off) = find(&b[i..], b"eyJ") {
        let start = i + off;
        let mut end = start;
        let mut parts = 0;
        loop {
            let s = end;
            while end < b.len() && seg(b[end]) {
                end += 1;
            }
            if end - s < 8 {
                break;
            }
            parts += 1;
            if parts == 3 || end >= b.len() || b[end] != b'.' {
                break;
            }
            end += 1;
        }
        if parts == 3 && (start == 0 || !seg(b[start - 1])) {
            hits.push(Hit { start, end, kind: "jwt" });
            i = end;
        } else {
            i = start + 3;
        }
        if i >= b.len() {
            break;
        }
    }
}

fn high_entropy(b: &[u8], hits: &mut Vec<Hit>, labelled: &[Hit]) {
    let mut i = 0;
    while i < b.len() {
        if !is_token_byte(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_token_byte(b[i]) {
            i += 1;
        }
        let run = &b[start..i];
        let overlaps = labelled.iter().any(|h| h.start < i && start < h.end);
        if !overlaps && run.len() >= ENTROPY_MIN_LEN && looks_random(run) {
            hits.push(Hit {
                start,
                end: i,
                kind: "high_entropy",
            });
        }
    }
}

/// Upper case, lower case and digits all present, and high Shannon entropy: random key material
/// rather than an identifier, a hex digest or a word.
fn looks_random(run: &[u8]) -> bool {
    let upper = run.iter().any(u8::is_ascii_uppercase);
    let lower = run.iter().any(u8::is_ascii_lowercase);
    let digit = run.iter().any(u8::is_ascii_digit);
    if !(upper && lower && digit) {
        return false;
    }
    entropy(run) >= ENTROPY_BITS
}

fn entropy(run: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &c in run {
        counts[c as usize] += 1;
    }
    let n = run.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
    const GH: &str = "ghp_R2d2C3poLuke4Leia5Han6Chewie7Yoda8Ben9";
    const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9\nq2Zy3s+Kx\n-----END RSA PRIVATE KEY-----";

    #[test]
    fn known_formats_are_replaced() {
        let r = Redactor::new("s1");
        let text = format!("key {AWS} token={GH}\n{PEM}\nslack xoxb-123456789012-abcdefABCDEF stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc");
        let out = r.redact_str(&text).unwrap();
        for secret in [
            AWS,
            GH,
            "MIIEowIBAAKCAQEA7bq9",
            "xoxb-123456789012",
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        ] {
            assert!(!out.contains(secret), "{secret} survived: {out}");
        }
        for kind in ["aws_access_key", "github_token", "private_key", "slack_token", "stripe_key"] {
            assert!(out.contains(&format!("[REDACTED:{kind}:")), "{kind} missing: {out}");
        }
        assert!(out.starts_with("key [REDACTED:aws_access_key:"));
    }

    #[test]
    fn jwts_and_random_strings_are_replaced_but_ordinary_text_is_not() {
        let r = Redactor::new("s1");
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert!(r.redact_str(&format!("Bearer {jwt}")).unwrap().contains("[REDACTED:jwt:"));
        let random = "Zx8Qm2Lp9Wv4Rt7Ky1Nb6Hc3Jd5Fg0Sa2Qe";
        assert!(r.redact_str(random).unwrap().contains("[REDACTED:high_entropy:"));
        for ok in [
            "cargo test --quiet report",
            "/repo/src/report.rs",
            "3f2a9c1b8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a", // a hex digest
            "AbstractSingletonProxyFactoryBean",
            "some_long_snake_case_identifier_name_here",
            "5b1f6c2e-8d4a-4f0e-9a37-2c1d7e9b4a10",
        ] {
            assert_eq!(r.redact_str(ok), None, "{ok} should not be redacted");
        }
    }

    #[test]
    fn placeholders_are_stable_within_a_session_and_differ_across_sessions() {
        let a = Redactor::new("s1").redact_str(AWS).unwrap();
        assert_eq!(a, Redactor::new("s1").redact_str(AWS).unwrap());
        assert_ne!(a, Redactor::new("s2").redact_str(AWS).unwrap());
        assert_eq!(Redactor::new("s1").redact_str(&a), None, "a placeholder is not redacted again");
    }

    #[test]
    fn values_are_walked_keys_included() {
        let r = Redactor::new("s");
        let mut v = serde_json::json!({"tool_input": {"command": format!("export K={AWS}")}, "list": [GH], AWS: 1});
        assert_eq!(r.redact_value(&mut v), 3);
        let text = v.to_string();
        assert!(!text.contains(AWS) && !text.contains(GH), "{text}");
    }

    #[test]
    fn an_unterminated_pem_block_is_redacted_to_the_end() {
        let r = Redactor::new("s");
        let out = r.redact_str("x -----BEGIN PRIVATE KEY-----\nMIIabc").unwrap();
        assert!(!out.contains("MIIabc"));
    }
}
