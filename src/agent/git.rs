//! The system `git`, run as a child process so the operator's own git config and credentials
//! apply. Only `clone` and `fetch` reach a remote; everything else reads the local clone's
//! objects.

use super::files::{self, EntryKind, PackageFile, PackageFiles};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// What went wrong running `git` on a stable's clone.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GitError {
    #[error("cannot run git ({what}): {cause}")]
    Spawn { what: String, cause: std::io::Error },
    #[error("git {what} failed: {stderr}")]
    Failed { what: String, stderr: String },
    #[error("git cat-file: {0}")]
    Batch(String),
    #[error("{0}")]
    Remote(String),
    #[error("the stable's clone has no default branch")]
    NoDefaultBranch,
    #[error("version {0:?} is neither a branch, a tag nor a full commit SHA of the stable's clone (run `tlc stable update` to fetch)")]
    UnknownVersion(String),
    #[error("package {package:?} does not exist at {at}")]
    NoPackage { package: String, at: String },
}

fn git(dir: Option<&Path>) -> Command {
    crate::sys::git(dir)
}

fn run(mut c: Command, what: &str) -> Result<Vec<u8>, GitError> {
    let out = c.stdin(Stdio::null()).output().map_err(|cause| GitError::Spawn {
        what: what.to_string(),
        cause,
    })?;
    if !out.status.success() {
        return Err(GitError::Failed {
            what: what.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(out.stdout)
}

/// What a stable's remote may be, checked before git sees it: git's other transports run
/// commands (`ext::sh -c …`), read descriptors (`fd::7`) or go unauthenticated (`git://`,
/// `http://`), and a remote starting with `-` would be read as an option.
pub(crate) fn check_remote(remote: &str) -> Result<(), String> {
    let shown = shown_remote(remote);
    if remote.trim().is_empty() {
        return Err("the remote is empty".into());
    }
    if remote.starts_with('-') {
        return Err(format!("remote {shown:?} starts with `-`; it would be read as an option"));
    }
    if remote.chars().any(char::is_control) {
        return Err(format!("remote {shown:?} holds a control character"));
    }
    if let Some((transport, _)) = remote.split_once("::") {
        if !transport.contains('/') {
            return Err(format!(
                "remote {shown:?} uses git's `{transport}::` transport, which is refused; a stable's remote is https://, ssh://, git@host:path, file:// or a local path"
            ));
        }
    }
    if let Some((scheme, _)) = remote.split_once("://") {
        return match scheme {
            "https" | "ssh" | "file" => Ok(()),
            other => Err(format!(
                "remote {shown:?} uses `{other}://`, which is refused; a stable's remote is https://, ssh://, git@host:path, file:// or a local path"
            )),
        };
    }
    // scp-like `user@host:path` (git reads a colon before any slash as one), else a local path.
    if let Some((before, path)) = remote.split_once(':') {
        if !before.contains('/') {
            let (user, host) = before.split_once('@').unwrap_or(("", before));
            let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
            let scp_like = word(user) && word(host) && !host.starts_with('-') && !path.is_empty() && !path.starts_with('-');
            if !scp_like {
                return Err(format!(
                    "remote {shown:?} is neither a URL, git@host:path nor a local path; a stable's remote is https://, ssh://, git@host:path, file:// or a local path"
                ));
            }
        }
    }
    Ok(())
}

/// `remote` with any credentials in it hidden: `https://***@host/…`, for messages and listings.
pub(crate) fn shown_remote(remote: &str) -> String {
    let Some((scheme, rest)) = remote.split_once("://") else {
        return remote.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***{}", &rest[at..]),
        None => remote.to_string(),
    }
}

/// Hides `remote`'s credentials wherever they appear in `text` (git's own messages repeat the
/// URL it was given).
fn hide_credentials(text: &str, remote: &str) -> String {
    let shown = shown_remote(remote);
    if shown == remote {
        return text.to_string();
    }
    text.replace(remote, &shown)
}

/// git for a command that reaches a remote: only the transports [`check_remote`] accepts, and no
/// protocol a repository's own configuration or the user's shell could turn on.
fn remote_git(dir: Option<&Path>) -> Command {
    let mut c = git(dir);
    c.env("GIT_PROTOCOL_FROM_USER", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_ALLOW_PROTOCOL")
        .args([
            "-c",
            "protocol.allow=never",
            "-c",
            "protocol.https.allow=always",
            "-c",
            "protocol.ssh.allow=always",
            "-c",
            "protocol.file.allow=always",
        ]);
    c
}

/// `git clone --no-checkout <remote> <dest>`, for a remote [`check_remote`] accepts.
pub(crate) fn clone(remote: &str, dest: &Path) -> Result<(), GitError> {
    check_remote(remote).map_err(GitError::Remote)?;
    let mut c = remote_git(None);
    c.args(["clone", "--quiet", "--no-checkout", "--", remote]).arg(dest);
    run(c, &format!("clone {}", shown_remote(remote))).map(|_| ()).map_err(|e| match e {
        GitError::Failed { what, stderr } => GitError::Failed {
            what,
            stderr: hide_credentials(&stderr, remote),
        },
        other => other,
    })
}

/// Fetches every branch and tag and refreshes `origin/HEAD`; `remote` is the declared remote,
/// checked again (the machine tier is hand-editable) and hidden in any message.
pub(crate) fn fetch(dir: &Path, remote: &str) -> Result<(), GitError> {
    check_remote(remote).map_err(GitError::Remote)?;
    let mut c = remote_git(Some(dir));
    c.args([
        "fetch",
        "--quiet",
        "--prune",
        "--tags",
        "origin",
        "+refs/heads/*:refs/remotes/origin/*",
    ]);
    run(c, "fetch").map_err(|e| match e {
        GitError::Failed { what, stderr } => GitError::Failed {
            what,
            stderr: hide_credentials(&stderr, remote),
        },
        other => other,
    })?;
    let mut c = remote_git(Some(dir));
    c.args(["remote", "set-head", "origin", "--auto"]);
    // A remote without a default branch still fetched its branches.
    let _ = run(c, "remote set-head");
    Ok(())
}

/// The commit `rev` names, or `None`.
pub(crate) fn rev_parse(dir: &Path, rev: &str) -> Option<String> {
    let mut c = git(Some(dir));
    c.args(["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")]);
    run(c, "rev-parse")
        .ok()
        .map(|o| String::from_utf8_lossy(&o).trim().to_string())
        .filter(|s| s.len() == 40)
}

/// Whether `s` looks like a full commit SHA.
pub(crate) fn is_full_sha(s: &str) -> bool {
    s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
}

/// Resolves a version (empty: the default branch; else a branch, a tag or a full SHA) to a
/// commit SHA in the clone at `dir`.
pub(crate) fn resolve_version(dir: &Path, version: Option<&str>) -> Result<String, GitError> {
    let candidates: Vec<String> = match version {
        None => vec!["refs/remotes/origin/HEAD".into(), "HEAD".into()],
        Some(v) if is_full_sha(v) => vec![v.to_string()],
        Some(v) => vec![format!("refs/remotes/origin/{v}"), format!("refs/tags/{v}")],
    };
    for c in &candidates {
        if let Some(sha) = rev_parse(dir, c) {
            return Ok(sha);
        }
    }
    Err(match version {
        None => GitError::NoDefaultBranch,
        Some(v) => GitError::UnknownVersion(v.to_string()),
    })
}

/// The packages (folders under `packages/`) at `sha`: only names a package may have.
pub(crate) fn list_packages(dir: &Path, sha: &str) -> Result<Vec<String>, GitError> {
    let Some(tree) = subtree(dir, sha, &["packages"])? else {
        return Ok(Vec::new());
    };
    Ok(ls_tree(dir, &tree)?
        .into_iter()
        .filter(|e| e.kind == "tree")
        .filter_map(|e| String::from_utf8(e.name).ok())
        .filter(|n| super::manifest::valid_package_name(n))
        .collect())
}

/// The tree at `path` (one name per folder) under commit `sha`, or `None`. Walked tree by tree
/// rather than looked up by path: git's path lookup assumes sorted trees, and a hostile tree
/// need not be sorted.
fn subtree(dir: &Path, sha: &str, path: &[&str]) -> Result<Option<String>, GitError> {
    let mut c = git(Some(dir));
    c.args(["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{sha}^{{tree}}")]);
    let Ok(root) = run(c, "rev-parse") else { return Ok(None) };
    let mut tree = String::from_utf8_lossy(&root).trim().to_string();
    for name in path {
        let next = ls_tree(dir, &tree)?
            .into_iter()
            .find(|e| e.kind == "tree" && e.name == name.as_bytes());
        match next {
            Some(e) => tree = e.object,
            None => return Ok(None),
        }
    }
    Ok(Some(tree))
}

/// One entry of a tree object, as `git ls-tree -z -l` lists it: the name exactly as stored.
struct TreeEntry {
    mode: String,
    kind: String,
    object: String,
    size: Option<u64>,
    name: Vec<u8>,
}

/// The entries of one tree object (not recursive: every name is read as the one component it
/// is, so a name holding `/` or `..` cannot pass for a path).
fn ls_tree(dir: &Path, tree: &str) -> Result<Vec<TreeEntry>, GitError> {
    let mut c = git(Some(dir));
    c.args(["ls-tree", "-z", "-l", "--end-of-options", tree]);
    let out = run(c, "ls-tree")?;
    let mut entries = Vec::new();
    // Each record: "<mode> SP <type> SP <object> SP+ <size or -> TAB <name>".
    for rec in out.split(|b| *b == 0).filter(|s| !s.is_empty()) {
        let Some(tab) = rec.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let meta = String::from_utf8_lossy(&rec[..tab]);
        let parts: Vec<&str> = meta.split_whitespace().collect();
        if parts.len() != 4 {
            return Err(GitError::Batch(format!("unexpected ls-tree record {meta:?}")));
        }
        entries.push(TreeEntry {
            mode: parts[0].to_string(),
            kind: parts[1].to_string(),
            object: parts[2].to_string(),
            size: parts[3].parse().ok(),
            name: rec[tab + 1..].to_vec(),
        });
    }
    Ok(entries)
}

/// Every entry of `packages/<package>/` at `sha`, read from git objects (never the working
/// tree). This is the trust boundary: each tree is listed on its own and every name checked
/// before anything is read; a refused entry is named in [`PackageFiles::refused`] and never
/// becomes a file. Blobs are read only when their size (from the tree listing) is under the
/// caps.
pub(crate) fn read_package(dir: &Path, sha: &str, package: &str) -> Result<PackageFiles, GitError> {
    let no_package = || GitError::NoPackage {
        package: package.to_string(),
        at: sha[..12.min(sha.len())].to_string(),
    };
    if !super::manifest::valid_package_name(package) {
        return Err(no_package());
    }
    let root = subtree(dir, sha, &["packages", package])?.ok_or_else(no_package)?;
    struct Pending {
        rel: String,
        entry: TreeEntry,
    }
    let mut refused = Vec::new();
    let mut blobs: Vec<Pending> = Vec::new();
    let mut others: Vec<PackageFile> = Vec::new();
    let mut trees = vec![(String::new(), root, 0usize)];
    let mut seen_entries = 0usize;
    'walk: while let Some((prefix, tree, depth)) = trees.pop() {
        let mut names = std::collections::HashSet::new();
        for entry in ls_tree(dir, &tree)? {
            seen_entries += 1;
            if seen_entries > files::ENTRY_CAP {
                refused.push(format!("more than {} entries; the rest were not read", files::ENTRY_CAP));
                break 'walk;
            }
            let lossy = String::from_utf8_lossy(&entry.name).into_owned();
            let rel = format!("{prefix}{lossy}");
            let shown = crate::render::escape_controls(&rel);
            if let Some(problem) = files::entry_name_problem(&entry.name) {
                refused.push(format!("{shown}: {problem}; such names are refused"));
                continue;
            }
            if !names.insert(entry.name.clone()) {
                refused.push(format!(
                    "{shown}: listed twice in its folder; a tree with duplicate names is refused"
                ));
                continue;
            }
            match (entry.mode.as_str(), entry.kind.as_str()) {
                ("040000", "tree") => {
                    if depth + 1 > files::DEPTH_CAP {
                        refused.push(format!("{shown}: folders nested deeper than {}; not read", files::DEPTH_CAP));
                    } else {
                        trees.push((format!("{rel}/"), entry.object.clone(), depth + 1));
                    }
                }
                ("100644" | "100755", "blob") => blobs.push(Pending { rel, entry }),
                ("120000", "blob") => blobs.push(Pending { rel, entry }),
                ("160000", _) => others.push(PackageFile {
                    path: rel,
                    kind: EntryKind::Other("a git submodule".into()),
                    bytes: Vec::new(),
                }),
                (m, t) => others.push(PackageFile {
                    path: rel,
                    kind: EntryKind::Other(format!("a {t} of mode {m}")),
                    bytes: Vec::new(),
                }),
            }
        }
    }
    // Sizes first: nothing over a cap is read, and a package over its cap reads only its manifest.
    let mut total: u64 = 0;
    let mut wanted = Vec::new();
    for p in &blobs {
        let size = p.entry.size.unwrap_or(u64::MAX);
        let cap = if p.entry.mode == "120000" {
            SYMLINK_TARGET_CAP
        } else if p.rel == files::MANIFEST {
            files::MANIFEST_CAP
        } else {
            files::FILE_CAP
        };
        if size > cap {
            refused.push(files::over_cap(&crate::render::escape_controls(&p.rel), size, cap));
            continue;
        }
        total = total.saturating_add(size);
        wanted.push(p);
    }
    let over = total > files::PACKAGE_CAP;
    if over {
        refused.push(files::package_over_cap(total));
        wanted.retain(|p| p.rel == files::MANIFEST);
    }
    let objects: Vec<&str> = wanted.iter().map(|p| p.entry.object.as_str()).collect();
    let read = cat_blobs(dir, &objects)?;
    let mut out = others;
    for p in wanted {
        let bytes = read.get(&p.entry.object).cloned().unwrap_or_default();
        let kind = if p.entry.mode == "120000" {
            EntryKind::Symlink(String::from_utf8_lossy(&bytes).into_owned())
        } else {
            EntryKind::File
        };
        let bytes = if kind == EntryKind::File { bytes } else { Vec::new() };
        out.push(PackageFile {
            path: p.rel.clone(),
            kind,
            bytes,
        });
    }
    if out.is_empty() && refused.is_empty() {
        return Err(no_package());
    }
    Ok(PackageFiles::with_refused(out, refused))
}

/// The most of a symlink's target read (to name it in a refusal).
const SYMLINK_TARGET_CAP: u64 = 4096;

/// Reads blobs through one `git cat-file --batch`.
fn cat_blobs(dir: &Path, objects: &[&str]) -> Result<std::collections::HashMap<String, Vec<u8>>, GitError> {
    let mut map = std::collections::HashMap::new();
    if objects.is_empty() {
        return Ok(map);
    }
    let mut child = git(Some(dir))
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|cause| GitError::Spawn {
            what: "cat-file".into(),
            cause,
        })?;
    let mut stdin = child.stdin.take().ok_or_else(|| GitError::Batch("no stdin".into()))?;
    let request: String = objects.iter().map(|o| format!("{o}\n")).collect();
    // Write on a thread: git may fill its stdout pipe before it has read every request.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(request.as_bytes());
    });
    let stdout = child.stdout.take().ok_or_else(|| GitError::Batch("no stdout".into()))?;
    let mut reader = BufReader::new(stdout);
    for _ in objects {
        let mut header = String::new();
        reader.read_line(&mut header).map_err(|e| GitError::Batch(e.to_string()))?;
        let parts: Vec<&str> = header.split_whitespace().collect();
        if parts.len() != 3 {
            return Err(GitError::Batch(format!("unexpected answer {header:?}")));
        }
        let size: usize = parts[2].parse().map_err(|_| GitError::Batch(format!("bad size in {header:?}")))?;
        let mut buf = vec![0u8; size + 1];
        reader.read_exact(&mut buf).map_err(|e| GitError::Batch(e.to_string()))?;
        buf.truncate(size);
        map.insert(parts[0].to_string(), buf);
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_listed_transports_are_accepted() {
        for ok in [
            "https://github.com/acme/stable.git",
            "https://user:token@example.com/a.git",
            "ssh://git@example.com/acme/stable.git",
            "git@github.com:acme/stable.git",
            "file:///srv/git/stable",
            "/srv/git/stable",
            "../stable",
            "stable",
        ] {
            assert_eq!(check_remote(ok), Ok(()), "{ok}");
        }
        for (bad, needle) in [
            ("ext::sh -c touch% /tmp/pwned", "`ext::` transport"),
            ("fd::7", "`fd::` transport"),
            ("git://example.com/a", "`git://`"),
            ("http://example.com/a", "`http://`"),
            ("ftp://example.com/a", "`ftp://`"),
            ("-uhttps://x", "starts with `-`"),
            ("host:path", "neither a URL"),
            ("git@-oProxyCommand=x:path", "neither a URL"),
            ("", "empty"),
        ] {
            let e = check_remote(bad).unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn credentials_are_never_shown() {
        assert_eq!(shown_remote("https://user:tok@example.com/a.git"), "https://***@example.com/a.git");
        assert_eq!(shown_remote("https://ghp_secret@example.com/a@b"), "https://***@example.com/a@b");
        assert_eq!(shown_remote("git@github.com:acme/x.git"), "git@github.com:acme/x.git");
        let e = check_remote("git://u:secret@example.com/a").unwrap_err();
        assert!(!e.contains("secret"), "{e}");
        let r = "https://u:secret@example.com/a";
        assert!(!hide_credentials(&format!("fatal: unable to access '{r}/': 403"), r).contains("secret"));
    }
}
