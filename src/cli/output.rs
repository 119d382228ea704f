//! The output flags every command that prints a table takes: one contract for all of them
//! (`tests/suite/cli_contract.rs` walks the command tree to hold every command to it).

use crate::render::{format_name, Format, Output};

#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct OutputArgs {
    /// Print as a table (fitted to the terminal), json, jsonl, csv or markdown.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Print JSON (the same as `--format json`).
    #[arg(long)]
    pub json: bool,
    /// Show tables at full width: whole session ids, uncut text, every column.
    #[arg(long)]
    pub wide: bool,
}

impl OutputArgs {
    /// The output asked for, tables by default.
    pub(crate) fn output(&self) -> anyhow::Result<Output> {
        self.output_or(Format::Table)
    }

    /// The output asked for, `default` when no format is named. `--json` with another
    /// `--format` is an error rather than a guess.
    pub(crate) fn output_or(&self, default: Format) -> anyhow::Result<Output> {
        let format = match (self.json, self.format) {
            (true, Some(f)) if f != Format::Json => {
                return Err(crate::error::unusable(format!(
                    "--json and --format {} ask for different outputs: give one of them",
                    format_name(f)
                )))
            }
            (true, _) => Format::Json,
            (false, f) => f.unwrap_or(default),
        };
        Ok(Output { format, wide: self.wide })
    }
}
