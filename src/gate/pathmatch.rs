//! Matching repository-relative paths against the configured path lists (`codePaths`,
//! `testPaths`, `runtimePathPrefixes`, `runtimePathExcludes`).
//!
//! An entry without a glob character is a prefix that matches whole path segments, written with
//! or without a trailing `/`: `"src/"` and `"src"` both match `src/a.txt` and neither matches
//! `srcx/a.txt`. An entry with one is a glob (`*` stays inside one segment, `**/` spans folders);
//! a glob ending in `/` names a folder and matches everything under it (`**/node_modules/`).
//! There is no extension filter: every file under a path counts.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// A compiled path list.
#[derive(Debug, Clone)]
pub struct PathSet {
    prefixes: Vec<String>,
    globs: GlobSet,
    /// Entries that are not valid globs, kept so doctor and follow-ups can name them.
    pub invalid: Vec<String>,
}

fn is_glob(entry: &str) -> bool {
    entry.contains(['*', '?', '[', '{'])
}

impl PathSet {
    pub fn new(entries: &[String]) -> PathSet {
        let mut prefixes = Vec::new();
        let mut builder = GlobSetBuilder::new();
        let mut invalid = Vec::new();
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
            match GlobBuilder::new(&pattern).literal_separator(true).build() {
                Ok(g) => {
                    builder.add(g);
                }
                Err(_) => invalid.push(raw.clone()),
            }
        }
        let globs = builder.build().unwrap_or_else(|_| GlobSet::empty());
        PathSet { prefixes, globs, invalid }
    }

    pub fn is_empty(&self) -> bool {
        self.prefixes.is_empty() && self.globs.is_empty()
    }

    /// Whether the repository-relative `path` is under one of the entries.
    pub fn matches(&self, path: &str) -> bool {
        let path = path.trim_start_matches("./");
        let under_prefix = self.prefixes.iter().any(|p| {
            p.is_empty() || path == p || (path.len() > p.len() && path.starts_with(p.as_str()) && path.as_bytes()[p.len()] == b'/')
        });
        under_prefix || self.globs.is_match(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_broken_glob_is_kept_aside_not_fatal() {
        let s = set(&["src/", "[unclosed"]);
        assert_eq!(s.invalid, vec!["[unclosed".to_string()]);
        assert!(s.matches("src/a"));
    }
}
