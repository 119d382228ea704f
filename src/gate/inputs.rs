//! The inputs hash that lets a gate verdict be reused: the argv, HEAD, and the size and sha256 of
//! every changed path. A hash that could not cover everything — past [`MAX_FILES`] files or
//! [`MAX_BYTES`], an unreadable file, a symlink leaving the repository — is incomplete and never
//! reused.

use crate::hashing::sha256_hex;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

pub(crate) const MAX_FILES: usize = 400;
pub(crate) const MAX_BYTES: u64 = 12 * 1024 * 1024;

/// What the inputs of one gate run were.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Inputs {
    /// `None` when incomplete.
    pub hash: Option<String>,
    /// Why the hash is incomplete.
    pub incomplete: Option<String>,
    /// Each changed path's `size:sha256` (or `deleted`, `link:<target>`): what changed between
    /// two runs is read from these.
    pub files: BTreeMap<String, String>,
}

/// Why the hash cannot cover a file: the reason the whole hash is incomplete.
struct Incomplete(String);

fn file_digest(path: &Path, budget: &mut u64) -> Result<String, Incomplete> {
    let unreadable = |e: std::io::Error| Incomplete(format!("{} cannot be read: {e}", path.display()));
    let mut f = crate::fsread::open_regular(path, crate::fsread::Links::Refuse).map_err(|e| unreadable(e.into_io()))?;
    let mut h = Sha256::new();
    let mut size = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = f.read(&mut buf).map_err(unreadable)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        if size > *budget {
            return Err(Incomplete(format!(
                "the changed files hold more than {} MB",
                MAX_BYTES / (1024 * 1024)
            )));
        }
        h.update(&buf[..n]);
    }
    *budget -= size;
    let digest: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{size}:{digest}"))
}

/// Hashes the inputs of a run of `argv` at `head` over the changed `files` under `root`.
pub(crate) fn inputs(root: &Path, argv: &[String], head: Option<&str>, files: &[String]) -> Inputs {
    let mut out = Inputs::default();
    let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if files.len() > MAX_FILES {
        out.incomplete = Some(format!("{} changed files, more than {MAX_FILES}", files.len()));
    }
    let mut budget = MAX_BYTES;
    for rel in files.iter().take(MAX_FILES) {
        let p = root.join(rel);
        let entry = match p.symlink_metadata() {
            Err(_) => Ok("deleted".to_string()),
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&p).map(|t| t.display().to_string()).unwrap_or_default();
                match std::fs::canonicalize(&p) {
                    Ok(resolved) if !resolved.starts_with(&canonical_root) => {
                        Err(Incomplete(format!("{rel} is a symlink leaving the repository")))
                    }
                    _ => Ok(format!("link:{target}")),
                }
            }
            Ok(m) if m.is_dir() => Ok("dir".to_string()),
            Ok(_) => file_digest(&p, &mut budget),
        };
        match entry {
            Ok(e) => {
                out.files.insert(rel.clone(), e);
            }
            Err(Incomplete(why)) => {
                out.incomplete.get_or_insert(why);
                out.files.insert(rel.clone(), "unhashed".into());
            }
        }
    }
    if out.incomplete.is_none() {
        let mut text = String::new();
        text.push_str(&serde_json::to_string(argv).unwrap_or_default());
        text.push('\0');
        text.push_str(head.unwrap_or("unborn"));
        text.push('\0');
        for (p, e) in &out.files {
            text.push_str(p);
            text.push('\0');
            text.push_str(e);
            text.push('\n');
        }
        out.hash = Some(sha256_hex(text.as_bytes()));
    }
    out
}

/// The paths whose recorded content differs between two runs' file maps, sorted.
pub(crate) fn changed_between(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    let mut paths: Vec<String> = before
        .iter()
        .filter(|(p, e)| after.get(*p) != Some(e))
        .map(|(p, _)| p.clone())
        .chain(after.keys().filter(|p| !before.contains_key(*p)).cloned())
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn same_tree_same_hash_and_any_change_differs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.rs"), "fn a() {}").unwrap();
        let files = v(&["a.rs", "gone.rs"]);
        let argv = v(&["cargo", "test"]);
        let one = inputs(root, &argv, Some("abc"), &files);
        assert!(one.hash.is_some());
        assert_eq!(one.files["gone.rs"], "deleted");
        assert_eq!(one, inputs(root, &argv, Some("abc"), &files));
        assert_ne!(one.hash, inputs(root, &argv, Some("abd"), &files).hash, "HEAD");
        assert_ne!(
            one.hash,
            inputs(root, &v(&["cargo", "test", "a.rs"]), Some("abc"), &files).hash,
            "argv"
        );
        std::fs::write(root.join("a.rs"), "fn a() { }").unwrap();
        let two = inputs(root, &argv, Some("abc"), &files);
        assert_ne!(one.hash, two.hash, "content");
        assert_eq!(changed_between(&one.files, &two.files), v(&["a.rs"]));
    }

    #[test]
    fn incomplete_hashes_are_never_a_hash() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(dir.path().join("outside"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("leak")).unwrap();
        let i = inputs(&root, &v(&["t"]), None, &v(&["leak"]));
        assert_eq!(i.hash, None);
        assert!(i.incomplete.unwrap().contains("symlink leaving"));
        std::fs::write(root.join("inside"), "y").unwrap();
        std::os::unix::fs::symlink("inside", root.join("ok-link")).unwrap();
        assert!(inputs(&root, &v(&["t"]), None, &v(&["ok-link"])).hash.is_some());
        let many: Vec<String> = (0..=MAX_FILES).map(|i| format!("f{i}")).collect();
        assert!(inputs(&root, &v(&["t"]), None, &many).incomplete.unwrap().contains("more than 400"));
        std::fs::write(root.join("big"), vec![b'x'; (MAX_BYTES + 1) as usize]).unwrap();
        assert!(inputs(&root, &v(&["t"]), None, &v(&["big"])).hash.is_none());
    }
}
