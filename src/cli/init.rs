//! `tlc init`: adopt this repository explicitly and say what happened.

use super::mutating::Mutation;
use super::Ctx;
use crate::config::scaffold::ScaffoldOutcome;
use crate::render;

#[derive(Debug, clap::Args)]
pub struct InitArgs {
    // JSON (and csv, jsonl, markdown) carry {"path", "outcome", "warning"}.
    #[command(flatten)]
    pub output: crate::cli::OutputArgs,
}

pub fn run(ctx: &Ctx, args: InitArgs) -> anyhow::Result<()> {
    let output = args.output.output()?;
    let project = ctx.project()?;
    let path = project.paths.project_config();
    if !project.paths.in_git {
        return Err(crate::error::unusable(format!(
            "{}: not a git repository; tlc adopts repositories only",
            project.root().display()
        )));
    }
    if project.guest {
        let why = match crate::paths::escape_from(project.root()) {
            Some(escape) => escape,
            None if project.paths.root_overlaps_home() => format!("{} holds the runtime home", project.root().display()),
            None => format!("{} is a guest repository (machine tier [guest])", project.root().display()),
        };
        return Err(crate::error::refused(format!(
            "{why}: tlc never writes into it; its records live in {}",
            project.state_dir.display()
        )));
    }
    let m = Mutation::begin(ctx, "init")?;
    m.finish()?;
    let (word, warning) = match &m.adoption {
        Some(ScaffoldOutcome::Written(_)) => ("written", None),
        Some(ScaffoldOutcome::Present(_)) => ("present", None),
        Some(ScaffoldOutcome::NotWritten(w)) => ("not-written", Some(w.clone())),
        None => ("not-written", Some("not adopted".to_string())),
    };
    let record = serde_json::json!({ "path": path.display().to_string(), "outcome": word, "warning": warning });
    if output.format == render::Format::Json {
        render::json(&record)?;
    } else if output.format != render::Format::Table {
        render::Table::record(&record).print(output)?;
    } else {
        let text = match word {
            "written" => format!(
                "{}: written (every policy key commented out; this project inherits the machine tier)\n",
                path.display()
            ),
            "present" => format!("{}: present, nothing changed\n", path.display()),
            _ => format!("{}: not written: {}\n", path.display(), warning.clone().unwrap_or_default()),
        };
        render::out(&text)?;
    }
    if word == "not-written" {
        return Err(crate::error::silent_failure());
    }
    Ok(())
}
