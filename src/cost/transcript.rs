//! Token usage from Claude Code session transcripts (JSONL), for the import and the hook alike.
//!
//! Claude Code writes each assistant response's `message.usage` into the transcript; one API
//! response is often written over several lines that share `message.id` and `requestId` (one per
//! content block), all carrying the same usage. It counts once: the dedup key is
//! `"<message.id>:<requestId>"`, and a line without both ids gets `"<file_key>@<byte offset>"`.
//!
//! The scanner is built for throughput: a line is JSON-parsed only when a byte search finds
//! `"usage"` in it (a key, never escaped text), and the parse borrows from the buffer and skips
//! every field it does not name (by a walk over the text for plain lines, [`super::plain_line`],
//! else by serde_json). Lines without `"usage"` are only checked to look like one JSON
//! object (`{` … `}`); a non-blank line that does not, or a candidate that fails to parse, is
//! malformed: skipped and counted. Only complete lines (ending in `\n`) are consumed, so a line
//! being written is read on the next scan.

use super::plain_line::{read as read_plain, PlainLine, StopReason};
use super::rates::TokenUsage;
use crate::hashing::Fx;
use memchr::memmem::Finder;
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The model Claude Code writes on assistant lines that no API response produced.
pub(crate) const SYNTHETIC_MODEL: &str = "<synthetic>";

/// One API response's usage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsageRecord {
    /// `"<message.id>:<requestId>"`, or `"<file_key>@<offset>"` for a line without both.
    pub dedup_key: String,
    /// The line's `sessionId`; empty when the line has none (the caller knows the file's).
    pub session_id: String,
    /// UTC RFC 3339 (`2026-11-20T09:14:00.000Z`).
    pub ts: String,
    /// `message.model` (empty when absent).
    pub model: String,
    pub usage: TokenUsage,
    /// Byte offset of the line in the file.
    pub offset: u64,
    /// The usage fields whose value was refused (outside `0..2^53`: negative, fractional, or too
    /// large to be a count): one bit per field of [`COUNT_FIELDS`]. Each is stored as 0 and the
    /// response kept; the hook names them in a fault, the import counts them.
    pub rejected: u8,
    /// A subagent's line (`isSidechain: true`) written before the response ended
    /// (`message.stop_reason` is `null`): its `output_tokens` is the stream's count at that moment,
    /// not the final one. Claude Code 2.1.197 writes every line of a subagent's transcript so, with
    /// the count of `message_start` (2.1.332 writes them finished). A main-thread line with a null
    /// `stop_reason` is not marked: 2.1.197's are exact, and older clients (2.0.x, the fixtures
    /// modelled on them) write null there with the final count. Stored as it is, with
    /// [`super::rates::INEXACT_OUTPUT_MARK`] in `cost_source`.
    pub inexact_output: bool,
}

/// The largest token count accepted, exclusive: 2^53. A count beyond it is no real response's,
/// and stored as an SQLite integer it would wrap or overflow every sum over it.
pub(crate) const MAX_TOKENS: u64 = 1 << 53;

/// The usage fields a transcript's counts come from, in the bit order of
/// [`UsageRecord::rejected`].
pub(crate) const COUNT_FIELDS: [&str; 6] = [
    "usage.input_tokens",
    "usage.output_tokens",
    "usage.cache_read_input_tokens",
    "usage.cache_creation_input_tokens",
    "usage.cache_creation.ephemeral_5m_input_tokens",
    "usage.cache_creation.ephemeral_1h_input_tokens",
];

/// The names of the fields a [`UsageRecord::rejected`] mask marks.
pub(crate) fn rejected_fields(mask: u8) -> Vec<&'static str> {
    COUNT_FIELDS
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, f)| *f)
        .collect()
}

/// A token count as a transcript gives it: a whole number in `0..MAX_TOKENS`, or any other
/// number (rejected, not a parse failure: the rest of the response is still read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    Valid(u64),
    OutOfRange,
}

impl Count {
    fn of(n: u64) -> Count {
        if n < MAX_TOKENS {
            Count::Valid(n)
        } else {
            Count::OutOfRange
        }
    }

    /// The value, or 0 with the field's bit set in `rejected`.
    fn take(field: Option<Count>, bit: usize, rejected: &mut u8) -> Option<u64> {
        match field? {
            Count::Valid(n) => Some(n),
            Count::OutOfRange => {
                *rejected |= 1 << bit;
                Some(0)
            }
        }
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Count, D::Error> {
        // Any JSON number is a count, in range or not; anything else fails the line, as before.
        let n = serde_json::Number::deserialize(d)?;
        Ok(n.as_u64().map_or(Count::OutOfRange, Count::of))
    }
}

/// What one scan found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct UsageScan {
    /// One record per response, in file order, duplicates within the scan removed.
    pub records: Vec<UsageRecord>,
    /// Lines that were not JSON, or had usage without a usable timestamp.
    pub malformed: u64,
    /// Complete lines read.
    pub lines: u64,
    /// Bytes consumed: the offset just after the last complete line, relative to the buffer.
    pub consumed: u64,
    /// The working directory the session ran in: the first `cwd` a line of the scan names.
    pub cwd: Option<String>,
    /// Records with at least one count refused (see [`UsageRecord::rejected`]).
    pub rejected: u64,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "requestId", borrow)]
    request_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Message<'a>>,
    #[serde(rename = "isSidechain", default)]
    sidechain: IsTrue,
}

/// A field that is `true`, or anything else (any value, `null`, or none): read without failing
/// the line, as the direct reader reads it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct IsTrue(bool);

impl<'de> Deserialize<'de> for IsTrue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<IsTrue, D::Error> {
        Ok(IsTrue(serde_json::Value::deserialize(d)? == serde_json::Value::Bool(true)))
    }
}

#[derive(Deserialize, Debug, PartialEq)]
struct Message<'a> {
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    usage: Option<Usage>,
    #[serde(default)]
    stop_reason: StopReason,
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<StopReason, D::Error> {
        // Present: `null` or any other value (an absent key is the field's default).
        Ok(match Option::<serde::de::IgnoredAny>::deserialize(d)? {
            None => StopReason::Null,
            Some(_) => StopReason::Set,
        })
    }
}

#[derive(Deserialize, Debug, PartialEq)]
struct Usage {
    input_tokens: Option<Count>,
    output_tokens: Option<Count>,
    cache_creation_input_tokens: Option<Count>,
    cache_read_input_tokens: Option<Count>,
    cache_creation: Option<CacheCreation>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
struct CacheCreation {
    ephemeral_5m_input_tokens: Option<Count>,
    ephemeral_1h_input_tokens: Option<Count>,
}

impl<'a> From<PlainLine<'a>> for Line<'a> {
    fn from(p: PlainLine<'a>) -> Line<'a> {
        Line {
            kind: p.kind.map(Cow::Borrowed),
            session_id: p.session_id.map(Cow::Borrowed),
            timestamp: p.timestamp.map(Cow::Borrowed),
            request_id: p.request_id.map(Cow::Borrowed),
            sidechain: IsTrue(p.sidechain),
            message: p.message.map(|m| Message {
                id: m.id.map(Cow::Borrowed),
                model: m.model.map(Cow::Borrowed),
                stop_reason: m.stop_reason,
                usage: m.usage.map(|u| Usage {
                    input_tokens: u.input_tokens.map(Count::of),
                    output_tokens: u.output_tokens.map(Count::of),
                    cache_creation_input_tokens: u.cache_creation_input_tokens.map(Count::of),
                    cache_read_input_tokens: u.cache_read_input_tokens.map(Count::of),
                    cache_creation: u.cache_creation.map(|c| CacheCreation {
                        ephemeral_5m_input_tokens: c.ephemeral_5m_input_tokens.map(Count::of),
                        ephemeral_1h_input_tokens: c.ephemeral_1h_input_tokens.map(Count::of),
                    }),
                }),
            }),
        }
    }
}

/// A line's fields: read directly when the line is plain (see [`super::plain_line`]), else by
/// serde_json; `None` when serde_json cannot read it either (a malformed line).
fn parse_line(line: &[u8]) -> Option<Line<'_>> {
    match read_plain(line) {
        Some(plain) => Some(plain.into()),
        None => serde_json::from_slice(line).ok(),
    }
}

/// `ts` as the stored form: already-normalised UTC stamps pass through untouched and whole-second
/// UTC stamps gain `.000` (the common cases, and cheap); anything else is parsed and re-stamped;
/// `None` when it is not a time. What passes through untouched is what `usage_hourly` numbers
/// ([`super::usage::stored_form`]), so that no text with a time's punctuation but not its digits is
/// stored unparsed (reports read every stored time back as a time).
fn normalise_ts(ts: &str) -> Option<String> {
    if super::usage::stored_form(ts).is_some() {
        return Some(ts.to_string());
    }
    let b = ts.as_bytes();
    if b.len() == 20 && b[19] == b'Z' {
        let mut out = String::with_capacity(24);
        out.push_str(&ts[..19]);
        out.push_str(".000Z");
        if super::usage::stored_form(&out).is_some() {
            return Some(out);
        }
    }
    crate::clock::parse(ts).ok().filter(|_| ts.contains('T')).map(crate::clock::stamp)
}

fn key_hash(message_id: &[u8], request_id: &[u8]) -> u64 {
    let mut h = Fx::default();
    h.write(message_id);
    h.write(b":");
    h.write(request_id);
    h.finish()
}

fn key_is(stored: &str, message_id: &[u8], request_id: &[u8]) -> bool {
    let s = stored.as_bytes();
    s.len() == message_id.len() + 1 + request_id.len()
        && &s[..message_id.len()] == message_id
        && s[message_id.len()] == b':'
        && &s[message_id.len() + 1..] == request_id
}

/// The JSON string value right after the only occurrence of `pattern` in `line`; `None` when the
/// pattern is absent or repeated, or the value has an escape (the full parse decides those).
fn only_string_after<'a>(line: &'a [u8], pattern: &Finder<'_>) -> Option<&'a [u8]> {
    let at = pattern.find(line)?;
    let rest = &line[at + pattern.needle().len()..];
    if pattern.find(rest).is_some() {
        return None;
    }
    let end = memchr::memchr(b'"', rest)?;
    let value = &rest[..end];
    (!value.is_empty() && !value.contains(&b'\\')).then_some(value)
}

/// Scans `bytes` (read from a transcript starting at `base_offset`) for usage records.
/// `file_key` names the file in dedup keys of lines without ids (use the path).
///
/// A line repeating a response already recorded in this scan is recognised from its two ids
/// (each found exactly once by a byte search) and skipped without a JSON parse: about four lines
/// in ten in Claude Code's transcripts.
pub(crate) fn scan_usage(bytes: &[u8], base_offset: u64, file_key: &str) -> UsageScan {
    let usage_key = Finder::new(b"\"usage\"");
    let request_key = Finder::new(b"\"requestId\":\"");
    let message_key = Finder::new(b"\"message\":{\"id\":\"");
    let cwd_key = Finder::new(b"\"cwd\":\"");
    let mut scan = UsageScan::default();
    let mut seen: HashMap<u64, u32, BuildHasherDefault<Fx>> = HashMap::default();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let Some(nl) = memchr::memchr(b'\n', &bytes[pos..]) else { break };
        let line = &bytes[pos..pos + nl];
        let offset = base_offset + pos as u64;
        pos += nl + 1;
        scan.lines += 1;
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        if scan.cwd.is_none() {
            scan.cwd = only_string_after(line, &cwd_key)
                .and_then(|v| std::str::from_utf8(v).ok())
                .map(str::to_string);
        }
        if usage_key.find(line).is_none() {
            if line[0] != b'{' || line[line.len() - 1] != b'}' {
                scan.malformed += 1;
            }
            continue;
        }
        if let (Some(m), Some(r)) = (only_string_after(line, &message_key), only_string_after(line, &request_key)) {
            let known = seen
                .get(&key_hash(m, r))
                .is_some_and(|&i| key_is(&scan.records[i as usize].dedup_key, m, r));
            if known && line[line.len() - 1] == b'}' {
                continue;
            }
        }
        let Some(parsed) = parse_line(line) else {
            scan.malformed += 1;
            continue;
        };
        if parsed.kind.as_deref().is_some_and(|k| k != "assistant") {
            continue;
        }
        let Some(msg) = parsed.message else { continue };
        // Claude Code's own stand-in lines ("No response requested." after /compact, API errors)
        // carry model `<synthetic>` and zero usage: they are not model responses.
        if msg.model.as_deref() == Some(SYNTHETIC_MODEL) {
            continue;
        }
        let Some(u) = msg.usage else { continue };
        let mut rejected = 0u8;
        let (Some(input), Some(output)) = (
            Count::take(u.input_tokens, 0, &mut rejected),
            Count::take(u.output_tokens, 1, &mut rejected),
        ) else {
            continue;
        };
        let cache_read = Count::take(u.cache_read_input_tokens, 2, &mut rejected).unwrap_or(0);
        let cache_write = Count::take(u.cache_creation_input_tokens, 3, &mut rejected).unwrap_or(0);
        let split = u.cache_creation;
        let _five_minutes = Count::take(split.and_then(|c| c.ephemeral_5m_input_tokens), 4, &mut rejected);
        let one_hour = Count::take(split.and_then(|c| c.ephemeral_1h_input_tokens), 5, &mut rejected).unwrap_or(0);
        let Some(ts) = parsed.timestamp.as_deref().and_then(normalise_ts) else {
            scan.malformed += 1;
            continue;
        };
        let (dedup_key, hash) = match (msg.id.as_deref(), parsed.request_id.as_deref()) {
            (Some(m), Some(r)) if !m.is_empty() && !r.is_empty() => {
                let h = key_hash(m.as_bytes(), r.as_bytes());
                if seen
                    .get(&h)
                    .is_some_and(|&i| key_is(&scan.records[i as usize].dedup_key, m.as_bytes(), r.as_bytes()))
                {
                    continue;
                }
                let mut key = String::with_capacity(m.len() + 1 + r.len());
                key.push_str(m);
                key.push(':');
                key.push_str(r);
                (key, Some(h))
            }
            _ => (format!("{file_key}@{offset}"), None),
        };
        if let Some(h) = hash {
            // On a (vanishingly rare) hash collision the first key keeps the slot; a repeat of the
            // second may then be recorded twice here, and the store keeps it once (the insert's
            // lookup in `usage_key`, or the bulk import's set of key hashes).
            seen.entry(h).or_insert(scan.records.len() as u32);
        }
        scan.records.push(UsageRecord {
            dedup_key,
            session_id: parsed.session_id.map(Cow::into_owned).unwrap_or_default(),
            ts,
            model: msg.model.map(Cow::into_owned).unwrap_or_default(),
            // The 1-hour part as the split says, never more than the writes it splits.
            usage: TokenUsage {
                input,
                output,
                cache_read,
                cache_write,
                cache_write_1h: one_hour.min(cache_write),
            },
            offset,
            rejected,
            inexact_output: parsed.sidechain.0 && msg.stop_reason == StopReason::Null,
        });
        scan.rejected += u64::from(rejected != 0);
    }
    scan.consumed = pos as u64;
    scan
}

#[cfg(test)]
mod tests {
    use super::*;

    const A1: &str = r#"{"type":"assistant","sessionId":"s1","requestId":"req_1","timestamp":"2026-11-20T09:00:00.000Z","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"a \"usage\" word"}],"usage":{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":7}}}"#;
    const A1_AGAIN: &str = r#"{"type":"assistant","sessionId":"s1","requestId":"req_1","timestamp":"2026-11-20T09:00:01.000Z","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"tool_use"}],"usage":{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":7}}}"#;
    const NO_IDS: &str = r#"{"type":"assistant","timestamp":"2026-11-20T10:00:00+02:00","message":{"model":"m","usage":{"input_tokens":1,"output_tokens":2}}}"#;
    const USER: &str =
        r#"{"type":"user","sessionId":"s1","timestamp":"2026-11-20T09:00:00.000Z","message":{"role":"user","content":"hi"}}"#;

    #[test]
    fn a_response_over_several_lines_counts_once() {
        let text = format!("{A1}\n{A1_AGAIN}\n{USER}\n");
        let s = scan_usage(text.as_bytes(), 0, "f");
        assert_eq!(s.records.len(), 1);
        let r = &s.records[0];
        assert_eq!(r.dedup_key, "msg_1:req_1");
        assert_eq!(r.session_id, "s1");
        assert_eq!(r.model, "claude-sonnet-4-5");
        assert_eq!(r.ts, "2026-11-20T09:00:00.000Z");
        assert_eq!(
            r.usage,
            TokenUsage {
                input: 3,
                output: 7,
                cache_read: 100,
                cache_write: 10,
                cache_write_1h: 0
            }
        );
        assert_eq!(s.malformed, 0);
        assert_eq!(s.lines, 3);
        assert_eq!(s.consumed, text.len() as u64);
    }

    #[test]
    fn malformed_lines_are_skipped_and_counted_and_blank_lines_are_not() {
        let text = format!("{{\"type\":\"assistant\",\"message\":{{\"id\":\"msg_cut\n\n{USER}\n{{\"usage\": broken}}\n{A1}\n");
        let s = scan_usage(text.as_bytes(), 0, "f");
        assert_eq!(s.malformed, 2);
        assert_eq!(s.records.len(), 1);
    }

    #[test]
    fn only_complete_lines_are_consumed() {
        let text = format!("{USER}\n{A1}");
        let s = scan_usage(text.as_bytes(), 0, "f");
        assert!(s.records.is_empty());
        assert_eq!(s.consumed, USER.len() as u64 + 1);
        let rest = &text.as_bytes()[s.consumed as usize..];
        let mut more = rest.to_vec();
        more.push(b'\n');
        let s2 = scan_usage(&more, s.consumed, "f");
        assert_eq!(s2.records.len(), 1);
        assert_eq!(s2.records[0].offset, USER.len() as u64 + 1);
    }

    #[test]
    fn lines_without_ids_are_keyed_by_file_and_offset_and_times_become_utc() {
        let text = format!("{USER}\n{NO_IDS}\n");
        let s = scan_usage(text.as_bytes(), 1000, "/t/a.jsonl");
        assert_eq!(s.records.len(), 1);
        assert_eq!(s.records[0].dedup_key, format!("/t/a.jsonl@{}", 1000 + USER.len() + 1));
        assert_eq!(s.records[0].ts, "2026-11-20T08:00:00.000Z");
        assert_eq!(s.records[0].session_id, "");
    }

    #[test]
    fn timestamps_take_the_stored_form() {
        assert_eq!(normalise_ts("2027-06-08T11:01:00Z").as_deref(), Some("2027-06-08T11:01:00.000Z"));
        assert_eq!(
            normalise_ts("2027-06-08T11:01:00.123Z").as_deref(),
            Some("2027-06-08T11:01:00.123Z")
        );
        assert_eq!(
            normalise_ts("2027-06-08T13:01:00+02:00").as_deref(),
            Some("2027-06-08T11:01:00.000Z")
        );
        assert_eq!(normalise_ts("2027-06-08"), None);
        assert_eq!(normalise_ts("yesterday"), None);
        // A time's punctuation without its digits is no time, stored form or not.
        assert_eq!(normalise_ts("2027-06-08T11:1x:00.000Z"), None);
        assert_eq!(normalise_ts("2027-06-08T11:75:00Z"), None);
    }

    /// Lines read directly must give exactly what serde_json gives; lines that are not plain are
    /// left to it.
    #[test]
    fn plain_lines_read_as_serde_json_reads_them() {
        let plain = [
            A1,
            A1_AGAIN,
            USER,
            NO_IDS,
            r#"{"type":"assistant","message":null,"timestamp":null}"#,
            r#"{"message":{"usage":null,"id":null,"model":"m"},"x":[1,-2.5e+3,0.25,true,false,null,{},[],{"a":[{"b":"\u00e9\n\"q\""}]}]}"#,
            r#"{ "type" : "assistant" , "message" : { "usage" : { "input_tokens" : 0 , "output_tokens" : 18446744073709551615 , "cache_creation" : { "ephemeral_5m_input_tokens" : 1 } } } }"#,
            r#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","input":{"usage":{"input_tokens":999},"model":"x","id":"y"}}],"usage":{"input_tokens":1,"output_tokens":2}}}"#,
            r#"{"type":"ünïcödé","sessionId":"s","message":{"usage":{}}}"#,
            r#"{"message":{"usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":30,"cache_creation":{"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":20,"other":[1]},"service_tier":"standard"}}}"#,
            r#"{"message":{"usage":{"cache_creation":null}}}"#,
            r#"{"message":{"id":"m","stop_reason":null,"usage":{"output_tokens":3}}}"#,
            r#"{"message":{"stop_reason":"end_turn","usage":{"output_tokens":3}}}"#,
            r#"{"message":{"stop_reason":{"odd":[1,null]}}}"#,
            r#"{"message":{"stop_reason":7}}"#,
            r#"{"isSidechain":true,"message":{"stop_reason":null}}"#,
            r#"{"isSidechain":false}"#,
            r#"{"isSidechain":"true"}"#,
            r#"{"isSidechain":null}"#,
            r#"{"isSidechain":[true]}"#,
            r#"{"message":{"stop_reason":"with \"escape\""}}"#,
            "{}",
        ];
        for line in plain {
            let direct = read_plain(line.as_bytes()).unwrap_or_else(|| panic!("not read directly: {line}"));
            let by_serde: Line<'_> = serde_json::from_str(line).unwrap();
            assert_eq!(Line::from(direct), by_serde, "{line}");
        }
        let left_to_serde = [
            r#"{"type":"assistant","type":"user"}"#,
            r#"{"message":{"id":"a","id":"b"}}"#,
            r#"{"message":{"usage":{"input_tokens":1,"input_tokens":2}}}"#,
            r#"{"sessionId":"s\"1"}"#,
            r#"{"typ\u0065":"assistant"}"#,
            r#"{"message":{"usage":{"input_tokens":1.0}}}"#,
            r#"{"message":{"usage":{"input_tokens":-1}}}"#,
            r#"{"message":{"usage":{"input_tokens":01}}}"#,
            r#"{"message":{"usage":{"input_tokens":18446744073709551616}}}"#,
            r#"{"message":{"usage":{"input_tokens":"1"}}}"#,
            r#"{"message":"text"}"#,
            r#"{"type":1}"#,
            r#"{"x":"\ud83d\ude00"}"#,
            r#"{"x":"\q"}"#,
            r#"{"x":"\u00g0"}"#,
            r#"{"x":01}"#,
            r#"{"x":1.}"#,
            r#"{"x":tru}"#,
            r#"{"x":[1,]}"#,
            r#"{"x":1,}"#,
            r#"{"x":1} x"#,
            "{\"x\":\"tab\there\"}",
            r#"["assistant"]"#,
            r#"{"usage": broken}"#,
            r#"{"message":{"usage":{"cache_creation":{"ephemeral_1h_input_tokens":1.5}}}}"#,
            r#"{"message":{"usage":{"cache_creation":{"ephemeral_1h_input_tokens":1,"ephemeral_1h_input_tokens":2}}}}"#,
            r#"{"message":{"stop_reason":null,"stop_reason":"end_turn"}}"#,
            r#"{"isSidechain":true,"isSidechain":false}"#,
            r#"{"isSidechain":truex}"#,
            r#"{"message":{"stop_reason":nul}}"#,
            r#"{"message":{"stop_reason":nullx}}"#,
        ];
        for line in left_to_serde {
            assert_eq!(read_plain(line.as_bytes()), None, "{line}");
        }
        let deep = format!("{{\"x\":{}{}}}", "[".repeat(120), "]".repeat(120));
        assert_eq!(read_plain(deep.as_bytes()), None);
        assert_eq!(read_plain(b"{\"x\":\"\xff\"}"), None);
    }

    #[test]
    fn the_one_hour_part_of_the_cache_writes_is_kept_and_never_exceeds_them() {
        let line = |ones: &str| {
            format!(
                r#"{{"type":"assistant","requestId":"r{ones}","timestamp":"2026-11-20T09:00:00.000Z","message":{{"id":"m","model":"x","usage":{{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":100,"cache_creation":{{"ephemeral_5m_input_tokens":30,"ephemeral_1h_input_tokens":{ones}}}}}}}}}"#
            )
        };
        for (ones, want) in [("70", 70), ("0", 0), ("500", 100)] {
            let text = format!("{}\n", line(ones));
            let s = scan_usage(text.as_bytes(), 0, "f");
            assert_eq!(s.records[0].usage.cache_write, 100);
            assert_eq!(s.records[0].usage.cache_write_1h, want, "{ones}");
        }
        // Without the split (older transcripts) every write counts as 5-minute.
        let s = scan_usage(format!("{A1}\n").as_bytes(), 0, "f");
        assert_eq!((s.records[0].usage.cache_write, s.records[0].usage.cache_write_1h), (10, 0));
    }

    #[test]
    fn synthetic_lines_are_not_responses() {
        let synthetic = r#"{"type":"assistant","sessionId":"s1","timestamp":"2026-11-20T09:00:02.000Z","message":{"id":"75d5905b-a88a-4ad2-9aba-dbfeba2abbce","model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","type":"message","usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"content":[{"type":"text","text":"No response requested."}]}}"#;
        let text = format!("{A1}\n{synthetic}\n");
        let s = scan_usage(text.as_bytes(), 0, "f");
        assert_eq!((s.records.len(), s.malformed), (1, 0));
        assert_eq!(s.records[0].model, "claude-sonnet-4-5");
    }

    /// A subagent's line written before its response ended (`isSidechain` true, `stop_reason`
    /// null: Claude Code 2.1.197's) is inexact, read directly or by serde_json; a finished one, a
    /// main-thread one with a null `stop_reason`, or one without the key is not.
    #[test]
    fn a_subagent_line_written_before_the_response_ended_is_inexact() {
        let side = A1.replace(
            r#"{"type":"assistant","#,
            r#"{"isSidechain":true,"agentId":"a1","type":"assistant","#,
        );
        let with_stop = |v: &str| {
            side.replace(
                r#""model":"claude-sonnet-4-5","#,
                &format!(r#""model":"claude-sonnet-4-5","stop_reason":{v},"#),
            )
        };
        let early = with_stop("null");
        let done = with_stop(r#""tool_use""#);
        let main = early.replace(r#""isSidechain":true"#, r#""isSidechain":false"#);
        // A tab before the value: not plain, left to serde_json.
        let early_serde = early.replace(r#""stop_reason":null"#, "\"stop_reason\":\tnull");
        assert!(read_plain(early_serde.as_bytes()).is_none());
        for (line, inexact) in [
            (early.as_str(), true),
            (early_serde.as_str(), true),
            (done.as_str(), false),
            (main.as_str(), false),
            (side.as_str(), false),
            (A1, false),
        ] {
            let s = scan_usage(format!("{line}\n").as_bytes(), 0, "f");
            assert_eq!(s.records.len(), 1, "{line}");
            assert_eq!(s.records[0].inexact_output, inexact, "{line}");
            assert_eq!(s.records[0].usage.output, 7);
        }
    }

    #[test]
    fn a_repeated_line_cut_short_is_malformed_not_skipped() {
        let cut = &A1_AGAIN[..A1_AGAIN.len() - 3];
        let text = format!("{A1}\n{cut}\n");
        let s = scan_usage(text.as_bytes(), 0, "f");
        assert_eq!((s.records.len(), s.malformed), (1, 1));
    }
}
