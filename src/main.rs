//! `tlc`: parse the command line, dispatch, map errors to exit codes.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = tlc::cli::normalize_args(std::env::args_os());
    match tlc::cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let message = format!("{e:#}");
            if !message.is_empty() {
                eprintln!("tlc: {message}");
            }
            ExitCode::from(tlc::error::exit_code(&e))
        }
    }
}
