//! The content-addressed pin store on disk: `$TLC_HOME/agents/installed/<stable>/<package>/<sha>/`,
//! each pin written once (through a temp folder and a rename), its files and folders read-only,
//! never rewritten.

use super::files::{EntryKind, PackageFiles};
use super::{io_error, AgentError, Invalid};
use crate::paths::Paths;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// `<stable>/<package>@<sha>`: what a `source` key names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub(crate) struct SourceRef {
    pub stable: String,
    pub package: String,
    pub sha: String,
}

impl SourceRef {
    pub(crate) fn parse(s: &str) -> Result<SourceRef, Invalid> {
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

    pub(crate) fn package_ref(&self) -> String {
        format!("{}/{}", self.stable, self.package)
    }
}

impl std::fmt::Display for SourceRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}@{}", self.stable, self.package, self.sha)
    }
}

pub(crate) fn installed_root(paths: &Paths) -> PathBuf {
    paths.home.join("agents").join("installed")
}

pub(crate) fn stables_root(paths: &Paths) -> PathBuf {
    paths.home.join("agents").join("stables")
}

pub(crate) fn pin_dir(paths: &Paths, src: &SourceRef) -> PathBuf {
    installed_root(paths).join(&src.stable).join(&src.package).join(&src.sha)
}

/// Whether the pin is in the store.
pub(crate) fn has_pin(paths: &Paths, src: &SourceRef) -> bool {
    pin_dir(paths, src).join(super::files::MANIFEST).is_file()
}

/// Reads a pin's files.
pub(crate) fn read_pin(paths: &Paths, src: &SourceRef) -> Result<PackageFiles, AgentError> {
    let dir = pin_dir(paths, src);
    PackageFiles::from_dir(&dir).map_err(io_error(&dir, "cannot read the pin"))
}

/// Reads a pin's listing and its manifest only: what every config load needs, at the cost of
/// the manifest (capped) whatever else the package holds.
pub(crate) fn read_pin_manifest(paths: &Paths, src: &SourceRef) -> Result<PackageFiles, AgentError> {
    let dir = pin_dir(paths, src);
    PackageFiles::read_dir(&dir, super::files::Contents::ManifestOnly).map_err(io_error(&dir, "cannot read the pin"))
}

/// Writes a pin once. Returns false when it already existed (it is never rewritten).
///
/// Every path is checked again here, component by component ([`super::files::is_safe_relative`]),
/// whatever read the files: nothing is created outside the pin's temp folder. The temp folder is
/// created new under a folder tlc made (never one a symlink stands in for); each folder in it
/// is created new, and each file with an exclusive, no-follow open, so an entry can never land
/// on or through anything already there.
pub(crate) fn write_pin(paths: &Paths, src: &SourceRef, files: &PackageFiles) -> Result<bool, AgentError> {
    let dir = pin_dir(paths, src);
    if dir.exists() {
        return Ok(false);
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    crate::store::create_private_dir(parent).map_err(io_error(parent, "cannot create"))?;
    let installed = installed_root(paths);
    let mut up = Some(parent);
    while let Some(d) = up.filter(|d| d.starts_with(&installed)) {
        let real_dir = std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir());
        if !real_dir {
            return Err(io_error(d, "cannot write the pin")(std::io::Error::other(
                "not a folder tlc made (a symbolic link, or not a folder); nothing was written",
            )));
        }
        up = d.parent();
    }
    if let Some(bad) = files.files.iter().find(|f| !super::files::is_safe_relative(&f.path)) {
        return Err(io_error(&dir, "cannot write the pin")(std::io::Error::other(format!(
            "{}: not a path inside the package; nothing was written",
            crate::render::escape_controls(&bad.path)
        ))));
    }
    let tmp = parent.join(format!(".{}.tmp-{}", src.sha, std::process::id()));
    let _ = make_writable_and_remove(&tmp);
    let result = (|| -> std::io::Result<()> {
        use std::io::Write;
        std::fs::DirBuilder::new().mode(0o700).create(&tmp)?;
        let mut made = std::collections::BTreeSet::new();
        made.insert(tmp.clone());
        for f in &files.files {
            if f.kind != EntryKind::File {
                return Err(std::io::Error::other(format!("{} is not a plain file", f.path)));
            }
            let mut at = tmp.clone();
            let mut parts = f.path.split('/').peekable();
            while let Some(part) = parts.next() {
                at.push(part);
                if parts.peek().is_none() {
                    break;
                }
                if made.insert(at.clone()) {
                    std::fs::DirBuilder::new().mode(0o700).create(&at)?;
                }
            }
            let mut out = crate::fswrite::create_new(&at, 0o600)?;
            out.write_all(&f.bytes)?;
            out.set_permissions(std::fs::Permissions::from_mode(0o444))?;
        }
        // Deepest first, so a parent is locked after its children were written.
        for d in made.iter().rev() {
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
pub(crate) fn remove_pin(paths: &Paths, src: &SourceRef) -> std::io::Result<()> {
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
pub(crate) fn list_pins(paths: &Paths) -> Vec<SourceRef> {
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
