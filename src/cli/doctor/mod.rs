//! `tlc doctor [--json]`: one check per row; exit 1 when a check fails. Read-only.

mod checks;

use super::Ctx;
use crate::render::{self, Table};
use checks::Status;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Print {"ok", "failed", "warned", "checks": [{"id", "name", "status", "detail"}]}.
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Ctx, args: DoctorArgs) -> anyhow::Result<()> {
    let checks = checks::run_all(ctx.paths()?);
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    let warned = checks.iter().filter(|c| c.status == Status::Warn).count();
    if args.json {
        render::json(&serde_json::json!({ "ok": failed == 0, "failed": failed, "warned": warned, "checks": checks }))?;
    } else {
        let mut t = Table::new(["status", "check", "detail"]);
        for c in &checks {
            t.push(vec![
                c.status.as_str().to_uppercase().into(),
                c.name.clone().into(),
                c.detail.clone().into(),
            ]);
        }
        t.print(render::Format::Table)?;
        render::out(&format!("{} checks: {failed} failed, {warned} warned\n", checks.len()))?;
    }
    if failed > 0 {
        return Err(crate::error::silent_failure());
    }
    Ok(())
}
