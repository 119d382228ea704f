//! `tlc init`: adopt this repository explicitly and say what happened. At a terminal it first
//! asks about each opt-in of the capability catalog (`init_wizard`) and writes the answers that
//! change something into the project config, uncommented; everything else stays inherited.

use super::init_wizard::{self, Answer};
use super::mutating::Mutation;
use super::Ctx;
use crate::config::scaffold::ScaffoldOutcome;
use crate::render;
use std::io::IsTerminal;

#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// Ask nothing: adopt with the commented template (what `tlc init` does without a terminal).
    #[arg(long)]
    pub defaults: bool,
    // JSON (and csv, jsonl, markdown) carry {"path", "outcome", "warning", "set"}.
    #[command(flatten)]
    pub output: crate::cli::OutputArgs,
}

pub(crate) fn run(ctx: &Ctx, args: InitArgs) -> anyhow::Result<()> {
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
    // The questions come before anything is written: leaving them writes nothing, not even the
    // adoption. Both stdin (the keys) and stderr (where the questions are drawn) must be a
    // terminal; a script, or `--defaults`, gets the commented template.
    let answers = if !args.defaults && std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        init_wizard::ask(ctx.config()?, project.root())?
    } else {
        Vec::new()
    };
    let m = Mutation::begin(ctx, "init")?;
    let (word, warning) = match &m.adoption {
        Some(ScaffoldOutcome::Written(_)) => ("written", None),
        Some(ScaffoldOutcome::Present(_)) => ("present", None),
        Some(ScaffoldOutcome::NotWritten(w)) => ("not-written", Some(w.clone())),
        None => ("not-written", Some("not adopted".to_string())),
    };
    if word != "not-written" && !answers.is_empty() {
        write_answers(ctx, &m, &answers)?;
    }
    m.finish()?;
    let set: serde_json::Map<String, serde_json::Value> = if word == "not-written" {
        serde_json::Map::new()
    } else {
        answers.iter().map(|a| (a.key.to_string(), a.value.to_json())).collect()
    };
    let record = serde_json::json!({
        "path": path.display().to_string(),
        "outcome": word,
        "warning": warning,
        "set": set,
    });
    if output.format == render::Format::Json {
        render::json(&record)?;
    } else if output.format != render::Format::Table {
        render::Table::record(&record).print(output)?;
    } else {
        let text = match (word, set.is_empty()) {
            ("written", true) => format!(
                "{}: written (every policy key commented out; this project inherits the machine tier)\n",
                path.display()
            ),
            ("written", false) => format!(
                "{}: written ({} set as chosen; every other policy key commented out, inherited from the machine tier)\n",
                path.display(),
                set.len()
            ),
            ("present", true) => format!("{}: present, nothing changed\n", path.display()),
            ("present", false) => format!("{}: present; {} set as chosen\n", path.display(), set.len()),
            _ => format!("{}: not written: {}\n", path.display(), warning.clone().unwrap_or_default()),
        };
        let mut text = text;
        for a in answers.iter().filter(|_| !set.is_empty()) {
            text.push_str(&format!("  {} = {}\n", a.key, a.value.to_toml_text()));
        }
        render::out(&text)?;
    }
    if word == "not-written" {
        return Err(crate::error::silent_failure());
    }
    Ok(())
}

/// Writes each answer into the project config through its one editor: a key whose answer is what
/// the project would inherit is removed (a project restates nothing), any other is set.
fn write_answers(ctx: &Ctx, m: &Mutation, answers: &[Answer]) -> anyhow::Result<()> {
    let cfg = ctx.config()?;
    let mut edit = m.project.edit_config()?;
    for a in answers {
        if cfg.inherited(a.key).as_ref() == Some(&a.value) {
            edit.remove(a.key);
            // A table the removal left empty goes too: `[comments]` alone would read as a choice.
            let parts: Vec<&str> = a.key.split('.').collect();
            for depth in (1..parts.len()).rev() {
                let table = parts[..depth].join(".");
                let empty = parts[..depth]
                    .iter()
                    .try_fold(edit.doc.as_table(), |t, p| t.get(p).and_then(|i| i.as_table()))
                    .is_some_and(|t| t.is_empty());
                if empty {
                    edit.remove(&table);
                }
            }
        } else {
            edit.set(a.key, init_wizard::toml_value(&a.value));
        }
    }
    edit.save()?;
    Ok(())
}
