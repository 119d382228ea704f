//! `tlc obs report --all-repos`: the cross-repository rollup from the home database's spool.

use super::Ctx;
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
    let conn = store.conn();
    let mut st = conn.prepare(crate::store::queries::home::spool::REPO_ROLLUP)?;
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
    let rows = st.query_map([], |r| {
        Ok(vec![
            r.get::<_, String>(0)?.into(),
            r.get::<_, String>(1)?.into(),
            r.get::<_, i64>(2)?.into(),
            r.get::<_, i64>(3)?.into(),
            r.get::<_, i64>(4)?.into(),
            r.get::<_, i64>(5)?.into(),
            r.get::<_, i64>(6)?.into(),
            r.get::<_, i64>(7)?.into(),
            r.get::<_, i64>(8)?.into(),
            r.get::<_, Option<f64>>(9)?.into(),
            r.get::<_, String>(10)?.into(),
        ])
    })?;
    for row in rows {
        t.push(row?);
    }
    match format {
        Format::Json => render::json(&serde_json::json!({"repositories": t.to_json()})),
        other => t.print(other),
    }
}
