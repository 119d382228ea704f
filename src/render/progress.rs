//! A progress line for long work: drawn on stderr while stdout is a terminal, nothing otherwise.

use std::io::Write;
use std::time::{Duration, Instant};

pub struct Progress {
    label: String,
    total: u64,
    done: u64,
    enabled: bool,
    last_draw: Option<Instant>,
}

impl Progress {
    /// A progress line for `total` units of work (0 when unknown).
    pub fn new(label: impl Into<String>, total: u64) -> Progress {
        Progress {
            label: label.into(),
            total,
            done: 0,
            enabled: super::stdout_is_terminal(),
            last_draw: None,
        }
    }

    pub fn set_total(&mut self, total: u64) {
        self.total = total;
    }

    /// Advances by `n` units, redrawing at most ten times a second.
    pub fn inc(&mut self, n: u64) {
        self.done += n;
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if self.last_draw.is_some_and(|t| now.duration_since(t) < Duration::from_millis(100)) {
            return;
        }
        self.last_draw = Some(now);
        self.draw();
    }

    fn draw(&self) {
        let line = if let Some(pct) = (self.done.min(self.total) * 100).checked_div(self.total) {
            let filled = (pct as usize) / 4;
            format!(
                "\r{} [{}{}] {pct:>3}% {}/{}",
                self.label,
                "#".repeat(filled),
                " ".repeat(25 - filled),
                self.done,
                self.total
            )
        } else {
            format!("\r{} {}", self.label, self.done)
        };
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(line.as_bytes());
        let _ = err.flush();
    }

    /// Clears the line.
    pub fn finish(&mut self) {
        if self.enabled && self.last_draw.is_some() {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(b"\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
        self.last_draw = None;
    }
}
