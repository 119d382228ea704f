//! `tlc statusline`: the one line Claude Code shows under its prompt (its `statusLine` command,
//! run after every message), from the payload on stdin and the home database's cost views:
//! model, this session's cost, today's (UTC) cost, the active 5-hour block and the context used.
//!
//! Like the hook it runs on every prompt, so it reads only what it needs: three indexed lookups
//! in a read-only connection (created nothing when there is no database) and, when the payload
//! does not carry the context window's usage, the tail of the transcript.

use super::report::{CostBy, CostFilter, CostOptions, CostReports};
use crate::store::{self, queries::home::cost as q, DbKind};
use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// What tlc reads of Claude Code's statusLine payload (every field optional: whatever arrives,
/// a line is printed).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Payload {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub model: Option<PayloadModel>,
    pub context_window: Option<ContextWindow>,
    /// Claude Code's own tally of the session (`cost.total_cost_usd`).
    pub cost: Option<PayloadCost>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct PayloadCost {
    pub total_cost_usd: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct PayloadModel {
    pub id: Option<String>,
    pub display_name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ContextWindow {
    pub context_window_size: Option<u64>,
    pub current_usage: Option<ContextUsage>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize, PartialEq, Eq)]
pub(crate) struct ContextUsage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
}

impl ContextUsage {
    fn tokens(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }
}

/// What the line says.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Status {
    pub model: String,
    /// USD; `None` unknown (nothing recorded, or nothing priced).
    pub session: Option<f64>,
    /// The session figure is the client's own (`cost.total_cost_usd`): tlc has none yet.
    pub session_from_client: bool,
    pub today: Option<f64>,
    /// The active block's cost and minutes left.
    pub block: Option<(Option<f64>, i64)>,
    /// Cost per hour in the active block.
    pub burn_per_hour: Option<f64>,
    /// Tokens in the context and the window's size.
    pub context: Option<(u64, u64)>,
}

/// The context window assumed when the payload does not say (Claude's standard window).
pub(crate) const DEFAULT_WINDOW: u64 = 200_000;
/// How much of the transcript's end is read for the last response's usage.
const TAIL_BYTES: u64 = 256 * 1024;

/// The line for `payload` at `now`, reading the home database at `home_db` if there is one.
pub(crate) fn status(payload: &Payload, home_db: &Path, now: DateTime<Utc>) -> Status {
    let model = payload
        .model
        .as_ref()
        .and_then(|m| m.display_name.clone().or_else(|| m.id.clone()))
        .unwrap_or_else(|| "Claude".into());
    let mut s = Status {
        model,
        ..Status::default()
    };
    if let Ok(Some(store)) = store::open_read(DbKind::Home, home_db) {
        let conn = store.conn();
        let sum = |sql: &str, key: &str| -> Option<f64> {
            conn.prepare_cached(sql)
                .and_then(|mut st| st.query_row([key], |r| r.get::<_, Option<f64>>(0)))
                .ok()
                .flatten()
        };
        if let Some(id) = payload.session_id.as_deref().filter(|s| !s.is_empty()) {
            s.session = sum(q::STATUSLINE_SESSION, id);
        }
        let today = crate::clock::stamp(now)[..10].to_string();
        s.today = sum(q::STATUSLINE_DAY, &today);
        // The window that can hold the active block: the chain is read back from it only to a
        // silence before it (`report::blocks`), a few rows whatever the table's size.
        let since = crate::clock::stamp(now - Duration::hours(super::report::BLOCK_HOURS * 2))[..10].to_string();
        let opts = CostOptions {
            by: CostBy::Block,
            now,
            ..CostOptions::default()
        };
        let filter = CostFilter {
            since: Some(since),
            until: Some(today),
            ..CostFilter::default()
        };
        if let Ok(r) = CostReports::new(conn, DbKind::Home).report_with(&filter, &opts) {
            if let Some(active) = r.rows.iter().rev().find(|r| r.block.as_ref().is_some_and(|b| b.active)) {
                let b = active.block.as_ref().expect("found with a block");
                let left = crate::clock::parse(&b.end).map(|end| (end - now).num_minutes().max(0)).unwrap_or(0);
                s.block = Some((active.cost_usd, left));
                s.burn_per_hour = b.burn_rate.map(|r| r.cost_per_hour);
            }
        }
    }
    // tlc's figure is the session's responses as the hooks priced them, in the home database from
    // the session's first stop on; before that the client's own tally stands in, marked as its.
    if s.session.is_none() {
        s.session = payload
            .cost
            .as_ref()
            .and_then(|c| c.total_cost_usd)
            .filter(|c| c.is_finite() && *c >= 0.0);
        s.session_from_client = s.session.is_some();
    }
    let window = payload
        .context_window
        .as_ref()
        .and_then(|c| c.context_window_size)
        .unwrap_or(DEFAULT_WINDOW);
    let used = payload
        .context_window
        .as_ref()
        .and_then(|c| c.current_usage)
        .map(|u| u.tokens())
        .or_else(|| payload.transcript_path.as_deref().and_then(|p| last_context(Path::new(p))));
    s.context = used.map(|u| (u, window));
    s
}

/// The prompt size of the transcript's last main-thread response (input + cache writes + cache
/// reads): what the next request starts from.
pub(crate) fn last_context(path: &Path) -> Option<u64> {
    // Never a blocking open, and only a regular file: a FIFO named here must not hang the line.
    let mut f = crate::fsread::open_regular(path, crate::fsread::Links::Follow).ok()?;
    let len = f.metadata().ok()?.len();
    let start = len.saturating_sub(TAIL_BYTES);
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut tail = Vec::with_capacity((len - start) as usize);
    f.take(TAIL_BYTES).read_to_end(&mut tail).ok()?;
    #[derive(Deserialize)]
    struct Line {
        #[serde(rename = "isSidechain", default)]
        sidechain: bool,
        message: Option<Message>,
    }
    #[derive(Deserialize)]
    struct Message {
        usage: Option<ContextUsage>,
    }
    tail.split(|b| *b == b'\n')
        .rev()
        .filter(|l| memchr::memmem::find(l, b"\"usage\"").is_some())
        .filter_map(|l| serde_json::from_slice::<Line>(l).ok())
        .find(|l| !l.sidechain && l.message.as_ref().is_some_and(|m| m.usage.is_some()))
        .and_then(|l| l.message?.usage)
        .map(|u| u.tokens())
}

fn usd(v: Option<f64>) -> String {
    v.map(crate::render::usd).unwrap_or_else(|| "-".into())
}

/// `text` as one line of plain text: every control character, line or paragraph separator and
/// direction mark becomes a space (the statusline is one line whatever a payload names).
fn one_line(text: &str) -> String {
    text.chars().map(|c| if crate::render::is_control(c) { ' ' } else { c }).collect()
}

/// The line as printed: always one line.
pub(crate) fn render(s: &Status) -> String {
    let session = if s.session_from_client {
        format!("{} session (client's)", usd(s.session))
    } else {
        format!("{} session", usd(s.session))
    };
    let mut line = format!("{} | {session} · {} today", one_line(&s.model), usd(s.today));
    match s.block {
        Some((cost, left)) => {
            line += &format!(" · {} block ({}h{:02}m left)", usd(cost), left / 60, left % 60);
            if let Some(rate) = s.burn_per_hour {
                line += &format!(" | {}/h", crate::render::usd(rate));
            }
        }
        None => line += " · no active block",
    }
    if let Some((used, window)) = s.context {
        let pct = (used * 100).checked_div(window).unwrap_or(0);
        line += &format!(" | ctx {} ({pct}%)", crate::render::thousands(used as i64));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_what_is_known_and_a_dash_for_what_is_not() {
        let s = Status {
            model: "Sonnet 4.5".into(),
            session: Some(0.5),
            session_from_client: false,
            today: None,
            block: Some((Some(1.25), 135)),
            burn_per_hour: Some(0.75),
            context: Some((50_000, 200_000)),
        };
        assert_eq!(
            render(&s),
            "Sonnet 4.5 | $0.5000 session · - today · $1.2500 block (2h15m left) | $0.7500/h | ctx 50,000 (25%)"
        );
        let empty = Status {
            model: "Claude".into(),
            ..Status::default()
        };
        assert_eq!(render(&empty), "Claude | - session · - today · no active block");
        let client = Status {
            model: "Claude".into(),
            session: Some(0.0653),
            session_from_client: true,
            ..Status::default()
        };
        assert_eq!(render(&client), "Claude | $0.0653 session (client's) · - today · no active block");
    }

    #[test]
    fn the_context_is_the_last_main_thread_response_of_the_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(
            &p,
            concat!(
                r#"{"type":"assistant","message":{"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":9}}}"#,
                "\n",
                r#"{"type":"assistant","isSidechain":false,"message":{"usage":{"input_tokens":10,"cache_creation_input_tokens":20,"cache_read_input_tokens":30,"output_tokens":9}}}"#,
                "\n",
                r#"{"type":"assistant","isSidechain":true,"message":{"usage":{"input_tokens":100000,"output_tokens":9}}}"#,
                "\n",
                r#"{"type":"user","message":{"content":"x"}}"#,
                "\n{broken\n"
            ),
        )
        .unwrap();
        assert_eq!(last_context(&p), Some(60));
        assert_eq!(last_context(&dir.path().join("missing.jsonl")), None);
    }
}
