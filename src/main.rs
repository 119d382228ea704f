//! `tlc`: parse the command line, dispatch, map errors to exit codes.
//!
//! `main` is the C entry point (`no_main`): the standard runtime's start-up places a stack-overflow
//! guard for the main thread by reading `/proc/self/maps`, about 0.05 ms of each `tlc hook` process
//! (measured on the 2-core machines here). [`main`] does the rest of that start-up itself: the
//! standard descriptors are made sure to be open, SIGPIPE is ignored, a panic exits 101, stdout
//! is flushed. A stack overflow still ends the process (SIGSEGV, without the runtime's message).
// The test harness (`cargo test` builds this file too) brings its own entry point.
#![cfg_attr(not(test), no_main)]
#![cfg_attr(test, allow(dead_code))]

use std::ffi::c_int;

#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn main(_argc: c_int, _argv: *const *const std::ffi::c_char) -> c_int {
    open_standard_fds();
    // SAFETY: setting a signal's disposition to SIG_IGN has no preconditions. Ignored, as the
    // standard runtime does: a write to a closed pipe returns an error instead of killing.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = std::panic::catch_unwind(run).unwrap_or(101);
    let _ = std::io::Write::flush(&mut std::io::stdout());
    code
}

fn run() -> c_int {
    let args = tlc::cli::normalize_args(std::env::args_os());
    match tlc::cli::run(args) {
        Ok(()) => 0,
        Err(e) => {
            let message = format!("{e:#}");
            if !message.is_empty() {
                eprintln!("tlc: {message}");
            }
            c_int::from(tlc::error::exit_code(&e))
        }
    }
}

/// Opens `/dev/null` on any of descriptors 0-2 that is closed, as the standard runtime does, so
/// that no file tlc opens (a database) lands on one and receives what is meant for stdout.
fn open_standard_fds() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd { fd, events: 0, revents: 0 });
    // SAFETY: poll reads and writes only the three pollfd entries passed; open takes a
    // NUL-terminated path.
    unsafe {
        if libc::poll(fds.as_mut_ptr(), 3, 0) == -1 {
            return;
        }
        for pfd in fds {
            if pfd.revents & libc::POLLNVAL != 0 {
                libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            }
        }
    }
}
