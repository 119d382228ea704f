//! The last resort for a fault nothing else can hold: a size-capped log under the home.

use std::io::Write;
use std::path::Path;

pub(crate) const FAULT_LOG_NAME: &str = "hook-faults.log";
const MAX_BYTES: u64 = 256 * 1024;

/// Appends one line to `$TLC_HOME/state/hook-faults.log`, keeping the file under 256 KiB by
/// dropping its older half. Fails silently: this is the path of last resort.
pub(crate) fn append_best_effort(provider: &str, message: &str) {
    let Ok(home) = crate::paths::home_dir() else { return };
    let dir = home.join("state");
    if crate::store::create_private_dir(&dir).is_err() {
        return;
    }
    let path = dir.join(FAULT_LOG_NAME);
    let _ = trim(&path);
    let line = format!(
        "{}\t{provider}\t{}\n",
        crate::clock::now_stamp(),
        message.replace(['\n', '\t'], " ")
    );
    // Never through a symlink planted at the name: the log is created new or appended to.
    let file = crate::fswrite::open_regular_for_write(&path, 0o600, true);
    if let Ok(mut f) = file {
        let _ = f.write_all(line.as_bytes());
    }
}

fn trim(path: &Path) -> std::io::Result<()> {
    let len = std::fs::symlink_metadata(path)?.len();
    if len <= MAX_BYTES {
        return Ok(());
    }
    // A log grown far past its cap (not by tlc) is started afresh rather than read.
    let data = match crate::fsread::read_capped(path, MAX_BYTES * 4, crate::fsread::Links::Refuse) {
        Ok(d) => d.unwrap_or_default(),
        Err(crate::fsread::ReadError::TooLarge { .. }) => Vec::new(),
        Err(e) => return Err(e.into_io()),
    };
    let half = data.len() / 2;
    let cut = data[half..].iter().position(|b| *b == b'\n').map_or(half, |p| half + p + 1);
    crate::fswrite::replace(path, &data[cut..], 0o600)
}

/// The fault log's lines (newest last), if there is one.
pub(crate) fn read_fault_log(home: &Path) -> Vec<String> {
    // tlc keeps it under MAX_BYTES (see `trim`); one far larger, a FIFO or a link was not its.
    crate::fsread::read_capped_text(
        &home.join("state").join(FAULT_LOG_NAME),
        MAX_BYTES * 4,
        crate::fsread::Links::Refuse,
    )
    .ok()
    .flatten()
    .map(|t| t.lines().map(str::to_string).collect())
    .unwrap_or_default()
}
