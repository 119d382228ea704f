//! Which hook events adopt the repository: those that start or drive work. Adoption itself is
//! `Project::adopt`; the scaffold that writes the project config is `config::scaffold`.

use crate::config::scaffold::ScaffoldOutcome;
use crate::config::Config;
use crate::obs::Kind;
use crate::project::Project;

/// The hook events that adopt: those that start or drive work (session start, prompt submit,
/// tool, shell, MCP and file events, stop). Session end, notifications and the like never do.
pub(crate) fn adopts_on(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::SessionStart
            | Kind::PromptSubmit
            | Kind::ToolStart
            | Kind::ToolEnd
            | Kind::ToolFail
            | Kind::ShellStart
            | Kind::ShellEnd
            | Kind::McpStart
            | Kind::McpEnd
            | Kind::FileRead
            | Kind::FileEdit
            | Kind::Stop
    )
}

/// The hook path's adoption: only on an event that starts or drives work, and only when the
/// configuration really loaded — with the shipped defaults standing in for a broken machine tier,
/// its `[guest]` list is unknown, and a guest must never be adopted by accident.
pub(crate) fn adopt_on_hook(project: &Project, config: &Config, kind: Kind, faults: &mut crate::fault::Faults) -> Option<ScaffoldOutcome> {
    if !adopts_on(kind) || config.files.is_empty() {
        return None;
    }
    project.adopt_noting(faults)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_events_that_start_or_drive_work_adopt() {
        for k in [
            Kind::SessionStart,
            Kind::PromptSubmit,
            Kind::ToolStart,
            Kind::ShellEnd,
            Kind::McpStart,
            Kind::FileEdit,
            Kind::ToolFail,
            Kind::Stop,
        ] {
            assert!(adopts_on(k), "{k:?}");
        }
        for k in [
            Kind::SessionEnd,
            Kind::Notification,
            Kind::Compact,
            Kind::Unknown,
            Kind::AgentThought,
            Kind::HookFault,
        ] {
            assert!(!adopts_on(k), "{k:?}");
        }
    }
}
