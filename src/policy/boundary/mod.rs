//! The boundary (issue 51): tlc's state and policy are out of the agent's reach because the kernel
//! keeps them so, not because tlc recognises the agent. This module names what is kept out of
//! reach — the *protected set* — in one place, for everything that enforces it: the client's
//! sandbox wiring (`tlc install`), the jail of tlc's own children (gate commands, git), the
//! floor's judgement of the file tools, and `tlc status` / `tlc doctor`.
//!
//! The protected set (docs/policy.md, *The boundary*):
//!
//! - `$TLC_HOME`: the machine tier, the global rules, the home database (where the anchors are);
//! - each repository's `.tlc/`: its config, rules and state;
//! - the clients' settings and hooks files (where tlc's hooks and the sandbox are wired);
//! - the operator's shell and git start-up files (code the operator runs without choosing to);
//! - the repository's git hooks folder and git config (code git runs).

pub(crate) mod store;

use std::path::PathBuf;

/// What a member of the protected set is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Member {
    /// `$TLC_HOME`.
    TlcHome,
    /// A repository's `.tlc/`.
    ProjectState,
    /// A client's settings or hooks file.
    ClientSettings,
    /// A file the operator's shell or git reads at start-up.
    StartupFile,
    /// The repository's git hooks folder.
    GitHooks,
    /// The repository's git config.
    GitConfig,
}

impl Member {
    /// Whether the member is a folder (else a file).
    pub(crate) fn is_folder(self) -> bool {
        matches!(self, Member::TlcHome | Member::ProjectState | Member::GitHooks)
    }
}

/// One member of the protected set.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Protected {
    pub path: PathBuf,
    pub member: Member,
}

/// Files under the home that a shell or git reads when it starts: code the operator runs without
/// choosing to (an agent that appends `tlc pause` to one has the operator run it).
pub(crate) const STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".config/fish/config.fish",
    ".gitconfig",
    ".config/git/config",
];

/// Where the protected set is, for one project.
#[derive(Debug, Clone, Default)]
pub(crate) struct Places {
    /// `$TLC_HOME`.
    pub tlc_home: PathBuf,
    /// The operator's home, when known.
    pub home: Option<PathBuf>,
    /// The repository's root, when there is one (a guest's state lives under `$TLC_HOME`).
    pub project: Option<PathBuf>,
    /// The clients' settings and hooks files, wherever they are (each provider names its own).
    pub client_files: Vec<PathBuf>,
}

/// The protected set of `places`, each path absolute as given. A repository's git hooks and
/// config are those of its common git directory (a linked worktree shares them).
pub(crate) fn protected_set(places: &Places) -> Vec<Protected> {
    let mut out = vec![Protected {
        path: places.tlc_home.clone(),
        member: Member::TlcHome,
    }];
    if let Some(root) = &places.project {
        out.push(Protected {
            path: root.join(".tlc"),
            member: Member::ProjectState,
        });
        let common = crate::gitfiles::Repo::at(&crate::gitfiles::Disk, root)
            .ok()
            .flatten()
            .map(|r| r.common_dir().to_path_buf());
        if let Some(git) = common {
            out.push(Protected {
                path: git.join("hooks"),
                member: Member::GitHooks,
            });
            out.push(Protected {
                path: git.join("config"),
                member: Member::GitConfig,
            });
        }
    }
    out.extend(places.client_files.iter().map(|p| Protected {
        path: p.clone(),
        member: Member::ClientSettings,
    }));
    if let Some(home) = &places.home {
        out.extend(STARTUP_FILES.iter().map(|f| Protected {
            path: home.join(f),
            member: Member::StartupFile,
        }));
    }
    out
}

/// The member of `set` that holds `path` (the path itself or a folder above it), if any.
#[cfg(test)]
pub(crate) fn member_holding<'s>(set: &'s [Protected], path: &std::path::Path) -> Option<&'s Protected> {
    set.iter().find(|p| path.starts_with(&p.path))
}

/// The jail tlc's children of `places`' project run in: the protected set read-only (the members
/// that exist; a missing start-up file cannot be mounted), and the recorded operator `PATH` (or,
/// when none was recorded, this process's without its relative folders and those inside the
/// project).
pub(crate) fn jail(places: &Places, operator_path: Option<&str>) -> crate::confine::Jail {
    let read_only = protected_set(places).into_iter().map(|p| p.path).collect();
    let path = match operator_path {
        Some(p) if !p.is_empty() => std::ffi::OsString::from(p),
        _ => {
            let here = std::env::var_os("PATH").unwrap_or_default();
            match &places.project {
                Some(root) => crate::confine::path_outside(&here, root),
                None => here,
            }
        }
    };
    crate::confine::Jail::new(read_only, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_names_every_member_once_and_a_path_is_found_under_its_member() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let places = Places {
            tlc_home: dir.path().join("home/.tlc/harness"),
            home: Some(dir.path().join("home")),
            project: Some(root.clone()),
            client_files: vec![dir.path().join("home/.claude/settings.json")],
        };
        let set = protected_set(&places);
        let member = |p: &std::path::Path| member_holding(&set, p).map(|m| m.member);
        assert_eq!(member(&root.join(".tlc/harness/state/tlc.db")), Some(Member::ProjectState));
        assert_eq!(member(&root.join(".git/hooks/post-commit")), Some(Member::GitHooks));
        assert_eq!(member(&root.join(".git/config")), Some(Member::GitConfig));
        assert_eq!(member(&root.join(".git/index")), None, "git's index is the agent's to change");
        assert_eq!(member(&dir.path().join("home/.bashrc")), Some(Member::StartupFile));
        assert_eq!(member(&dir.path().join("home/.claude/settings.json")), Some(Member::ClientSettings));
        assert_eq!(member(&dir.path().join("home/.tlc/harness/config.toml")), Some(Member::TlcHome));
        assert_eq!(member(&root.join("src/main.rs")), None);
    }
}
