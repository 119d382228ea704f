//! Duplication: a run of at least `minRun` lines the turn added that already exists somewhere
//! else in the project, naming both sites.
//!
//! Lines compare with their indentation and a trailing comma ignored, and nothing else (a
//! renamed identifier makes a different run on purpose). Comments, dependency declarations
//! (`import`, `use`, `require`, `#include`, …) and blank lines are not part of a run, and a run
//! must carry an operation — a call, an assignment, a branch or a return — in most of its lines,
//! so repeated data (an object literal, a type body, an export list) does not count.

use super::comments;
use std::collections::{BTreeSet, HashMap};

/// Files and bytes the scan reads at most.
pub(crate) const MAX_FILES: usize = 2000;
pub(crate) const MAX_BYTES: usize = 8 * 1024 * 1024;

/// A file's significant lines: (1-based line number, normalised text).
fn significant(path: &str, text: &str) -> Vec<(usize, String)> {
    let comment: BTreeSet<usize> = comments::syntax_for(path)
        .map(|s| comments::comment_lines(text, s).into_iter().map(|(n, _)| n).collect())
        .unwrap_or_default();
    text.lines()
        .enumerate()
        .filter(|(i, _)| !comment.contains(&(i + 1)))
        .filter_map(|(i, l)| {
            let t = l.trim();
            let t = t.strip_suffix(',').unwrap_or(t).trim_end();
            (!t.is_empty() && !is_dependency_line(t)).then(|| (i + 1, t.to_string()))
        })
        .collect()
}

fn is_dependency_line(t: &str) -> bool {
    const STARTS: &[&str] = &[
        "import ",
        "from ",
        "use ",
        "pub use ",
        "pub(crate) use ",
        "extern crate ",
        "#include",
        "#import",
        "require ",
        "require_relative ",
        "using ",
        "package ",
        "@import",
        "mod ",
        "pub mod ",
    ];
    STARTS.iter().any(|s| t.starts_with(s))
        || (t.contains("require(") && (t.starts_with("const ") || t.starts_with("var ") || t.starts_with("let ")))
}

/// Whether a line does something: a call, an assignment, a branch, a return.
fn is_operation(t: &str) -> bool {
    const WORDS: &[&str] = &[
        "return", "if", "else", "for", "while", "match", "switch", "case", "break", "continue", "throw", "raise", "yield", "await", "elif",
        "unless", "until", "loop", "do", "try", "catch", "except", "finally", "defer", "go",
    ];
    if t.contains('(') || t.contains("=") || t.contains("?") {
        return true;
    }
    let first = t
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .find(|w| !w.is_empty())
        .unwrap_or("");
    WORDS.contains(&first)
}

/// One file to scan.
pub(crate) struct Source<'a> {
    pub path: &'a str,
    pub text: &'a str,
    /// The line numbers the turn added (empty for a file the turn did not change).
    pub added: &'a BTreeSet<usize>,
}

/// A duplicated run: where the turn added it, and where it already was.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Duplicate {
    pub file: String,
    pub lines: (usize, usize),
    pub other_file: String,
    pub other_lines: (usize, usize),
}

impl Duplicate {
    pub(crate) fn describe(&self) -> String {
        format!(
            "{}:{}-{} repeats {}:{}-{}",
            self.file, self.lines.0, self.lines.1, self.other_file, self.other_lines.0, self.other_lines.1
        )
    }
}

/// What a scan found, and the bound it hit if it stopped early.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    pub duplicates: Vec<Duplicate>,
    pub bound: Option<String>,
}

/// Finds runs of `min_run` significant lines, all added by the turn, that occur elsewhere in
/// `sources`. Files with added lines should come first: the bounds cut the rest.
pub(crate) fn scan(sources: &[Source<'_>], min_run: usize, max_findings: usize) -> Scan {
    let min_run = min_run.max(2);
    let mut result = Scan::default();
    let mut files: Vec<(usize, Vec<(usize, String)>)> = Vec::new();
    let mut bytes = 0usize;
    for (i, s) in sources.iter().enumerate() {
        if files.len() >= MAX_FILES || bytes + s.text.len() > MAX_BYTES {
            result.bound = Some(format!(
                "the scan stopped at {} of {} files ({} of at most {} MB read): the rest were not compared",
                files.len(),
                sources.len(),
                bytes / (1024 * 1024),
                MAX_BYTES / (1024 * 1024)
            ));
            break;
        }
        bytes += s.text.len();
        files.push((i, significant(s.path, s.text)));
    }
    // Every window of min_run significant lines, by its text.
    let mut windows: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    for (fi, (_, lines)) in files.iter().enumerate() {
        if lines.len() < min_run {
            continue;
        }
        for start in 0..=lines.len() - min_run {
            let w = &lines[start..start + min_run];
            if w.iter().filter(|(_, t)| is_operation(t)).count() * 2 <= min_run {
                continue;
            }
            let key = w.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n");
            windows.entry(key).or_default().push((fi, start));
        }
    }
    for (fi, (si, lines)) in files.iter().enumerate() {
        let added = sources[*si].added;
        if added.is_empty() || lines.len() < min_run {
            continue;
        }
        let mut covered_until = 0usize;
        for start in 0..=lines.len() - min_run {
            let w = &lines[start..start + min_run];
            if w[0].0 <= covered_until || !w.iter().all(|(n, _)| added.contains(n)) {
                continue;
            }
            let key = w.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n");
            let Some(sites) = windows.get(&key) else { continue };
            let here = (w[0].0, w[min_run - 1].0);
            let elsewhere = |(ofi, ostart): &&(usize, usize)| {
                let olines = &files[*ofi].1;
                let range = (olines[*ostart].0, olines[*ostart + min_run - 1].0);
                *ofi != fi || range.1 < here.0 || range.0 > here.1
            };
            // A site that was there before the turn names the original; another copy the turn
            // added is named only when there is none.
            let pre_existing = |(ofi, ostart): &&(usize, usize)| {
                let olines = &files[*ofi].1;
                let oadded = sources[files[*ofi].0].added;
                !olines[*ostart..*ostart + min_run].iter().all(|(n, _)| oadded.contains(n))
            };
            let other = sites
                .iter()
                .filter(elsewhere)
                .find(pre_existing)
                .or_else(|| sites.iter().find(elsewhere));
            let Some((ofi, ostart)) = other else { continue };
            let olines = &files[*ofi].1;
            // A copy longer than minRun is one finding, not one per window it spans.
            let mut len = min_run;
            while start + len < lines.len()
                && ostart + len < olines.len()
                && lines[start + len].1 == olines[ostart + len].1
                && added.contains(&lines[start + len].0)
                && !(*ofi == fi && ostart + len >= start)
            {
                len += 1;
            }
            covered_until = lines[start + len - 1].0;
            result.duplicates.push(Duplicate {
                file: sources[*si].path.to_string(),
                lines: (lines[start].0, lines[start + len - 1].0),
                other_file: sources[files[*ofi].0].path.to_string(),
                other_lines: (olines[*ostart].0, olines[ostart + len - 1].0),
            });
            if result.duplicates.len() >= max_findings {
                return result;
            }
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "fn total(items: &[u32]) -> u32 {\n    let mut sum = 0;\n    for i in items {\n        sum += i;\n    }\n    if sum > 100 {\n        return 100;\n    }\n    sum\n}\n";

    fn lines(n: std::ops::RangeInclusive<usize>) -> BTreeSet<usize> {
        n.collect()
    }

    #[test]
    fn a_six_line_copy_names_both_sites() {
        let copy = format!("use std::fmt;\n\n{}", BODY.replace("    ", "  "));
        let none = BTreeSet::new();
        let added = lines(1..=12);
        let sources = [
            Source {
                path: "src/b.rs",
                text: &copy,
                added: &added,
            },
            Source {
                path: "src/a.rs",
                text: BODY,
                added: &none,
            },
        ];
        let s = scan(&sources, 6, 8);
        assert_eq!(s.duplicates.len(), 1, "{:?}", s.duplicates);
        let d = &s.duplicates[0];
        assert_eq!((d.file.as_str(), d.other_file.as_str()), ("src/b.rs", "src/a.rs"));
        assert_eq!(d.lines.0, 3, "the use line is not part of the run");
        assert_eq!(d.other_lines.0, 1);
        assert!(d.describe().starts_with("src/b.rs:3-"));
        assert!(s.bound.is_none());
    }

    #[test]
    fn old_duplication_comments_data_and_short_runs_do_not_count() {
        let none = BTreeSet::new();
        // The copy existed before the turn: nothing of it was added.
        let sources = [
            Source {
                path: "b.rs",
                text: BODY,
                added: &none,
            },
            Source {
                path: "a.rs",
                text: BODY,
                added: &none,
            },
        ];
        assert!(scan(&sources, 6, 8).duplicates.is_empty());
        let data = "const X = {\n  a: 1,\n  b: 2,\n  c: 3,\n  d: 4,\n  e: 5,\n  f: 6\n}\n";
        let added = lines(1..=9);
        let sources = [
            Source {
                path: "b.js",
                text: data,
                added: &added,
            },
            Source {
                path: "a.js",
                text: data,
                added: &none,
            },
        ];
        assert!(scan(&sources, 6, 8).duplicates.is_empty(), "pure data");
        let licence = "// one\n// two\n// three\n// four\n// five\n// six\n// seven\n";
        let sources = [
            Source {
                path: "b.rs",
                text: licence,
                added: &added,
            },
            Source {
                path: "a.rs",
                text: licence,
                added: &none,
            },
        ];
        assert!(scan(&sources, 6, 8).duplicates.is_empty(), "comments");
        let five = "a();\nb();\nc();\nd();\ne();\n";
        let sources = [
            Source {
                path: "b.rs",
                text: five,
                added: &added,
            },
            Source {
                path: "a.rs",
                text: five,
                added: &none,
            },
        ];
        assert!(scan(&sources, 6, 8).duplicates.is_empty(), "shorter than minRun");
        let renamed = BODY.replace("sum", "total_sum");
        let sources = [
            Source {
                path: "b.rs",
                text: &renamed,
                added: &added,
            },
            Source {
                path: "a.rs",
                text: BODY,
                added: &none,
            },
        ];
        assert!(scan(&sources, 6, 8).duplicates.is_empty(), "a rename is a different run");
    }

    #[test]
    fn a_copy_inside_one_file_and_the_bound() {
        let text = format!("{BODY}\n{BODY}");
        let added = lines(12..=21);
        let s = scan(
            &[Source {
                path: "a.rs",
                text: &text,
                added: &added,
            }],
            6,
            8,
        );
        assert_eq!(s.duplicates.len(), 1);
        assert_eq!(s.duplicates[0].other_lines.0, 1);
        let none = BTreeSet::new();
        let big = "x\n".repeat(MAX_BYTES / 4 + 1);
        let sources = [
            Source {
                path: "a.rs",
                text: &big,
                added: &none,
            },
            Source {
                path: "b.rs",
                text: &big,
                added: &none,
            },
        ];
        assert!(scan(&sources, 6, 8).bound.unwrap().contains("stopped at 1 of 2 files"));
    }
}
