//! The one clock. `TLC_NOW` (RFC 3339) replaces it everywhere time is read, so decay,
//! retention and windows can be tested from the command line.

use chrono::{DateTime, SecondsFormat, Utc};

/// A time that could not be read. Each names the text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum TimeError {
    #[error("{0:?} is neither an RFC 3339 time nor a YYYY-MM-DD date")]
    Unparsable(String),
    #[error("TLC_NOW={value:?} is not an RFC 3339 time: {cause}")]
    BadNow { value: String, cause: Box<TimeError> },
}

/// The current time: `TLC_NOW` when set and valid, the system clock otherwise.
pub(crate) fn now() -> DateTime<Utc> {
    match std::env::var("TLC_NOW") {
        Ok(v) if !v.is_empty() => parse(&v).unwrap_or_else(|_| Utc::now()),
        _ => Utc::now(),
    }
}

/// Checks `TLC_NOW` so a command can refuse a malformed value instead of silently using the clock.
pub(crate) fn check_env() -> Result<(), TimeError> {
    match std::env::var("TLC_NOW") {
        Ok(v) if !v.is_empty() => parse(&v).map(|_| ()).map_err(|e| TimeError::BadNow {
            value: v,
            cause: Box::new(e),
        }),
        _ => Ok(()),
    }
}

/// Parses an RFC 3339 time (or a bare date, taken as midnight UTC).
pub(crate) fn parse(s: &str) -> Result<DateTime<Utc>, TimeError> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s.trim()) {
        return Ok(t.with_timezone(&Utc));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d") {
        if let Some(t) = d.and_hms_opt(0, 0, 0) {
            return Ok(t.and_utc());
        }
    }
    Err(TimeError::Unparsable(s.to_string()))
}

/// The stored form of a time: UTC, milliseconds, `Z` (sorts as text).
pub(crate) fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// `stamp(now())`.
pub(crate) fn now_stamp() -> String {
    stamp(now())
}

/// Milliseconds since the epoch of `t`.
pub(crate) fn millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_sort_as_text_and_round_trip() {
        let a = parse("2026-11-29T13:56:42.5+01:00").unwrap();
        assert_eq!(stamp(a), "2026-11-29T12:56:42.500Z");
        assert_eq!(parse(&stamp(a)).unwrap(), a);
        assert_eq!(stamp(parse("2026-01-02").unwrap()), "2026-01-02T00:00:00.000Z");
        assert!(parse("yesterday").is_err());
    }
}
