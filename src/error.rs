//! The exit-code contract: 0 success, 1 a check failed or a request was refused, 2 not found or
//! unusable input. A command returns an [`Exit`] (usually through `anyhow`) to choose its code.

use std::fmt;

/// Why a command stopped, and so which exit code it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// A check failed or a request was refused: exit 1.
    Refused,
    /// Not found, or input that cannot be used: exit 2.
    Unusable,
}

impl ExitKind {
    pub fn code(self) -> u8 {
        match self {
            ExitKind::Refused => 1,
            ExitKind::Unusable => 2,
        }
    }
}

/// An error that carries its exit code. The message names what it is about.
#[derive(Debug)]
pub struct Exit {
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
pub fn refused(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Exit {
        kind: ExitKind::Refused,
        message: message.into(),
    })
}

/// Not found, or unusable input (exit 2).
pub fn unusable(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Exit {
        kind: ExitKind::Unusable,
        message: message.into(),
    })
}

/// A failed check whose details were already printed: exit 1 with no further message.
pub fn silent_failure() -> anyhow::Error {
    anyhow::Error::new(Exit {
        kind: ExitKind::Refused,
        message: String::new(),
    })
}

/// The exit code for an error that reached `main`.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
        if let Some(e) = cause.downcast_ref::<Exit>() {
            return e.kind.code();
        }
        if cause.downcast_ref::<crate::config::ConfigError>().is_some() {
            return ExitKind::Unusable.code();
        }
        if let Some(e) = cause.downcast_ref::<crate::store::StoreError>() {
            return match e {
                crate::store::StoreError::TooNew { .. }
                | crate::store::StoreError::NotADatabase { .. }
                | crate::store::StoreError::NeedsMigration { .. } => ExitKind::Unusable.code(),
                _ => ExitKind::Refused.code(),
            };
        }
    }
    ExitKind::Refused.code()
}

/// An outcome already explained on stdout, exiting with `kind`'s code and no further message.
pub fn silent_failure_with(kind: ExitKind) -> anyhow::Error {
    anyhow::Error::new(Exit {
        kind,
        message: String::new(),
    })
}
