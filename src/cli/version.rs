//! `tlc version [--json]`: the revision this binary was built from and what this project's hooks
//! last ran (read-only). No hand-kept version number: the revision is what `tlc update` moves.

use super::Ctx;
use crate::obs::EventStore;
use crate::render;
use crate::revision;
use crate::store::{self, DbKind};
use serde_json::json;

#[derive(Debug, clap::Args)]
pub(crate) struct VersionArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// What this project's database recorded of the revisions its hooks ran.
#[derive(Debug, Default, serde::Serialize)]
struct ProjectSaw {
    database: Option<String>,
    /// Why the database could not be read (a schema this binary does not read, say).
    unreadable: Option<String>,
    hooks_revision: Option<String>,
    hooks_revision_since: Option<String>,
    previous_revision: Option<String>,
    previous_revision_since: Option<String>,
    /// Whether the hooks last ran this very binary's revision.
    same_as_this_binary: Option<bool>,
}

pub(crate) fn run(ctx: &Ctx, args: VersionArgs) -> anyhow::Result<()> {
    let saw = project_saw(ctx)?;
    let line = format!("tlc {}", revision::LINE);
    if args.json {
        return render::json(&json!({
            "line": line,
            "commit": revision::COMMIT,
            "commit_date": (!revision::COMMIT_DATE.is_empty()).then_some(revision::COMMIT_DATE),
            "tree": revision::TREE_STATE,
            "source_dir": revision::SOURCE_DIR,
            "project_schema": DbKind::Project.latest_version(),
            "home_schema": DbKind::Home.latest_version(),
            "project": saw,
        }));
    }
    let mut text = format!(
        "{line}\ncommit       {}{}\ntree         {}\nbuilt from   {}\nschemas      project {}, home {}\n",
        revision::COMMIT,
        if revision::COMMIT_DATE.is_empty() {
            String::new()
        } else {
            format!(" ({})", revision::COMMIT_DATE)
        },
        match revision::TREE_STATE {
            "dirty" => "dirty: the files the binary is built from had uncommitted changes",
            "clean" => "clean",
            _ => "unknown (not built from a git checkout)",
        },
        revision::SOURCE_DIR,
        DbKind::Project.latest_version(),
        DbKind::Home.latest_version(),
    );
    let short = |r: &str| revision::short(r).to_string() + if r.ends_with("+dirty") { " (dirty)" } else { "" };
    text.push_str(&match (&saw.database, &saw.hooks_revision) {
        (Some(db), _) if saw.unreadable.is_some() => {
            format!("this project {db} not read: {}\n", saw.unreadable.as_deref().unwrap_or_default())
        }
        (None, _) => "this project no project database yet (its hooks have not run here)\n".to_string(),
        (Some(_), None) => "this project its hooks have not recorded a revision yet (recorded at each session start)\n".to_string(),
        (Some(_), Some(r)) => {
            let same = if saw.same_as_this_binary == Some(true) {
                "this binary"
            } else {
                "a different revision than this binary"
            };
            let mut s = format!(
                "this project hooks ran {} since {} ({same})\n",
                short(r),
                saw.hooks_revision_since.as_deref().unwrap_or("?")
            );
            if let Some(p) = &saw.previous_revision {
                s.push_str(&format!(
                    "             before that {} since {}\n",
                    short(p),
                    saw.previous_revision_since.as_deref().unwrap_or("?")
                ));
            }
            s
        }
    });
    render::out_escaped(&text)
}

fn project_saw(ctx: &Ctx) -> anyhow::Result<ProjectSaw> {
    // Outside a repository there is no project to speak of: the binary's lines still print.
    let Ok(project) = ctx.project() else {
        return Ok(ProjectSaw::default());
    };
    let store = match store::open_read(DbKind::Project, &project.db_path()) {
        Ok(Some(store)) => store,
        Ok(None) => return Ok(ProjectSaw::default()),
        Err(e) => {
            return Ok(ProjectSaw {
                database: Some(project.db_path().display().to_string()),
                unreadable: Some(e.to_string()),
                ..ProjectSaw::default()
            })
        }
    };
    let es = EventStore::new(store.conn());
    let now = es.hooks_revision()?;
    let before = es.previous_hooks_revision()?;
    Ok(ProjectSaw {
        database: Some(store.path().display().to_string()),
        unreadable: None,
        same_as_this_binary: now.as_ref().map(|(r, _)| *r == revision::recorded()),
        hooks_revision: now.as_ref().map(|(r, _)| r.clone()),
        hooks_revision_since: now.map(|(_, s)| s),
        previous_revision: before.as_ref().map(|(r, _)| r.clone()),
        previous_revision_since: before.map(|(_, s)| s),
    })
}
