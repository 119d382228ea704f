//! `tlc statusline`: Claude Code's statusLine command. Reads the payload on stdin, prints one
//! line, exits 0 whatever arrives (a bad payload still gets the line, with what is known).

use crate::cost::statusline::{self, Payload};
use std::io::Read;

/// The payload is small; more than this is not read.
const MAX_PAYLOAD: u64 = 1 << 20;

pub(crate) fn run() -> anyhow::Result<()> {
    let mut text = Vec::new();
    let _ = std::io::stdin().lock().take(MAX_PAYLOAD).read_to_end(&mut text);
    let payload: Payload = serde_json::from_slice(&text).unwrap_or_default();
    let db = crate::paths::home_dir().map(|h| h.join("state").join("tlc.db")).unwrap_or_default();
    let line = statusline::render(&statusline::status(&payload, &db, crate::clock::now()));
    crate::render::out(&(line + "\n"))
}
