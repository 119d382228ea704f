//! The comment policy: which added lines are comments (per language, from one table), which are
//! exempt (tool directives, generator banners), and whether each added comment passes the mode —
//! `declared` (states `why:`, `hazard:` or `invariant:`), `resolvable` (declared, and nothing in it
//! that only the session could resolve), or `strict` (none accepted).
//!
//! Whole comment lines are judged: a line comment that starts the line, and every line of a
//! block comment. A trailing comment after code on the same line is not read (telling it from a
//! `//` inside a string needs each language's lexer).

use std::collections::BTreeSet;

/// How a language writes comments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Syntax {
    pub line: &'static [&'static str],
    pub block: Option<(&'static str, &'static str)>,
}

const C_LIKE: Syntax = Syntax {
    line: &["//"],
    block: Some(("/*", "*/")),
};
const HASH: Syntax = Syntax { line: &["#"], block: None };

/// The one table: file extensions (or whole names) and their comment syntax.
pub(crate) const LANGUAGES: &[(&[&str], Syntax)] = &[
    (
        &[
            "rs", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "java", "kt", "kts", "scala", "swift", "go", "js", "jsx", "mjs", "cjs", "ts",
            "tsx", "mts", "cts", "cs", "php", "dart", "groovy", "gradle", "proto", "zig", "sol", "scss", "less", "m", "mm", "fs", "fsx",
            "jsonc",
        ],
        C_LIKE,
    ),
    (
        &["css"],
        Syntax {
            line: &[],
            block: Some(("/*", "*/")),
        },
    ),
    (
        &[
            "py",
            "pyi",
            "rb",
            "sh",
            "bash",
            "zsh",
            "fish",
            "pl",
            "pm",
            "r",
            "yaml",
            "yml",
            "toml",
            "tf",
            "hcl",
            "cmake",
            "mk",
            "ex",
            "exs",
            "nim",
            "cr",
            "jl",
            "ps1",
            "conf",
            "cfg",
            "Makefile",
            "Dockerfile",
            "Gemfile",
            "Rakefile",
            "Justfile",
            "justfile",
            "Containerfile",
        ],
        HASH,
    ),
    (
        &["sql", "lua", "hs", "elm", "ada", "adb", "ads", "vhd", "vhdl"],
        Syntax {
            line: &["--"],
            block: None,
        },
    ),
    (
        &["lisp", "lsp", "clj", "cljs", "cljc", "el", "scm", "ss", "rkt", "asm", "s", "ini"],
        Syntax { line: &[";"], block: None },
    ),
    (&["tex", "sty", "erl", "hrl"], Syntax { line: &["%"], block: None }),
    (
        &["html", "htm", "xml", "svg", "vue", "svelte", "xhtml"],
        Syntax {
            line: &[],
            block: Some(("<!--", "-->")),
        },
    ),
];

/// The comment syntax of `path`, by extension or whole file name; `None` for a file the table
/// does not carry (it has no comments to judge).
pub(crate) fn syntax_for(path: &str) -> Option<Syntax> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    LANGUAGES
        .iter()
        .find(|(names, _)| names.iter().any(|n| Some(*n) == ext || *n == name))
        .map(|(_, s)| *s)
}

/// Words that make a comment a tool's directive rather than prose.
pub(crate) const DIRECTIVES: &[&str] = &[
    "noqa",
    "eslint-disable",
    "eslint-enable",
    "biome-ignore",
    "prettier-ignore",
    "@ts-",
    "shellcheck",
    "#[allow",
    "pylint:",
    "type: ignore",
    "pyright:",
    "mypy:",
    "nolint",
    "rubocop:",
    "istanbul ignore",
    "c8 ignore",
    "nosonar",
    "fmt: off",
    "fmt: on",
    "isort:",
    "go:build",
    "go:generate",
    "go:embed",
    "+build",
    "spdx-license-identifier",
    "-*- coding",
    "clang-format",
    "nocov",
    "#region",
    "#endregion",
];

/// Which lines of `text` (1-based) are whole comment lines, with the comment's text.
pub(crate) fn comment_lines(text: &str, syntax: Syntax) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if in_block {
            if let Some((_, close)) = syntax.block {
                if t.contains(close) {
                    in_block = false;
                }
            }
            out.push((i + 1, t.to_string()));
            continue;
        }
        if syntax.line.iter().any(|m| t.starts_with(m)) {
            out.push((i + 1, t.to_string()));
            continue;
        }
        if let Some((open, close)) = syntax.block {
            if let Some(rest) = t.strip_prefix(open) {
                in_block = !rest.contains(close);
                out.push((i + 1, t.to_string()));
            } else if let Some(at) = t.rfind(open) {
                // Code that opens a block comment at its end: the following lines are comment.
                in_block = !t[at + open.len()..].contains(close);
            }
        }
    }
    out
}

fn lower_has(text: &str, words: &[&str]) -> Option<String> {
    let lower = text.to_lowercase();
    words.iter().find(|w| lower.contains(*w)).map(|w| w.to_string())
}

/// Whether a comment line is a directive or a shebang.
fn exempt_line(line_no: usize, text: &str) -> bool {
    (line_no == 1 && text.starts_with("#!")) || lower_has(text, DIRECTIVES).is_some()
}

/// Whether a comment block is a generator's banner.
fn banner(texts: &[&str]) -> bool {
    let all = texts.join("\n").to_lowercase();
    all.contains("@generated") || (all.contains("generated") && (all.contains("do not edit") || all.contains("don't edit")))
}

const MARKERS: &[&str] = &["why:", "hazard:", "invariant:"];

/// What `resolvable` refuses even in a declared comment, with the reason given back.
pub(crate) const UNRESOLVABLE: &[(&str, &[&str])] = &[
    (
        "narrates a change (a reader at HEAD sees only the result)",
        &[
            "no longer",
            "used to",
            "previously",
            "changed to",
            "changed from",
            "now uses",
            "now returns",
            "was changed",
            "we changed",
            "renamed from",
            "moved from",
            "this fix",
            "fixed the",
        ],
    ),
    (
        "cites what only the session could see",
        &[
            "as discussed",
            "as requested",
            "as mentioned",
            "per the user",
            "the user asked",
            "user wants",
            "see above",
            "in the chat",
            "in this conversation",
            "per our",
        ],
    ),
    (
        "speaks from a pull request's vantage",
        &[
            "this pr",
            "this pull request",
            "this change",
            "this commit",
            "this patch",
            "this diff",
        ],
    ),
    (
        "argues its own correctness",
        &[
            "this is correct",
            "this works",
            "now works",
            "should work",
            "is now correct",
            "this is safe",
            "trust me",
        ],
    ),
];

/// Control-flow narration: a comment that starts by saying what the next line does.
const NARRATION_STARTS: &[&str] = &[
    "increment",
    "decrement",
    "loop over",
    "loop through",
    "iterate over",
    "iterate through",
    "call ",
    "calls ",
    "return ",
    "returns ",
    "set ",
    "sets ",
    "check if",
    "checks if",
    "initialize",
    "initialise",
    "create ",
    "add 1",
    "assign",
];

/// One added comment that does not pass.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Violation {
    pub file: String,
    pub line: usize,
    /// The comment's first line, as written.
    pub text: String,
    pub why: String,
}

/// The comment policy's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Declared,
    Resolvable,
    Strict,
}

impl Mode {
    pub(crate) fn parse(s: &str) -> Mode {
        match s {
            "strict" => Mode::Strict,
            "resolvable" => Mode::Resolvable,
            _ => Mode::Declared,
        }
    }
}

fn strip_marker(t: &str, syntax: Syntax) -> String {
    let mut s = t.trim();
    for m in syntax.line {
        if let Some(r) = s.strip_prefix(m) {
            s = r;
        }
    }
    if let Some((open, close)) = syntax.block {
        s = s.strip_prefix(open).unwrap_or(s);
        s = s.strip_suffix(close).unwrap_or(s);
    }
    s.trim_start_matches(['/', '!', '*', '#', '-', ';', '%', ' ']).trim().to_string()
}

/// The added comments of one file that do not pass `mode`. `text` is the file now; `added` the
/// line numbers the turn added.
pub(crate) fn check_file(path: &str, text: &str, added: &BTreeSet<usize>, mode: Mode) -> Vec<Violation> {
    let Some(syntax) = syntax_for(path) else { return Vec::new() };
    let comments = comment_lines(text, syntax);
    // Consecutive added comment lines form one comment.
    let mut blocks: Vec<Vec<(usize, String)>> = Vec::new();
    for (n, t) in comments.into_iter().filter(|(n, _)| added.contains(n)) {
        match blocks.last_mut() {
            Some(b) if b.last().is_some_and(|(last, _)| *last + 1 == n) => b.push((n, t)),
            _ => blocks.push(vec![(n, t)]),
        }
    }
    let mut out = Vec::new();
    for block in blocks {
        let texts: Vec<&str> = block.iter().map(|(_, t)| t.as_str()).collect();
        if banner(&texts) {
            continue;
        }
        let prose: Vec<&(usize, String)> = block
            .iter()
            .filter(|(n, t)| !exempt_line(*n, t) && !strip_marker(t, syntax).is_empty())
            .collect();
        let Some((first_line, first_text)) = prose.first().map(|(n, t)| (*n, t.clone())) else {
            continue;
        };
        let joined = prose.iter().map(|(_, t)| strip_marker(t, syntax)).collect::<Vec<_>>().join(" ");
        let declared = lower_has(&joined, MARKERS).is_some();
        let why = match mode {
            Mode::Strict => Some("strict mode accepts no added comment".to_string()),
            Mode::Declared | Mode::Resolvable if !declared => Some("it does not state why:, hazard: or invariant:".to_string()),
            Mode::Resolvable => {
                let lower = joined.to_lowercase();
                let body = MARKERS
                    .iter()
                    .find_map(|m| lower.split_once(m).map(|(_, rest)| rest.trim().to_string()))
                    .unwrap_or_default();
                UNRESOLVABLE
                    .iter()
                    .find(|(_, words)| words.iter().any(|w| lower.contains(w)))
                    .map(|(reason, _)| format!("it {reason}"))
                    .or_else(|| {
                        NARRATION_STARTS
                            .iter()
                            .any(|w| body.starts_with(w))
                            .then(|| "it narrates control flow the code already shows".to_string())
                    })
            }
            Mode::Declared => None,
        };
        if let Some(why) = why {
            out.push(Violation {
                file: path.to_string(),
                line: first_line,
                text: crate::gate::runner::first_chars(&first_text, 120),
                why,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> BTreeSet<usize> {
        (1..=text.lines().count()).collect()
    }

    #[test]
    fn the_table_knows_languages_by_extension_and_name() {
        assert_eq!(syntax_for("src/a.rs"), Some(C_LIKE));
        assert_eq!(syntax_for("x/Makefile"), Some(HASH));
        assert_eq!(syntax_for("a.py"), Some(HASH));
        assert_eq!(syntax_for("README.md"), None);
        assert_eq!(syntax_for("data.json"), None);
    }

    #[test]
    fn declared_mode_blocks_narration_and_passes_a_reason() {
        let text = "fn f(mut i: u32) {\n    // increment i\n    i += 1;\n    // why: the index is 1-based in the file format\n    i\n}\n";
        let v = check_file("src/a.rs", text, &all(text), Mode::Declared);
        assert_eq!(v.len(), 1);
        assert_eq!((v[0].line, v[0].text.as_str()), (2, "// increment i"));
        let only_why: BTreeSet<usize> = [4].into_iter().collect();
        assert!(check_file("src/a.rs", text, &only_why, Mode::Declared).is_empty());
        let none: BTreeSet<usize> = [1, 3, 5].into_iter().collect();
        assert!(
            check_file("src/a.rs", text, &none, Mode::Declared).is_empty(),
            "comments not added by the turn"
        );
    }

    #[test]
    fn blocks_directives_banners_and_shebangs() {
        let text = "#!/usr/bin/env python3\nimport os  # noqa\n# noqa: E501\n# pylint: disable=x\nx = 1\n";
        assert!(check_file("t.py", text, &all(text), Mode::Strict).is_empty());
        let gen = "// Code generated by protoc. DO NOT EDIT.\npackage x\n";
        assert!(check_file("x.go", gen, &all(gen), Mode::Strict).is_empty());
        let gen2 = "/* @generated by build.rs */\nfn x() {}\n";
        assert!(check_file("x.rs", gen2, &all(gen2), Mode::Declared).is_empty());
        let block = "/*\n * sums the list\n */\nint f();\n";
        let v = check_file("x.c", block, &all(block), Mode::Declared);
        assert_eq!(v.len(), 1, "a block comment is one comment");
        assert_eq!(v[0].line, 2);
        let ts = "// @ts-expect-error\nconst x: number = 'a';\n";
        assert!(check_file("a.ts", ts, &all(ts), Mode::Declared).is_empty());
        let code_then_block = "x = 1; /* starts\n still comment */\ny();\n";
        assert_eq!(comment_lines(code_then_block, C_LIKE), vec![(2, "still comment */".to_string())]);
    }

    #[test]
    fn resolvable_and_strict() {
        let said = [
            ("// why: as discussed with the user, keep it", true),
            ("// why: this PR needs it", true),
            ("// why: this no longer calls the API", true),
            ("// why: increment i", true),
            ("// why: the wire format counts from 1", false),
            ("// hazard: the lock must be held while the file is open", false),
        ];
        for (comment, refused) in said {
            let text = format!("{comment}\nlet a = 1;\n");
            let v = check_file("a.rs", &text, &all(&text), Mode::Resolvable);
            assert_eq!(!v.is_empty(), refused, "{comment}: {v:?}");
        }
        let text = "// why: the wire format counts from 1\nlet a = 1;\n";
        assert_eq!(check_file("a.rs", text, &all(text), Mode::Strict).len(), 1);
    }
}
