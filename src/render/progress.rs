//! A progress bar for long work (indicatif): drawn on stderr while stdout is a terminal, nothing
//! otherwise, so a pipe or a file never receives it. Bytes are shown in units with their rate
//! and the time left.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

pub(crate) struct Progress {
    bar: ProgressBar,
    bytes: bool,
}

impl Progress {
    /// A bar for `total` items of work (0 when not yet known).
    pub(crate) fn new(label: impl Into<String>, total: u64) -> Progress {
        Progress::make(label.into(), total, false)
    }

    /// A bar for `total` bytes of work (0 when not yet known).
    pub(crate) fn bytes(label: impl Into<String>, total: u64) -> Progress {
        Progress::make(label.into(), total, true)
    }

    fn make(label: String, total: u64, bytes: bool) -> Progress {
        let shown = super::stdout_is_terminal();
        let target = if shown {
            // Ten redraws a second at most: the work, not the drawing, takes the time.
            ProgressDrawTarget::stderr_with_hz(10)
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target).with_message(label);
        let mut p = Progress { bar, bytes };
        p.restyle(total);
        if shown {
            // The rate and the time left move while a slow read waits.
            p.bar.enable_steady_tick(Duration::from_millis(200));
        }
        p
    }

    fn restyle(&mut self, total: u64) {
        let template = match (self.bytes, total > 0) {
            (true, true) => "{msg} [{bar:25}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
            (true, false) => "{spinner} {msg} {bytes} {binary_bytes_per_sec}",
            (false, true) => "{msg} [{bar:25}] {human_pos}/{human_len} {per_sec} eta {eta}",
            (false, false) => "{spinner} {msg} {human_pos}",
        };
        // The templates are constants: a fault would be a bug here, and the bar would keep its
        // default style rather than fail the work.
        if let Ok(style) = ProgressStyle::with_template(template) {
            self.bar.set_style(style.progress_chars("#>-"));
        }
    }

    pub(crate) fn set_total(&mut self, total: u64) {
        if self.bar.length() != Some(total) {
            self.bar.set_length(total);
            self.restyle(total);
        }
    }

    /// Advances by `n` units.
    pub(crate) fn inc(&mut self, n: u64) {
        self.bar.inc(n);
    }

    /// Clears the bar.
    pub(crate) fn finish(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
