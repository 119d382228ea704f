//! What an interpreter one-liner does, read from its code without running it: the command lines
//! it hands to a shell or runs as a program (`os.system`, `subprocess.run`, `pty.spawn`,
//! `system`, backticks, `child_process.execSync`, …) and the paths it removes (`shutil.rmtree`,
//! `os.remove`, `fs.rmSync`, `FileUtils.rm_rf`, `unlink`, …).
//!
//! A pure function over text: a small lexer finds each call of a known name and reads its first
//! argument. A string literal, or a list of them, is what the call acts on; anything else (a
//! variable, a concatenation, an f-string with a field, `os.path.join`) is only known at run time,
//! and the call is reported as such, so the floor can refuse what it cannot prove.

/// One thing the code does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CodeAct {
    /// Runs a command line through a shell, or a program with its arguments (joined, quoted, as
    /// one command line); `None` when the command is built at run time.
    Runs { call: &'static str, line: Option<String> },
    /// Removes a path (`tree`: everything under it); `None` when the path is built at run time.
    Removes {
        call: &'static str,
        path: Option<String>,
        tree: bool,
    },
}

/// The language an interpreter speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    Perl,
    Ruby,
    JavaScript,
    Php,
    AppleScript,
    Awk,
    Other,
}

impl Lang {
    pub(crate) fn of(program: &str) -> Lang {
        match program {
            p if p.starts_with("python") || p == "pypy" || p == "pypy3" => Lang::Python,
            "perl" => Lang::Perl,
            "ruby" | "irb" => Lang::Ruby,
            "node" | "nodejs" | "deno" | "bun" => Lang::JavaScript,
            "php" => Lang::Php,
            "osascript" => Lang::AppleScript,
            "awk" | "gawk" | "mawk" | "nawk" => Lang::Awk,
            _ => Lang::Other,
        }
    }
}

/// How a call's argument becomes a command or a removal.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The argument is a shell command line.
    Shell,
    /// The argument is a program name or an argv list; a second list argument is its arguments.
    Argv,
    Remove,
    RemoveTree,
}

/// The calls each language acts through. A name matches at a word boundary, a `.`-qualified
/// name by its last parts (`subprocess.run` also as `run` after `from subprocess import run`
/// would be ambiguous, so only the qualified forms and unambiguous bare names are listed).
fn calls(lang: Lang) -> &'static [(&'static str, Kind)] {
    use Kind::*;
    match lang {
        Lang::Python => &[
            ("os.system", Shell),
            ("os.popen", Shell),
            ("subprocess.run", Argv),
            ("subprocess.call", Argv),
            ("subprocess.check_call", Argv),
            ("subprocess.check_output", Argv),
            ("subprocess.Popen", Argv),
            ("subprocess.getoutput", Shell),
            ("subprocess.getstatusoutput", Shell),
            ("commands.getoutput", Shell),
            ("pty.spawn", Argv),
            ("os.execv", Argv),
            ("os.execvp", Argv),
            ("os.execve", Argv),
            ("os.execvpe", Argv),
            ("os.execl", Argv),
            ("os.execlp", Argv),
            ("os.spawnv", Argv),
            ("os.spawnvp", Argv),
            ("os.posix_spawn", Argv),
            ("os.posix_spawnp", Argv),
            ("shutil.rmtree", RemoveTree),
            ("os.remove", Remove),
            ("os.unlink", Remove),
            ("os.rmdir", Remove),
            ("os.removedirs", RemoveTree),
            ("Path", Remove),
        ],
        Lang::Perl => &[
            ("system", Argv),
            ("exec", Argv),
            ("unlink", Remove),
            ("rmdir", Remove),
            ("rmtree", RemoveTree),
            ("remove_tree", RemoveTree),
        ],
        Lang::Ruby => &[
            ("system", Argv),
            ("exec", Argv),
            ("spawn", Argv),
            ("IO.popen", Shell),
            ("Open3.capture2", Shell),
            ("Open3.capture2e", Shell),
            ("Open3.capture3", Shell),
            ("Open3.popen3", Shell),
            ("FileUtils.rm_rf", RemoveTree),
            ("FileUtils.rm_r", RemoveTree),
            ("FileUtils.remove_dir", RemoveTree),
            ("FileUtils.rmtree", RemoveTree),
            ("FileUtils.rm", Remove),
            ("FileUtils.rm_f", Remove),
            ("File.delete", Remove),
            ("File.unlink", Remove),
            ("Dir.rmdir", Remove),
            ("Dir.delete", Remove),
        ],
        Lang::JavaScript => &[
            ("execSync", Shell),
            ("exec", Shell),
            ("execFileSync", Argv),
            ("execFile", Argv),
            ("spawnSync", Argv),
            ("spawn", Argv),
            ("Bun.spawn", Argv),
            ("Bun.spawnSync", Argv),
            ("Deno.run", Argv),
            ("Deno.Command", Argv),
            ("rmSync", RemoveTree),
            ("rm", RemoveTree),
            ("rmdirSync", RemoveTree),
            ("rmdir", RemoveTree),
            ("unlinkSync", Remove),
            ("unlink", Remove),
            ("Deno.remove", RemoveTree),
            ("Deno.removeSync", RemoveTree),
            // JavaScript for Automation (`osascript -l JavaScript`).
            ("$.system", Shell),
            ("doShellScript", Shell),
        ],
        Lang::Php => &[
            ("system", Shell),
            ("exec", Shell),
            ("shell_exec", Shell),
            ("passthru", Shell),
            ("popen", Shell),
            ("proc_open", Shell),
            ("unlink", Remove),
            ("rmdir", Remove),
        ],
        Lang::AppleScript => &[("do shell script", Shell)],
        Lang::Awk => &[("system", Shell)],
        Lang::Other => &[],
    }
}

/// A token of the code: a string literal's text (`None` when it holds an interpolation), or
/// any other byte run.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(Option<String>),
    /// A run of identifier characters and dots (`os.path.join`).
    Name(String),
    Punct(char),
}

/// Splits code into tokens: strings in `'…'`, `"…"`, `` `…` `` (and Python's triple quotes and
/// prefixes), names, and single punctuation characters; whitespace and comments dropped.
fn lex(code: &str, lang: Lang) -> Vec<Tok> {
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let line_comment = (c == '#' && matches!(lang, Lang::Python | Lang::Perl | Lang::Ruby))
            || (c == '/' && b.get(i + 1) == Some(&'/') && matches!(lang, Lang::JavaScript | Lang::Php));
        if line_comment {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '$' && lang == Lang::JavaScript {
            let start = i;
            // The first character is taken whatever it is (a JavaScript `$`), so the loop always
            // moves on: a name that could be empty would never end.
            i += 1;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '.' || b[i] == '$' && lang == Lang::JavaScript) {
                i += 1;
            }
            let name: String = b[start..i].iter().collect();
            // Python string prefixes: r'…', f"…", b'…', rb"…".
            if lang == Lang::Python
                && i < b.len()
                && (b[i] == '\'' || b[i] == '"')
                && name.len() <= 2
                && name.chars().all(|c| "rRbBfFuU".contains(c))
            {
                let (s, next) = string(&b, i, lang, name.to_ascii_lowercase().contains('f'));
                out.push(Tok::Str(s));
                i = next;
                continue;
            }
            out.push(Tok::Name(name));
            continue;
        }
        if c == '\'' || c == '"' || c == '`' {
            let (s, next) = string(&b, i, lang, false);
            out.push(Tok::Str(s));
            i = next;
            continue;
        }
        out.push(Tok::Punct(c));
        i += 1;
    }
    out
}

/// The string literal starting at `b[i]` (a quote): its text, and the index after it. Text with
/// an interpolation (`${x}` in JavaScript backticks, `#{x}` in Ruby, `$x` in Perl/PHP double
/// quotes, a field of a Python f-string) is `None`.
fn string(b: &[char], i: usize, lang: Lang, fstring: bool) -> (Option<String>, usize) {
    let q = b[i];
    let triple = lang == Lang::Python && b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    let mut k = if triple { i + 3 } else { i + 1 };
    let mut text = String::new();
    let mut dynamic = false;
    while k < b.len() {
        let c = b[k];
        if triple && c == q && b.get(k + 1) == Some(&q) && b.get(k + 2) == Some(&q) {
            return ((!dynamic).then_some(text), k + 3);
        }
        if !triple && c == q {
            return ((!dynamic).then_some(text), k + 1);
        }
        if c == '\\' && k + 1 < b.len() {
            let n = b[k + 1];
            text.push(match n {
                'n' => '\n',
                't' => '\t',
                other => other,
            });
            k += 2;
            continue;
        }
        let interpolates = match lang {
            Lang::Python => fstring && c == '{' && b.get(k + 1) != Some(&'{'),
            Lang::JavaScript => q == '`' && c == '$' && b.get(k + 1) == Some(&'{'),
            Lang::Ruby => q != '\'' && c == '#' && b.get(k + 1) == Some(&'{'),
            Lang::Perl | Lang::Php => {
                q != '\'' && (c == '$' || c == '@') && b.get(k + 1).is_some_and(|n| n.is_alphabetic() || *n == '{' || *n == '_')
            }
            _ => false,
        };
        dynamic |= interpolates;
        text.push(c);
        k += 1;
    }
    (None, b.len())
}

/// Quotes a word for a shell command line when it needs it.
fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:@%,".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The argument at `toks[at]` (after the call's `(`, or right after the name): a string, a list
/// of strings (`[…]`, Ruby's `%w[…]` is not read), or something only known at run time.
enum Arg {
    Str(String),
    List(Vec<String>),
    Dynamic,
}

/// Reads one argument starting at `at`; returns it and the index after it.
fn argument(toks: &[Tok], at: usize) -> (Arg, usize) {
    match toks.get(at) {
        Some(Tok::Str(Some(s))) => {
            // A literal followed by `+`, `%`, `.` or `.format` is assembled at run time.
            let next = toks.get(at + 1);
            let assembled = matches!(next, Some(Tok::Punct('+' | '%' | '*'))) || matches!(next, Some(Tok::Name(n)) if n.starts_with('.'));
            if assembled {
                (Arg::Dynamic, at + 1)
            } else {
                (Arg::Str(s.clone()), at + 1)
            }
        }
        Some(Tok::Punct(open @ ('[' | '('))) => {
            let close = if *open == '[' { ']' } else { ')' };
            let mut items = Vec::new();
            let mut k = at + 1;
            loop {
                match toks.get(k) {
                    Some(Tok::Str(Some(s))) => items.push(s.clone()),
                    Some(Tok::Punct(',')) => {}
                    Some(Tok::Punct(c)) if *c == close => return (Arg::List(items), k + 1),
                    _ => return (Arg::Dynamic, k + 1),
                }
                k += 1;
            }
        }
        _ => (Arg::Dynamic, at + 1),
    }
}

/// Everything `code` runs or removes that the floor must see.
pub(crate) fn acts(code: &str, lang: Lang) -> Vec<CodeAct> {
    let table = calls(lang);
    if table.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    if lang == Lang::AppleScript {
        // `do shell script "…"`.
        let toks = lex(code, Lang::Other);
        for (k, t) in toks.iter().enumerate() {
            if matches!(t, Tok::Name(n) if n == "script")
                && k >= 2
                && matches!(&toks[k - 1], Tok::Name(n) if n == "shell")
                && matches!(&toks[k - 2], Tok::Name(n) if n == "do")
            {
                let line = match toks.get(k + 1) {
                    Some(Tok::Str(Some(s))) => Some(s.clone()),
                    _ => None,
                };
                out.push(CodeAct::Runs {
                    call: "do shell script",
                    line,
                });
            }
        }
        return out;
    }
    if lang == Lang::Perl {
        out.extend(perl_qx(code));
    }
    if lang == Lang::Awk {
        return awk_acts(code);
    }
    let toks = lex(code, lang);
    for (k, t) in toks.iter().enumerate() {
        // Backticks (Perl, Ruby, PHP) and `%x(…)`/`qx(…)` run their text through a shell.
        if let Tok::Str(s) = t {
            let backtick = code_backtick_at(code, lang, &toks, k);
            if backtick {
                out.push(CodeAct::Runs {
                    call: "backticks",
                    line: s.clone(),
                });
            }
            continue;
        }
        let Tok::Name(name) = t else { continue };
        let Some((call, kind)) = table.iter().find(|(c, _)| name == c || name.ends_with(&format!(".{c}"))) else {
            continue;
        };
        // A method of another object is not the function: PHP's `$db->exec(…)`, `X::exec(…)`,
        // JavaScript's `/re/.exec(…)` on a regular expression.
        let before = |n: usize| k.checked_sub(n).and_then(|i| toks.get(i));
        let method = match lang {
            Lang::Php => matches!((before(2), before(1)), (Some(Tok::Punct('-' | ':')), Some(Tok::Punct('>' | ':')))),
            Lang::JavaScript => matches!(before(1), Some(Tok::Punct('.'))) && !matches!(before(2), Some(Tok::Punct(')'))),
            _ => false,
        };
        if method {
            continue;
        }
        let after = k + 1;
        let (open, first) = match toks.get(after) {
            Some(Tok::Punct('(')) => (true, after + 1),
            // Perl and Ruby call without parentheses: `system "rm -rf /"`, and with an argument
            // built at run time: `unlink glob("/etc/*")`, `unlink $f`, `system @ARGV`.
            Some(Tok::Str(_)) if matches!(lang, Lang::Perl | Lang::Ruby) => (false, after),
            Some(Tok::Name(_) | Tok::Punct('$' | '@')) if matches!(lang, Lang::Perl | Lang::Ruby) && !method_name(&toks, k) => {
                (false, after)
            }
            Some(Tok::Punct('{')) if *call == "qx" => (true, after + 1),
            _ => continue,
        };
        let _ = open;
        // `Path('x').unlink()` / `.rmdir()`: the path is the constructor's argument.
        if *call == "Path" {
            let (arg, next) = argument(&toks, first);
            let removal = (matches!(toks.get(next), Some(Tok::Punct(')'))) && matches!(toks.get(next + 1), Some(Tok::Punct('.'))))
                .then(|| toks.get(next + 2))
                .flatten()
                .and_then(|t| match t {
                    Tok::Name(m) => Some(m.as_str()),
                    _ => None,
                })
                .filter(|m| matches!(*m, "unlink" | "rmdir"));
            if removal.is_some() {
                out.push(CodeAct::Removes {
                    call: "Path.unlink",
                    path: match arg {
                        Arg::Str(s) => Some(s),
                        _ => None,
                    },
                    tree: false,
                });
            }
            continue;
        }
        let (arg, next) = argument(&toks, first);
        match kind {
            Kind::Shell => out.push(CodeAct::Runs {
                call,
                line: match arg {
                    Arg::Str(s) => Some(s),
                    Arg::List(items) => Some(items.iter().map(|s| quote(s)).collect::<Vec<_>>().join(" ")),
                    Arg::Dynamic => None,
                },
            }),
            Kind::Argv => {
                // One string is a command line; several strings (or a list) are a program and
                // its arguments, each quoted as one word (`spawn('rm', ['-rf', '/'])`).
                let mut words: Vec<String> = Vec::new();
                let mut dynamic = false;
                let mut single = None;
                match arg {
                    Arg::Str(s) => single = Some(s),
                    Arg::List(items) => words = items,
                    Arg::Dynamic => dynamic = true,
                }
                let mut at = next;
                while matches!(toks.get(at), Some(Tok::Punct(','))) {
                    // Keyword arguments (`shell=True`), options objects (`{cwd: x}`): not the
                    // command. Any other argument is one of its words, known or not.
                    let keyword = matches!(toks.get(at + 2), Some(Tok::Punct('=' | ':')))
                        && !matches!(toks.get(at + 3), Some(Tok::Punct('=' | ':')))
                        || matches!(toks.get(at + 1), Some(Tok::Punct('{')));
                    match toks.get(at + 1) {
                        _ if keyword => break,
                        Some(Tok::Str(_) | Tok::Punct('[')) => {
                            let (more, after) = argument(&toks, at + 1);
                            if let Some(s) = single.take() {
                                words.push(s);
                            }
                            match more {
                                Arg::Str(s) => words.push(s),
                                Arg::List(items) => words.extend(items),
                                Arg::Dynamic => dynamic = true,
                            }
                            at = after;
                        }
                        Some(Tok::Punct(')')) | None => break,
                        Some(_) => {
                            dynamic = true;
                            break;
                        }
                    }
                }
                // Python's `subprocess` runs one string without `shell=True` as the name of a
                // program, whole.
                let shell_true = lang == Lang::Python && {
                    let mut depth = 0i32;
                    let mut found = false;
                    let mut j = next;
                    while let Some(t) = toks.get(j) {
                        match t {
                            Tok::Punct('(' | '[' | '{') => depth += 1,
                            Tok::Punct(')' | ']' | '}') if depth == 0 => break,
                            Tok::Punct(')' | ']' | '}') => depth -= 1,
                            Tok::Name(n) if n == "shell" && depth == 0 => {
                                found = matches!(toks.get(j + 1), Some(Tok::Punct('=')))
                                    && !matches!(toks.get(j + 2), Some(Tok::Name(v)) if v == "False" || v == "None");
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    found
                };
                let program_only = lang == Lang::Python && call.starts_with("subprocess.") && !shell_true;
                // A program whose name holds a space (`run("rm -rf /")`) is none an agent has.
                if program_only && single.as_deref().is_some_and(|s| s.contains(char::is_whitespace)) {
                    continue;
                }
                let line = if dynamic {
                    None
                } else if let Some(s) = single {
                    Some(s)
                } else {
                    Some(words.iter().map(|s| quote(s)).collect::<Vec<_>>().join(" "))
                };
                out.push(CodeAct::Runs { call, line });
            }
            Kind::Remove | Kind::RemoveTree => out.push(CodeAct::Removes {
                call,
                path: match arg {
                    Arg::Str(s) => Some(s),
                    _ => None,
                },
                tree: *kind == Kind::RemoveTree,
            }),
        }
    }
    out
}

/// Whether the name at `toks[k]` is a variable's or a hash key's rather than a call: `$system`,
/// `@exec`, `%unlink`, `{system}`, `system =>`, `->system`.
fn method_name(toks: &[Tok], k: usize) -> bool {
    let before = k.checked_sub(1).and_then(|i| toks.get(i));
    matches!(before, Some(Tok::Punct('$' | '@' | '%' | '>' | '{' | ':' | '&')))
        || matches!(toks.get(k + 1), Some(Tok::Punct('=' | ',' | ';' | '}' | ')')))
}

/// Perl's `qx` with any delimiter (`qx{…}`, `qx(…)`, `qx[…]`, `qx<…>`, `qx!…!`, `qx/…/`): its
/// text is a shell command line; one that interpolates (`$x`, `@x`) is only known at run time.
fn perl_qx(code: &str) -> Vec<CodeAct> {
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        let word_before = i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_' || b[i - 1] == '$' || b[i - 1] == '@' || b[i - 1] == '%');
        if b[i] != 'q' || b[i + 1] != 'x' || word_before {
            i += 1;
            continue;
        }
        let mut k = i + 2;
        while k < b.len() && b[k].is_whitespace() {
            k += 1;
        }
        // `qx => 1` is a hash key, `qx_y` a name.
        let Some(&open) = b.get(k) else { break };
        if open.is_alphanumeric() || open == '_' || open == ',' || open == ';' || (open == '=' && b.get(k + 1) == Some(&'>')) {
            i += 2;
            continue;
        }
        let close = match open {
            '{' => '}',
            '(' => ')',
            '[' => ']',
            '<' => '>',
            c => c,
        };
        let mut depth = 0usize;
        let mut j = k + 1;
        let mut text = String::new();
        while j < b.len() {
            let c = b[j];
            if c == '\\' && j + 1 < b.len() {
                text.push(b[j + 1]);
                j += 2;
                continue;
            }
            if c == close && depth == 0 {
                break;
            }
            if open != close {
                if c == open {
                    depth += 1;
                } else if c == close {
                    depth -= 1;
                }
            }
            text.push(c);
            j += 1;
        }
        let interpolates = open != '\''
            && text.char_indices().any(|(n, c)| {
                (c == '$' || c == '@')
                    && text[n + c.len_utf8()..]
                        .chars()
                        .next()
                        .is_some_and(|d| d.is_alphabetic() || d == '{' || d == '_')
            });
        out.push(CodeAct::Runs {
            call: "qx",
            line: (!interpolates).then_some(text),
        });
        i = j + 1;
    }
    out
}

/// What an awk program runs: `system("…")`, the command of `print … | "cmd"` and of
/// `"cmd" | getline`, and — when that command is a shell reading its program from stdin — the
/// text printed into it (a literal, or a variable the program assigns one literal once).
fn awk_acts(code: &str) -> Vec<CodeAct> {
    let toks = lex(code, Lang::Other);
    let mut out = Vec::new();
    // Variables assigned one literal string exactly once.
    let mut assigned: Vec<(String, Option<String>)> = Vec::new();
    for k in 0..toks.len() {
        if let (Tok::Name(n), Some(Tok::Punct('=')), next) = (&toks[k], toks.get(k + 1), toks.get(k + 2)) {
            if matches!(toks.get(k + 2), Some(Tok::Punct('='))) || k > 0 && matches!(toks[k - 1], Tok::Punct('=' | '!' | '<' | '>')) {
                continue;
            }
            let value = match (next, toks.get(k + 3)) {
                (Some(Tok::Str(Some(s))), Some(Tok::Punct(';' | '}' | '\n')) | None) => Some(s.clone()),
                _ => None,
            };
            match assigned.iter_mut().find(|(m, _)| m == n) {
                Some(entry) => entry.1 = None,
                None => assigned.push((n.clone(), value)),
            }
        }
    }
    let value_of = |t: &Tok| -> Option<String> {
        match t {
            Tok::Str(s) => s.clone(),
            Tok::Name(n) => assigned.iter().find(|(m, _)| m == n).and_then(|(_, v)| v.clone()),
            _ => None,
        }
    };
    for k in 0..toks.len() {
        match &toks[k] {
            Tok::Name(n) if n == "system" && matches!(toks.get(k + 1), Some(Tok::Punct('('))) => {
                out.push(CodeAct::Runs {
                    call: "system",
                    line: toks.get(k + 2).and_then(value_of),
                });
            }
            // `… | "cmd"` (and gawk's `|&`) after print/printf; `"cmd" | getline`.
            Tok::Punct('|')
                if !matches!(toks.get(k + 1), Some(Tok::Punct('|')))
                    && !matches!(k.checked_sub(1).map(|i| &toks[i]), Some(Tok::Punct('|'))) =>
            {
                let target_at = if matches!(toks.get(k + 1), Some(Tok::Punct('&'))) {
                    k + 2
                } else {
                    k + 1
                };
                if matches!(toks.get(target_at), Some(Tok::Name(n)) if n == "getline") {
                    let line = k.checked_sub(1).and_then(|i| value_of(&toks[i]));
                    out.push(CodeAct::Runs { call: "getline", line });
                    continue;
                }
                // The statement's start: the nearest print/printf before the pipe.
                let Some(start) = (0..k)
                    .rev()
                    .take_while(|&i| !matches!(toks[i], Tok::Punct(';' | '{' | '}')))
                    .find(|&i| matches!(&toks[i], Tok::Name(n) if n == "print" || n == "printf"))
                else {
                    continue;
                };
                let target = toks.get(target_at).and_then(value_of);
                out.push(CodeAct::Runs {
                    call: "print |",
                    line: target.clone(),
                });
                if target.as_deref().is_some_and(runs_stdin_as_shell) {
                    out.push(CodeAct::Runs {
                        call: "print | sh",
                        line: printed(&toks[start..k], &value_of),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a command line is a shell that reads its program from stdin (`sh`, `bash -e`,
/// `sh -s arg`, `sudo sh`): no `-c` and no script operand.
fn runs_stdin_as_shell(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() && matches!(words[i].rsplit('/').next(), Some("sudo" | "env" | "doas" | "command" | "exec")) {
        i += 1;
    }
    let Some(program) = words.get(i).map(|w| w.rsplit('/').next().unwrap_or(w)) else {
        return false;
    };
    if !matches!(program, "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash" | "mksh") {
        return false;
    }
    let mut stdin = false;
    for w in &words[i + 1..] {
        if w.starts_with('-') && !w.starts_with("--") {
            if w.contains('c') {
                return false;
            }
            stdin |= w.contains('s');
            continue;
        }
        // An operand: a script file, unless `-s` made the rest arguments.
        return stdin;
    }
    true
}

/// The text `print`/`printf` writes, when it is literal: the printed strings (`,` joins with a
/// space, juxtaposition concatenates), a `printf` format without conversions.
fn printed(stmt: &[Tok], value_of: &dyn Fn(&Tok) -> Option<String>) -> Option<String> {
    let (first, rest) = stmt.split_first()?;
    let is_printf = matches!(first, Tok::Name(n) if n == "printf");
    let mut text = String::new();
    for t in rest {
        match t {
            Tok::Punct('(' | ')') => {}
            Tok::Punct(',') => text.push(' '),
            Tok::Str(_) | Tok::Name(_) => text.push_str(&value_of(t)?),
            _ => return None,
        }
    }
    if is_printf && text.contains('%') {
        return None;
    }
    if !is_printf {
        text.push('\n');
    }
    Some(text)
}

/// Whether the string token `toks[k]` was written in backticks (or `%x(…)`) in a language where
/// that runs a shell. The lexer drops the quote, so the code is looked at again.
fn code_backtick_at(code: &str, lang: Lang, toks: &[Tok], k: usize) -> bool {
    if !matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php) {
        return false;
    }
    // Count the string tokens before this one and find the same one in the code by order.
    let nth = toks[..k].iter().filter(|t| matches!(t, Tok::Str(_))).count();
    let b: Vec<char> = code.chars().collect();
    let mut seen = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '\'' || c == '"' || c == '`' {
            if seen == nth {
                return c == '`';
            }
            seen += 1;
            let (_, next) = string(&b, i, lang, false);
            i = next;
            continue;
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(code: &str, lang: Lang) -> Vec<Option<String>> {
        acts(code, lang)
            .into_iter()
            .filter_map(|a| match a {
                CodeAct::Runs { line, .. } => Some(line),
                _ => None,
            })
            .collect()
    }

    fn removes(code: &str, lang: Lang) -> Vec<Option<String>> {
        acts(code, lang)
            .into_iter()
            .filter_map(|a| match a {
                CodeAct::Removes { path, .. } => Some(path),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn python_calls_are_read() {
        assert_eq!(
            runs("import os; os.system('rm -rf /')", Lang::Python),
            [Some("rm -rf /".to_string())]
        );
        assert_eq!(
            runs("import subprocess; subprocess.run(['rm', '-rf', '/home/x'])", Lang::Python),
            [Some("rm -rf /home/x".to_string())]
        );
        assert_eq!(
            runs(
                "import pty,os; os.environ.pop('CLAUDECODE',None); pty.spawn(['tlc','pause'])",
                Lang::Python
            ),
            [Some("tlc pause".to_string())]
        );
        assert_eq!(runs("import os; os.system(cmd)", Lang::Python), [None]);
        assert_eq!(runs("os.system('rm -rf ' + d)", Lang::Python), [None]);
        assert_eq!(runs("os.system(f'rm -rf {d}')", Lang::Python), [None]);
        assert_eq!(
            removes("import shutil; shutil.rmtree('/home/user')", Lang::Python),
            [Some("/home/user".to_string())]
        );
        assert_eq!(removes("shutil.rmtree(os.path.join('.t'+'lc', 'x'))", Lang::Python), [None]);
        assert_eq!(
            removes("from pathlib import Path; Path('/etc/x').unlink()", Lang::Python),
            [Some("/etc/x".to_string())]
        );
        assert!(
            acts("print('os.system(\"rm -rf /\")')", Lang::Python).is_empty(),
            "text in a string is not a call"
        );
        assert!(acts("import json; print(json.dumps({'a': 1}))", Lang::Python).is_empty());
    }

    #[test]
    fn perl_ruby_node_php_and_applescript_calls_are_read() {
        assert_eq!(runs("system(\"rm -rf /home\")", Lang::Perl), [Some("rm -rf /home".to_string())]);
        assert_eq!(runs("system \"rm -rf /home\"", Lang::Perl), [Some("rm -rf /home".to_string())]);
        assert_eq!(runs("my $x = `rm -rf /`;", Lang::Perl), [Some("rm -rf /".to_string())]);
        assert_eq!(removes("unlink('/etc/passwd')", Lang::Perl), [Some("/etc/passwd".to_string())]);
        assert_eq!(runs("system('rm', '-rf', '/')", Lang::Ruby), [Some("rm -rf /".to_string())]);
        assert_eq!(
            removes("require 'fileutils'; FileUtils.rm_rf('/home/u')", Lang::Ruby),
            [Some("/home/u".to_string())]
        );
        assert_eq!(
            runs("require('child_process').execSync('rm -rf /')", Lang::JavaScript),
            [Some("rm -rf /".to_string())]
        );
        assert_eq!(
            runs(
                "const {spawn} = require('child_process'); spawn('rm', ['-rf', '/'])",
                Lang::JavaScript
            ),
            [Some("rm -rf /".to_string())]
        );
        assert_eq!(runs("execSync(`rm -rf ${d}`)", Lang::JavaScript), [None]);
        // Found by the property test: a lone `$` once lexed as an empty name forever.
        assert_eq!(runs("$", Lang::JavaScript), Vec::<Option<String>>::new());
        assert_eq!(runs("$.x; $('a')", Lang::JavaScript), Vec::<Option<String>>::new());
        assert_eq!(
            removes("require('fs').rmSync('/home/u', {recursive: true})", Lang::JavaScript),
            [Some("/home/u".to_string())]
        );
        assert_eq!(runs("system('tlc pause');", Lang::Php), [Some("tlc pause".to_string())]);
        assert_eq!(
            runs("do shell script \"rm -rf ~\"", Lang::AppleScript),
            [Some("rm -rf ~".to_string())]
        );
        assert!(acts("console.log('hi')", Lang::JavaScript).is_empty());
    }

    #[test]
    fn any_code_lexes_without_panicking() {
        for code in ["'", "\"\"\"", "f'{", "system(", "[", "os.system([", "`", "\\", "Path(", "qx{"] {
            for lang in [Lang::Python, Lang::Perl, Lang::Ruby, Lang::JavaScript, Lang::Php, Lang::AppleScript] {
                let _ = acts(code, lang);
            }
        }
    }
}

/// `code` with each reference to its own command-line arguments replaced by the argument's text as
/// a string literal: `perl -e 'system($ARGV[0])' 'rm -rf ~'` runs `rm -rf ~`, and the floor
/// must read it as if written in the code. `args` are the words after the code (`None`: only
/// known at run time, left as a reference, which the reader takes as built at run time).
/// References: Perl `$ARGV[N]` and `@ARGV`, Python `sys.argv[N]` and `sys.argv[1:]`, Ruby
/// `ARGV[N]` and `*ARGV`, JavaScript `process.argv[N]` (after `-e`), PHP `$argv[N]`.
pub(crate) fn with_arguments(code: &str, lang: Lang, args: &[Option<String>]) -> String {
    let literal = |s: &str| format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"));
    let all = || -> Option<String> {
        let items: Option<Vec<String>> = args.iter().map(|a| a.as_deref().map(literal)).collect();
        items.map(|i| i.join(", "))
    };
    // (the reference's text before the index, the index of the first argument, the whole list's
    // spellings and what each stands for)
    let (indexed, first, lists): (&str, usize, &[(&str, &str, &str)]) = match lang {
        Lang::Perl => ("$ARGV[", 0, &[("@ARGV", "(", ")")]),
        Lang::Python => ("sys.argv[", 1, &[("sys.argv[1:]", "[", "]")]),
        Lang::Ruby => ("ARGV[", 0, &[("*ARGV", "", ""), ("ARGV", "[", "]")]),
        Lang::JavaScript => ("process.argv[", 1, &[("process.argv.slice(1)", "[", "]")]),
        Lang::Php => ("$argv[", 1, &[]),
        _ => return code.to_string(),
    };
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    'scan: while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(indexed) {
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let value = after[..digits]
                .parse::<usize>()
                .ok()
                .filter(|_| after[digits..].starts_with(']'))
                .and_then(|n| n.checked_sub(first))
                .and_then(|n| args.get(n))
                .and_then(|a| a.as_deref());
            if let Some(v) = value {
                out.push_str(&literal(v));
                rest = &after[digits + 1..];
                continue;
            }
        }
        for (list, open, close) in lists {
            if let Some(after) = rest.strip_prefix(list) {
                if let Some(items) = all() {
                    out.push_str(open);
                    out.push_str(&items);
                    out.push_str(close);
                    rest = after;
                    continue 'scan;
                }
            }
        }
        let ch = rest.chars().next().unwrap_or(' ');
        out.push(ch);
        rest = &rest[ch.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod argument_tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<Option<String>> {
        a.iter().map(|s| Some(s.to_string())).collect()
    }

    #[test]
    fn references_to_the_code_s_own_arguments_become_their_text() {
        let a = args(&["rm -rf ~", "x'y"]);
        assert_eq!(
            with_arguments("system(\"bash\",\"-c\",$ARGV[0])", Lang::Perl, &a),
            "system(\"bash\",\"-c\",'rm -rf ~')"
        );
        assert_eq!(with_arguments("system(@ARGV)", Lang::Perl, &a), "system(('rm -rf ~', 'x\\'y'))");
        assert_eq!(with_arguments("os.system(sys.argv[1])", Lang::Python, &a), "os.system('rm -rf ~')");
        assert_eq!(with_arguments("system(ARGV[1])", Lang::Ruby, &a), "system('x\\'y')");
        assert_eq!(
            with_arguments("execSync(process.argv[1])", Lang::JavaScript, &a),
            "execSync('rm -rf ~')"
        );
        assert_eq!(with_arguments("system($argv[1]);", Lang::Php, &a), "system('rm -rf ~');");
        // Out of range, unknown, or not an index: left for the reader to take as dynamic.
        assert_eq!(with_arguments("os.system(sys.argv[5])", Lang::Python, &a), "os.system(sys.argv[5])");
        assert_eq!(with_arguments("os.system(sys.argv[i])", Lang::Python, &a), "os.system(sys.argv[i])");
        assert_eq!(with_arguments("system($ARGV[0])", Lang::Perl, &[None]), "system($ARGV[0])");
    }
}
