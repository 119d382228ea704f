//! What the floor reads of a repository's `.git` (never by running git), through its [`World`].

use super::*;

impl Floor<'_> {
    /// Whether the current branch's commit is also a remote-tracking ref's (read from `.git`,
    /// never by running git) and `target` names a different commit.
    pub(super) fn head_is_pushed(&self, target: &str) -> bool {
        let w = &*self.ctx.world;
        let Some(git) = git_dir(w, &self.ctx.cwd) else { return false };
        let common = w
            .read_text(&git.join("commondir"), crate::fsread::GIT_POINTER_CAP)
            .map(|c| normalize(&git.join(c.trim())))
            .unwrap_or_else(|| git.clone());
        let Some(head) = w.read_text(&git.join("HEAD"), crate::fsread::GIT_POINTER_CAP) else {
            return false;
        };
        let Some(branch) = head.trim().strip_prefix("ref: refs/heads/") else {
            return false;
        };
        let Some(sha) = read_ref(w, &common, &format!("refs/heads/{branch}")) else {
            return false;
        };
        if sha.starts_with(target) && target.len() >= 7 {
            return false;
        }
        let remotes = common.join("refs").join("remotes");
        let mut names: Vec<String> = w.names_in(&remotes);
        if let Some(packed) = w.read_text(&common.join("packed-refs"), crate::fsread::PACKED_REFS_CAP) {
            for line in packed.lines() {
                if let Some(r) = line.split_whitespace().nth(1).and_then(|r| r.strip_prefix("refs/remotes/")) {
                    if let Some((remote, _)) = r.split_once('/') {
                        names.push(remote.to_string());
                    }
                }
            }
        }
        names.sort();
        names.dedup();
        names
            .iter()
            .any(|remote| read_ref(w, &common, &format!("refs/remotes/{remote}/{branch}")).is_some_and(|r| r == sha))
    }
}

/// `git [global options] <sub> …`: the subcommand and what follows it.
pub(in crate::policy) fn git_subcommand(args: &[String]) -> Option<(&str, &[String])> {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        if matches!(
            a.as_str(),
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
        ) {
            k += 2;
            continue;
        }
        if a.starts_with('-') {
            k += 1;
            continue;
        }
        return Some((a.as_str(), &args[k + 1..]));
    }
    None
}

pub(super) fn resets_to_remote(target: &str) -> bool {
    target.contains("@{u")
        || target.contains("@{upstream}")
        || target.contains("@{push}")
        || target.starts_with("origin/")
        || target.starts_with("upstream/")
        || target.starts_with("refs/remotes/")
}

pub(super) fn git_dir(w: &dyn World, start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let g = d.join(".git");
        if w.is_dir(&g) {
            return Some(g);
        }
        if let Some(text) = w.read_text(&g, crate::fsread::GIT_POINTER_CAP) {
            let p = text.trim().strip_prefix("gitdir:")?.trim().to_string();
            return Some(normalize(&d.join(p)));
        }
        dir = d.parent();
    }
    None
}

pub(super) fn read_ref(w: &dyn World, git: &Path, name: &str) -> Option<String> {
    if let Some(s) = w.read_text(&git.join(name), crate::fsread::GIT_POINTER_CAP) {
        return Some(s.trim().to_string());
    }
    let packed = w.read_text(&git.join("packed-refs"), crate::fsread::PACKED_REFS_CAP)?;
    packed.lines().find_map(|l| {
        let (sha, r) = l.split_once(' ')?;
        (r.trim() == name).then(|| sha.to_string())
    })
}
