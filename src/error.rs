//! The exit-code contract: 0 success, 1 a check failed or a request was refused, 2 not found or
//! unusable input. A command returns a domain's error (each domain has its own `thiserror` type)
//! or an [`Exit`] of its own through `anyhow`; [`exit_code`] decides the code, here and nowhere
//! else. The domains do not use this module: it sits beside `cli`, above them.

use crate::store::StoreError;
use std::fmt;

/// Why a command stopped, and so which exit code it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitKind {
    /// A check failed or a request was refused: exit 1.
    Refused,
    /// Not found, or input that cannot be used: exit 2.
    Unusable,
}

impl ExitKind {
    pub(crate) fn code(self) -> u8 {
        match self {
            ExitKind::Refused => 1,
            ExitKind::Unusable => 2,
        }
    }
}

/// An error that carries its exit code. The message names what it is about.
#[derive(Debug)]
pub(crate) struct Exit {
    pub kind: ExitKind,
    pub message: String,
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// A refused request or failed check (exit 1).
pub(crate) fn refused(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Exit {
        kind: ExitKind::Refused,
        message: message.into(),
    })
}

/// Not found, or unusable input (exit 2).
pub(crate) fn unusable(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Exit {
        kind: ExitKind::Unusable,
        message: message.into(),
    })
}

/// A failed check whose details were already printed: exit 1 with no further message.
pub(crate) fn silent_failure() -> anyhow::Error {
    anyhow::Error::new(Exit {
        kind: ExitKind::Refused,
        message: String::new(),
    })
}

/// The message `main` prints for an error: its chain, and where the error is that tlc's state is
/// read-only, why that is likely — the command runs inside the agent's sandbox, where tlc's state
/// and policy are out of reach by design (issue 51).
pub fn message(err: &anyhow::Error) -> String {
    let text = format!("{err:#}");
    if text.is_empty() || !read_only(err) {
        return text;
    }
    format!(
        "{text}\n(tlc's files are read-only here: this process runs inside an agent's sandbox — or another read-only mount — where tlc's policy and state cannot be changed. An operator command runs from your own terminal.)"
    )
}

/// Whether the error is a write refused by a read-only file system or database.
fn read_only(err: &anyhow::Error) -> bool {
    const EROFS: i32 = 30;
    err.chain().any(|e| {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return io.raw_os_error() == Some(EROFS);
        }
        if let Some(rusqlite::Error::SqliteFailure(f, _)) = e.downcast_ref::<rusqlite::Error>() {
            return f.code == rusqlite::ErrorCode::ReadOnly;
        }
        let t = e.to_string();
        t.contains("Read-only file system") || t.contains("readonly database")
    }) || (format!("{err:#}").contains("unable to open database file") && state_read_only())
}

/// Whether the project's or the home's state folder is on a read-only mount (a database there
/// cannot be opened for writing: SQLite says only that it cannot open it).
fn state_read_only() -> bool {
    let Ok(paths) = crate::paths::Paths::from_env() else { return false };
    [paths.project_state_dir(), paths.home_state_dir()]
        .iter()
        .any(|d| crate::sys::on_read_only_mount(d))
}

/// The exit code for an error that reached `main`: the first error in its chain whose kind is
/// known decides. This is the one place a domain's error becomes an exit code.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    err.chain().find_map(kind_of).unwrap_or(ExitKind::Refused).code()
}

fn kind_of(e: &(dyn std::error::Error + 'static)) -> Option<ExitKind> {
    use crate::agent::AgentError;
    use crate::config::edit::EditError;
    use crate::cost::CostError;
    use ExitKind::{Refused, Unusable};
    if let Some(e) = e.downcast_ref::<Exit>() {
        return Some(e.kind);
    }
    if e.is::<crate::config::ConfigError>()
        || e.is::<crate::config::ValueError>()
        || e.is::<crate::clock::TimeError>()
        || e.is::<crate::paths::PathsError>()
        || e.is::<crate::obs::export::ExportError>()
        || e.is::<crate::agent::Invalid>()
    {
        return Some(Unusable);
    }
    if let Some(e) = e.downcast_ref::<StoreError>() {
        return Some(store_kind(e));
    }
    if let Some(e) = e.downcast_ref::<crate::hook::settings_file::SettingsFileError>() {
        return Some(match e {
            crate::hook::settings_file::SettingsFileError::Unusable(_) => Unusable,
            crate::hook::settings_file::SettingsFileError::Refused(_) => Refused,
        });
    }
    if let Some(e) = e.downcast_ref::<EditError>() {
        return Some(edit_kind(e));
    }
    if let Some(e) = e.downcast_ref::<CostError>() {
        return Some(match e {
            CostError::Store(e) => store_kind(e),
            CostError::Unusable(_) | CostError::Read(_) => Unusable,
            CostError::Sqlite { .. } => Refused,
        });
    }
    if let Some(e) = e.downcast_ref::<AgentError>() {
        return Some(match e {
            AgentError::Refused(_) => Refused,
            AgentError::Unusable(_) | AgentError::Invalid(_) | AgentError::Config(_) => Unusable,
            AgentError::Store(e) => store_kind(e),
            AgentError::Edit(e) => edit_kind(e),
            AgentError::Io { .. } | AgentError::Git(_) | AgentError::Sqlite(_) | AgentError::Json(_) => Refused,
        });
    }
    None
}

/// A database that is not one, or not at this binary's schema, is unusable input; anything else
/// that fails on it (a file that cannot be created, a migration that fails) is refused.
fn store_kind(e: &StoreError) -> ExitKind {
    match e {
        StoreError::TooNew { .. }
        | StoreError::NotADatabase { .. }
        | StoreError::NeedsMigration { .. }
        | StoreError::NotRegular { .. }
        | StoreError::Foreign { .. } => ExitKind::Unusable,
        _ => ExitKind::Refused,
    }
}

/// A config file that cannot be read or parsed is unusable input; one that may not or could not
/// be written is refused.
fn edit_kind(e: &crate::config::edit::EditError) -> ExitKind {
    use crate::config::edit::EditError;
    match e {
        EditError::Read { .. } | EditError::Syntax { .. } => ExitKind::Unusable,
        EditError::NotWritable(_) | EditError::Create { .. } | EditError::Write { .. } => ExitKind::Refused,
    }
}

/// An outcome already explained on stdout, exiting with `kind`'s code and no further message.
pub(crate) fn silent_failure_with(kind: ExitKind) -> anyhow::Error {
    anyhow::Error::new(Exit {
        kind,
        message: String::new(),
    })
}
