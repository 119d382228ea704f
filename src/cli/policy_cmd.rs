//! `tlc policy [--json]` (what diverged; read-only) and `tlc policy accept <path>...`.

use super::Ctx;
use crate::cli::OutputArgs;
use crate::policy::integrity::{self, IntegrityStore};
use crate::render::{self, Cell, Format, Output, Table};
use crate::store::{self, DbKind};
use clap::Subcommand;

#[derive(Debug, clap::Args)]
pub(crate) struct PolicyArgs {
    #[command(subcommand)]
    pub command: Option<PolicyCommand>,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum PolicyCommand {
    /// Record the current hash of exactly the named sources as the baseline of every live session.
    Accept {
        /// Policy source paths (or `mode-state`), each named on purpose.
        #[arg(required = true)]
        paths: Vec<String>,
    },
}

pub(crate) fn run(ctx: &Ctx, args: PolicyArgs) -> anyhow::Result<()> {
    match args.command {
        None => show(ctx, args.output.output()?),
        Some(PolicyCommand::Accept { paths }) => accept(ctx, &paths),
    }
}

fn show(ctx: &Ctx, output: Output) -> anyhow::Result<()> {
    let json = output.format == Format::Json;
    let project = project(ctx)?;
    let Some(store) = store::open_read(DbKind::Project, &project.db_path())? else {
        if json {
            return render::json(&serde_json::json!({ "diverged": false, "sources": [], "divergences": [], "history": [] }));
        }
        return render::out(&format!(
            "no project database at {}: no session has a policy baseline yet\n",
            project.db_path().display()
        ));
    };
    let conn = store.conn();
    let sources = integrity::current_sources(conn, &project.paths)?;
    let st = IntegrityStore::new(conn);
    let current = st.current_divergences(&sources)?;
    let history = st.divergence_records()?;
    if json {
        return render::json(&serde_json::json!({
            "diverged": !current.is_empty(),
            "sources": sources,
            "divergences": current,
            "history": history,
        }));
    }
    let mut t = Table::new(["source", "provider", "session", "baseline", "now"]);
    for d in &current {
        t.push(vec![
            d.source.clone().into(),
            d.provider.clone().into(),
            d.session_id.clone().into(),
            short(&d.baseline_hash),
            short(&d.current_hash),
        ]);
    }
    if output.format != Format::Table {
        // The other formats carry the table of current divergences alone.
        return t.print(output);
    }
    if current.is_empty() {
        render::out("policy: every live session's baseline matches the policy on disk\n")?;
    } else {
        t.print(output)?;
        let paths: std::collections::BTreeSet<&str> = current.iter().map(|d| d.source.as_str()).collect();
        render::out(&format!(
            "accept an edit you made: tlc policy accept {}\n",
            paths.into_iter().collect::<Vec<_>>().join(" ")
        ))?;
    }
    if !history.is_empty() {
        let mut t = Table::new(["detected", "source", "session", "accepted"]);
        for h in &history {
            t.push(vec![
                h.detected_at.clone().into(),
                h.source.clone().into(),
                h.session_id.clone().into(),
                h.accepted_at.clone().into(),
            ]);
        }
        render::out("recorded divergences:\n")?;
        t.print(output)?;
    }
    Ok(())
}

/// The project even when a tier does not load: a broken config is exactly when an operator may
/// need to look at or accept policy. Guest rules then come from the machine tier alone.
fn project(ctx: &Ctx) -> anyhow::Result<crate::project::Project> {
    if let Ok(p) = ctx.project() {
        return Ok(p);
    }
    let paths = ctx.paths()?;
    let machine = crate::config::Config::load_files(&paths.machine_config(), None).unwrap_or_else(|_| crate::config::Config::defaults());
    Ok(crate::project::Project::locate(paths, &machine))
}

fn short(hash: &str) -> Cell {
    Cell::Text(if hash.len() == 64 {
        hash[..12].to_string()
    } else {
        hash.to_string()
    })
}

fn accept(ctx: &Ctx, typed: &[String]) -> anyhow::Result<()> {
    let project = project(ctx)?;
    let cwd = std::env::current_dir()?;
    let Some(store) = store::open_read(DbKind::Project, &project.db_path())? else {
        return render::out(&format!(
            "no project database at {}: no session has a baseline, nothing to accept\n",
            project.db_path().display()
        ));
    };
    drop(store);
    // Accepting writes: open for writing now that we know the database exists.
    let store = store::open_write(DbKind::Project, &project.db_path())?;
    let conn = store.conn();
    let sources = integrity::current_sources(conn, &project.paths)?;
    let mut chosen = Vec::new();
    for t in typed {
        if t == integrity::BASELINES_SOURCE {
            // The anchored baselines are the ones kept: the project's rows are restored from them.
            let anchored =
                |provider: &str, session: &str| crate::hook::boundary::anchored_baselines(&project, provider, session).unwrap_or_default();
            let n = integrity::restore_anchored(conn, &anchored)?;
            render::out(&format!(
                "{t}: the baselines anchored in the home database restored for {n} live session(s)\n"
            ))?;
            continue;
        }
        match integrity::match_source(t, &cwd, &sources) {
            Some(s) => chosen.push(s.clone()),
            None => {
                let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
                return Err(crate::error::unusable(format!(
                    "{t} is not a policy source (the sources are: {})",
                    names.join(", ")
                )));
            }
        }
    }
    let st = IntegrityStore::new(conn);
    for s in &chosen {
        let n = st.accept(s)?;
        render::out(&format!("{}: accepted as the baseline of {n} live session(s)\n", s.name))?;
    }
    super::mutating::anchor(&project, conn, &st.touched())
}
