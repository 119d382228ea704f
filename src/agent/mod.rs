//! Agent packages: stables (trusted git remotes, the trust ledger), `package.toml` manifests,
//! the content scan, the content-addressed pin store, install/upgrade/uninstall/prune, and the
//! resolution of a harness table's `source` at config load.
//!
//! The fetch, scan and confirm surface is here and in `tlc agent`/`tlc stable`; config load only
//! ever reads pins already on disk.

pub(crate) mod defaults;
pub(crate) mod diff;
pub(crate) mod files;
pub(crate) mod git;
pub(crate) mod health;
pub(crate) mod install;
pub(crate) mod list;
pub(crate) mod maintain;
pub(crate) mod manifest;
pub(crate) mod pins;
pub(crate) mod records;
pub(crate) mod resolve;
pub(crate) mod scan;
pub(crate) mod schema;
pub(crate) mod skills;
pub(crate) mod stable;
pub(crate) mod target;
pub(crate) mod upgrade;

use std::path::PathBuf;

/// Everything the agent domain can fail with. Each message names the stable, package, pin,
/// file or key it is about; `crate::error` decides the exit code from the variant.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AgentError {
    /// A request refused, or a check that failed.
    #[error("{0}")]
    Refused(String),
    /// Not found, or input that cannot be used.
    #[error("{0}")]
    Unusable(String),
    /// A file or folder that could not be created, read, moved or removed.
    #[error("{path}: {what}: {cause}")]
    Io {
        path: PathBuf,
        what: &'static str,
        cause: std::io::Error,
    },
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Git(#[from] git::GitError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Edit(#[from] crate::config::edit::EditError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// A name, reference, path or value that is not acceptable; the message says which and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Invalid(pub String);

impl From<String> for Invalid {
    fn from(message: String) -> Invalid {
        Invalid(message)
    }
}

/// A refused request (see [`AgentError::Refused`]).
pub(crate) fn refused(message: impl Into<String>) -> AgentError {
    AgentError::Refused(message.into())
}

/// Unusable input (see [`AgentError::Unusable`]).
pub(crate) fn unusable(message: impl Into<String>) -> AgentError {
    AgentError::Unusable(message.into())
}

/// An I/O failure on `path` while doing `what` (`cannot create`, …).
pub(crate) fn io_error(path: impl Into<PathBuf>, what: &'static str) -> impl FnOnce(std::io::Error) -> AgentError {
    let path = path.into();
    move |cause| AgentError::Io { path, what, cause }
}

/// A stable's name: `^[a-z0-9][a-z0-9_-]*$` (no dots: it is a TOML table name and a folder).
pub(crate) fn valid_stable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// `<stable>/<package>[@<version>]` as typed on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PackageRef {
    pub stable: String,
    pub package: String,
    pub version: Option<String>,
}

impl PackageRef {
    pub(crate) fn parse(s: &str) -> Result<PackageRef, Invalid> {
        let (sp, version) = match s.split_once('@') {
            Some((a, v)) if !v.is_empty() => (a, Some(v.to_string())),
            Some(_) => return Err(Invalid(format!("{s:?}: an empty version after `@`"))),
            None => (s, None),
        };
        let (stable, package) = sp
            .split_once('/')
            .ok_or_else(|| Invalid(format!("{s:?} is not <stable>/<package>[@<version>]")))?;
        if !valid_stable_name(stable) {
            return Err(Invalid(format!("{s:?}: {stable:?} is not a stable name")));
        }
        if !manifest::valid_package_name(package) {
            return Err(Invalid(format!("{s:?}: {package:?} is not a package name (^[a-z][a-z0-9-]*$)")));
        }
        Ok(PackageRef {
            stable: stable.into(),
            package: package.into(),
            version,
        })
    }

    pub(crate) fn name(&self) -> String {
        format!("{}/{}", self.stable, self.package)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_refs() {
        let r = PackageRef::parse("acme/pr-reviewer@v1.2").unwrap();
        assert_eq!(
            (r.stable.as_str(), r.package.as_str(), r.version.as_deref()),
            ("acme", "pr-reviewer", Some("v1.2"))
        );
        assert!(PackageRef::parse("acme").is_err());
        assert!(PackageRef::parse("acme/Bad").is_err());
        assert!(PackageRef::parse("a.b/x").is_err());
        let s = pins::SourceRef::parse(&format!("acme/pr-reviewer@{}", "a".repeat(40))).unwrap();
        assert_eq!(s.package, "pr-reviewer");
        assert!(pins::SourceRef::parse("acme/pr-reviewer@main").is_err());
    }
}
