//! The system `git`, run as a child process so the operator's own git config and credentials
//! apply. Only `clone` and `fetch` reach a remote; everything else reads the local clone's
//! objects.

use super::files::{EntryKind, PackageFile, PackageFiles};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// What went wrong running `git` on a stable's clone.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git ({what}): {cause}")]
    Spawn { what: String, cause: std::io::Error },
    #[error("git {what} failed: {stderr}")]
    Failed { what: String, stderr: String },
    #[error("git cat-file: {0}")]
    Batch(String),
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

/// `git clone --no-checkout <remote> <dest>`.
pub fn clone(remote: &str, dest: &Path) -> Result<(), GitError> {
    let mut c = git(None);
    c.args(["clone", "--quiet", "--no-checkout", "--", remote]).arg(dest);
    run(c, &format!("clone {remote}")).map(|_| ())
}

/// Fetches every branch and tag and refreshes `origin/HEAD`.
pub fn fetch(dir: &Path) -> Result<(), GitError> {
    let mut c = git(Some(dir));
    c.args([
        "fetch",
        "--quiet",
        "--prune",
        "--tags",
        "origin",
        "+refs/heads/*:refs/remotes/origin/*",
    ]);
    run(c, "fetch")?;
    let mut c = git(Some(dir));
    c.args(["remote", "set-head", "origin", "--auto"]);
    // A remote without a default branch still fetched its branches.
    let _ = run(c, "remote set-head");
    Ok(())
}

/// The commit `rev` names, or `None`.
pub fn rev_parse(dir: &Path, rev: &str) -> Option<String> {
    let mut c = git(Some(dir));
    c.args(["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")]);
    run(c, "rev-parse")
        .ok()
        .map(|o| String::from_utf8_lossy(&o).trim().to_string())
        .filter(|s| s.len() == 40)
}

/// Whether `s` looks like a full commit SHA.
pub fn is_full_sha(s: &str) -> bool {
    s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
}

/// Resolves a version (empty: the default branch; else a branch, a tag or a full SHA) to a
/// commit SHA in the clone at `dir`.
pub fn resolve_version(dir: &Path, version: Option<&str>) -> Result<String, GitError> {
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

/// The packages (folders under `packages/`) at `sha`.
pub fn list_packages(dir: &Path, sha: &str) -> Result<Vec<String>, GitError> {
    let mut c = git(Some(dir));
    c.args(["ls-tree", "-z", "--name-only", sha, "packages/"]);
    let out = run(c, "ls-tree")?;
    Ok(out
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).trim_start_matches("packages/").to_string())
        .collect())
}

/// Every entry of `packages/<package>/` at `sha`, read from git objects (never the working tree).
pub fn read_package(dir: &Path, sha: &str, package: &str) -> Result<PackageFiles, GitError> {
    let prefix = format!("packages/{package}/");
    let mut c = git(Some(dir));
    c.args(["ls-tree", "-r", "-z", "--full-tree", sha, "--", &prefix]);
    let out = run(c, "ls-tree")?;
    // Each record: "<mode> <type> <object>\t<path>".
    let mut entries = Vec::new();
    for rec in out.split(|b| *b == 0).filter(|s| !s.is_empty()) {
        let rec = String::from_utf8_lossy(rec);
        let Some((meta, path)) = rec.split_once('\t') else { continue };
        let parts: Vec<&str> = meta.split(' ').collect();
        if parts.len() != 3 {
            continue;
        }
        let rel = path.strip_prefix(&prefix).unwrap_or(path).to_string();
        entries.push((parts[0].to_string(), parts[1].to_string(), parts[2].to_string(), rel));
    }
    if entries.is_empty() {
        return Err(GitError::NoPackage {
            package: package.to_string(),
            at: sha[..12.min(sha.len())].to_string(),
        });
    }
    let objects: Vec<&str> = entries
        .iter()
        .filter(|(m, t, _, _)| t == "blob" && (m == "100644" || m == "100755" || m == "120000"))
        .map(|(_, _, o, _)| o.as_str())
        .collect();
    let blobs = cat_blobs(dir, &objects)?;
    let mut files = Vec::new();
    for (mode, kind, object, rel) in entries {
        let entry = match (mode.as_str(), kind.as_str()) {
            ("100644" | "100755", "blob") => PackageFile {
                path: rel,
                kind: EntryKind::File,
                bytes: blobs.get(&object).cloned().unwrap_or_default(),
            },
            ("120000", _) => {
                let target = String::from_utf8_lossy(blobs.get(&object).map(Vec::as_slice).unwrap_or_default()).into_owned();
                PackageFile {
                    path: rel,
                    kind: EntryKind::Symlink(target),
                    bytes: Vec::new(),
                }
            }
            ("160000", _) => PackageFile {
                path: rel,
                kind: EntryKind::Other("a git submodule".into()),
                bytes: Vec::new(),
            },
            (m, t) => PackageFile {
                path: rel,
                kind: EntryKind::Other(format!("a {t} of mode {m}")),
                bytes: Vec::new(),
            },
        };
        files.push(entry);
    }
    Ok(PackageFiles::new(files))
}

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

/// The commit time and subject of `sha` (for listings).
pub fn describe_commit(dir: &Path, sha: &str) -> Option<String> {
    let mut c = git(Some(dir));
    c.args(["log", "-1", "--format=%cI %s", sha]);
    run(c, "log").ok().map(|o| String::from_utf8_lossy(&o).trim().to_string())
}
