//! The supervision values a package may suggest in `[defaults]` (and an operator may set on a
//! `[harness.*]` table): their parsers. Each parser is the one the config loader uses too, so a
//! suggestion that passes here is one the loader accepts.
//!
//! Grammars:
//! - `schedule`: five cron fields (minute hour day-of-month month day-of-week) with `*`, `?`
//!   (day fields), lists, ranges, steps and month/day names, an optional `CRON_TZ=<zone> ` or
//!   `TZ=<zone> ` prefix, or a descriptor (`@yearly`, `@annually`, `@monthly`, `@weekly`,
//!   `@daily`, `@midnight`, `@hourly`, `@every <duration>`).
//! - `timeout`: a Go duration (`90s`, `1h30m`, `1.5h`; units ns, us, µs, ms, s, m, h), never
//!   negative; `"0"` means no limit.
//! - `operating_hours`: one or more windows separated by `;`, each `<days> <HH:MM>-<HH:MM>`,
//!   then an optional time zone: `Mon-Fri 09:00-17:00 Europe/Berlin`,
//!   `Mon,Wed 08:00-12:00; Sat 10:00-14:00 UTC`. Days are `Mon`..`Sun`, ranges (`Mon-Fri`),
//!   lists (`Mon,Wed,Fri`) or `daily`; a window may not be empty (start != end) and may wrap
//!   past midnight (`22:00-06:00`).

use super::Invalid;
use crate::config::Value;

/// The keys `[defaults]` may hold, in the fixed order install offers them.
pub(crate) const DEFAULT_KEYS: &[&str] = &[
    "schedule",
    "triggers",
    "timeout",
    "on_overlap",
    "catch_up",
    "operating_hours",
    "restart",
    "restart_delay",
    "workdir",
];

pub(crate) const ON_OVERLAP: &[&str] = &["skip", "queue", "replace"];
pub(crate) const RESTART: &[&str] = &["never", "on-failure", "always"];

/// Validates one supervision value by key. The error says what was expected.
pub(crate) fn check_value(key: &str, value: &Value) -> Result<(), Invalid> {
    match key {
        "schedule" => parse_schedule(str_of(value)?),
        "triggers" => {
            let list = value
                .as_strings()
                .ok_or_else(|| Invalid(format!("expected an array of strings, found {}", value.type_name())))?;
            for t in &list {
                parse_trigger(t)?;
            }
            Ok(())
        }
        "timeout" => parse_duration(str_of(value)?).map(|_| ()),
        "on_overlap" => one_of(str_of(value)?, ON_OVERLAP),
        "restart" => one_of(str_of(value)?, RESTART),
        "catch_up" => value
            .as_bool()
            .map(|_| ())
            .ok_or_else(|| Invalid(format!("expected a boolean, found {}", value.type_name()))),
        "restart_delay" => match value {
            Value::Int(i) if *i >= 0 => Ok(()),
            Value::Int(i) => Err(Invalid(format!("expected a non-negative integer of seconds, found {i}"))),
            v => Err(Invalid(format!(
                "expected a non-negative integer of seconds, found {}",
                v.type_name()
            ))),
        },
        "operating_hours" => parse_operating_hours(str_of(value)?),
        "workdir" => {
            let s = str_of(value)?;
            if s.trim().is_empty() {
                Err(Invalid("expected a path, found an empty string".into()))
            } else {
                Ok(())
            }
        }
        other => Err(Invalid(format!("`{other}` is not a supervision key"))),
    }
}

fn str_of(value: &Value) -> Result<&str, Invalid> {
    value
        .as_str()
        .ok_or_else(|| Invalid(format!("expected a string, found {}", value.type_name())))
}

fn one_of(s: &str, allowed: &[&str]) -> Result<(), Invalid> {
    if allowed.contains(&s) {
        Ok(())
    } else {
        Err(Invalid(format!(
            "expected one of {}, found {s:?}",
            allowed.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ")
        )))
    }
}

/// `channel.<name>` or `webhook.<name>`: the kind and the name.
pub(crate) fn parse_trigger(s: &str) -> Result<(&str, &str), Invalid> {
    let Some((kind, name)) = s.split_once('.') else {
        return Err(Invalid(format!("trigger {s:?} is not `channel.<name>` or `webhook.<name>`")));
    };
    if !matches!(kind, "channel" | "webhook") || name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(Invalid(format!("trigger {s:?} is not `channel.<name>` or `webhook.<name>`")));
    }
    Ok((kind, name))
}

/// A Go duration, in nanoseconds. Negative durations are refused.
pub(crate) fn parse_duration(s: &str) -> Result<u128, Invalid> {
    let bad = || Invalid(format!("{s:?} is not a duration such as \"45m\", \"1h30m\" or \"0\""));
    if s == "0" {
        return Ok(0);
    }
    if s.starts_with('-') {
        return Err(Invalid(format!("{s:?} is negative; a timeout is \"0\" (no limit) or more")));
    }
    let rest = s.strip_prefix('+').unwrap_or(s);
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total: f64 = 0.0;
    let mut chars = rest.char_indices().peekable();
    while chars.peek().is_some() {
        let start = chars.peek().map(|(i, _)| *i).unwrap_or(0);
        let mut end = start;
        while let Some((i, c)) = chars.peek().copied() {
            if c.is_ascii_digit() || c == '.' {
                end = i + c.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        let number = &rest[start..end];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Err(bad());
        }
        let ustart = end;
        let mut uend = end;
        while let Some((i, c)) = chars.peek().copied() {
            if c.is_ascii_digit() || c == '.' {
                break;
            }
            uend = i + c.len_utf8();
            chars.next();
        }
        let unit = match &rest[ustart..uend] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return Err(bad()),
        };
        let n: f64 = number.parse().map_err(|_| bad())?;
        total += n * unit;
    }
    Ok(total as u128)
}

const DESCRIPTORS: &[&str] = &["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"];
const MONTHS: &[&str] = &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS: &[&str] = &["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/// A standard cron line (see the module documentation).
pub(crate) fn parse_schedule(s: &str) -> Result<(), Invalid> {
    let mut spec = s.trim();
    if spec.is_empty() {
        return Err(Invalid("an empty schedule".into()));
    }
    for prefix in ["CRON_TZ=", "TZ="] {
        if let Some(rest) = spec.strip_prefix(prefix) {
            let (zone, rest) = rest
                .split_once(char::is_whitespace)
                .ok_or_else(|| Invalid(format!("{s:?}: {prefix}<zone> must be followed by a schedule")))?;
            check_zone(zone).map_err(|e| Invalid(format!("{s:?}: {e}")))?;
            spec = rest.trim();
        }
    }
    if let Some(d) = spec.strip_prefix("@every ") {
        let ns = parse_duration(d.trim()).map_err(|e| Invalid(format!("{s:?}: @every {e}")))?;
        return if ns == 0 {
            Err(Invalid(format!("{s:?}: @every needs a positive duration")))
        } else {
            Ok(())
        };
    }
    if spec.starts_with('@') {
        return if DESCRIPTORS.contains(&spec) {
            Ok(())
        } else {
            Err(Invalid(format!(
                "{s:?}: unknown descriptor {spec:?} (expected one of {})",
                DESCRIPTORS.join(", ")
            )))
        };
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(Invalid(format!(
            "{s:?}: expected 5 fields (minute hour day-of-month month day-of-week), found {}",
            fields.len()
        )));
    }
    let specs: [(&str, u32, u32, &[&str], bool); 5] = [
        ("minute", 0, 59, &[], false),
        ("hour", 0, 23, &[], false),
        ("day-of-month", 1, 31, &[], true),
        ("month", 1, 12, MONTHS, false),
        ("day-of-week", 0, 6, WEEKDAYS, true),
    ];
    for (field, (name, min, max, names, question)) in fields.iter().zip(specs) {
        cron_field(field, min, max, names, question).map_err(|e| Invalid(format!("{s:?}: {name} field {field:?}: {e}")))?;
    }
    Ok(())
}

fn cron_field(field: &str, min: u32, max: u32, names: &[&str], question: bool) -> Result<(), Invalid> {
    for part in field.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, st)) => (r, Some(st)),
            None => (part, None),
        };
        if let Some(st) = step {
            let n: u32 = st.parse().map_err(|_| Invalid(format!("step {st:?} is not a number")))?;
            if n == 0 {
                return Err(Invalid("a step of 0".into()));
            }
        }
        if range == "*" || (question && range == "?") {
            continue;
        }
        let value = |v: &str| -> Result<u32, Invalid> {
            // Month names count from 1, weekday names from 0.
            let offset = if names.len() == 12 { 1 } else { 0 };
            if let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(v)) {
                return Ok(i as u32 + offset);
            }
            let n: u32 = v.parse().map_err(|_| Invalid(format!("{v:?} is not a number")))?;
            if n < min || n > max {
                return Err(Invalid(format!("{n} is outside {min}-{max}")));
            }
            Ok(n)
        };
        match range.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (value(a)?, value(b)?);
                if a > b {
                    return Err(Invalid(format!("range {range:?} runs backwards")));
                }
            }
            None => {
                value(range)?;
            }
        }
    }
    Ok(())
}

/// An IANA zone name (`Europe/Berlin`, `America/Argentina/Buenos_Aires`), `UTC` or `Local`.
/// The shape is checked, not the zone database: a machine's tzdata may lag the operator's.
pub(crate) fn check_zone(zone: &str) -> Result<(), Invalid> {
    if matches!(zone, "UTC" | "Local" | "GMT") {
        return Ok(());
    }
    let ok_part = |p: &str| {
        !p.is_empty()
            && p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+'))
    };
    let parts: Vec<&str> = zone.split('/').collect();
    if parts.len() >= 2 && parts.iter().all(|p| ok_part(p)) {
        Ok(())
    } else {
        Err(Invalid(format!(
            "{zone:?} is not a time zone (expected an IANA name such as Europe/Berlin, or UTC)"
        )))
    }
}

/// The operating-hours grammar (see the module documentation).
pub(crate) fn parse_operating_hours(s: &str) -> Result<(), Invalid> {
    let bad = |why: String| Invalid(format!("{s:?}: {why} (expected e.g. \"Mon-Fri 09:00-17:00 Europe/Berlin\")"));
    let why = |e: Invalid| bad(e.0);
    let mut text = s.trim().to_string();
    if text.is_empty() {
        return Err(bad("empty".into()));
    }
    // A trailing zone applies to every window.
    if let Some((head, last)) = text.rsplit_once(' ') {
        if !last.contains(':') && !last.ends_with(';') && head.contains(':') {
            check_zone(last).map_err(why)?;
            text = head.trim().to_string();
        }
    }
    for window in text.split(';') {
        let window = window.trim();
        let (days, hours) = window
            .split_once(char::is_whitespace)
            .ok_or_else(|| bad(format!("window {window:?} needs days and hours")))?;
        check_days(days).map_err(why)?;
        let hours = hours.trim();
        let (a, b) = hours
            .split_once('-')
            .ok_or_else(|| bad(format!("hours {hours:?} are not HH:MM-HH:MM")))?;
        let (a, b) = (clock_minutes(a).map_err(why)?, clock_minutes(b).map_err(why)?);
        if a == b {
            return Err(bad(format!("window {hours:?} is empty")));
        }
    }
    Ok(())
}

fn check_days(days: &str) -> Result<(), Invalid> {
    if days.eq_ignore_ascii_case("daily") {
        return Ok(());
    }
    let day = |d: &str| {
        WEEKDAYS
            .iter()
            .position(|w| w.eq_ignore_ascii_case(d))
            .ok_or_else(|| Invalid(format!("{d:?} is not a day (Mon..Sun)")))
    };
    for part in days.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                day(a)?;
                day(b)?;
            }
            None => {
                day(part)?;
            }
        }
    }
    Ok(())
}

fn clock_minutes(t: &str) -> Result<u32, Invalid> {
    let (h, m) = t.split_once(':').ok_or_else(|| Invalid(format!("{t:?} is not HH:MM")))?;
    if h.len() != 2 || m.len() != 2 {
        return Err(Invalid(format!("{t:?} is not HH:MM")));
    }
    let (h, m): (u32, u32) = (
        h.parse().map_err(|_| Invalid(format!("{t:?} is not HH:MM")))?,
        m.parse().map_err(|_| Invalid(format!("{t:?} is not HH:MM")))?,
    );
    if m > 59 || h > 24 || (h == 24 && m != 0) {
        return Err(Invalid(format!("{t:?} is not a time of day")));
    }
    Ok(h * 60 + m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }

    #[test]
    fn cron_lines_and_descriptors() {
        for ok in [
            "30 9 * * *",
            "CRON_TZ=UTC 30 9 * * *",
            "TZ=Europe/Berlin 0 */2 * * Mon-Fri",
            "@hourly",
            "@every 1h30m",
            "0 0 1 jan,jul ?",
            "*/15 8-18 * * 1-5",
        ] {
            assert!(parse_schedule(ok).is_ok(), "{ok}: {:?}", parse_schedule(ok));
        }
        for bad in [
            "",
            "30 9 * *",
            "61 9 * * *",
            "30 25 * * *",
            "CRON_TZ=nowhere 30 9 * * *",
            "@sometimes",
            "@every 0",
            "5-1 * * * *",
            "*/0 * * * *",
            "0 0 * * 7",
        ] {
            assert!(parse_schedule(bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn go_durations() {
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration("45m"), Ok(45 * 60 * 1_000_000_000));
        assert_eq!(parse_duration("1h30m"), Ok(90 * 60 * 1_000_000_000));
        assert_eq!(parse_duration("1.5h"), Ok(90 * 60 * 1_000_000_000));
        assert!(parse_duration("300ms").is_ok());
        for bad in ["", "-5m", "10", "5 minutes", "m", "1..5h", "5d"] {
            assert!(parse_duration(bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn operating_hours_grammar() {
        for ok in [
            "Mon-Fri 09:00-17:00 Europe/Berlin",
            "Mon,Wed 08:00-12:00; Sat 10:00-14:00 UTC",
            "daily 22:00-06:00",
            "Sun 00:00-24:00",
        ] {
            assert!(parse_operating_hours(ok).is_ok(), "{ok}: {:?}", parse_operating_hours(ok));
        }
        for bad in [
            "",
            "weekdays 9-5",
            "Mon-Fri 09:00",
            "Mon-Fri 09:00-09:00",
            "Mon-Fri 25:00-26:00",
            "Mon-Fri 09:00-17:00 Berlin",
            "Funday 09:00-10:00",
        ] {
            assert!(parse_operating_hours(bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn each_key_refuses_a_bad_value() {
        let bad: &[(&str, Value)] = &[
            ("schedule", s("every morning")),
            ("triggers", Value::List(vec![s("slack")])),
            ("timeout", s("-1m")),
            ("on_overlap", s("panic")),
            ("catch_up", s("yes")),
            ("operating_hours", s("9 to 5")),
            ("restart", s("sometimes")),
            ("restart_delay", Value::Int(-3)),
            ("workdir", s("")),
        ];
        for (k, v) in bad {
            assert!(check_value(k, v).is_err(), "{k} = {v:?} should fail");
        }
        let good: &[(&str, Value)] = &[
            ("schedule", s("@daily")),
            ("triggers", Value::List(vec![s("channel.ops"), s("webhook.github")])),
            ("timeout", s("0")),
            ("on_overlap", s("queue")),
            ("catch_up", Value::Bool(true)),
            ("operating_hours", s("Mon-Fri 09:00-17:00")),
            ("restart", s("on-failure")),
            ("restart_delay", Value::Int(0)),
            ("workdir", s("~/sweeps/x")),
        ];
        for (k, v) in good {
            assert!(check_value(k, v).is_ok(), "{k} = {v:?}: {:?}", check_value(k, v));
        }
        assert_eq!(DEFAULT_KEYS.len(), good.len());
    }
}
