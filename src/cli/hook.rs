//! `tlc hook claude|cursor`: the hot path. Always prints a valid response and exits 0.

use crate::hook::{self, Provider};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum HookProvider {
    Claude,
    Cursor,
}

pub fn run(provider: HookProvider) -> anyhow::Result<()> {
    let provider = match provider {
        HookProvider::Claude => Provider::Claude,
        HookProvider::Cursor => Provider::Cursor,
    };
    let response = hook::run(provider);
    if !response.is_empty() {
        crate::render::out(&(response + "\n"))?;
    }
    Ok(())
}
