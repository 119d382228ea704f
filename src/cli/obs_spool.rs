//! `tlc obs report --all-repos`: the cross-repository rollup from the home database's spool.

use super::Ctx;
use crate::obs::Spool;
use crate::render::{self, Cell, Format, Output, Role, Table};
use crate::store::{self, DbKind};

pub(crate) fn report_all_repos(ctx: &Ctx, output: Output) -> anyhow::Result<()> {
    let home_db = ctx.paths()?.home_db();
    let Some(store) = store::open_read(DbKind::Home, &home_db)? else {
        if output.is_json() {
            return render::json(&serde_json::json!({"recorded": false, "database": home_db.display().to_string(), "repositories": []}));
        }
        return render::out(&format!(
            "nothing spooled yet (no home database at {}); turn on obs.globalSpool to mirror every repository\n",
            home_db.display()
        ));
    };
    let rows = Spool::new(store.conn()).repo_rollup()?;
    // People read names and formatted numbers; CSV and JSON keep the view's columns and raw values.
    let human = matches!(output.format, Format::Table | Format::Markdown);
    let headers: [&str; 11] = if human {
        [
            "repository",
            "project",
            "sessions",
            "events",
            "prompts",
            "tool fails",
            "denials",
            "input",
            "output",
            "cost (USD)",
            "last seen",
        ]
    } else {
        [
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
        ]
    };
    let mut t = Table::new(headers)
        .roles([
            Role::Text,
            Role::Key,
            Role::Number,
            Role::Number,
            Role::Number,
            Role::Number,
            Role::Number,
            Role::Number,
            Role::Number,
            Role::Number,
            Role::Date,
        ])
        .droppable(if human {
            &["project", "tool fails", "events", "prompts"]
        } else {
            &[]
        });
    let n = |v: i64| -> Cell {
        if human {
            render::thousands(v).into()
        } else {
            v.into()
        }
    };
    for r in rows {
        let cost: Cell = match (human, r.cost_usd) {
            (true, Some(c)) => render::usd(c).into(),
            (true, None) => "unknown".into(),
            (false, c) => c.into(),
        };
        t.push(vec![
            r.repo_path.into(),
            r.project.into(),
            n(r.sessions),
            n(r.events),
            n(r.prompts),
            n(r.tool_fails),
            n(r.denials),
            n(r.input_tokens),
            n(r.output_tokens),
            cost,
            r.last_at.into(),
        ]);
    }
    match output.format {
        Format::Json => render::json(&serde_json::json!({"repositories": t.to_json()})),
        _ => t.print(output),
    }
}

/// Rows one home transaction of a catch-up sends.
const CATCH_UP_BATCH: i64 = 5000;

/// Sends the home spool what it lacks of this project's database (rows a hook killed or locked
/// out before its spool write left behind, or recorded while the spool was off); `None` when
/// the project has no database. Creates the home database when it has to write into it.
pub(super) fn catch_up(ctx: &Ctx) -> anyhow::Result<Option<crate::obs::spool::CaughtUp>> {
    let project = ctx.project()?;
    let db = project.db_path();
    if store::open_read(DbKind::Project, &db)?.is_none() {
        return Ok(None);
    }
    let pstore = store::open_write(DbKind::Project, &db)?;
    let home_db = ctx.paths()?.home_db();
    let mut hstore = store::open_write(DbKind::Home, &home_db)?;
    let done = crate::obs::spool::catch_up(
        pstore.conn(),
        hstore.conn_mut(),
        &project.root().display().to_string(),
        &project.name(),
        CATCH_UP_BATCH,
    )
    .map_err(|e| match e {
        crate::obs::spool::CatchUpError::Project(e) => anyhow::Error::new(store::StoreError::sqlite(&db, e)),
        crate::obs::spool::CatchUpError::Home(e) => anyhow::Error::new(store::StoreError::sqlite(&home_db, e)),
    })?;
    Ok(Some(done))
}

/// After an import: the same catch-up, when `obs.globalSpool` is on; a line saying what it sent.
pub(super) fn catch_up_when_on(ctx: &Ctx) -> anyhow::Result<Option<String>> {
    if !ctx.config()?.settings.obs.global_spool {
        return Ok(None);
    }
    Ok(catch_up(ctx)?.filter(|d| d.sent > 0).map(|d| {
        format!(
            "spool: {} record(s) of this project sent to the home spool ({} new there)\n",
            d.sent, d.new
        )
    }))
}

/// `tlc obs spool catch-up`.
pub(super) fn catch_up_command(ctx: &Ctx, output: Output) -> anyhow::Result<()> {
    let project = ctx.project()?;
    let done = catch_up(ctx)?;
    let record = serde_json::json!({
        "database": project.db_path().display().to_string(),
        "recorded": done.is_some(),
        "caught_up": done,
    });
    match output.format {
        Format::Json => return render::json(&record),
        Format::Table => {}
        _ => return Table::record(&record).print(output),
    }
    match done {
        None => render::out(&format!(
            "nothing recorded yet for {} (no database at {}): nothing to send\n",
            project.root().display(),
            project.db_path().display()
        )),
        Some(d) if d.sent == 0 => render::out(&format!(
            "the home spool holds every record of {} (through event {})\n",
            project.root().display(),
            d.through
        )),
        Some(d) => render::out(&format!(
            "sent {} record(s) of {} to the home spool ({} new there, {} already there); it now holds every record through event {}\n",
            d.sent,
            project.root().display(),
            d.new,
            d.sent - d.new,
            d.through
        )),
    }
}
