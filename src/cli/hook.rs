//! `tlc hook <provider>`: the hot path. Always prints a valid response and exits 0.

use crate::hook::{self, Provider};

/// The provider argument: one of the names in `hook::PROVIDERS`.
pub(crate) fn provider_arg() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(hook::PROVIDERS.iter().map(|p| p.name()))
}

pub(crate) fn run(provider: &dyn Provider) -> anyhow::Result<()> {
    // This process exits as soon as the response is printed: its connections are left to the exit.
    crate::sys::defer_termination();
    let response = hook::run_in_exiting_process(provider);
    if !response.is_empty() {
        // Every answer is one JSON value.
        crate::render::json_text(response + "\n")?;
    }
    Ok(())
}
