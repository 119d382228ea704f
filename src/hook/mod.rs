//! The hot path: one provider payload in, one neutral event recorded, one valid response out.
//!
//! Whatever arrives — nothing, garbage, 20 MB, an unknown event — and whatever fails — a locked
//! or unwritable database, a broken config — [`handle`] returns a valid response for the
//! provider and the process exits 0. Faults are recorded where anything is writable: a
//! `hook.fault` event, else a size-capped log under the home.

pub(crate) mod additions;
mod adopt;
pub(crate) mod boundary;
pub(crate) mod claude;
pub(crate) mod cursor;
mod fault_log;
mod guard;
mod mapped;
mod mask;
mod pending;
pub(crate) mod provider;
mod record;
mod rules;
pub(crate) mod settings_file;
pub(crate) mod settings_text;
mod turn;
mod untrusted;
mod usage;
mod wire;
pub(crate) mod wiring;

pub(crate) use fault_log::{read_fault_log, FAULT_LOG_NAME};
pub(crate) use provider::Provider;

use crate::fault::{Fault, Faults};
use serde_json::Value;
use std::io::Read;
use std::time::{Duration, Instant};

/// Payloads larger than this are not parsed: the hook answers and records the fault.
pub(crate) const MAX_PAYLOAD_BYTES: usize = 64 * 1024 * 1024;

/// Every provider tlc answers (see [`provider`] for what is derived from this table, and how to
/// add one).
pub(crate) static PROVIDERS: &[&dyn Provider] = &[claude::PROVIDER, cursor::PROVIDER];

/// How long the hook waits for more of the payload after the last byte arrived (providers
/// write it at once and close stdin; a writer that keeps the pipe open gets this long).
pub(crate) const STDIN_IDLE: Duration = Duration::from_millis(500);
/// The longest the hook reads stdin, however the bytes trickle in.
pub(crate) const STDIN_DEADLINE: Duration = Duration::from_secs(5);

/// Reads stdin (bounded in size and in time) and handles it; returns the response to print.
/// Never panics out. For a process that exits right after printing the response (`tlc hook`):
/// its connections are left to the exit, which saves closing them.
pub(crate) fn run_in_exiting_process(provider: &dyn Provider) -> String {
    let (input, read_fault) = read_stdin();
    let outcome = std::panic::catch_unwind(|| handle(provider, &input, read_fault.clone()));
    match outcome {
        Ok(response) => response,
        Err(_) => {
            fault_log::append_best_effort(provider.name(), "the hook panicked; answered neutrally");
            provider.neutral().to_string()
        }
    }
}

/// The payload and, when it did not arrive whole, why.
///
/// A pipe (or a terminal, a FIFO) on stdin is read through a second, non-blocking descriptor
/// opened on it (`/proc/self/fd/0`), so that a writer that never closes it cannot hold the
/// hook: the hook goes on with what arrived once the pipe has been quiet for [`STDIN_IDLE`], or
/// at [`STDIN_DEADLINE`] at the latest. No thread is involved: on a loaded machine, handing the
/// bytes over from a reader thread cost more than the whole read. A regular file is read to its
/// end; a stdin that cannot be reopened that way (a socket, a system without `/proc`) is read to
/// its end as it is. An oversized payload is not parsed, and stdin is drained meanwhile (until
/// its end or the deadline) so that the writer is not left blocked on a full pipe.
fn read_stdin() -> (Vec<u8>, Option<String>) {
    const STDIN: &str = "/proc/self/fd/0";
    let regular = std::fs::metadata(STDIN).is_ok_and(|m| m.is_file());
    let reopened = if regular {
        None
    } else {
        std::os::unix::fs::OpenOptionsExt::custom_flags(std::fs::OpenOptions::new().read(true), libc::O_NONBLOCK)
            .open(STDIN)
            .ok()
    };
    match reopened {
        Some(pipe) => read_with_deadline(pipe),
        None => read_to_end(std::io::stdin().lock()),
    }
}

fn oversized() -> String {
    format!("payload larger than {MAX_PAYLOAD_BYTES} bytes was not parsed")
}

/// Reads a stdin that always ends (a regular file), or that could not be reopened.
fn read_to_end(mut stdin: impl Read) -> (Vec<u8>, Option<String>) {
    let mut input = Vec::new();
    let read = (&mut stdin).take(MAX_PAYLOAD_BYTES as u64 + 1).read_to_end(&mut input);
    if input.len() > MAX_PAYLOAD_BYTES {
        let _ = std::io::copy(&mut stdin, &mut std::io::sink());
        return (Vec::new(), Some(oversized()));
    }
    match read {
        Ok(_) => (input, None),
        Err(e) => (input, Some(format!("cannot read stdin: {e}"))),
    }
}

/// Reads a non-blocking stdin until its end, a quiet [`STDIN_IDLE`] after the last byte, or
/// [`STDIN_DEADLINE`]. An empty read first yields the processor (the writer is most likely
/// about to run: it has just started this process and is writing or closing), a few hundred
/// times; then it sleeps, backing off from 100 µs to 2 ms. A sleep from the first empty read
/// on cost a whole timer slice each time the writer was a little late, and waking to a blocking
/// read needs `poll`, which the standard library does not offer.
fn read_with_deadline(mut pipe: std::fs::File) -> (Vec<u8>, Option<String>) {
    let started = Instant::now();
    let deadline = started + STDIN_DEADLINE;
    let mut input = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut total = 0usize;
    let mut last: Option<Instant> = None;
    let mut pause = Duration::from_micros(100);
    let mut yields = 0u32;
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                total += n;
                // Past the cap: drained, never kept.
                if total <= MAX_PAYLOAD_BYTES {
                    input.extend_from_slice(&chunk[..n]);
                }
                last = Some(Instant::now());
                pause = Duration::from_micros(100);
                yields = 0;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                // Before the first byte the whole deadline is the wait (a slow start of the writer).
                let until = last.map_or(deadline, |l| (l + STDIN_IDLE).min(deadline));
                let now = Instant::now();
                if now >= until {
                    if total > MAX_PAYLOAD_BYTES {
                        return (Vec::new(), Some(oversized()));
                    }
                    let why = if now >= deadline {
                        format!("{} s", STDIN_DEADLINE.as_secs())
                    } else {
                        format!("{} ms after its last byte", STDIN_IDLE.as_millis())
                    };
                    let fault = format!("stdin was not closed: {} bytes read, answered {why} with what arrived", input.len());
                    return (input, Some(fault));
                }
                if yields < 300 {
                    yields += 1;
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(pause.min(until - now));
                    pause = (pause * 2).min(Duration::from_millis(2));
                }
            }
            Err(e) => {
                if total > MAX_PAYLOAD_BYTES {
                    return (Vec::new(), Some(oversized()));
                }
                return (input, Some(format!("cannot read stdin: {e}")));
            }
        }
        if total > MAX_PAYLOAD_BYTES && Instant::now() >= deadline {
            return (Vec::new(), Some(oversized()));
        }
    }
    if total > MAX_PAYLOAD_BYTES {
        return (Vec::new(), Some(oversized()));
    }
    (input, None)
}

/// Handles one payload and returns the response text.
fn handle(provider: &dyn Provider, input: &[u8], read_fault: Option<String>) -> String {
    let now = crate::clock::now();
    let mut faults: Faults = read_fault.map(Fault::Input).into_iter().collect();
    let read_failed = !faults.is_empty();
    let value = match parse_payload(input) {
        Ok((v, repaired)) => {
            if !repaired.is_empty() {
                faults.push(Fault::Repaired(repaired));
            }
            Some(v)
        }
        // A payload the read already refused (over its cap) is named once, by the read.
        Err(PayloadError::Empty) if read_failed => None,
        Err(e) => {
            faults.push(Fault::Input(e.to_string()));
            None
        }
    };
    let outcome = record::process(provider, value, now, faults);
    let response = provider.render(&outcome.hook_event, &outcome.decision);
    match outcome.mask {
        Some(mask) => mask::apply(provider, &outcome.hook_event, response, mask),
        None => response,
    }
}

/// Why a payload could not be used.
#[derive(Debug, thiserror::Error)]
enum PayloadError {
    #[error("empty payload")]
    Empty,
    #[error("payload is not JSON ({bytes} bytes{}): {cause}", if *.invalid_utf8 { ", invalid UTF-8" } else { "" })]
    NotJson {
        bytes: usize,
        invalid_utf8: bool,
        cause: serde_json::Error,
    },
    #[error("payload is JSON but not an object ({bytes} bytes)")]
    NotObject { bytes: usize },
}

/// Parses a payload as JSON. What the parser alone refuses although the rest could be stored —
/// invalid UTF-8, a byte-order mark, a lone UTF-16 surrogate escape (`\ud800`), nesting deeper
/// than the parser goes — is repaired (see [`repair_json`]) and parsed again; the repairs are
/// returned, for the hook to record as a fault.
fn parse_payload(input: &[u8]) -> Result<(Value, Vec<String>), PayloadError> {
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err(PayloadError::Empty);
    }
    let bytes = input.len();
    let parsed = match serde_json::from_slice::<Value>(input) {
        Ok(v) => Ok((v, Vec::new())),
        Err(cause) => {
            let mut repairs = Vec::new();
            let invalid_utf8 = std::str::from_utf8(input).is_err();
            let text = if invalid_utf8 {
                repairs.push("invalid UTF-8 replaced by U+FFFD".to_string());
                String::from_utf8_lossy(input).into_owned().into_bytes()
            } else {
                input.to_vec()
            };
            let repaired = repair_json(&text, &mut repairs);
            serde_json::from_slice::<Value>(&repaired)
                .map(|v| (v, repairs))
                .map_err(|_| PayloadError::NotJson {
                    bytes,
                    invalid_utf8,
                    cause,
                })
        }
    }?;
    if parsed.0.is_object() {
        Ok(parsed)
    } else {
        Err(PayloadError::NotObject { bytes })
    }
}

/// Values nested deeper than this are replaced (serde_json refuses more than 128 levels, and a
/// deeper value is never one a provider sends).
const MAX_NESTING: usize = 100;

/// One pass over JSON text (valid UTF-8) that makes what serde_json refuses parseable, keeping
/// everything else byte for byte: a leading byte-order mark is dropped; a raw control character
/// in a string (a NUL) is escaped; a number no f64 holds (`1e999`) becomes `null`; a `\uXXXX`
/// escape of a UTF-16 surrogate without its pair becomes `\ufffd`; a value nested deeper than
/// [`MAX_NESTING`] becomes the string `"[nested deeper than 100 levels: dropped]"`. Each kind
/// of repair made is pushed on `repairs` once.
fn repair_json(text: &[u8], repairs: &mut Vec<String>) -> Vec<u8> {
    const DROPPED: &[u8] = b"\"[nested deeper than 100 levels: dropped]\"";
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    if text.starts_with("\u{feff}".as_bytes()) {
        i = 3;
        repairs.push("a byte-order mark removed".to_string());
    }
    let (mut surrogates, mut dropped, mut controls, mut overflows) = (0usize, 0usize, 0usize, 0usize);
    let (mut depth, mut in_string) = (0usize, false);
    // While dropping a too-deep value: the depth at which it started.
    let mut skipping: Option<usize> = None;
    let hex4 = |at: usize| -> Option<u16> {
        let h = text.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    while i < text.len() {
        let b = text[i];
        if in_string {
            if b < 0x20 {
                // A raw control character (a NUL, a line break) is not JSON inside a string.
                controls += 1;
                if skipping.is_none() {
                    out.extend_from_slice(format!("\\u{b:04x}").as_bytes());
                }
                i += 1;
                continue;
            }
            if b == b'"' {
                in_string = false;
            } else if b == b'\\' {
                if text.get(i + 1) == Some(&b'u') {
                    if let Some(unit) = hex4(i + 2) {
                        let paired = match unit {
                            0xD800..=0xDBFF => {
                                text.get(i + 6..i + 8) == Some(b"\\u".as_slice())
                                    && hex4(i + 8).is_some_and(|l| (0xDC00..=0xDFFF).contains(&l))
                            }
                            0xDC00..=0xDFFF => false,
                            _ => true,
                        };
                        if paired && (0xD800..=0xDBFF).contains(&unit) {
                            if skipping.is_none() {
                                out.extend_from_slice(&text[i..i + 12]);
                            }
                            i += 12;
                            continue;
                        }
                        if !paired {
                            surrogates += 1;
                            if skipping.is_none() {
                                out.extend_from_slice(b"\\ufffd");
                            }
                            i += 6;
                            continue;
                        }
                    }
                }
                // Any other escape: the backslash and the next byte, as they are.
                if skipping.is_none() {
                    out.extend_from_slice(&text[i..(i + 2).min(text.len())]);
                }
                i += 2;
                continue;
            }
        } else {
            match b {
                b'-' | b'0'..=b'9' => {
                    // A number no f64 holds (`1e999`) is refused by the parser: it becomes null.
                    let end = text[i..]
                        .iter()
                        .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                        .map_or(text.len(), |n| i + n);
                    let number = std::str::from_utf8(&text[i..end]).ok().and_then(|t| t.parse::<f64>().ok());
                    if number.is_some_and(f64::is_infinite) {
                        overflows += 1;
                        if skipping.is_none() {
                            out.extend_from_slice(b"null");
                        }
                    } else if skipping.is_none() {
                        out.extend_from_slice(&text[i..end]);
                    }
                    i = end;
                    continue;
                }
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_NESTING && skipping.is_none() {
                        skipping = Some(depth);
                        dropped += 1;
                        out.extend_from_slice(DROPPED);
                    }
                }
                b']' | b'}' => {
                    if skipping == Some(depth) {
                        skipping = None;
                        depth = depth.saturating_sub(1);
                        i += 1;
                        continue;
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
        }
        if skipping.is_none() {
            out.push(b);
        }
        i += 1;
    }
    if surrogates > 0 {
        repairs.push(format!("{surrogates} lone UTF-16 surrogate escape(s) replaced by \\ufffd"));
    }
    if dropped > 0 {
        repairs.push(format!("{dropped} value(s) nested deeper than {MAX_NESTING} levels dropped"));
    }
    if controls > 0 {
        repairs.push(format!("{controls} raw control character(s) in strings escaped"));
    }
    if overflows > 0 {
        repairs.push(format!("{overflows} number(s) out of any range (as 1e999) replaced by null"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(text: &str) -> (Value, Vec<String>) {
        parse_payload(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn a_raw_nul_and_a_number_out_of_range_are_repaired_and_the_rest_kept() {
        let (v, r) = repaired("{\"a\":\"x\u{0}y\",\"n\":1e999,\"m\":-1E+400,\"ok\":12.5e-3,\"s\":\"1e999\"}");
        assert_eq!(v["a"], "x\u{0}y");
        assert!(v["n"].is_null() && v["m"].is_null());
        assert_eq!(v["ok"], 0.0125);
        assert_eq!(v["s"], "1e999", "text in a string is left as it is");
        assert!(r.iter().any(|x| x.contains("raw control character")), "{r:?}");
        assert!(r.iter().any(|x| x.contains("2 number(s) out of any range")), "{r:?}");
    }

    #[test]
    fn a_bom_a_lone_surrogate_and_deep_nesting_are_repaired_and_named() {
        let (v, r) = repaired("\u{feff}{\"a\":1}");
        assert_eq!(v["a"], 1);
        assert_eq!(r, ["a byte-order mark removed"]);

        let (v, r) = repaired(r#"{"p":"x\ud800y","q":"\udc00","ok":"\ud83d\ude00","esc":"\\ud800"}"#);
        assert_eq!(v["p"], "x\u{fffd}y");
        assert_eq!(v["q"], "\u{fffd}");
        assert_eq!(v["ok"], "😀");
        assert_eq!(v["esc"], "\\ud800", "an escaped backslash is not an escape");
        assert_eq!(r, ["2 lone UTF-16 surrogate escape(s) replaced by \\ufffd"]);

        let deep = format!(
            r#"{{"first":"Stop","deep":{}1{},"after":"kept","s":"[[["}}"#,
            "[".repeat(5000),
            "]".repeat(5000)
        );
        let (v, r) = repaired(&deep);
        assert_eq!(v["first"], "Stop");
        assert_eq!(v["after"], "kept");
        assert_eq!(v["s"], "[[[");
        let mut d = &v["deep"];
        let mut levels = 0;
        while let Some(inner) = d.get(0) {
            d = inner;
            levels += 1;
        }
        assert_eq!(levels, MAX_NESTING - 1);
        assert_eq!(d, "[nested deeper than 100 levels: dropped]");
        assert_eq!(r, ["1 value(s) nested deeper than 100 levels dropped"]);
    }

    #[test]
    fn valid_payloads_are_not_touched() {
        let (_, r) = repaired(r#"{"a":"\u00e9\n","b":[[1]]}"#);
        assert!(r.is_empty());
        assert!(parse_payload(b"[1]").is_err());
        assert!(parse_payload(b"{\"a\":").is_err());
    }
}
