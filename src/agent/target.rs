//! Which config file an agent command writes, and the editor for it: the machine tier through the
//! format-preserving editor; the project tier only through the scaffold's editor (the repository
//! adopted first, never a guest, never through a `.tlc` that leaves it); no other file.

use super::resolve::project_tier_file;
use super::{refused, unusable, AgentError};
use crate::config::edit::ConfigEdit;
use crate::config::scaffold::ScaffoldOutcome;
use crate::config::Config;
use crate::paths::Paths;
use crate::project::Project;
use std::path::PathBuf;

/// The file `--project` (or not) targets; a guest or the home itself is refused.
pub(crate) fn target_file(paths: &Paths, cfg: &Config, project: bool) -> Result<PathBuf, AgentError> {
    if !project {
        return Ok(paths.machine_config());
    }
    if paths.root_overlaps_home() {
        return Err(unusable(format!(
            "{} is the runtime home, not a project: --project has nowhere to write",
            paths.root.display()
        )));
    }
    let project = Project::locate(paths, cfg);
    if project.outside {
        return Err(refused(format!(
            "{} is not a git repository: tlc never writes into it",
            paths.root.display()
        )));
    }
    if project.guest {
        return Err(refused(format!(
            "{} is a guest repository: tlc never writes into it",
            paths.root.display()
        )));
    }
    Ok(project_tier_file(paths))
}

/// Opens `file` for an edit: the machine tier, or this project's tier (adopting the repository
/// first when it has no project config yet).
pub(crate) fn open_editor(paths: &Paths, cfg: &Config, file: &std::path::Path) -> Result<ConfigEdit, AgentError> {
    if file == paths.machine_config() {
        return Ok(ConfigEdit::open(file)?);
    }
    if !paths.root_overlaps_home() && file == project_tier_file(paths) {
        let project = Project::locate(paths, cfg);
        // Adopted without a `config.scaffolded` event (docs/init.md). A scaffold that could not
        // write says why, rather than the editor's "no project config".
        if let Some(ScaffoldOutcome::NotWritten(why)) = project.adopt() {
            return Err(refused(format!("{}: not adopted: {why}", paths.root.display())));
        }
        return Ok(project.edit_config()?);
    }
    Err(refused(format!(
        "{}: neither this machine's config nor this project's; run the command from that project",
        file.display()
    )))
}
