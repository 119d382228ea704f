//! Staleness, computed when a lesson is read: each ref (`path` or `path:symbol`, relative to the
//! repository) is `present`, `path-missing`, `symbol-missing` (the symbol is not a whole word of
//! the file) or `unreadable`. A missing path or symbol makes the lesson stale: it is withheld from
//! injection. `unreadable` (a folder, a FIFO, a file over [`READ_CAP`] without the symbol in what
//! was read, a path through a symlink) is not stale; a lesson without refs never is.

use std::io::Read;
use std::path::{Component, Path};

/// The most of a file read to look for a symbol.
pub(crate) const READ_CAP: u64 = 4 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RefState {
    Present,
    PathMissing,
    SymbolMissing,
    Unreadable,
}

impl RefState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RefState::Present => "present",
            RefState::PathMissing => "path-missing",
            RefState::SymbolMissing => "symbol-missing",
            RefState::Unreadable => "unreadable",
        }
    }

    pub(crate) fn stale(self) -> bool {
        matches!(self, RefState::PathMissing | RefState::SymbolMissing)
    }
}

/// `path:symbol` split; a ref without a colon is a path alone.
pub(crate) fn split(r: &str) -> (&str, Option<&str>) {
    match r.rsplit_once(':') {
        Some((p, s)) if !s.is_empty() => (p, Some(s)),
        Some((p, _)) => (p, None),
        None => (r, None),
    }
}

/// Why a ref given to `lessons add` is refused: it must stay inside the repository.
pub(crate) fn check_new(root: &Path, r: &str) -> Result<(), String> {
    let (path, _) = split(r);
    if path.is_empty() {
        return Err(format!("--ref {r:?}: no path"));
    }
    let p = Path::new(path);
    if p.is_absolute() {
        return Err(format!("--ref {r:?}: an absolute path; a ref is relative to the repository"));
    }
    if p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!("--ref {r:?}: leaves the repository (`..`)"));
    }
    if through_symlink(root, p) {
        return Err(format!("--ref {r:?}: goes through a symbolic link; name the file itself"));
    }
    Ok(())
}

/// True when some component of `rel` under `root` is a symbolic link.
fn through_symlink(root: &Path, rel: &Path) -> bool {
    let mut at = root.to_path_buf();
    for c in rel.components() {
        if let Component::Normal(part) = c {
            at.push(part);
            match at.symlink_metadata() {
                Ok(m) if m.file_type().is_symlink() => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    }
    false
}

/// The state of one ref under `root`.
pub(crate) fn state(root: &Path, r: &str) -> RefState {
    let (path, symbol) = split(r);
    let p = Path::new(path);
    if path.is_empty() || p.is_absolute() || p.components().any(|c| matches!(c, Component::ParentDir)) {
        return RefState::Unreadable;
    }
    if through_symlink(root, p) {
        return RefState::Unreadable;
    }
    let full = root.join(p);
    match full.symlink_metadata() {
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => return RefState::PathMissing,
        Err(_) => return RefState::Unreadable,
        Ok(_) => {}
    }
    let Some(symbol) = symbol else {
        return RefState::Present;
    };
    let file = match crate::fsread::open_regular(&full, crate::fsread::Links::Refuse) {
        Ok(f) => f,
        Err(_) => return RefState::Unreadable,
    };
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::new();
    if file.take(READ_CAP).read_to_end(&mut bytes).is_err() {
        return RefState::Unreadable;
    }
    let text = String::from_utf8_lossy(&bytes);
    if has_word(&text, symbol) {
        RefState::Present
    } else if size > READ_CAP {
        RefState::Unreadable
    } else {
        RefState::SymbolMissing
    }
}

/// True when `word` occurs in `text` with no identifier character on either side.
pub(crate) fn has_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let start = from + i;
        let end = start + word.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(ident) && !after.is_some_and(ident) {
            return true;
        }
        from = start + word.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Each ref's state, in order.
pub(crate) fn states(root: &Path, refs: &[String]) -> Vec<(String, RefState)> {
    refs.iter().map(|r| (r.clone(), state(root, r))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ref_state_and_what_add_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn parse_config() {}\nfn parse_configs() {}\n").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
        assert_eq!(state(root, "src/a.rs"), RefState::Present);
        assert_eq!(state(root, "src/a.rs:parse_config"), RefState::Present);
        assert_eq!(state(root, "src/a.rs:parse_conf"), RefState::SymbolMissing);
        assert_eq!(state(root, "src/b.rs"), RefState::PathMissing);
        assert_eq!(state(root, "src:x"), RefState::Unreadable);
        assert_eq!(state(root, "out/passwd"), RefState::Unreadable);
        assert!(!RefState::Unreadable.stale() && RefState::SymbolMissing.stale());
        assert!(check_new(root, "src/a.rs:parse_config").is_ok());
        assert!(check_new(root, "/etc/passwd").unwrap_err().contains("absolute"));
        assert!(check_new(root, "../../x").unwrap_err().contains("leaves the repository"));
        assert!(check_new(root, "out/passwd").unwrap_err().contains("symbolic link"));
        assert!(has_word("a b_c d", "b_c") && !has_word("ab_cd", "b_c") && has_word("x.y(z)", "y"));
    }
}
