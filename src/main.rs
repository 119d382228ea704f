//! `tlc`: parse the command line, dispatch, map errors to exit codes.
//!
//! `main` is the standard runtime's entry: it opens any closed standard descriptor on
//! `/dev/null`, ignores SIGPIPE (a write to a closed pipe returns an error instead of killing),
//! places the main thread's stack guard, and exits 101 on a panic.

#![deny(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = tlc::cli::normalize_args(std::env::args_os());
    match tlc::cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let message = tlc::error::message(&e);
            if !message.is_empty() {
                // Messages name files, packages and values from outside: nothing in them may act
                // on the terminal.
                eprintln!("tlc: {}", tlc::render::escape(&message, true));
            }
            ExitCode::from(tlc::error::exit_code(&e))
        }
    }
}
