//! Small helpers over words, patterns and paths.

use super::*;

pub(super) fn dot() -> Word {
    Word {
        pieces: vec![Piece::Lit(".".into())],
    }
}

/// The word without its first `n` characters (`of=/dev/sda` → `/dev/sda`).
pub(super) fn strip_word_prefix(w: &Word, mut n: usize) -> Word {
    let mut out = Word::default();
    for p in &w.pieces {
        match p {
            Piece::Lit(s) | Piece::Quoted(s) if n > 0 => {
                let cut = s.char_indices().nth(n).map_or(s.len(), |(i, _)| i);
                n -= s[..cut].chars().count();
                let rest = s[cut..].to_string();
                if !rest.is_empty() {
                    out.pieces.push(if matches!(p, Piece::Lit(_)) {
                        Piece::Lit(rest)
                    } else {
                        Piece::Quoted(rest)
                    });
                }
            }
            other => out.pieces.push(other.clone()),
        }
    }
    out
}

pub(super) fn target_dir<'w>(texts: &[String], args: &[&'w Word]) -> Option<&'w Word> {
    for (k, t) in texts.iter().enumerate() {
        if t == "-t" || t == "--target-directory" {
            return args.get(k + 1).copied();
        }
    }
    None
}

pub(super) fn find_roots<'w>(inv: &Invocation<'w>) -> Vec<&'w Word> {
    let mut roots = Vec::new();
    for w in &inv.args {
        let t = w.text();
        if t.starts_with('-') || t == "(" || t == "!" || t == "," {
            if matches!(t.as_str(), "-H" | "-L" | "-P") {
                continue;
            }
            break;
        }
        roots.push(*w);
    }
    roots
}

/// `find` tests that take the next word as their value (`-name -delete` names a file `-delete`).
pub(super) const FIND_VALUED: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-regextype",
    "-type",
    "-xtype",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-inum",
    "-samefile",
    "-newer",
    "-anewer",
    "-cnewer",
    "-perm",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-links",
    "-maxdepth",
    "-mindepth",
    "-lname",
    "-ilname",
    "-fstype",
    "-context",
    "-printf",
    "-fprint",
    "-fprint0",
    "-fls",
    "-used",
    "-files0-from",
];

/// Whether `find`'s expression may select a starting point itself (find acts on its roots as on
/// what is under them): no test that a folder's own name, type, depth or age must pass.
pub(super) fn find_may_match_root(texts: &[String]) -> bool {
    const EXCLUDING: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-type",
        "-xtype",
        "-mindepth",
        "-newer",
        "-anewer",
        "-cnewer",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-size",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-perm",
        "-inum",
        "-samefile",
        "-links",
        "-lname",
        "-ilname",
    ];
    !texts.iter().any(|t| EXCLUDING.contains(&t.as_str()) || t.starts_with("-newer"))
}

pub(super) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `*`, `?` and `[…]` (any one character) and `{a,b}` alternatives.
///
/// Why not the crate's glob matcher (`pathtext`, globset): this reads a glob *word of a shell
/// command* (`rm -rf .t*`, `find -name 'tlc.d?'`), not a configured pattern, and must answer
/// "could this word reach that name?" — never "no" where the shell might say yes. So it
/// over-approximates on purpose: a `[…]` class is any one character, `*` also crosses a `/`, and
/// it works on the word's bytes. globset matches a pattern exactly (a class is its class, `*`
/// stops at `/` or not as configured), and would compile a regex per word on the hook's path.
pub(crate) fn shell_glob_match(pattern: &str, text: &str) -> bool {
    if let (Some(open), Some(close)) = (pattern.find('{'), pattern.find('}')) {
        if open < close {
            let (head, tail) = (&pattern[..open], &pattern[close + 1..]);
            return pattern[open + 1..close]
                .split(',')
                .take(64)
                .any(|alt| shell_glob_match(&format!("{head}{alt}{tail}"), text));
        }
    }
    let mut simple = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '[' {
            for d in chars.by_ref() {
                if d == ']' {
                    break;
                }
            }
            simple.push('?');
        } else {
            simple.push(c);
        }
    }
    glob(simple.as_bytes(), text.as_bytes())
}

pub(super) fn glob(p: &[u8], t: &[u8]) -> bool {
    let (mut pi, mut ti, mut star, mut mark) = (0usize, 0usize, None::<usize>, 0usize);
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if pi < p.len() && (p[pi] == b'?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

/// `a` and `b` are the same path. Both are normalised, so their bytes say it: `Path`'s own `==`
/// compares component by component, a cost the floor paid dozens of times per command.
pub(super) fn same(a: &Path, b: &Path) -> bool {
    trimmed(a) == trimmed(b)
}

/// A path's bytes without a trailing `/` (the root keeps its own).
fn trimmed(p: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    let b = p.as_os_str().as_bytes();
    if b.len() > 1 && b.ends_with(b"/") {
        &b[..b.len() - 1]
    } else {
        b
    }
}

/// `p` is `dir` or inside it. Both are normalised, so comparing bytes at a `/` boundary is the
/// same as comparing components, and much cheaper on the hook's path.
pub(super) fn under(p: &Path, dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (p, d) = (p.as_os_str().as_bytes(), trimmed(dir));
    p.starts_with(d) && (p.len() == d.len() || d == b"/" || p[d.len()] == b'/')
}
