//! `tlc obs report --all-repos`: the cross-repository rollup from the home database's spool.

use super::Ctx;
use crate::obs::Spool;
use crate::render::{self, Format, Table};
use crate::store::{self, DbKind};

pub fn report_all_repos(ctx: &Ctx, format: Format) -> anyhow::Result<()> {
    let home_db = ctx.paths()?.home_db();
    let Some(store) = store::open_read(DbKind::Home, &home_db)? else {
        if format == Format::Json {
            return render::json(&serde_json::json!({"recorded": false, "database": home_db.display().to_string(), "repositories": []}));
        }
        return render::out(&format!(
            "nothing spooled yet (no home database at {}); turn on obs.globalSpool to mirror every repository\n",
            home_db.display()
        ));
    };
    let rows = Spool::new(store.conn()).repo_rollup()?;
    let mut t = Table::new([
        "repo_path",
        "project",
        "sessions",
        "events",
        "prompts",
        "tool_fails",
        "denials",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "last_at",
    ]);
    for r in rows {
        t.push(vec![
            r.repo_path.into(),
            r.project.into(),
            r.sessions.into(),
            r.events.into(),
            r.prompts.into(),
            r.tool_fails.into(),
            r.denials.into(),
            r.input_tokens.into(),
            r.output_tokens.into(),
            r.cost_usd.into(),
            r.last_at.into(),
        ]);
    }
    match format {
        Format::Json => render::json(&serde_json::json!({"repositories": t.to_json()})),
        other => t.print(other),
    }
}
