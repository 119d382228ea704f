//! Paths and patterns as text, never asking the file system: the one path normaliser
//! ([`normalize`]) and the one glob matcher, globset, in its two uses — repository paths against
//! the configured path lists ([`PathSet`]) and `*` patterns over a name or a URL ([`Wildcard`]:
//! the machine tier's `[guest] remotes`, the subagent rails' model patterns).
//!
//! One exception lives elsewhere on purpose: the floor's `shell_glob_match`
//! (`policy/floor/words.rs`) matches the glob *words of a shell command* against the names a
//! command could reach. That is the shell's language, not a configured pattern, and the floor
//! over-approximates it on purpose (a `[…]` class is any one character, `*` crosses a `/`), so
//! that no spelling of a protected path slips past; globset matches exactly, which is the wrong
//! answer there.

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use std::path::{Path, PathBuf};

/// `p` with `.` dropped and `..` folded lexically (the file system is not asked, so a symlinked
/// folder followed by `..` is folded as text: callers that care resolve links first).
///
/// The `..` rule is POSIX's: in an absolute path, `..` at the root stays at the root (`/..` is
/// `/`, `/tmp/../../etc` is `/etc`); in a relative path, a `..` with nothing left to fold is kept
/// (`../x` stays `../x`, `a/../..` is `..`), because dropping it would name another file. An empty
/// result is `/` or `.`.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    if is_normal_absolute(p.as_os_str().as_encoded_bytes()) {
        return p.to_path_buf();
    }
    normalize_bytes(p.as_os_str().as_encoded_bytes())
}

/// [`normalize`] of `rel` taken in `base` (`rel` absolute: `base` is not used), built in one
/// buffer: the floor resolves every path a command names this way, dozens per line.
pub(crate) fn normalize_in(base: &Path, rel: &Path) -> PathBuf {
    let rel = rel.as_os_str().as_encoded_bytes();
    if rel.first() == Some(&b'/') {
        return normalize(Path::new(bytes_as_os_str(rel)));
    }
    let base = base.as_os_str().as_encoded_bytes();
    let mut joined = Vec::with_capacity(base.len() + 1 + rel.len());
    joined.extend_from_slice(base);
    if !rel.is_empty() {
        if !base.is_empty() && !base.ends_with(b"/") {
            joined.push(b'/');
        }
        joined.extend_from_slice(rel);
    }
    if is_normal_absolute(&joined) {
        return PathBuf::from(bytes_into_os_string(joined));
    }
    normalize_bytes(&joined)
}

/// The text of a path as bytes back to a path. Every byte sequence here came from an `OsStr`,
/// cut only at `/`, so it is one `OsStr` encoding's output.
fn bytes_as_os_str(b: &[u8]) -> &std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b)
}

fn bytes_into_os_string(b: Vec<u8>) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    std::ffi::OsString::from_vec(b)
}

/// [`normalize`] over the path's bytes, in one buffer (what [`normalize_components`] does with a
/// `PathBuf` push per component; a test holds the two equal).
fn normalize_bytes(b: &[u8]) -> PathBuf {
    let absolute = b.first() == Some(&b'/');
    let mut out: Vec<u8> = Vec::with_capacity(b.len().max(1));
    if absolute {
        out.push(b'/');
    }
    // Named components in `out` that a `..` may fold (a kept leading `..` is not one).
    let mut depth = 0usize;
    for part in b.split(|&c| c == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                if depth > 0 {
                    match out.iter().rposition(|&c| c == b'/') {
                        Some(0) if absolute => out.truncate(1),
                        Some(i) => out.truncate(i),
                        None => out.clear(),
                    }
                    depth -= 1;
                } else if !absolute {
                    if !out.is_empty() {
                        out.push(b'/');
                    }
                    out.extend_from_slice(b"..");
                }
                // At the root of an absolute path: `/..` is `/`.
            }
            name => {
                if !out.is_empty() && !out.ends_with(b"/") {
                    out.push(b'/');
                }
                out.extend_from_slice(name);
                depth += 1;
            }
        }
    }
    if out.is_empty() {
        out.push(if absolute { b'/' } else { b'.' });
    }
    PathBuf::from(bytes_into_os_string(out))
}

/// [`normalize`] component by component: the tests' reference for [`normalize_bytes`].
#[cfg(test)]
fn normalize_components(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    let mut depth = 0usize;
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if depth > 0 {
                    out.pop();
                    depth -= 1;
                } else if !p.has_root() {
                    out.push("..");
                }
            }
            Component::Normal(name) => {
                out.push(name);
                depth += 1;
            }
            root => out.push(root.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(if p.has_root() { "/" } else { "." });
    }
    out
}

/// An absolute path that [`normalize`] would return unchanged: no empty, `.` or `..` component
/// and no trailing `/` (the floor normalises every path a command names, most already normal).
pub(crate) fn is_normal_absolute(b: &[u8]) -> bool {
    if b == b"/" {
        return true;
    }
    b.first() == Some(&b'/')
        && b.last() != Some(&b'/')
        && b[1..]
            .split(|&c| c == b'/')
            .all(|part| !part.is_empty() && part != b"." && part != b"..")
}

/// A compiled path list (`codePaths`, `testPaths`, `runtimePathPrefixes`,
/// `runtimePathExcludes`, a plan's paths), matched against repository-relative paths.
///
/// An entry without a glob character is a prefix that matches whole path segments, written with
/// or without a trailing `/`: `"src/"` and `"src"` both match `src/a.txt` and neither matches
/// `srcx/a.txt`. An entry with one is a glob (`*` stays inside one segment, `**/` spans folders);
/// a glob ending in `/` names a folder and matches everything under it (`**/node_modules/`).
/// There is no extension filter: every file under a path counts.
#[derive(Debug, Clone)]
pub(crate) struct PathSet {
    prefixes: Vec<String>,
    globs: GlobSet,
}

fn is_glob(entry: &str) -> bool {
    entry.contains(['*', '?', '[', '{'])
}

impl PathSet {
    pub(crate) fn new(entries: &[String]) -> PathSet {
        let mut prefixes = Vec::new();
        let mut builder = GlobSetBuilder::new();
        for raw in entries {
            let entry = raw.trim().trim_start_matches("./");
            if entry.is_empty() {
                continue;
            }
            if !is_glob(entry) {
                prefixes.push(entry.trim_end_matches('/').to_string());
                continue;
            }
            let pattern = if entry.ends_with('/') {
                format!("{entry}**")
            } else {
                entry.to_string()
            };
            // An entry that is not a valid glob matches nothing; the others still apply.
            if let Ok(g) = GlobBuilder::new(&pattern).literal_separator(true).build() {
                builder.add(g);
            }
        }
        let globs = builder.build().unwrap_or_else(|_| GlobSet::empty());
        PathSet { prefixes, globs }
    }

    /// Whether the repository-relative `path` is under one of the entries.
    pub(crate) fn matches(&self, path: &str) -> bool {
        let path = path.trim_start_matches("./");
        let under_prefix = self.prefixes.iter().any(|p| {
            p.is_empty() || path == p || (path.len() > p.len() && path.starts_with(p.as_str()) && path.as_bytes()[p.len()] == b'/')
        });
        under_prefix || self.globs.is_match(path)
    }
}

/// A pattern in which `*` matches any run of characters (`/` included) and every other character
/// matches itself: a `?`, `[`, `{` or `\` in it is literal. For names and URLs (a guest remote
/// `*github.com/acme/*`, a model `*-fast-*`), where the operator writes only stars.
#[derive(Debug, Clone)]
pub(crate) struct Wildcard {
    matcher: Option<GlobMatcher>,
}

impl Wildcard {
    pub(crate) fn new(pattern: &str) -> Wildcard {
        // A run of stars is one star (globset reads `**` as a path wildcard); every other glob
        // character is bracketed as globset::escape does, so only the stars are special.
        let mut glob = String::with_capacity(pattern.len() + 8);
        for c in pattern.chars() {
            match c {
                '*' if glob.ends_with('*') => {}
                '*' => glob.push('*'),
                '?' | '[' | ']' | '{' | '}' => {
                    glob.push('[');
                    glob.push(c);
                    glob.push(']');
                }
                c => glob.push(c),
            }
        }
        let matcher = GlobBuilder::new(&glob)
            .literal_separator(false)
            .backslash_escape(false)
            .build()
            .ok()
            .map(|g| g.compile_matcher());
        Wildcard { matcher }
    }

    /// Whether the whole of `text` matches (a pattern globset refused matches nothing).
    pub(crate) fn matches(&self, text: &str) -> bool {
        self.matcher.as_ref().is_some_and(|m| m.is_match(text))
    }
}

/// Whether `text` matches the [`Wildcard`] `pattern`.
pub(crate) fn wildcard_match(pattern: &str, text: &str) -> bool {
    Wildcard::new(pattern).matches(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_normaliser_and_its_fast_paths_agree_with_the_component_walk() {
        let parts = ["", ".", "..", "a", "b.c", "...", ".x", "x."];
        let mut paths = vec!["/".to_string(), "//".to_string(), "".to_string()];
        for a in parts {
            for b in parts {
                for c in parts {
                    paths.push(format!("/{a}/{b}/{c}"));
                    paths.push(format!("/{a}/{b}/{c}/"));
                    paths.push(format!("{a}/{b}/{c}"));
                    paths.push(format!("/{a}{b}/{c}"));
                }
            }
        }
        for p in &paths {
            let p = Path::new(p);
            assert_eq!(normalize(p), normalize_components(p), "{}", p.display());
            for base in ["/", "/base/dir", "rel", ""] {
                let joined = Path::new(base).join(p);
                assert_eq!(
                    normalize_in(Path::new(base), p),
                    normalize_components(&joined),
                    "{base} + {}",
                    p.display()
                );
            }
        }
        assert!(is_normal_absolute(b"/tmp/a.b/c"));
        assert!(!is_normal_absolute(b"/tmp/./c"));
    }

    fn n(s: &str) -> String {
        normalize(Path::new(s)).display().to_string()
    }

    #[test]
    fn dots_fold_lexically_with_posix_rules_at_the_root() {
        assert_eq!(n("/a/./b/../c"), "/a/c");
        assert_eq!(n("/a/.."), "/");
        assert_eq!(n("/.."), "/", "`..` at the root is the root");
        assert_eq!(n("/a/../.."), "/");
        assert_eq!(n("/tmp/../../etc"), "/etc");
        assert_eq!(n("../x"), "../x", "a relative `..` with nothing to fold is kept");
        assert_eq!(n("a/../.."), "..");
        assert_eq!(n("a/../../b"), "../b");
        assert_eq!(n("../../a/.."), "../..");
        assert_eq!(n("a/.."), ".");
        assert_eq!(n("./"), ".");
        assert_eq!(n(""), ".");
        assert_eq!(n("/"), "/");
        assert_eq!(n("a//b/"), "a/b");
    }

    fn set(entries: &[&str]) -> PathSet {
        PathSet::new(&entries.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn prefixes_match_whole_segments_with_or_without_a_slash() {
        for entries in [&["src/"][..], &["src"][..], &["./src/"][..]] {
            let s = set(entries);
            assert!(s.matches("src/a.txt"), "{entries:?}");
            assert!(s.matches("src/deep/b.rs"));
            assert!(!s.matches("srcx/a.txt"));
            assert!(!s.matches("lib/src/a.txt"));
        }
        assert!(set(&["lib/core"]).matches("lib/core/x.c"));
        assert!(!set(&[]).matches("src/a"));
    }

    #[test]
    fn globs_for_tests_and_excludes() {
        let tests = set(&["tests/", "**/*_test.*", "**/*.test.*", "**/*.spec.*"]);
        assert!(tests.matches("tests/it.rs"));
        assert!(tests.matches("pkg/foo_test.go"));
        assert!(tests.matches("foo_test.go"), "**/ spans zero folders");
        assert!(tests.matches("web/a/b.test.ts"));
        assert!(tests.matches("b.spec.js"));
        assert!(!tests.matches("src/contest.rs"));
        let ex = set(&[".tlc/", "**/node_modules/", "**/.git/"]);
        assert!(ex.matches("node_modules/x/index.js"));
        assert!(ex.matches("web/node_modules/x/index.js"));
        assert!(ex.matches(".tlc/harness/config.toml"));
        assert!(!ex.matches("src/node_modules.rs"));
    }

    #[test]
    fn a_broken_glob_matches_nothing_and_is_not_fatal() {
        let s = set(&["src/", "[unclosed"]);
        assert!(!s.matches("[unclosed"));
        assert!(s.matches("src/a"));
    }

    #[test]
    fn a_wildcard_has_only_stars() {
        // Remotes: a star crosses `/` and `:`.
        assert!(wildcard_match("*github.com/acme/*", "git@github.com/acme/widgets.git"));
        assert!(wildcard_match("*github.com*acme/*", "git@github.com:acme/widgets.git"));
        assert!(wildcard_match("https://x/*", "https://x/y"));
        assert!(wildcard_match("https://x/*", "https://x/y/z"));
        assert!(!wildcard_match("https://x/*", "https://y/x"));
        assert!(wildcard_match("exact", "exact"));
        assert!(!wildcard_match("exact", "exactly"));
        // Models.
        assert!(wildcard_match("*-fast-*", "x-fast-true"));
        assert!(wildcard_match("a*b*c", "aXbYc"));
        assert!(!wildcard_match("a*b*c", "aXbY"));
        assert!(wildcard_match("a**c", "abc"), "a run of stars is one star");
        assert!(wildcard_match("*", ""));
        assert!(wildcard_match("**", "x/y"));
        assert!(!wildcard_match("", "x"));
        assert!(wildcard_match("", ""));
        // Everything but a star is itself.
        assert!(!wildcard_match("a?c", "abc"));
        assert!(wildcard_match("a?c", "a?c"));
        assert!(wildcard_match("[x]{y,z}\\*", "[x]{y,z}\\-"));
        assert!(!wildcard_match("[x]", "x"));
        assert!(wildcard_match(".*", ".hidden"), "no dotfile rule");
    }
}
