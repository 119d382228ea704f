//! `tlc doctor [--json]`: one check per row; exit 1 when a check fails. Read-only.

mod checks;

use super::Ctx;
use crate::render::{self, Format, Role, Table, Tone};
use checks::Status;

#[derive(Debug, clap::Args)]
pub(crate) struct DoctorArgs {
    // JSON is {"ok", "failed", "warned", "checks": [{"id", "name", "status", "detail"}]} (status
    // ok, info, warn or fail; info is never a fault); csv,
    // jsonl and markdown carry the checks.
    #[command(flatten)]
    pub output: crate::cli::OutputArgs,
}

pub(crate) fn run(ctx: &Ctx, args: DoctorArgs) -> anyhow::Result<()> {
    let checks = checks::run_all(ctx.paths()?);
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    let warned = checks.iter().filter(|c| c.status == Status::Warn).count();
    let output = args.output.output()?;
    match output.format {
        Format::Json => render::json(&serde_json::json!({ "ok": failed == 0, "failed": failed, "warned": warned, "checks": checks }))?,
        Format::Table => {
            let mut t = Table::new(["status", "check", "detail"]).roles([Role::Key, Role::Text, Role::Prose]);
            for c in &checks {
                t.push(vec![
                    c.status.as_str().to_uppercase().into(),
                    c.name.clone().into(),
                    c.detail.clone().into(),
                ]);
                match c.status {
                    Status::Fail => t.tone_last(0, Tone::Bad),
                    Status::Warn => t.tone_last(0, Tone::Warn),
                    Status::Ok => t.tone_last(0, Tone::Good),
                    Status::Info => {}
                }
            }
            t.print(output)?;
            let summary = format!("{} checks: {failed} failed, {warned} warned", checks.len());
            let tone = if failed > 0 {
                Tone::Bad
            } else if warned > 0 {
                Tone::Warn
            } else {
                Tone::Good
            };
            render::out_escaped(&(render::paint(&summary, tone) + "\n"))?;
        }
        _ => {
            let mut t = Table::new(["id", "name", "status", "detail"]);
            for c in &checks {
                t.push(vec![
                    c.id.clone().into(),
                    c.name.clone().into(),
                    c.status.as_str().into(),
                    c.detail.clone().into(),
                ]);
            }
            t.print(output)?;
        }
    }
    if failed > 0 {
        return Err(crate::error::silent_failure());
    }
    Ok(())
}
