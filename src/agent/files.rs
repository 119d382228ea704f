//! A package's files as a list of entries, read either from git objects at one commit (install)
//! or from a folder (the pin store, `stable lint`). Paths are package-relative with `/`.

use super::Invalid;
use std::path::Path;

/// What a tree entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    File,
    /// A symbolic link and its target: never installed.
    Symlink(String),
    /// A submodule or anything else that is not a plain file: never installed.
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFile {
    pub path: String,
    pub kind: EntryKind,
    pub bytes: Vec<u8>,
}

impl PackageFile {
    /// The file as text when it is valid UTF-8 (the content scan reads only these).
    pub fn text(&self) -> Option<&str> {
        if self.kind != EntryKind::File {
            return None;
        }
        std::str::from_utf8(&self.bytes).ok()
    }

    pub fn sha256(&self) -> String {
        crate::hashing::sha256_hex(&self.bytes)
    }
}

/// Every entry of one package, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageFiles {
    pub files: Vec<PackageFile>,
}

pub const MANIFEST: &str = "package.toml";

impl PackageFiles {
    pub fn new(mut files: Vec<PackageFile>) -> PackageFiles {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        PackageFiles { files }
    }

    pub fn get(&self, path: &str) -> Option<&PackageFile> {
        self.files.iter().find(|f| f.path == path)
    }

    /// The manifest's text, or why there is none.
    pub fn manifest_text(&self) -> Result<&str, Invalid> {
        let f = self.get(MANIFEST).ok_or_else(|| Invalid(format!("{MANIFEST} is missing")))?;
        match &f.kind {
            EntryKind::File => f.text().ok_or_else(|| Invalid(format!("{MANIFEST} is not UTF-8 text"))),
            EntryKind::Symlink(t) => Err(Invalid(format!("{MANIFEST} is a symlink (to {t:?})"))),
            EntryKind::Other(what) => Err(Invalid(format!("{MANIFEST} is {what}"))),
        }
    }

    /// Entries that are not plain files: each is a reason to refuse the package.
    pub fn refused_entries(&self) -> Vec<String> {
        self.files
            .iter()
            .filter_map(|f| {
                let shown = crate::render::escape_controls(&f.path);
                if f.path.chars().any(char::is_control) {
                    // A name that would move the cursor or forge a line wherever it is printed.
                    return Some(format!("{shown}: a file name with a control character; such names are refused"));
                }
                match &f.kind {
                    EntryKind::File => None,
                    EntryKind::Symlink(t) => Some(format!("{shown}: a symlink (to {t:?}); symlinks are refused")),
                    EntryKind::Other(what) => Some(format!("{shown}: {what}; only plain files are installed")),
                }
            })
            .collect()
    }

    /// Whether some symlink entry is `path` or one of its parent folders.
    pub fn symlink_on(&self, path: &str) -> Option<&PackageFile> {
        let mut prefix = String::new();
        for part in path.split('/') {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            if let Some(f) = self.get(&prefix).filter(|f| matches!(f.kind, EntryKind::Symlink(_))) {
                return Some(f);
            }
        }
        None
    }

    /// Whether `dir/` holds any entry.
    pub fn has_dir(&self, dir: &str) -> bool {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        self.files.iter().any(|f| f.path.starts_with(&prefix))
    }

    /// Reads every entry under `dir` (symlinks are read as links, never followed).
    pub fn from_dir(dir: &Path) -> std::io::Result<PackageFiles> {
        let mut files = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d)? {
                let e = e?;
                let p = e.path();
                let rel = p.strip_prefix(dir).unwrap_or(&p).to_string_lossy().replace('\\', "/");
                let meta = std::fs::symlink_metadata(&p)?;
                let ft = meta.file_type();
                if ft.is_symlink() {
                    let target = std::fs::read_link(&p)?.to_string_lossy().into_owned();
                    files.push(PackageFile {
                        path: rel,
                        kind: EntryKind::Symlink(target),
                        bytes: Vec::new(),
                    });
                } else if ft.is_dir() {
                    stack.push(p);
                } else if ft.is_file() {
                    files.push(PackageFile {
                        path: rel,
                        kind: EntryKind::File,
                        bytes: std::fs::read(&p)?,
                    });
                } else {
                    files.push(PackageFile {
                        path: rel,
                        kind: EntryKind::Other("a special file".into()),
                        bytes: Vec::new(),
                    });
                }
            }
        }
        Ok(PackageFiles::new(files))
    }
}

/// The rules for a path a manifest names: package-relative, no `~`, no `..`, not through a symlink.
pub fn check_package_path(path: &str, files: Option<&PackageFiles>) -> Result<(), Invalid> {
    if path.trim().is_empty() {
        return Err(Invalid("an empty path".into()));
    }
    if path.starts_with('/') || path.starts_with('\\') || (path.len() > 1 && path.as_bytes()[1] == b':') {
        return Err(Invalid(format!(
            "path {path:?} is absolute; package paths are relative to the package"
        )));
    }
    if path.starts_with('~') {
        return Err(Invalid(format!(
            "path {path:?} starts with `~`; package paths are relative to the package"
        )));
    }
    if path.split(['/', '\\']).any(|p| p == "..") {
        return Err(Invalid(format!("path {path:?} climbs out of the package with `..`")));
    }
    if let Some(link) = files.and_then(|f| f.symlink_on(path.trim_start_matches("./"))) {
        let target = match &link.kind {
            EntryKind::Symlink(t) => t.as_str(),
            _ => "",
        };
        return Err(Invalid(format!(
            "path {path:?} reaches outside the package through the symlink {} (to {target:?})",
            link.path
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_paths_stay_inside() {
        let files = PackageFiles::new(vec![
            PackageFile {
                path: "prompt.md".into(),
                kind: EntryKind::File,
                bytes: b"hi".to_vec(),
            },
            PackageFile {
                path: "linked".into(),
                kind: EntryKind::Symlink("/etc".into()),
                bytes: Vec::new(),
            },
        ]);
        assert!(check_package_path("prompt.md", Some(&files)).is_ok());
        assert!(check_package_path("./skills/a", Some(&files)).is_ok());
        assert!(check_package_path("/etc/passwd", Some(&files)).unwrap_err().0.contains("absolute"));
        assert!(check_package_path("~/.ssh/id_rsa", Some(&files)).unwrap_err().0.contains("`~`"));
        assert!(check_package_path("skills/../../x", Some(&files)).unwrap_err().0.contains(".."));
        assert!(check_package_path("linked/passwd", Some(&files)).unwrap_err().0.contains("symlink"));
        assert_eq!(files.refused_entries().len(), 1);
    }
}
