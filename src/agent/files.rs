//! A package's files as a list of entries, read either from git objects at one commit (install)
//! or from a folder (the pin store, `stable lint`). Paths are package-relative with `/`.

use super::Invalid;
use std::path::Path;

/// What a tree entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EntryKind {
    File,
    /// A symbolic link and its target: never installed.
    Symlink(String),
    /// A submodule or anything else that is not a plain file: never installed.
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PackageFile {
    pub path: String,
    pub kind: EntryKind,
    pub bytes: Vec<u8>,
}

impl PackageFile {
    /// The file as text when it is valid UTF-8 (the content scan reads only these).
    pub(crate) fn text(&self) -> Option<&str> {
        if self.kind != EntryKind::File {
            return None;
        }
        std::str::from_utf8(&self.bytes).ok()
    }

    pub(crate) fn sha256(&self) -> String {
        crate::hashing::sha256_hex(&self.bytes)
    }
}

/// Every entry of one package, sorted by path, and every entry refused before it was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PackageFiles {
    pub files: Vec<PackageFile>,
    /// Entries that are not in `files` because reading them was refused at the trust boundary
    /// (a name that could climb out of the pin store, a duplicate, a file over a cap), each a
    /// sentence naming the entry. Any one refuses the package.
    pub refused: Vec<String>,
}

pub(crate) const MANIFEST: &str = "package.toml";

/// The most a `package.toml` may hold: every config load reads the pinned manifest.
pub(crate) const MANIFEST_CAP: u64 = 64 * 1024;
/// The most one file of a package may hold (checked from the object's size before it is read).
pub(crate) const FILE_CAP: u64 = 2 * 1024 * 1024;
/// The most all of a package's files may hold together.
pub(crate) const PACKAGE_CAP: u64 = 16 * 1024 * 1024;
/// The most entries (files and folders) a package may have.
pub(crate) const ENTRY_CAP: usize = 4096;
/// The deepest a package's folders may nest.
pub(crate) const DEPTH_CAP: usize = 32;

/// Why one tree entry's name cannot be installed, or `None`. A name is one path component of
/// the pin store: it must not climb (`..`), reach elsewhere (`/`, absolute), become an option
/// (`-`), touch a repository (`.git`), or hide in the terminal (control characters).
pub(crate) fn entry_name_problem(name: &[u8]) -> Option<&'static str> {
    let Ok(text) = std::str::from_utf8(name) else {
        return Some("a name that is not UTF-8");
    };
    if text.is_empty() {
        Some("an empty name")
    } else if text.contains('/') {
        Some("a name holding `/` (a path, not one name)")
    } else if text.contains('\\') {
        Some("a name holding `\\`")
    } else if text == "." || text == ".." {
        Some("a name that is `.` or `..`")
    } else if text.eq_ignore_ascii_case(".git") {
        Some("a `.git` entry")
    } else if text.starts_with('-') {
        Some("a name starting with `-`")
    } else if text.chars().any(char::is_control) {
        Some("a file name with a control character")
    } else {
        None
    }
}

/// Every component of a package-relative path is an acceptable entry name (the pin writer's
/// last check before it creates anything).
pub(crate) fn is_safe_relative(path: &str) -> bool {
    !path.is_empty() && path.split('/').all(|c| entry_name_problem(c.as_bytes()).is_none())
}

impl PackageFiles {
    #[cfg(test)]
    pub(crate) fn new(files: Vec<PackageFile>) -> PackageFiles {
        PackageFiles::with_refused(files, Vec::new())
    }

    pub(crate) fn with_refused(mut files: Vec<PackageFile>, refused: Vec<String>) -> PackageFiles {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        PackageFiles { files, refused }
    }

    pub(crate) fn get(&self, path: &str) -> Option<&PackageFile> {
        self.files.iter().find(|f| f.path == path)
    }

    /// The manifest's text, or why there is none.
    pub(crate) fn manifest_text(&self) -> Result<&str, Invalid> {
        let f = self.get(MANIFEST).ok_or_else(|| Invalid(format!("{MANIFEST} is missing")))?;
        match &f.kind {
            EntryKind::File => f.text().ok_or_else(|| Invalid(format!("{MANIFEST} is not UTF-8 text"))),
            EntryKind::Symlink(t) => Err(Invalid(format!("{MANIFEST} is a symlink (to {t:?})"))),
            EntryKind::Other(what) => Err(Invalid(format!("{MANIFEST} is {what}"))),
        }
    }

    /// Entries refused at reading, and entries that are not plain files: each is a reason to
    /// refuse the package.
    pub(crate) fn refused_entries(&self) -> Vec<String> {
        let kinds = self.files.iter().filter_map(|f| {
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
        });
        self.refused.iter().cloned().chain(kinds).collect()
    }

    /// Whether some symlink entry is `path` or one of its parent folders.
    pub(crate) fn symlink_on(&self, path: &str) -> Option<&PackageFile> {
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
    pub(crate) fn has_dir(&self, dir: &str) -> bool {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        self.files.iter().any(|f| f.path.starts_with(&prefix))
    }

    /// Reads every entry under `dir` (symlinks are read as links, never followed), with the
    /// same name rules and caps as a package read from git.
    pub(crate) fn from_dir(dir: &Path) -> std::io::Result<PackageFiles> {
        PackageFiles::read_dir(dir, Contents::All)
    }

    /// Reads the entries under `dir`, the bytes of `contents` only (config load reads a pin's
    /// manifest and its listing, never the rest of its files).
    pub(crate) fn read_dir(dir: &Path, contents: Contents) -> std::io::Result<PackageFiles> {
        let mut files = Vec::new();
        let mut refused = Vec::new();
        let mut total: u64 = 0;
        let mut entries = 0usize;
        let mut stack = vec![(dir.to_path_buf(), 0usize)];
        while let Some((d, depth)) = stack.pop() {
            for e in std::fs::read_dir(&d)? {
                let e = e?;
                let p = e.path();
                let rel = p.strip_prefix(dir).unwrap_or(&p).to_string_lossy().into_owned();
                let shown = crate::render::escape_controls(&rel);
                entries += 1;
                if entries > ENTRY_CAP {
                    refused.push(format!("more than {ENTRY_CAP} entries; the rest were not read"));
                    return Ok(PackageFiles::with_refused(files, refused));
                }
                if let Some(problem) = entry_name_problem(e.file_name().as_encoded_bytes()) {
                    refused.push(format!("{shown}: {problem}; such names are refused"));
                    continue;
                }
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
                    if depth + 1 > DEPTH_CAP {
                        refused.push(format!("{shown}: folders nested deeper than {DEPTH_CAP}; not read"));
                    } else {
                        stack.push((p, depth + 1));
                    }
                } else if ft.is_file() {
                    let cap = if rel == MANIFEST { MANIFEST_CAP } else { FILE_CAP };
                    if meta.len() > cap {
                        refused.push(over_cap(&shown, meta.len(), cap));
                        continue;
                    }
                    total += meta.len();
                    let wanted = contents == Contents::All || rel == MANIFEST;
                    let bytes = if wanted {
                        match crate::fsread::read_capped(&p, cap, crate::fsread::Links::Refuse) {
                            Ok(Some(b)) => b,
                            Ok(None) => continue,
                            Err(err) => return Err(err.into_io()),
                        }
                    } else {
                        Vec::new()
                    };
                    files.push(PackageFile {
                        path: rel,
                        kind: EntryKind::File,
                        bytes,
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
        if total > PACKAGE_CAP {
            refused.push(package_over_cap(total));
        }
        Ok(PackageFiles::with_refused(files, refused))
    }
}

/// Which files' bytes a read keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Contents {
    All,
    ManifestOnly,
}

/// The refusal of one file over its cap.
pub(crate) fn over_cap(shown: &str, size: u64, cap: u64) -> String {
    format!(
        "{shown}: {size} bytes, over the {} limit for {}; not read",
        crate::fsread::size_words(cap),
        if shown == MANIFEST { "the manifest" } else { "one file" }
    )
}

/// The refusal of a package whose files add up to more than [`PACKAGE_CAP`].
pub(crate) fn package_over_cap(total: u64) -> String {
    format!(
        "the package's files add up to {total} bytes, over the {} limit for a package",
        crate::fsread::size_words(PACKAGE_CAP)
    )
}

/// The rules for a path a manifest names: package-relative, no `~`, no `..`, not through a symlink.
pub(crate) fn check_package_path(path: &str, files: Option<&PackageFiles>) -> Result<(), Invalid> {
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
    fn entry_names_are_one_component_that_stays_inside() {
        for ok in ["package.toml", "SKILL.md", ".hidden", "a..b", "é"] {
            assert_eq!(entry_name_problem(ok.as_bytes()), None, "{ok}");
        }
        for bad in [
            &b"/abs/path/file"[..],
            b"../../x",
            b"a/../../x",
            b"..",
            b".",
            b"",
            b".git",
            b".GIT",
            b"-rf",
            b"a\\b",
            b"bell\x07",
            b"\xff\xfe",
        ] {
            assert!(entry_name_problem(bad).is_some(), "{:?}", String::from_utf8_lossy(bad));
        }
        assert!(is_safe_relative("skills/review/SKILL.md"));
        assert!(!is_safe_relative("skills/../../x"));
        assert!(!is_safe_relative("/etc/passwd"));
        assert!(!is_safe_relative("a//b"));
        assert!(!is_safe_relative(""));
    }

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
