//! The content-addressed pin store on disk: `$TLC_HOME/agents/installed/<stable>/<package>/<sha>/`,
//! each pin written once (through a temp folder and a rename), its files and folders read-only,
//! never rewritten.

use super::files::{EntryKind, PackageFiles};
use super::{io_error, AgentError, Invalid};
use crate::paths::Paths;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// `<stable>/<package>@<sha>`: what a `source` key names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct SourceRef {
    pub stable: String,
    pub package: String,
    pub sha: String,
}

impl SourceRef {
    pub fn parse(s: &str) -> Result<SourceRef, Invalid> {
        let bad = || Invalid(format!("source {s:?} is not \"<stable>/<package>@<full commit sha>\""));
        let (sp, sha) = s.split_once('@').ok_or_else(bad)?;
        let (stable, package) = sp.split_once('/').ok_or_else(bad)?;
        if !super::valid_stable_name(stable) || !super::manifest::valid_package_name(package) || !super::git::is_full_sha(sha) {
            return Err(bad());
        }
        Ok(SourceRef {
            stable: stable.into(),
            package: package.into(),
            sha: sha.into(),
        })
    }

    pub fn package_ref(&self) -> String {
        format!("{}/{}", self.stable, self.package)
    }
}

impl std::fmt::Display for SourceRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}@{}", self.stable, self.package, self.sha)
    }
}

pub fn installed_root(paths: &Paths) -> PathBuf {
    paths.home.join("agents").join("installed")
}

pub fn stables_root(paths: &Paths) -> PathBuf {
    paths.home.join("agents").join("stables")
}

pub fn pin_dir(paths: &Paths, src: &SourceRef) -> PathBuf {
    installed_root(paths).join(&src.stable).join(&src.package).join(&src.sha)
}

/// Whether the pin is in the store.
pub fn has_pin(paths: &Paths, src: &SourceRef) -> bool {
    pin_dir(paths, src).join(super::files::MANIFEST).is_file()
}

/// Reads a pin's files.
pub fn read_pin(paths: &Paths, src: &SourceRef) -> Result<PackageFiles, AgentError> {
    let dir = pin_dir(paths, src);
    PackageFiles::from_dir(&dir).map_err(io_error(&dir, "cannot read the pin"))
}

/// Writes a pin once. Returns false when it already existed (it is never rewritten).
pub fn write_pin(paths: &Paths, src: &SourceRef, files: &PackageFiles) -> Result<bool, AgentError> {
    let dir = pin_dir(paths, src);
    if dir.exists() {
        return Ok(false);
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    crate::store::create_private_dir(parent).map_err(io_error(parent, "cannot create"))?;
    let tmp = parent.join(format!(".{}.tmp-{}", src.sha, std::process::id()));
    let _ = make_writable_and_remove(&tmp);
    let result = (|| -> std::io::Result<()> {
        std::fs::create_dir(&tmp)?;
        let mut dirs = vec![tmp.clone()];
        for f in &files.files {
            if f.kind != EntryKind::File {
                return Err(std::io::Error::other(format!("{} is not a plain file", f.path)));
            }
            let target = tmp.join(&f.path);
            if let Some(d) = target.parent() {
                if !d.exists() {
                    std::fs::create_dir_all(d)?;
                }
                let mut p = d.to_path_buf();
                while p.starts_with(&tmp) && p != tmp {
                    dirs.push(p.clone());
                    match p.parent() {
                        Some(up) => p = up.to_path_buf(),
                        None => break,
                    }
                }
            }
            std::fs::write(&target, &f.bytes)?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444))?;
        }
        dirs.sort();
        dirs.dedup();
        // Deepest first, so a parent is locked after its children were written.
        for d in dirs.iter().rev() {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o555))?;
        }
        std::fs::rename(&tmp, &dir)
    })();
    if let Err(cause) = result {
        let _ = make_writable_and_remove(&tmp);
        return Err(io_error(&dir, "cannot write the pin")(cause));
    }
    Ok(true)
}

/// Removes a pin folder (prune): read-only folders are made writable first.
pub fn remove_pin(paths: &Paths, src: &SourceRef) -> std::io::Result<()> {
    let dir = pin_dir(paths, src);
    make_writable_and_remove(&dir)?;
    // Drop now-empty package and stable folders.
    for up in [dir.parent(), dir.parent().and_then(Path::parent)].into_iter().flatten() {
        let _ = std::fs::remove_dir(up);
    }
    Ok(())
}

fn make_writable_and_remove(dir: &Path) -> std::io::Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let meta = std::fs::symlink_metadata(&d)?;
        if meta.is_dir() {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700))?;
            for e in std::fs::read_dir(&d)? {
                stack.push(e?.path());
            }
        }
    }
    std::fs::remove_dir_all(dir)
}

/// Every pin folder on disk.
pub fn list_pins(paths: &Paths) -> Vec<SourceRef> {
    let mut out = Vec::new();
    let root = installed_root(paths);
    let dirs = |p: &Path| -> Vec<String> {
        std::fs::read_dir(p)
            .map(|it| {
                it.flatten()
                    .filter(|e| e.path().is_dir())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    for stable in dirs(&root) {
        for package in dirs(&root.join(&stable)) {
            for sha in dirs(&root.join(&stable).join(&package)) {
                if super::git::is_full_sha(&sha) {
                    out.push(SourceRef {
                        stable: stable.clone(),
                        package: package.clone(),
                        sha,
                    });
                }
            }
        }
    }
    out.sort();
    out
}
