//! What the floor reads of a repository's `.git` (never by running git), through its [`World`].

use super::*;
use crate::gitfiles;

impl Floor<'_> {
    /// Whether the current branch's commit is also a remote-tracking ref's (read from `.git`
    /// through `gitfiles`, never by running git) and `target` names a different commit.
    pub(super) fn head_is_pushed(&self, target: &str) -> bool {
        let files = WorldFiles(&*self.ctx.world);
        let Ok(Some(repo)) = gitfiles::Repo::above(&files, &self.ctx.cwd) else {
            return false;
        };
        let Some(gitfiles::Head::Branch(head)) = repo.head() else {
            return false;
        };
        let Some(branch) = head.strip_prefix("refs/heads/") else {
            return false;
        };
        let gitfiles::Ref::Commit(sha) = repo.resolve(&head) else {
            return false;
        };
        if sha.starts_with(target) && target.len() >= 7 {
            return false;
        }
        repo.remotes()
            .iter()
            .any(|remote| repo.resolve(&format!("refs/remotes/{remote}/{branch}")).commit() == Some(sha.as_str()))
    }
}

/// The floor's world as `gitfiles` reads it: the engine asks nothing of the disk but through its
/// [`World`] (on the hook, `fsread`'s limits; in the table tests, memory). A file the world cannot
/// read is absent, as every other file the floor asks about.
struct WorldFiles<'w>(&'w dyn World);

impl gitfiles::Files for WorldFiles<'_> {
    fn is_dir(&self, p: &Path) -> bool {
        self.0.is_dir(p)
    }

    fn text(&self, p: &Path, cap: u64) -> Result<Option<String>, crate::fsread::ReadError> {
        Ok(self.0.read_text(p, cap))
    }

    fn names_in(&self, dir: &Path) -> Vec<String> {
        self.0.names_in(dir)
    }
}

/// `git [global options] <sub> …`: the subcommand and what follows it.
pub(in crate::policy) fn git_subcommand(args: &[String]) -> Option<(&str, &[String])> {
    let k = crate::policy::shell::options::git_subcommand_at(args)?;
    Some((args[k].as_str(), &args[k + 1..]))
}

pub(super) fn resets_to_remote(target: &str) -> bool {
    target.contains("@{u")
        || target.contains("@{upstream}")
        || target.contains("@{push}")
        || target.starts_with("origin/")
        || target.starts_with("upstream/")
        || target.starts_with("refs/remotes/")
}
