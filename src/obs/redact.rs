//! Secret redaction, before anything reaches a database (and, where the provider lets a hook
//! replace a tool's output, before it reaches the model): labelled formats — AWS key ids and
//! secret keys, GitHub, GitLab, Slack, Stripe, Hugging Face and Twilio tokens, PEM private-key
//! blocks, JWTs, `Bearer` and `Basic` authorization values, URL passwords — and unlabelled
//! high-entropy strings become `[REDACTED:<kind>:<hash>]`. The hash is of the session and the
//! value, so the same value gives the same placeholder within a session and a different one
//! elsewhere.
//!
//! The scan is linear in its input, whatever the input's shape. It makes one pass over the bytes:
//! at a byte that can start a labelled secret it runs that byte's detectors, each of which reads a
//! bounded distance ahead unless it matches (and after a match no detector starts again before the
//! match ends); alongside, it tracks the runs the unlabelled rules judge, and judges each run once,
//! when it ends. A string longer than [`MAX_SCAN_BYTES`] is scanned up to there and kept cut: what
//! lies beyond is dropped, never kept unscanned.
//!
//! The detectors are hand-written scanners rather than regexes: this runs on every hook, and
//! compiling a regex set costs more than the whole scan of a typical payload.

use memchr::memmem;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::cmp::Reverse;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// A string is scanned up to this many bytes; a longer one is kept cut there (after the
/// placeholder of a secret that crosses the cut), with a marker saying how much was dropped.
/// This bounds the time one field can cost; the scan itself is linear.
pub(crate) const MAX_SCAN_BYTES: usize = 1024 * 1024;
/// How far past the cut the scanner still reads, so that a secret crossing it is recognised whole.
const CUT_LOOKAHEAD: usize = 4096;

/// Runs of at least this many token characters are tested for entropy.
const ENTROPY_MIN_LEN: usize = 32;
/// Shannon entropy (bits per character) from which a run counts as a secret.
const ENTROPY_BITS: f64 = 4.2;
/// AWS secret access keys: 40 characters of the base64 alphabet.
const AWS_SECRET_LEN: usize = 40;
/// An unlabelled AWS-secret-shaped run counts only above this entropy...
const AWS_SECRET_BITS: f64 = 4.3;
/// ... and when less than this share of it lies in lower-case runs of four or more letters (a
/// path such as `Users/JohnSmith/Documents/GitHub/MyApp2x` is mostly words; random key material
/// rarely is).
const AWS_SECRET_MAX_WORDS: f64 = 0.35;
/// How far before an AWS-secret-shaped value its label (`secret`) is looked for, on the same line.
const LABEL_LOOKBACK: usize = 64;
/// How far after `://` the userinfo of a URL is looked for.
const URL_USERINFO_MAX: usize = 1024;
/// How far a PEM header or footer line is read.
const PEM_LINE_MAX: usize = 100;

/// Which detectors a string goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detectors {
    /// Every detector.
    All,
    /// The labelled detectors only, not the unlabelled (entropy) rules: for values tlc uses as
    /// given — paths, ids, model names — where a random-looking part is no sign of a secret.
    Labelled,
}

/// What a redaction changed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Redaction {
    /// Secrets replaced by placeholders.
    pub secrets: usize,
    /// Object keys that held a secret (and were renamed).
    pub keys: usize,
    /// Strings cut at [`MAX_SCAN_BYTES`].
    pub truncated: usize,
    /// The kinds of the secrets found.
    pub kinds: BTreeSet<&'static str>,
}

impl Redaction {
    fn add(&mut self, other: Redaction) {
        self.secrets += other.secrets;
        self.keys += other.keys;
        self.truncated += other.truncated;
        self.kinds.extend(other.kinds);
    }
}

/// What a payload's redaction changed, in total and per top-level field.
#[derive(Debug, Default)]
pub(crate) struct PayloadRedaction {
    pub total: Redaction,
    /// The top-level fields (by their name as received) in which something changed.
    pub fields: Vec<(String, Redaction)>,
}

impl PayloadRedaction {
    pub(crate) fn field(&self, name: &str) -> Option<&Redaction> {
        self.fields.iter().find(|(k, _)| k == name).map(|(_, r)| r)
    }
}

/// A redactor for one session.
pub(crate) struct Redactor {
    /// SHA-256 fed with the salt and its NUL separator: each placeholder hashes on from a clone.
    salted: Sha256,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hit {
    start: usize,
    end: usize,
    kind: &'static str,
    /// Found by a labelled detector (wins over an unlabelled one on the same bytes).
    labelled: bool,
}

/// Verbatim pointers are only this deep; below, nothing is verbatim and no pointer is kept.
const MAX_POINTER_DEPTH: usize = 3;

impl Redactor {
    pub(crate) fn new(session_salt: &str) -> Redactor {
        let mut salted = Sha256::new();
        salted.update(session_salt.as_bytes());
        salted.update([0u8]);
        Redactor { salted }
    }

    /// Appends `[REDACTED:<kind>:<first 12 hex digits of SHA-256(salt NUL secret)>]` to `out`.
    fn push_placeholder(&self, out: &mut String, kind: &str, secret: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let digest = self.salted.clone().chain_update(secret.as_bytes()).finalize();
        out.push_str("[REDACTED:");
        out.push_str(kind);
        out.push(':');
        for b in &digest[..6] {
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        }
        out.push(']');
    }

    /// `s` with every secret replaced (and cut at [`MAX_SCAN_BYTES`]); `None` when nothing changed.
    pub(crate) fn redact_str(&self, s: &str) -> Option<String> {
        self.redact_text(s, Detectors::All).0
    }

    /// `s` with every secret `detectors` find replaced, cut at [`MAX_SCAN_BYTES`]; `None` when
    /// nothing changed.
    pub(crate) fn redact_text(&self, s: &str, detectors: Detectors) -> (Option<String>, Redaction) {
        let mut cut = s.len();
        let mut scan_end = s.len();
        if s.len() > MAX_SCAN_BYTES {
            cut = floor_char_boundary(s, MAX_SCAN_BYTES);
            scan_end = floor_char_boundary(s, MAX_SCAN_BYTES + CUT_LOOKAHEAD);
        }
        let hits = find_secrets(&s.as_bytes()[..scan_end], detectors);
        // A secret crossing the cut is replaced whole; hits are sorted and disjoint.
        if let Some(h) = hits.iter().find(|h| h.start < cut && h.end > cut) {
            cut = h.end;
        }
        let kept = hits.iter().take_while(|h| h.start < cut);
        let mut r = Redaction::default();
        let mut out = String::new();
        let mut at = 0;
        let mut last_kind = "";
        for h in kept {
            if out.is_empty() {
                out.reserve(cut + 64);
            }
            out.push_str(&s[at..h.start]);
            self.push_placeholder(&mut out, h.kind, &s[h.start..h.end]);
            at = h.end;
            r.secrets += 1;
            if h.kind != last_kind {
                r.kinds.insert(h.kind);
                last_kind = h.kind;
            }
        }
        let truncated = cut < s.len();
        if r.secrets == 0 && !truncated {
            return (None, r);
        }
        out.push_str(&s[at..cut]);
        if truncated {
            r.truncated = 1;
            let _ = write!(out, "…[truncated {} bytes: not scanned]", s.len() - cut);
        }
        (Some(out), r)
    }

    /// Redacts every string (and object key) in `v` in place.
    pub(crate) fn redact_value(&self, v: &mut Value) -> Redaction {
        let mut r = Redaction::default();
        self.walk(v, &mut String::new(), 0, &[], &mut r);
        r
    }

    /// Redacts a payload object in place. The strings at the JSON pointers in `verbatim` (an
    /// array there: each of its elements) go through the labelled detectors only; everything else
    /// through all of them.
    pub(crate) fn redact_payload(&self, v: &mut Value, verbatim: &[&str]) -> PayloadRedaction {
        let mut out = PayloadRedaction::default();
        let Value::Object(map) = v else {
            out.total = self.redact_value(v);
            return out;
        };
        let mut pointer = String::new();
        for (k, val) in map.iter_mut() {
            pointer.clear();
            pointer.push('/');
            pointer.push_str(k);
            let mut r = Redaction::default();
            self.walk(val, &mut pointer, 1, verbatim, &mut r);
            if r != Redaction::default() {
                out.fields.push((k.clone(), r.clone()));
                out.total.add(r);
            }
        }
        let mut keys = Redaction::default();
        self.redact_keys(map, &mut keys);
        out.total.add(keys);
        out
    }

    fn walk(&self, v: &mut Value, pointer: &mut String, depth: usize, verbatim: &[&str], out: &mut Redaction) {
        match v {
            Value::String(s) => {
                let detectors = if depth <= MAX_POINTER_DEPTH && is_verbatim(pointer, verbatim) {
                    Detectors::Labelled
                } else {
                    Detectors::All
                };
                let (new, r) = self.redact_text(s, detectors);
                if let Some(new) = new {
                    *s = new;
                }
                out.add(r);
            }
            Value::Array(items) => {
                let len = pointer.len();
                for (i, item) in items.iter_mut().enumerate() {
                    if depth < MAX_POINTER_DEPTH {
                        let _ = write!(pointer, "/{i}");
                    }
                    self.walk(item, pointer, depth + 1, verbatim, out);
                    pointer.truncate(len);
                }
            }
            Value::Object(map) => {
                let len = pointer.len();
                for (k, val) in map.iter_mut() {
                    if depth < MAX_POINTER_DEPTH {
                        pointer.push('/');
                        pointer.push_str(k);
                    }
                    self.walk(val, pointer, depth + 1, verbatim, out);
                    pointer.truncate(len);
                }
                self.redact_keys(map, out);
            }
            _ => {}
        }
    }

    fn redact_keys(&self, map: &mut Map<String, Value>, out: &mut Redaction) {
        let renames: Vec<(String, String, Redaction)> = map
            .keys()
            .filter_map(|k| match self.redact_text(k, Detectors::All) {
                (Some(new), r) => Some((k.clone(), new, r)),
                (None, _) => None,
            })
            .collect();
        for (old, new, r) in renames {
            if let Some(val) = map.remove(&old) {
                map.insert(new, val);
            }
            out.keys += 1;
            out.add(r);
        }
    }
}

fn is_verbatim(pointer: &str, verbatim: &[&str]) -> bool {
    verbatim.iter().any(|p| match pointer.strip_prefix(p) {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('/')
            .is_some_and(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    })
}

fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

// ---------------------------------------------------------------------------------------------
// The scanner.

/// The characters of standard base64 (no padding).
fn is_b64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}

/// The characters of base64url (JWT segments).
fn is_b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// The letter of a backslash escape (`\n`, `\t`, ...): text that is itself JSON, such as
/// Cursor's `tool_output`, puts one right before a secret at the start of a line.
fn is_escape_letter(b: &[u8], i: usize) -> bool {
    i > 0 && b[i - 1] == b'\\' && matches!(b[i], b'n' | b't' | b'r' | b'b' | b'f')
}

/// Whether a match may start at `i`: the byte before it is no `word` byte (or is an escape letter).
fn boundary_before(b: &[u8], i: usize, word: fn(u8) -> bool) -> bool {
    i == 0 || !word(b[i - 1]) || is_escape_letter(b, i - 1)
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// A run of one alphabet being tracked.
#[derive(Default)]
struct Run {
    start: Option<usize>,
    classes: u8,
    /// It overlaps a labelled match: the unlabelled rules do not judge it.
    tainted: bool,
}

struct Span {
    start: usize,
    end: usize,
    classes: u8,
}

impl Run {
    fn extend(&mut self, i: usize, flags: u8, taint_until: usize) {
        if self.start.is_none() {
            self.start = Some(i);
            self.classes = 0;
            self.tainted = i < taint_until;
        }
        self.classes |= flags & CLASSES;
    }

    fn taint(&mut self) {
        if self.start.is_some() {
            self.tainted = true;
        }
    }

    fn close(&mut self, end: usize) -> Option<Span> {
        let start = self.start.take()?;
        (!self.tainted).then_some(Span {
            start,
            end,
            classes: self.classes,
        })
    }
}

/// What the scan loop needs to know of a byte, looked up once per byte: whether a labelled
/// detector can start at it, which runs it belongs to, and its character class.
const CANDIDATE: u8 = 1;
/// Standard base64 (the AWS-secret-shaped runs).
const IN_B64: u8 = 2;
/// Letters, digits and `_ - + =` (the high-entropy runs).
const IN_TOKEN: u8 = 4;
/// A letter that ends a backslash escape (`\n`, `\t`, ...).
const ESCAPE_LETTER: u8 = 8;
const UPPER: u8 = 16;
const LOWER: u8 = 32;
const DIGIT: u8 = 64;
const SLASH_OR_PLUS: u8 = 128;
const CLASSES: u8 = UPPER | LOWER | DIGIT | SLASH_OR_PLUS;
const MIXED: u8 = UPPER | LOWER | DIGIT;

const BYTE_FLAGS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let alnum = b.is_ascii_alphanumeric();
        if alnum || b == b'+' || b == b'/' {
            t[c] |= IN_B64;
        }
        if b.is_ascii_uppercase() {
            t[c] |= UPPER;
        } else if b.is_ascii_lowercase() {
            t[c] |= LOWER;
        } else if b.is_ascii_digit() {
            t[c] |= DIGIT;
        } else if b == b'+' || b == b'/' {
            t[c] |= SLASH_OR_PLUS;
        }
        if alnum || b == b'_' || b == b'-' || b == b'+' || b == b'=' {
            t[c] |= IN_TOKEN;
        }
        c += 1;
    }
    // The bytes at which a labelled detector can start.
    let starts = b"=-:eBbAgxsrwhS";
    let mut i = 0;
    while i < starts.len() {
        t[starts[i] as usize] |= CANDIDATE;
        i += 1;
    }
    let escapes = b"ntrbf";
    let mut i = 0;
    while i < escapes.len() {
        t[escapes[i] as usize] |= ESCAPE_LETTER;
        i += 1;
    }
    t
};

/// Every secret in `b`, sorted and disjoint.
fn find_secrets(b: &[u8], detectors: Detectors) -> Vec<Hit> {
    let unlabelled = detectors == Detectors::All;
    let mut hits = Vec::new();
    let mut tokens = Run::default();
    let mut b64 = Run::default();
    // No labelled detector starts before `skip_until`; a run starting before `taint_until`
    // overlaps a labelled match.
    let mut skip_until = 0;
    let mut taint_until = 0;
    for (i, &c) in b.iter().enumerate() {
        let mut flags = BYTE_FLAGS[usize::from(c)];
        if flags & CANDIDATE != 0 && i >= skip_until {
            if let Some(h) = labelled_at(b, i) {
                skip_until = h.end;
                taint_until = h.end;
                tokens.taint();
                b64.taint();
                hits.push(h);
            }
        }
        if flags & ESCAPE_LETTER != 0 && is_escape_letter(b, i) {
            flags &= !(IN_B64 | IN_TOKEN);
        }
        if flags & IN_B64 != 0 {
            b64.extend(i, flags, taint_until);
        } else if let Some(span) = b64.close(i) {
            if let Some(h) = aws_secret(b, &span, unlabelled) {
                // `KEY=<secret>`: the label and the value are one token run.
                tokens.taint();
                hits.push(h);
            }
        }
        if flags & IN_TOKEN != 0 {
            tokens.extend(i, flags, taint_until);
        } else if let Some(span) = tokens.close(i) {
            if unlabelled {
                hits.extend(high_entropy(b, &span));
            }
        }
    }
    if let Some(span) = b64.close(b.len()) {
        if let Some(h) = aws_secret(b, &span, unlabelled) {
            tokens.taint();
            hits.push(h);
        }
    }
    if let Some(span) = tokens.close(b.len()) {
        if unlabelled {
            hits.extend(high_entropy(b, &span));
        }
    }
    merge(hits)
}

fn merge(mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort_unstable_by_key(|h| (h.start, Reverse(h.end), !h.labelled));
    let mut merged: Vec<Hit> = Vec::with_capacity(hits.len());
    for h in hits {
        match merged.last_mut() {
            Some(last) if h.start < last.end => last.end = last.end.max(h.end),
            _ => merged.push(h),
        }
    }
    merged
}

fn labelled_at(b: &[u8], i: usize) -> Option<Hit> {
    match b[i] {
        b'=' => password_assignment(b, i),
        b'-' => pem_block(b, i),
        b':' => url_password(b, i),
        b'e' => jwt(b, i),
        b'B' | b'b' => authorization(b, i),
        _ => prefixed(b, i),
    }
}

/// The names whose value is a password however plain it looks (`PASSWORD=hunter2` in an
/// environment dump): a name ending in one of these, in any case.
const PASSWORD_NAMES: &[&[u8]] = &[b"password", b"passwd", b"_pass", b"_pwd", b"passphrase"];

/// The value of `<NAME>=<value>` where `NAME` (letters, digits, `_`, at most
/// [`LABEL_LOOKBACK`]) names a password: the value up to a space, quote, `&`, `;` or the
/// line's end is replaced, the name kept.
fn password_assignment(b: &[u8], i: usize) -> Option<Hit> {
    let from = i.saturating_sub(LABEL_LOOKBACK);
    let mut start = i;
    while start > from && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_') {
        start -= 1;
    }
    let name = &b[start..i];
    let named = PASSWORD_NAMES
        .iter()
        .any(|p| name.len() >= p.len() && name[name.len() - p.len()..].eq_ignore_ascii_case(p));
    if !named
        || (start > 0
            && !matches!(
                b[start - 1],
                b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b'?' | b'&' | b';' | b','
            ))
    {
        return None;
    }
    let value = i + 1;
    let mut end = value;
    while end < b.len() && !matches!(b[end], b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b'&' | b';' | b'\\') {
        end += 1;
    }
    (end > value).then_some(Hit {
        start: value,
        end,
        kind: "password",
        labelled: true,
    })
}

/// A token recognised by a fixed prefix.
struct Prefix {
    text: &'static [u8],
    kind: &'static str,
    body: fn(u8) -> bool,
    min: usize,
    /// The body's exact length when it has one; it must then not be followed by a letter or digit.
    exact: bool,
    /// `.`-separated segments may follow the body (GitLab's routable tokens).
    dotted: bool,
}

const fn prefix(text: &'static [u8], kind: &'static str, body: fn(u8) -> bool, min: usize) -> Prefix {
    Prefix {
        text,
        kind,
        body,
        min,
        exact: false,
        dotted: false,
    }
}

const fn exact(text: &'static [u8], kind: &'static str, body: fn(u8) -> bool, len: usize) -> Prefix {
    Prefix {
        text,
        kind,
        body,
        min: len,
        exact: true,
        dotted: false,
    }
}

const fn dotted(text: &'static [u8], kind: &'static str, body: fn(u8) -> bool, min: usize) -> Prefix {
    Prefix {
        text,
        kind,
        body,
        min,
        exact: false,
        dotted: true,
    }
}

fn upper_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}
fn alnum_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
fn alnum_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}
fn hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

const AWS_KEY_IDS: &[Prefix] = &[
    exact(b"AKIA", "aws_access_key", upper_digit, 16),
    exact(b"ASIA", "aws_access_key", upper_digit, 16),
    exact(b"ABIA", "aws_access_key", upper_digit, 16),
    exact(b"ACCA", "aws_access_key", upper_digit, 16),
    // A Twilio account SID: with its auth token it is the whole credential.
    exact(b"AC", "twilio_sid", hex, 32),
];
const GIT_TOKENS: &[Prefix] = &[
    prefix(b"ghp_", "github_token", alnum, 36),
    prefix(b"gho_", "github_token", alnum, 36),
    prefix(b"ghu_", "github_token", alnum, 36),
    prefix(b"ghs_", "github_token", alnum, 36),
    prefix(b"ghr_", "github_token", alnum, 36),
    prefix(b"github_pat_", "github_token", alnum_underscore, 22),
    dotted(b"glpat-", "gitlab_token", is_b64url, 20),
    dotted(b"gldt-", "gitlab_token", is_b64url, 20),
    dotted(b"glrt-", "gitlab_token", is_b64url, 20),
    dotted(b"glptt-", "gitlab_token", is_b64url, 20),
    dotted(b"glft-", "gitlab_token", is_b64url, 20),
    dotted(b"glsoat-", "gitlab_token", is_b64url, 20),
    dotted(b"glcbt-", "gitlab_token", is_b64url, 20),
];
const SLACK_TOKENS: &[Prefix] = &[
    prefix(b"xoxb-", "slack_token", alnum_dash, 10),
    prefix(b"xoxa-", "slack_token", alnum_dash, 10),
    prefix(b"xoxp-", "slack_token", alnum_dash, 10),
    prefix(b"xoxo-", "slack_token", alnum_dash, 10),
    prefix(b"xoxs-", "slack_token", alnum_dash, 10),
    prefix(b"xoxr-", "slack_token", alnum_dash, 10),
    prefix(b"xapp-", "slack_token", alnum_dash, 10),
];
const STRIPE_KEYS: &[Prefix] = &[
    prefix(b"sk_live_", "stripe_key", alnum, 16),
    prefix(b"sk_test_", "stripe_key", alnum, 16),
    prefix(b"rk_live_", "stripe_key", alnum, 16),
    prefix(b"rk_test_", "stripe_key", alnum, 16),
    prefix(b"whsec_", "stripe_key", alnum, 16),
];
const HUGGING_FACE_TOKENS: &[Prefix] = &[prefix(b"hf_", "huggingface_token", alnum, 34)];
const S_KEYS: &[Prefix] = &[
    exact(b"SK", "twilio_key", hex, 32),
    // SendGrid's `SG.<key id>.<secret>`: both halves, so the key id is not left readable.
    dotted(b"SG.", "sendgrid_key", is_b64url, 16),
];

fn prefixes_for(c: u8) -> &'static [Prefix] {
    match c {
        b'A' => AWS_KEY_IDS,
        b'g' => GIT_TOKENS,
        b'x' => SLACK_TOKENS,
        b's' | b'r' | b'w' => STRIPE_KEYS,
        b'h' => HUGGING_FACE_TOKENS,
        b'S' => S_KEYS,
        _ => &[],
    }
}

fn prefixed(b: &[u8], i: usize) -> Option<Hit> {
    if !boundary_before(b, i, alnum) {
        return None;
    }
    for p in prefixes_for(b[i]) {
        if !b[i..].starts_with(p.text) {
            continue;
        }
        let body = i + p.text.len();
        // An exact-length body is read one byte past its length, and no further.
        let limit = if p.exact { (body + p.min + 1).min(b.len()) } else { b.len() };
        let mut end = body;
        while end < limit && (p.body)(b[end]) {
            end += 1;
        }
        let len = end - body;
        let fits = if p.exact {
            len == p.min && !b.get(end).is_some_and(u8::is_ascii_alphanumeric)
        } else {
            len >= p.min
        };
        if !fits {
            continue;
        }
        if p.dotted {
            while b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(|&c| (p.body)(c)) {
                end += 1;
                while end < b.len() && (p.body)(b[end]) {
                    end += 1;
                }
            }
        }
        return Some(Hit {
            start: i,
            end,
            kind: p.kind,
            labelled: true,
        });
    }
    None
}

/// `eyJ` starting three `.`-separated base64url segments of at least 8 characters each.
fn jwt(b: &[u8], i: usize) -> Option<Hit> {
    if !b[i..].starts_with(b"eyJ") || !boundary_before(b, i, is_b64url) {
        return None;
    }
    let mut end = i;
    for part in 0..3 {
        let start = end;
        while end < b.len() && is_b64url(b[end]) {
            end += 1;
        }
        if end - start < 8 {
            return None;
        }
        if part < 2 {
            if b.get(end) != Some(&b'.') {
                return None;
            }
            end += 1;
        }
    }
    Some(Hit {
        start: i,
        end,
        kind: "jwt",
        labelled: true,
    })
}

/// The characters of an RFC 6750 bearer token (`b64token`).
fn is_bearer_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=')
}

/// The credentials of an HTTP authorization value: `Bearer <token>` or `Basic <base64>`, the
/// scheme in any case. The scheme stays readable; the credentials are replaced.
fn authorization(b: &[u8], i: usize) -> Option<Hit> {
    if !boundary_before(b, i, alnum) {
        return None;
    }
    let rest = &b[i..];
    let (scheme_len, bearer) = if starts_with_ignore_case(rest, b"bearer") {
        (6, true)
    } else if starts_with_ignore_case(rest, b"basic") {
        (5, false)
    } else {
        return None;
    };
    let mut at = i + scheme_len;
    let spaces = at;
    while at < b.len() && at - spaces < 4 && (b[at] == b' ' || b[at] == b'\t') {
        at += 1;
    }
    if at == spaces {
        return None;
    }
    let start = at;
    if bearer {
        while at < b.len() && is_bearer_byte(b[at]) {
            at += 1;
        }
        let token = &b[start..at];
        // A word after "bearer" in prose has no digit and no symbol; a token nearly always does.
        let token_like = token.iter().any(|c| !c.is_ascii_alphabetic());
        if token.len() < 12 || !token_like {
            return None;
        }
        // A token in a known format keeps its own kind.
        let kind = jwt(b, start).or_else(|| prefixed(b, start)).map_or("bearer_token", |h| h.kind);
        return Some(Hit {
            start,
            end: at,
            kind,
            labelled: true,
        });
    }
    while at < b.len() && is_b64(b[at]) {
        at += 1;
    }
    let mut padding = 0;
    while padding < 2 && b.get(at) == Some(&b'=') {
        at += 1;
        padding += 1;
    }
    let token = &b[start..at];
    if token.len() < 8 || !token.len().is_multiple_of(4) || token.iter().all(u8::is_ascii_lowercase) {
        return None;
    }
    Some(Hit {
        start,
        end: at,
        kind: "basic_auth",
        labelled: true,
    })
}

fn starts_with_ignore_case(hay: &[u8], word: &[u8]) -> bool {
    hay.len() >= word.len() && hay[..word.len()].eq_ignore_ascii_case(word)
}

/// The password of a URL's userinfo (`scheme://user:password@host`), whatever it looks like.
fn url_password(b: &[u8], i: usize) -> Option<Hit> {
    if !b[i..].starts_with(b"://") || i == 0 || !b[i - 1].is_ascii_alphabetic() {
        return None;
    }
    let start = i + 3;
    let limit = (start + URL_USERINFO_MAX).min(b.len());
    let mut colon = None;
    let mut at_sign = None;
    for (j, &c) in b[start..limit].iter().enumerate() {
        match c {
            b'/' | b'?' | b'#' | b'"' | b'\'' | b'`' | b'<' | b'>' | b'\\' | b' ' | b'\t' | b'\n' | b'\r' => break,
            // The last `@` ends the userinfo: a password may hold an unescaped `@`.
            b'@' => at_sign = Some(start + j),
            b':' if colon.is_none() && at_sign.is_none() => colon = Some(start + j),
            _ => {}
        }
    }
    let (colon, at_sign) = (colon?, at_sign?);
    (colon + 1 < at_sign).then_some(Hit {
        start: colon + 1,
        end: at_sign,
        kind: "url_password",
        labelled: true,
    })
}

/// From `-----BEGIN …PRIVATE KEY…` to the end of the matching `-----END …-----` line, or to the
/// end of the text when the block is not closed.
fn pem_block(b: &[u8], i: usize) -> Option<Hit> {
    const BEGIN: &[u8] = b"-----BEGIN ";
    const END: &[u8] = b"-----END ";
    if !b[i..].starts_with(BEGIN) {
        return None;
    }
    let header_end = line_end(b, i + BEGIN.len());
    memmem::find(&b[i..header_end], b"PRIVATE KEY")?;
    let end = match memmem::find(&b[header_end..], END) {
        Some(j) => {
            let footer = header_end + j + END.len();
            let footer_end = line_end(b, footer);
            match memmem::find(&b[footer..footer_end], b"-----") {
                Some(k) => footer + k + 5,
                None => b.len(),
            }
        }
        None => b.len(),
    };
    Some(Hit {
        start: i,
        end,
        kind: "private_key",
        labelled: true,
    })
}

/// The end of the line starting at `from`, read at most [`PEM_LINE_MAX`] bytes.
fn line_end(b: &[u8], from: usize) -> usize {
    let limit = (from + PEM_LINE_MAX).min(b.len());
    memchr::memchr(b'\n', &b[from..limit]).map_or(limit, |p| from + p)
}

/// An AWS secret access key: a run of exactly 40 base64 characters holding upper case, lower
/// case and digits, either labelled (`secret` before it on its line: `aws_secret_access_key = …`,
/// `"SecretAccessKey": "…"`) or — with the unlabelled rules — holding a `/` or `+` and random
/// enough (the entropy rule covers the ones without).
fn aws_secret(b: &[u8], span: &Span, unlabelled: bool) -> Option<Hit> {
    let run = &b[span.start..span.end];
    if run.len() != AWS_SECRET_LEN || span.classes & MIXED != MIXED || b.get(span.end) == Some(&b'=') {
        return None;
    }
    let hit = |labelled| Hit {
        start: span.start,
        end: span.end,
        kind: "aws_secret_key",
        labelled,
    };
    if labelled_as_secret(b, span.start) {
        return Some(hit(true));
    }
    let shaped = span.classes & SLASH_OR_PLUS != 0;
    (unlabelled && shaped && entropy(run) >= AWS_SECRET_BITS && word_share(run) < AWS_SECRET_MAX_WORDS).then(|| hit(false))
}

fn labelled_as_secret(b: &[u8], start: usize) -> bool {
    let from = start.saturating_sub(LABEL_LOOKBACK);
    let before = &b[from..start];
    let line = memchr::memrchr(b'\n', before).map_or(before, |p| &before[p + 1..]);
    line.windows(6).any(|w| w.eq_ignore_ascii_case(b"secret"))
}

/// The share of `run` that lies in lower-case runs of at least four letters.
fn word_share(run: &[u8]) -> f64 {
    let mut in_words = 0;
    let mut lower = 0;
    for &c in run.iter().chain(std::iter::once(&b' ')) {
        if c.is_ascii_lowercase() {
            lower += 1;
        } else {
            if lower >= 4 {
                in_words += lower;
            }
            lower = 0;
        }
    }
    in_words as f64 / run.len() as f64
}

/// Prefixes of the ids model APIs give messages, requests and tool calls: not secrets, and
/// long and random enough for the entropy rule once a gateway tag makes them longer
/// (`msg_vrtx_01…`, `msg_bdrk_01…`).
const API_ID_PREFIXES: &[&[u8]] = &[b"msg_", b"req_", b"toolu_", b"srvtoolu_", b"call_", b"chatcmpl-"];

fn high_entropy(b: &[u8], span: &Span) -> Option<Hit> {
    let run = &b[span.start..span.end];
    if API_ID_PREFIXES.iter().any(|p| run.starts_with(p)) {
        return None;
    }
    (run.len() >= ENTROPY_MIN_LEN && span.classes & MIXED == MIXED && entropy(run) >= ENTROPY_BITS).then_some(Hit {
        start: span.start,
        end: span.end,
        kind: "high_entropy",
        labelled: false,
    })
}

/// Shannon entropy of `run` (ASCII), in bits per character.
fn entropy(run: &[u8]) -> f64 {
    let mut counts = [0u32; 128];
    for &c in run {
        counts[usize::from(c & 0x7f)] += 1;
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
    /// The secret access key of AWS's own documentation.
    const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

    fn redacted(s: &str) -> String {
        Redactor::new("s1")
            .redact_str(s)
            .unwrap_or_else(|| panic!("nothing redacted in {s:?}"))
    }

    /// Asserts that every secret in `cases` is gone from its text and a placeholder of `kind` is there.
    fn assert_redacted(kind: &str, cases: &[(&str, &str)]) {
        for (text, secret) in cases {
            let out = redacted(text);
            assert!(!out.contains(secret), "{secret} survived in {out}");
            assert!(out.contains(&format!("[REDACTED:{kind}:")), "no {kind} placeholder in {out}");
        }
    }

    fn assert_not_kind(kind: &str, cases: &[&str]) {
        let r = Redactor::new("s1");
        for text in cases {
            let out = r.redact_str(text).unwrap_or_default();
            assert!(!out.contains(&format!("[REDACTED:{kind}:")), "{text} taken for {kind}: {out}");
        }
    }

    fn assert_kept(cases: &[&str]) {
        let r = Redactor::new("s1");
        for ok in cases {
            assert_eq!(r.redact_str(ok), None, "{ok} should not be redacted");
        }
    }

    #[test]
    fn known_formats_are_replaced() {
        let text = format!("key {AWS} token={GH}\n{PEM}\nslack xoxb-123456789012-abcdefABCDEF stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc");
        let out = redacted(&text);
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
    fn aws_access_key_ids() {
        assert_redacted(
            "aws_access_key",
            &[
                ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", AWS),
                ("\"AccessKeyId\": \"ASIAQNZGKIQY4EXAMPLE\"", "ASIAQNZGKIQY4EXAMPLE"),
                // Text that is itself JSON: an escaped newline right before the key.
                (r#"{"output":"id:\nAKIAIOSFODNN7EXAMPLE"}"#, AWS),
            ],
        );
        assert_kept(&[
            "xAKIAIOSFODNN7EXAMPLE",   // inside a word
            "AKIAIOSFODNN7EXAMPL",     // 15 after the prefix
            "AKIAIOSFODNN7EXAMPLE1",   // 17
            "AKIAIOSFODNN7EXAMPLEkey", // runs on into a word
            &"ASIA".repeat(1000),
        ]);
    }

    #[test]
    fn aws_secret_access_keys_with_a_slash() {
        assert_redacted(
            "aws_secret_key",
            &[
                (&format!("aws_secret_access_key = {AWS_SECRET}"), AWS_SECRET),
                (&format!("export AWS_SECRET_ACCESS_KEY={AWS_SECRET}"), AWS_SECRET),
                (
                    "{\"Credentials\": {\"SecretAccessKey\": \"9drTJvcXLB89EXAMPLELB8923FB892xMFI+x1a8G\", \"SessionToken\": \"x\"}}",
                    "9drTJvcXLB89EXAMPLELB8923FB892xMFI+x1a8G",
                ),
                // Unlabelled, but shaped and random like one.
                (&format!("key: {AWS_SECRET}"), AWS_SECRET),
                (
                    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
                    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
                ),
            ],
        );
        let out = redacted(&format!("aws_secret_access_key = {AWS_SECRET}"));
        assert!(out.starts_with("aws_secret_access_key = [REDACTED:aws_secret_key:"), "{out}");
        assert_kept(&[
            "Users/JohnSmith/Documents/GitHub/MyApp2x", // a path of the same length is words
            "src/components/Header2/SomethingElseView.tsx",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKE", // 39
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY==",                      // a padded base64 blob
            "secret = 3f2a9c1b8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a",               // a hex digest
        ]);
    }

    #[test]
    fn github_and_gitlab_tokens() {
        assert_redacted(
            "github_token",
            &[
                (&format!("git clone https://{GH}@github.com/o/r"), GH),
                (
                    "GITHUB_TOKEN=github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEF0123456789",
                    "github_pat_11ABCDEFG0",
                ),
            ],
        );
        assert_redacted(
            "gitlab_token",
            &[
                ("PRIVATE-TOKEN: glpat-_1fjORS-6ilI8ihN5KXS", "glpat-_1fjORS-6ilI8ihN5KXS"),
                // A routable token: dot-separated parts after the body.
                ("glpat-KpuyxCr_gN6Nrbg5tGqWsm86MQp1OmI0Y3QK.01.0y1p8k6ck", "0y1p8k6ck"),
                ("glrt-t1_Zx8Qm2Lp9Wv4Rt7Ky1Nb", "glrt-t1_Zx8Qm2Lp9Wv4Rt7Ky1Nb"),
            ],
        );
        // Near misses of a labelled format may still be random enough for the entropy rule.
        assert_not_kind(
            "github_token",
            &[
                "ghp_R2d2C3poLuke4Leia5Han6Chewie7Yoda8",
                "xghp_R2d2C3poLuke4Leia5Han6Chewie7Yoda8Ben9",
            ],
        );
        assert_kept(&[
            "ghp_abc123",
            "glpat-short",
            "see glpat- tokens in the settings",
            "myglpat-_1fjORS-6ilI8ihN5KXS",
        ]);
    }

    #[test]
    fn passwords_in_environment_dumps_twilio_sids_and_whole_sendgrid_keys() {
        assert_redacted(
            "password",
            &[
                ("HOME=/root\nPASSWORD=hunter2\nPATH=/bin", "hunter2"),
                ("DB_PASSWORD=correct-horse", "correct-horse"),
                ("export MYSQL_PWD=s3cr3t; run", "s3cr3t"),
                ("https://x/login?user=a&password=opensesame&x=1", "opensesame"),
                ("postgres_passwd=abc", "abc"),
            ],
        );
        let out = redacted("HOME=/root\nPASSWORD=hunter2\nPATH=/bin");
        assert!(
            out.starts_with("HOME=/root\nPASSWORD=[REDACTED:password:") && out.ends_with("\nPATH=/bin"),
            "{out}"
        );
        assert_kept(&["PASSWORD=", "--password-file=x", "PASSWORDS", "x == y"]);
        assert_redacted(
            "twilio_sid",
            &[(
                "TWILIO_ACCOUNT_SID=AC0eb53f16947ccf25ec84d8dbc7425477",
                "0eb53f16947ccf25ec84d8dbc7425477",
            )],
        );
        let key = "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";
        let out = redacted(&format!("SENDGRID_API_KEY={key}"));
        assert!(!out.contains("ngeVfQFYQlKU0ufo8x5d1A") && !out.contains("TwL2iGABf9"), "{out}");
        assert!(out.contains("[REDACTED:sendgrid_key:"), "{out}");
    }

    #[test]
    fn hugging_face_and_twilio_keys() {
        assert_redacted(
            "huggingface_token",
            &[
                (
                    "HF_TOKEN=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",
                    "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",
                ),
                (
                    "login(token=\"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\")",
                    "RIBXuDLDxtpYlSXpfKtHFvUCsMehGAkWvj",
                ),
            ],
        );
        assert_redacted(
            "twilio_key",
            &[(
                "TWILIO_API_KEY=SK0eb53f16947ccf25ec84d8dbc7425477",
                "SK0eb53f16947ccf25ec84d8dbc7425477",
            )],
        );
        assert_kept(&[
            "from huggingface_hub import hf_hub_download",
            "pip install hf_transfer",
            "hf_RIBXuDLDxtpYlSXpfKtHFvUCsMehGAkWv", // 33 letters: too short
            "SKU0eb53f16947ccf25ec84d8dbc742547",
            "SK0eb53f16947ccf25ec84d8dbc742547",   // 31 hex digits
            "SK0eb53f16947ccf25ec84d8dbc74254771", // 33
            "SK0eb53f16947ccf25ec84d8dbc7425477g", // runs on into a word
            "xSK0eb53f16947ccf25ec84d8dbc7425477",
        ]);
    }

    #[test]
    fn authorization_values() {
        assert_redacted(
            "bearer_token",
            &[
                (
                    "curl -H 'Authorization: Bearer aF1LlqsajAIxNKu8iS2G8NPRVdD53X83RZJzzzzg' https://api",
                    "aF1LlqsajAIxNKu8iS2G8NPRVdD53X83RZJzzzzg",
                ),
                ("authorization: bearer 8f3ac1e9b2d7", "8f3ac1e9b2d7"),
                (
                    "{\"headers\": {\"Authorization\": \"BEARER abc.DEF-ghi_jkl~mn\"}}",
                    "abc.DEF-ghi_jkl~mn",
                ),
            ],
        );
        let out = redacted("Authorization: Bearer aF1LlqsajAIxNKu8iS2G8NPRVdD53X83RZJzzzzg");
        assert!(out.starts_with("Authorization: Bearer [REDACTED:bearer_token:"), "{out}");
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert!(
            redacted(&format!("Bearer {jwt}")).contains("[REDACTED:jwt:"),
            "a JWT keeps its kind"
        );
        assert_redacted(
            "basic_auth",
            &[
                ("Authorization: Basic ZGVwbG95OlN1cDNyUzNjcmV0UHc=", "ZGVwbG95OlN1cDNyUzNjcmV0UHc="),
                ("-H \"authorization: basic dXNlcjpwYXNzd29yZA==\"", "dXNlcjpwYXNzd29yZA=="),
            ],
        );
        assert_kept(&[
            "the bearer of this letter",
            "uses Bearer Authentication for every call",
            "Authorization: Bearer ${API_TOKEN}",
            "Authorization: Bearer <token>",
            "Bearer abc123",
            "basic usage of the tool",
            "Basic configuration",
            "basic settings",
            "Basic dXNlcjpwYXNzd29yZA", // not a whole number of base64 quads
        ]);
    }

    #[test]
    fn url_passwords_are_always_redacted() {
        let out = redacted("DATABASE_URL=postgres://admin:Sup3rS3cretPw@db.internal:5432/app");
        assert!(!out.contains("Sup3rS3cretPw"), "{out}");
        assert!(out.starts_with("DATABASE_URL=postgres://admin:[REDACTED:url_password:"), "{out}");
        assert!(out.ends_with("]@db.internal:5432/app"), "{out}");
        assert_redacted(
            "url_password",
            &[
                ("redis://:hunter2@localhost:6379", "hunter2"),
                ("https://deploy:p@ss@registry.example.com/v2", "p@ss"), // an unescaped `@`
                ("mongodb+srv://u:Tr0ub4dor@cluster0.example.net/db", "Tr0ub4dor"),
            ],
        );
        assert_kept(&[
            "https://example.com:8080/path?q=1",
            "ssh://git@github.com/org/repo.git",
            "postgres://admin@host/db",
            "https://user:@host/x",
            "mailto:someone@example.com",
            "git@github.com:org/repo.git",
        ]);
    }

    #[test]
    fn pem_blocks() {
        let pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0rLqwBCAC\n-----END PGP PRIVATE KEY BLOCK-----\nafter";
        let out = redacted(pgp);
        assert!(!out.contains("lQOYBF0rLqwBCAC") && out.ends_with("]\nafter"), "{out}");
        // Inside JSON text, where the newlines are escapes.
        let escaped = r#"{"key":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END OPENSSH PRIVATE KEY-----\n"}"#;
        assert!(!redacted(escaped).contains("b3BlbnNzaC1rZXktdjEA"));
        let out = redacted("x -----BEGIN PRIVATE KEY-----\nMIIabc");
        assert!(!out.contains("MIIabc"), "an unclosed block is redacted to the end");
        assert_kept(&[
            "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
            "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYI\n-----END PUBLIC KEY-----",
        ]);
    }

    #[test]
    fn jwts_and_random_strings_are_replaced_but_ordinary_text_is_not() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_redacted("jwt", &[(&format!("token: {jwt}"), "dozjgNryP4J3jVmNHl0w5N")]);
        assert_redacted(
            "high_entropy",
            &[("Zx8Qm2Lp9Wv4Rt7Ky1Nb6Hc3Jd5Fg0Sa2Qe", "Zx8Qm2Lp9Wv4Rt7Ky1Nb6Hc3Jd5Fg0Sa2Qe")],
        );
        assert_kept(&[
            "cargo test --quiet report",
            "/repo/src/report.rs",
            "3f2a9c1b8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a", // a hex digest
            "AbstractSingletonProxyFactoryBean",
            "some_long_snake_case_identifier_name_here",
            "5b1f6c2e-8d4a-4f0e-9a37-2c1d7e9b4a10",
            "eyJhbGciOiJIUzI1NiJ9",                             // one segment
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0", // two
            &"eyJ".repeat(1000),
            &"eyJxxxx.".repeat(100), // segments of 7
        ]);
    }

    #[test]
    fn message_ids_and_model_names_are_not_secrets() {
        assert_kept(&[
            "msg_01XFDUDYJgAACzvnptvVoYEL",
            "msg_vrtx_01XFDUDYJgAACzvnptvVoYEL",
            "msg_bdrk_01XFDUDYJgAACzvnptvVoYEL",
            "req_011CSHoEeqs5C35K2UUqR7Fy",
            "req_vrtx_011CSHoEeqs5C35K2UUqR7Fy",
            "toolu_01A09q90qw90lq917835lq9",
            "claude-sonnet-4-5-20250929",
            "claude-opus-4-1-20250805",
            "claude-3-5-haiku@20241022",
            "gpt-5-codex",
            "composer-2.5",
            "750024e7-2a00-48af-8b96-405cb864fe0f",
        ]);
    }

    #[test]
    fn verbatim_fields_skip_only_the_entropy_rule() {
        let folder = "-Users-JohnSmith-Documents-GitHub-MyApp2";
        let path = format!("/Users/JohnSmith/.claude/projects/{folder}/750024e7-2a00-48af-8b96-405cb864fe0f.jsonl");
        let mut v = serde_json::json!({
            "transcript_path": path,
            "cwd": format!("/tmp/{AWS}"),
            "workspace_roots": [format!("/w/{folder}")],
            "tool_input": {"file_path": format!("/w/{folder}/a.rs"), "command": format!("ls /w/{folder}")},
        });
        let r = Redactor::new("s").redact_payload(&mut v, &["/transcript_path", "/cwd", "/workspace_roots", "/tool_input/file_path"]);
        assert_eq!(v["transcript_path"], path.as_str(), "a path tlc uses is kept as given");
        assert_eq!(v["workspace_roots"][0], format!("/w/{folder}").as_str());
        assert_eq!(v["tool_input"]["file_path"], format!("/w/{folder}/a.rs").as_str());
        assert!(
            v["cwd"].as_str().unwrap().contains("[REDACTED:aws_access_key:"),
            "labelled detectors still apply"
        );
        // The same folder name in a command is still judged by the entropy rule (a false positive).
        assert!(v["tool_input"]["command"].as_str().unwrap().contains("[REDACTED:high_entropy:"));
        assert_eq!(r.total.secrets, 2);
        assert_eq!(r.field("cwd").map(|f| f.secrets), Some(1));
        assert_eq!(r.field("transcript_path"), None);
    }

    #[test]
    fn a_long_string_is_scanned_up_to_the_cap_and_kept_cut() {
        let r = Redactor::new("s");
        let plain = "word ".repeat(MAX_SCAN_BYTES / 5 + 1000);
        let (out, stats) = r.redact_text(&plain, Detectors::All);
        let out = out.expect("cut");
        assert!(
            out.len() < MAX_SCAN_BYTES + 100 && out.ends_with("bytes: not scanned]"),
            "{}",
            &out[out.len() - 60..]
        );
        assert_eq!((stats.truncated, stats.secrets), (1, 0));
        // A secret crossing the cut is replaced whole; one beyond it is dropped with the rest.
        let mut s = "a".repeat(MAX_SCAN_BYTES - 10);
        s.push(' ');
        s.push_str(GH);
        s.push(' ');
        s.push_str(&"b ".repeat(5000));
        s.push_str(AWS);
        let out = r.redact_str(&s).unwrap();
        assert!(
            !out.contains("ghp_") && out.contains("[REDACTED:github_token:"),
            "{}",
            &out[out.len() - 120..]
        );
        assert!(!out.contains(AWS) && !out.contains("aws_access_key"));
        assert!(out.ends_with("bytes: not scanned]"));
        // A field at the cap is not cut.
        assert_eq!(r.redact_str(&"c".repeat(MAX_SCAN_BYTES)), None);
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
        let stats = r.redact_value(&mut v);
        assert_eq!((stats.secrets, stats.keys), (3, 1));
        assert_eq!(stats.kinds.into_iter().collect::<Vec<_>>(), ["aws_access_key", "github_token"]);
        let text = v.to_string();
        assert!(!text.contains(AWS) && !text.contains(GH), "{text}");
    }
}
