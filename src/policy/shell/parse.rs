//! A shell command line split into the simple commands it runs: quotes, escapes, heredocs,
//! here-strings, `$()`, backticks, process substitution, `;`, `&`, `&&`, `||`, `|`, newlines and
//! the compound commands (`if`, `while`, `until`, `for`, `case`, `{ }`, `( )`, functions, `[[ ]]`,
//! `(( ))`).
//!
//! invariant: every input either splits exactly as bash would split it or is an error. The floor
//! denies an error; it never guesses. Time is linear in the input and nesting is bounded by
//! [`MAX_DEPTH`], so no input can exhaust the stack or the hook's time.

use std::fmt;

/// How deep substitutions, subshells and compound commands may nest before the line is refused.
pub(crate) const MAX_DEPTH: usize = 48;
/// The most simple commands one command line (or one substitution in it) may hold: far more than
/// any command an agent writes (a 16 MiB line of `ls;` is four million), so that checking a line
/// always ends long before the provider's hook timeout.
pub(crate) const MAX_COMMANDS: usize = 20_000;

/// A command line: its simple commands, in the order they appear (compound bodies flattened).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    pub(crate) commands: Vec<Command>,
}

/// One simple command: `NAME=value … word… redirection…`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Command {
    pub assigns: Vec<(String, Word)>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Commands of the same script whose output reaches this one's input through a pipe (earlier
    /// pipeline stages, including those around an enclosing compound command).
    pub upstream: Vec<usize>,
    /// `&&` or `||` after the pipeline this command ends (`None` after `;`, `&`, a newline, or
    /// when it does not end one).
    pub connector: Connector,
    /// With a connector: the index of the first command after the whole `&&`/`||` list, where
    /// what the connector made conditional stops being so.
    pub list_end: usize,
}

/// What joins a pipeline to the next one of its list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Connector {
    #[default]
    None,
    And,
    Or,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Redirect {
    pub fd: Option<u32>,
    pub op: RedirOp,
    pub target: RedirTarget,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirOp {
    /// `<`
    Read,
    /// `>` and `>|`
    Write,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `<&`, `>&` (a descriptor, or with a path a write like `>`)
    Dup,
    /// `&>`
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `<<`, `<<-`
    HereDoc,
    /// `<<<`
    HereString,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RedirTarget {
    Word(Word),
    HereDoc(HereDoc),
    /// A heredoc whose body is read at the next newline (resolved before [`parse`] returns).
    Pending(usize),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct HereDoc {
    pub body: String,
    /// The delimiter was unquoted: `$`, backticks and `$()` in the body are expanded.
    pub expands: bool,
    /// The command substitutions an expanding body runs.
    pub subs: Vec<Script>,
}

/// A word as the shell will see it before expansion.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Word {
    pub pieces: Vec<Piece>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    /// Unquoted text (glob and brace characters in it are live).
    Lit(String),
    /// Quoted or escaped text: literal.
    Quoted(String),
    /// A leading `~` or `~user`.
    Tilde(String),
    /// `$name` or `${…}`: the name, or the whole `${…}` text when it is more than a name.
    Param(String),
    /// `$(…)` or a backtick substitution.
    Subst(Script),
    /// `<(…)` (`input` true) or `>(…)`.
    Proc { script: Script, input: bool },
    /// `$((…))`.
    Arith,
}

impl Word {
    /// The text when it is a literal known before the command runs (quotes removed).
    /// Borrowed when the word is one piece, as most words are: the floor asks it of every word
    /// several times, and a copy each time was a fifth of its allocations.
    pub(crate) fn literal(&self) -> Option<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        match self.pieces.as_slice() {
            [] => Some(Cow::Borrowed("")),
            [Piece::Lit(s) | Piece::Quoted(s)] => Some(Cow::Borrowed(s)),
            pieces => {
                let mut out = String::new();
                for p in pieces {
                    match p {
                        Piece::Lit(s) | Piece::Quoted(s) => out.push_str(s),
                        _ => return None,
                    }
                }
                Some(Cow::Owned(out))
            }
        }
    }

    /// The text with quotes removed and every expansion written as it was typed: for reading a
    /// word as data (a pattern to look for, a string to match), never as a value.
    pub(crate) fn text(&self) -> String {
        let mut out = String::with_capacity(
            self.pieces
                .iter()
                .map(|p| match p {
                    Piece::Lit(s) | Piece::Quoted(s) | Piece::Tilde(s) | Piece::Param(s) => s.len() + 1,
                    _ => 8,
                })
                .sum(),
        );
        for p in &self.pieces {
            match p {
                Piece::Lit(s) | Piece::Quoted(s) => out.push_str(s),
                Piece::Tilde(u) => {
                    out.push('~');
                    out.push_str(u);
                }
                Piece::Param(n) => {
                    out.push('$');
                    out.push_str(n);
                }
                Piece::Subst(_) => out.push_str("$(…)"),
                Piece::Proc { .. } => out.push_str("<(…)"),
                Piece::Arith => out.push_str("$((…))"),
            }
        }
        out
    }

    /// The command substitutions and process substitutions inside this word.
    pub(crate) fn scripts(&self) -> impl Iterator<Item = &Script> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Subst(s) | Piece::Proc { script: s, .. } => Some(s),
            _ => None,
        })
    }

    fn push_lit(&mut self, c: char) {
        if let Some(Piece::Lit(s)) = self.pieces.last_mut() {
            s.push(c);
        } else {
            // Room for a typical word: it grows a character at a time.
            let mut lit = String::with_capacity(16);
            lit.push(c);
            self.pieces.push(Piece::Lit(lit));
        }
    }

    fn push_quoted(&mut self, text: &str) {
        if let Some(Piece::Quoted(s)) = self.pieces.last_mut() {
            s.push_str(text);
        } else {
            self.pieces.push(Piece::Quoted(text.to_string()));
        }
    }

    fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The word when it is one unquoted literal (a reserved word or an operator-like word).
    fn bare(&self) -> Option<&str> {
        match self.pieces.as_slice() {
            [Piece::Lit(s)] => Some(s),
            _ => None,
        }
    }
}

/// Why a command line could not be split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub(crate) message: String,
    /// Byte offset where it was noticed.
    pub(crate) at: usize,
    /// The text ends inside a quote, a substitution or a compound command it opened (not a
    /// heredoc, which bash runs to the end of the text): bash refuses such a line too, and runs
    /// nothing from the line where the unfinished part starts.
    pub(crate) unfinished: bool,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.at)
    }
}

impl std::error::Error for ParseError {}

/// Splits `src` into its simple commands, or says why it cannot.
pub fn parse(src: &str) -> Result<Script, ParseError> {
    parse_at_depth(src, 0)
}

fn parse_at_depth(src: &str, depth: usize) -> Result<Script, ParseError> {
    if let Some(at) = src.find('\0') {
        return Err(ParseError {
            message: "the command contains a NUL byte, which no shell passes on".into(),
            at,
            unfinished: false,
        });
    }
    let mut p = Parser::new(src, depth);
    let mut script = Script::default();
    p.list(&mut script, &Stops::EOF, &[])?;
    if let Some(h) = p.pending.first() {
        return Err(p.err_at(format!("unterminated heredoc: no line `{}` closes it", h.delim), src.len()));
    }
    let mut bodies: Vec<Option<HereDoc>> = std::mem::take(&mut p.bodies).into_iter().map(Some).collect();
    fill_heredocs(&mut script, &mut bodies);
    Ok(script)
}

fn fill_heredocs(script: &mut Script, bodies: &mut [Option<HereDoc>]) {
    for c in &mut script.commands {
        for (_, w) in &mut c.assigns {
            fill_word(w, bodies);
        }
        for w in &mut c.words {
            fill_word(w, bodies);
        }
        for r in &mut c.redirects {
            match &mut r.target {
                RedirTarget::Pending(i) => {
                    let doc = bodies.get_mut(*i).and_then(Option::take).unwrap_or_default();
                    r.target = RedirTarget::HereDoc(doc);
                }
                RedirTarget::Word(w) => fill_word(w, bodies),
                RedirTarget::HereDoc(_) => {}
            }
        }
    }
}

fn fill_word(w: &mut Word, bodies: &mut [Option<HereDoc>]) {
    for p in &mut w.pieces {
        if let Piece::Subst(s) | Piece::Proc { script: s, .. } = p {
            fill_heredocs(s, bodies);
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(Word),
    /// An IO number directly followed by a redirection operator (`2>`).
    IoNumber(u32),
    Op(&'static str),
    Newline,
    Eof,
}

const OPERATORS: &[&str] = &[
    ";;&", "<<<", "<<-", "&>>", "&&", "||", ";;", ";&", "|&", "<<", "<&", "<>", ">>", ">&", ">|", "&>", "|", "&", ";", "(", ")", "<", ">",
];

/// Where a list ends: reserved words at command position and operators.
struct Stops {
    words: &'static [&'static str],
    ops: &'static [&'static str],
    /// End of input ends this list (only the outermost one).
    eof: bool,
}

impl Stops {
    const EOF: Stops = Stops {
        words: &[],
        ops: &[],
        eof: true,
    };
    const PAREN: Stops = Stops {
        words: &[],
        ops: &[")"],
        eof: false,
    };
    const BRACE: Stops = Stops {
        words: &["}"],
        ops: &[],
        eof: false,
    };
    const THEN: Stops = Stops {
        words: &["then"],
        ops: &[],
        eof: false,
    };
    const IF_BODY: Stops = Stops {
        words: &["elif", "else", "fi"],
        ops: &[],
        eof: false,
    };
    const FI: Stops = Stops {
        words: &["fi"],
        ops: &[],
        eof: false,
    };
    const DO: Stops = Stops {
        words: &["do"],
        ops: &[],
        eof: false,
    };
    const DONE: Stops = Stops {
        words: &["done"],
        ops: &[],
        eof: false,
    };
    const CASE_ITEM: Stops = Stops {
        words: &["esac"],
        ops: &[";;", ";&", ";;&"],
        eof: false,
    };
}

const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "do", "done", "case", "esac", "while", "until", "for", "select", "in", "{", "}", "!", "[[", "]]",
    "function", "time", "coproc",
];

struct PendingDoc {
    delim: String,
    strip_tabs: bool,
    expands: bool,
    slot: usize,
}

struct Parser<'a> {
    src: &'a str,
    s: &'a [u8],
    i: usize,
    depth: usize,
    pending: Vec<PendingDoc>,
    bodies: Vec<HereDoc>,
    peeked: Option<(Tok, usize, usize)>,
    /// Inside `[[ … ]]`: `<`, `>`, `(`, `)`, `&&`, `||` are words.
    cond: bool,
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\r'
}

fn is_meta(c: u8) -> bool {
    matches!(c, b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' | b'\n') || is_blank(c)
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, depth: usize) -> Parser<'a> {
        Parser {
            src,
            s: src.as_bytes(),
            i: 0,
            depth,
            pending: Vec::new(),
            bodies: Vec::new(),
            peeked: None,
            cond: false,
        }
    }

    fn err(&self, message: impl Into<String>) -> ParseError {
        self.err_at(message, self.i)
    }

    fn err_at(&self, message: impl Into<String>, at: usize) -> ParseError {
        ParseError {
            message: message.into(),
            at,
            unfinished: false,
        }
    }

    /// [`Parser::err_at`] for a text that ends inside something it opened ([`ParseError::unfinished`]).
    fn unfinished_at(&self, message: impl Into<String>, at: usize) -> ParseError {
        ParseError {
            unfinished: true,
            ..self.err_at(message, at)
        }
    }

    fn deeper(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("nested more than {MAX_DEPTH} levels deep")));
        }
        Ok(())
    }

    fn at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }

    fn starts(&self, lit: &str) -> bool {
        self.s[self.i..].starts_with(lit.as_bytes())
    }

    // ---- tokens ----

    fn peek(&mut self) -> Result<&Tok, ParseError> {
        if self.peeked.is_none() {
            let start = self.i;
            let t = self.lex()?;
            self.peeked = Some((t, start, self.i));
        }
        Ok(&self.peeked.as_ref().expect("peeked was just set").0)
    }

    fn next(&mut self) -> Result<Tok, ParseError> {
        self.peek()?;
        Ok(self.peeked.take().expect("peeked was just set").0)
    }

    /// Forgets a peeked token so the source can be scanned from its start in another mode.
    fn unpeek(&mut self) {
        if let Some((_, start, _)) = self.peeked.take() {
            self.i = start;
        }
    }

    fn peek_word(&mut self) -> Result<Option<String>, ParseError> {
        Ok(match self.peek()? {
            Tok::Word(w) => w.bare().map(str::to_string),
            _ => None,
        })
    }

    fn skip_blanks_and_comments(&mut self) {
        loop {
            while self.at(0).is_some_and(is_blank) {
                self.i += 1;
            }
            if self.at(0) == Some(b'\\') && self.at(1) == Some(b'\n') {
                self.i += 2;
                continue;
            }
            if self.at(0) == Some(b'#') {
                while self.at(0).is_some_and(|c| c != b'\n') {
                    self.i += 1;
                }
            }
            return;
        }
    }

    fn lex(&mut self) -> Result<Tok, ParseError> {
        self.skip_blanks_and_comments();
        let Some(c) = self.at(0) else { return Ok(Tok::Eof) };
        if c == b'\n' {
            self.i += 1;
            self.read_heredocs()?;
            return Ok(Tok::Newline);
        }
        if self.cond {
            for op in ["&&", "||", "<", ">", "(", ")"] {
                if self.starts(op) {
                    self.i += op.len();
                    return Ok(Tok::Word(Word {
                        pieces: vec![Piece::Lit(op.to_string())],
                    }));
                }
            }
        }
        if (c == b'<' || c == b'>') && self.at(1) == Some(b'(') {
            return Ok(Tok::Word(self.word()?));
        }
        if c.is_ascii_digit() {
            let mut k = 0;
            while self.at(k).is_some_and(|d| d.is_ascii_digit()) {
                k += 1;
            }
            if matches!(self.at(k), Some(b'<' | b'>')) && self.at(k + 1) != Some(b'(') {
                let n = self.src[self.i..self.i + k].parse().unwrap_or(u32::MAX);
                self.i += k;
                return Ok(Tok::IoNumber(n));
            }
        }
        for op in OPERATORS {
            if self.starts(op) {
                self.i += op.len();
                return Ok(Tok::Op(op));
            }
        }
        Ok(Tok::Word(self.word()?))
    }

    /// One word, up to an unquoted blank or operator.
    fn word(&mut self) -> Result<Word, ParseError> {
        let mut w = Word::default();
        let start = self.i;
        while let Some(c) = self.at(0) {
            if (c == b'<' || c == b'>') && self.at(1) == Some(b'(') && self.i == start {
                let input = c == b'<';
                self.i += 2;
                let script = self.nested_list(&Stops::PAREN)?;
                self.expect_op(")")?;
                w.pieces.push(Piece::Proc { script, input });
                continue;
            }
            if is_meta(c) {
                // `name=(a b)`: an array assignment keeps its parenthesised list in the word.
                if c == b'(' && self.is_assignment_prefix(start) {
                    self.array_literal(&mut w)?;
                    continue;
                }
                break;
            }
            match c {
                b'\\' => {
                    match self.at(1) {
                        Some(b'\n') => {}
                        Some(_) => {
                            let ch = self.char_at(self.i + 1);
                            w.push_quoted(&ch.to_string());
                            self.i += ch.len_utf8() - 1;
                        }
                        None => w.push_lit('\\'),
                    }
                    self.i += 2;
                }
                b'\'' => {
                    self.i += 1;
                    let Some(end) = self.s[self.i..].iter().position(|&b| b == b'\'') else {
                        return Err(self.unfinished_at("unterminated single quote", self.i - 1));
                    };
                    w.push_quoted(&self.src[self.i..self.i + end]);
                    self.i += end + 1;
                }
                b'"' => {
                    self.i += 1;
                    self.double_quoted(&mut w, Some(b'"'))?;
                }
                b'`' => {
                    let script = self.backtick()?;
                    w.pieces.push(Piece::Subst(script));
                }
                b'$' => self.dollar(&mut w, false)?,
                b'~' if w.is_empty() => {
                    self.i += 1;
                    let mut user = String::new();
                    while let Some(u) = self.at(0).filter(|&u| is_name(u) || u == b'-' || u == b'.') {
                        user.push(u as char);
                        self.i += 1;
                    }
                    w.pieces.push(Piece::Tilde(user));
                }
                _ => {
                    let ch = self.char_at(self.i);
                    w.push_lit(ch);
                    self.i += ch.len_utf8();
                }
            }
        }
        Ok(w)
    }

    /// The character starting at byte `i`. Every caller steps by whole characters; a byte inside
    /// one (which would be a bug) reads as U+FFFD rather than panicking the hook's floor.
    fn char_at(&self, i: usize) -> char {
        self.src.get(i..).and_then(|s| s.chars().next()).unwrap_or('\u{FFFD}')
    }

    fn is_assignment_prefix(&self, start: usize) -> bool {
        let text = &self.s[start..self.i];
        let Some(eq) = text.iter().position(|&b| b == b'=') else {
            return false;
        };
        eq + 1 == text.len() && eq > 0 && is_name_start(text[0]) && text[..eq].iter().all(|&b| is_name(b) || b == b'+')
    }

    fn array_literal(&mut self, w: &mut Word) -> Result<(), ParseError> {
        let start = self.i;
        self.i += 1;
        let mut inner = Word::default();
        loop {
            while self.at(0).is_some_and(|c| is_blank(c) || c == b'\n') {
                self.i += 1;
            }
            match self.at(0) {
                None => return Err(self.unfinished_at("unterminated array assignment", start)),
                Some(b')') => {
                    self.i += 1;
                    break;
                }
                Some(c) if is_meta(c) => return Err(self.err("unexpected operator in an array assignment")),
                Some(_) => {
                    let item = self.word()?;
                    inner.pieces.extend(item.pieces);
                    inner.push_quoted(" ");
                }
            }
        }
        // The elements are kept (their substitutions still run); their text is not a path.
        w.pieces.push(Piece::Quoted("(".into()));
        w.pieces.extend(inner.pieces);
        w.pieces.push(Piece::Quoted(")".into()));
        Ok(())
    }

    /// The inside of `"…"` (`end` = `"`), or a whole expanding heredoc body (`end` = None).
    fn double_quoted(&mut self, w: &mut Word, end: Option<u8>) -> Result<(), ParseError> {
        let start = self.i;
        loop {
            let Some(c) = self.at(0) else {
                if end.is_none() {
                    return Ok(());
                }
                return Err(self.unfinished_at("unterminated double quote", start.saturating_sub(1)));
            };
            if Some(c) == end {
                self.i += 1;
                if w.is_empty() {
                    w.push_quoted("");
                }
                return Ok(());
            }
            match c {
                b'\\' => match self.at(1) {
                    Some(b'\n') => self.i += 2,
                    Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                        w.push_quoted(&(n as char).to_string());
                        self.i += 2;
                    }
                    _ => {
                        w.push_quoted("\\");
                        self.i += 1;
                    }
                },
                b'`' => {
                    let script = self.backtick()?;
                    w.pieces.push(Piece::Subst(script));
                }
                b'$' => self.dollar(w, true)?,
                _ => {
                    let ch = self.char_at(self.i);
                    w.push_quoted(&ch.to_string());
                    self.i += ch.len_utf8();
                }
            }
        }
    }

    fn dollar(&mut self, w: &mut Word, quoted: bool) -> Result<(), ParseError> {
        let start = self.i;
        match self.at(1) {
            Some(b'(') if self.at(2) == Some(b'(') => {
                self.i += 3;
                self.arithmetic(start)?;
                w.pieces.push(Piece::Arith);
            }
            Some(b'(') => {
                self.i += 2;
                let script = self.nested_list(&Stops::PAREN)?;
                self.expect_op(")")?;
                w.pieces.push(Piece::Subst(script));
            }
            Some(b'{') => {
                self.i += 2;
                let (text, subs) = self.braced_param(start)?;
                w.pieces.extend(subs.into_iter().map(Piece::Subst));
                w.pieces.push(Piece::Param(text));
            }
            Some(b'\'') if !quoted => {
                self.i += 2;
                let text = self.ansi_c(start)?;
                w.push_quoted(&text);
            }
            Some(b'"') if !quoted => {
                self.i += 2;
                self.double_quoted(w, Some(b'"'))?;
            }
            Some(c) if is_name_start(c) => {
                self.i += 1;
                let s = self.i;
                while self.at(0).is_some_and(is_name) {
                    self.i += 1;
                }
                w.pieces.push(Piece::Param(self.src[s..self.i].to_string()));
            }
            Some(c) if c.is_ascii_digit() || b"@*#?-$!".contains(&c) => {
                self.i += 2;
                w.pieces.push(Piece::Param((c as char).to_string()));
            }
            _ => {
                self.i += 1;
                if quoted {
                    w.push_quoted("$");
                } else {
                    w.push_lit('$');
                }
            }
        }
        Ok(())
    }

    /// `${…}` after the `${`: the text inside and any command substitutions in it.
    fn braced_param(&mut self, start: usize) -> Result<(String, Vec<Script>), ParseError> {
        let body_start = self.i;
        let mut subs = Vec::new();
        let mut depth = 1;
        loop {
            match self.at(0) {
                None => return Err(self.unfinished_at("unterminated ${…} expansion", start)),
                Some(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        let text = self.src[body_start..self.i].to_string();
                        self.i += 1;
                        return Ok((text, subs));
                    }
                    self.i += 1;
                }
                // The backslash and the whole character it escapes (a multi-byte one too).
                Some(b'\\') => self.i += 1 + self.char_at(self.i + 1).len_utf8(),
                Some(b'\'') => {
                    self.i += 1;
                    let Some(end) = self.s[self.i..].iter().position(|&b| b == b'\'') else {
                        return Err(self.unfinished_at("unterminated single quote", self.i - 1));
                    };
                    self.i += end + 1;
                }
                Some(b'"') => {
                    self.i += 1;
                    let mut w = Word::default();
                    self.double_quoted(&mut w, Some(b'"'))?;
                    subs.extend(w.pieces.into_iter().filter_map(|p| match p {
                        Piece::Subst(s) => Some(s),
                        _ => None,
                    }));
                }
                Some(b'`') => subs.push(self.backtick()?),
                Some(b'$') if self.at(1) == Some(b'{') => {
                    self.deeper()?;
                    depth += 1;
                    self.i += 2;
                }
                Some(b'$') if self.at(1) == Some(b'(') => {
                    let mut w = Word::default();
                    self.dollar(&mut w, true)?;
                    subs.extend(w.pieces.into_iter().filter_map(|p| match p {
                        Piece::Subst(s) => Some(s),
                        _ => None,
                    }));
                }
                Some(_) => self.i += 1,
            }
        }
    }

    /// `$((…))` or `((…))` after the opening parentheses, through the closing `))`.
    fn arithmetic(&mut self, start: usize) -> Result<(), ParseError> {
        let mut depth = 0usize;
        loop {
            match self.at(0) {
                None => return Err(self.unfinished_at("unterminated arithmetic expression", start)),
                Some(b'(') => depth += 1,
                Some(b')') if depth == 0 => {
                    if self.at(1) == Some(b')') {
                        self.i += 2;
                        return Ok(());
                    }
                    return Err(self.err("unbalanced parenthesis in an arithmetic expression"));
                }
                Some(b')') => depth -= 1,
                Some(b'$') if self.at(1) == Some(b'(') => {
                    return Err(self.err("a command substitution inside an arithmetic expression is not analysed"))
                }
                Some(b'`') => return Err(self.err("a command substitution inside an arithmetic expression is not analysed")),
                _ => {}
            }
            self.i += 1;
        }
    }

    /// `$'…'` after the opening quote: the decoded text.
    fn ansi_c(&mut self, start: usize) -> Result<String, ParseError> {
        let mut out = String::new();
        loop {
            let Some(c) = self.at(0) else {
                return Err(self.unfinished_at("unterminated $'…' string", start));
            };
            self.i += 1;
            match c {
                b'\'' => return Ok(out),
                b'\\' => {
                    let Some(e) = self.at(0) else { continue };
                    self.i += 1;
                    match e {
                        b'n' => out.push('\n'),
                        b't' => out.push('\t'),
                        b'r' => out.push('\r'),
                        b'a' => out.push('\x07'),
                        b'b' => out.push('\x08'),
                        b'e' | b'E' => out.push('\x1b'),
                        b'f' => out.push('\x0c'),
                        b'v' => out.push('\x0b'),
                        b'x' => out.push(self.radix_char(16, 2)),
                        b'u' => out.push(self.radix_char(16, 4)),
                        b'U' => out.push(self.radix_char(16, 8)),
                        b'0'..=b'7' => {
                            self.i -= 1;
                            out.push(self.radix_char(8, 3));
                        }
                        b'c' => {
                            if let Some(x) = self.at(0) {
                                self.i += 1;
                                out.push(((x & 0x1f) as char).to_ascii_lowercase());
                            }
                        }
                        other => {
                            if !matches!(other, b'\\' | b'\'' | b'"' | b'?') {
                                out.push('\\');
                            }
                            // A non-ASCII character after the backslash: the whole character.
                            let ch = self.char_at(self.i - 1);
                            self.i += ch.len_utf8() - 1;
                            out.push(if other.is_ascii() { other as char } else { ch });
                        }
                    }
                }
                _ => {
                    let ch = self.char_at(self.i - 1);
                    out.push(ch);
                    self.i += ch.len_utf8() - 1;
                }
            }
        }
    }

    fn radix_char(&mut self, radix: u32, max: usize) -> char {
        let mut v = 0u32;
        let mut n = 0;
        while n < max {
            let Some(d) = self.at(0).and_then(|c| (c as char).to_digit(radix)) else {
                break;
            };
            v = v * radix + d;
            self.i += 1;
            n += 1;
        }
        char::from_u32(v).unwrap_or('\u{FFFD}')
    }

    /// A backtick substitution starting at the opening backtick: its body, unescaped and parsed.
    fn backtick(&mut self) -> Result<Script, ParseError> {
        let start = self.i;
        self.i += 1;
        let mut body = String::new();
        loop {
            match self.at(0) {
                None => return Err(self.unfinished_at("unterminated backtick substitution", start)),
                Some(b'`') => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') if matches!(self.at(1), Some(b'$' | b'`' | b'\\')) => {
                    body.push(self.at(1).map(char::from).unwrap_or('\\'));
                    self.i += 2;
                }
                Some(_) => {
                    let ch = self.char_at(self.i);
                    body.push(ch);
                    self.i += ch.len_utf8();
                }
            }
        }
        parse_at_depth(&body, self.depth + 1).map_err(|e| ParseError {
            message: format!("inside a backtick substitution: {}", e.message),
            at: start + e.at,
            // bash reads a backtick's body only when it runs it: the line around it still runs.
            unfinished: false,
        })
    }

    fn expect_op(&mut self, op: &str) -> Result<(), ParseError> {
        match self.next()? {
            Tok::Op(o) if o == op => Ok(()),
            Tok::Eof => Err(self.unfinished_at(format!("unexpected end of the command: `{op}` expected"), self.i)),
            other => Err(self.err(format!("`{op}` expected, found {}", describe(&other)))),
        }
    }

    fn expect_word(&mut self, word: &str) -> Result<(), ParseError> {
        match self.next()? {
            Tok::Word(w) if w.bare() == Some(word) => Ok(()),
            Tok::Eof => Err(self.unfinished_at(format!("unexpected end of the command: `{word}` expected"), self.i)),
            other => Err(self.err(format!("`{word}` expected, found {}", describe(&other)))),
        }
    }

    fn skip_newlines(&mut self) -> Result<(), ParseError> {
        while *self.peek()? == Tok::Newline {
            self.next()?;
        }
        Ok(())
    }

    // ---- heredocs ----

    fn read_heredocs(&mut self) -> Result<(), ParseError> {
        for doc in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            let mut closed = false;
            while self.i < self.s.len() {
                let line_end = self.s[self.i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(self.s.len(), |e| self.i + e);
                let line = &self.src[self.i..line_end];
                self.i = (line_end + 1).min(self.s.len());
                let line = if doc.strip_tabs { line.trim_start_matches('\t') } else { line };
                if line == doc.delim {
                    closed = true;
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            if !closed {
                return Err(self.err(format!("unterminated heredoc: no line `{}` closes it", doc.delim)));
            }
            let subs = if doc.expands {
                let mut inner = Parser::new(&body, self.depth + 1);
                let mut w = Word::default();
                inner.double_quoted(&mut w, None)?;
                w.pieces
                    .into_iter()
                    .filter_map(|p| match p {
                        Piece::Subst(s) => Some(s),
                        _ => None,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            self.bodies[doc.slot] = HereDoc {
                body,
                expands: doc.expands,
                subs,
            };
        }
        Ok(())
    }

    // ---- grammar ----

    fn nested_list(&mut self, stops: &Stops) -> Result<Script, ParseError> {
        self.deeper()?;
        let mut script = Script::default();
        self.list(&mut script, stops, &[])?;
        self.depth -= 1;
        Ok(script)
    }

    fn at_stop(&mut self, stops: &Stops) -> Result<bool, ParseError> {
        let t = self.peek()?.clone();
        Ok(match t {
            Tok::Eof => {
                if stops.eof {
                    true
                } else {
                    return Err(self.unfinished_at(
                        "unexpected end of the command: a group, quote or substitution is not closed",
                        self.i,
                    ));
                }
            }
            Tok::Op(o) => stops.ops.contains(&o),
            Tok::Word(w) => w.bare().is_some_and(|b| stops.words.contains(&b)),
            _ => false,
        })
    }

    fn list(&mut self, script: &mut Script, stops: &Stops, upstream: &[usize]) -> Result<(), ParseError> {
        loop {
            self.skip_newlines()?;
            if self.at_stop(stops)? {
                return Ok(());
            }
            self.and_or(script, upstream)?;
            if script.commands.len() > MAX_COMMANDS {
                return Err(self.err(format!("more than {MAX_COMMANDS} commands in one command line")));
            }
            match self.peek()?.clone() {
                Tok::Op(";") | Tok::Op("&") | Tok::Newline => {
                    self.next()?;
                }
                Tok::Eof if stops.eof => return Ok(()),
                _ if self.at_stop(stops)? => return Ok(()),
                other => return Err(self.err(format!("unexpected {}", describe(&other)))),
            }
        }
    }

    fn and_or(&mut self, script: &mut Script, upstream: &[usize]) -> Result<(), ParseError> {
        self.pipeline(script, upstream)?;
        let mut joined = Vec::new();
        while let Tok::Op(op @ ("&&" | "||")) = self.peek()?.clone() {
            if let Some(last) = script.commands.len().checked_sub(1) {
                script.commands[last].connector = if op == "&&" { Connector::And } else { Connector::Or };
                joined.push(last);
            }
            self.next()?;
            self.skip_newlines()?;
            self.pipeline(script, upstream)?;
        }
        let end = script.commands.len();
        for k in joined {
            script.commands[k].list_end = end;
        }
        Ok(())
    }

    fn pipeline(&mut self, script: &mut Script, upstream: &[usize]) -> Result<(), ParseError> {
        let mut feed = upstream.to_vec();
        loop {
            // `!` and `time` prefix a pipeline.
            while let Some(w) = self.peek_word()? {
                if w == "!" {
                    self.next()?;
                } else if w == "time" {
                    self.next()?;
                    if self.peek_word()?.as_deref() == Some("-p") {
                        self.next()?;
                    }
                } else {
                    break;
                }
            }
            let first = script.commands.len();
            self.command(script, &feed)?;
            if matches!(self.peek()?, Tok::Op("|") | Tok::Op("|&")) {
                self.next()?;
                self.skip_newlines()?;
                feed.extend(first..script.commands.len());
                continue;
            }
            return Ok(());
        }
    }

    fn command(&mut self, script: &mut Script, upstream: &[usize]) -> Result<(), ParseError> {
        if let Some(w) = self.peek_word()? {
            match w.as_str() {
                "{" => {
                    self.next()?;
                    return self.compound(script, upstream, |p, s, up| {
                        p.deeper()?;
                        p.list(s, &Stops::BRACE, up)?;
                        p.depth -= 1;
                        p.expect_word("}")
                    });
                }
                "if" => {
                    self.next()?;
                    return self.compound(script, upstream, |p, s, up| {
                        p.deeper()?;
                        p.list(s, &Stops::THEN, up)?;
                        p.expect_word("then")?;
                        p.list(s, &Stops::IF_BODY, up)?;
                        loop {
                            match p.peek_word()?.as_deref() {
                                Some("elif") => {
                                    p.next()?;
                                    p.list(s, &Stops::THEN, up)?;
                                    p.expect_word("then")?;
                                    p.list(s, &Stops::IF_BODY, up)?;
                                }
                                Some("else") => {
                                    p.next()?;
                                    p.list(s, &Stops::FI, up)?;
                                }
                                _ => break,
                            }
                        }
                        p.depth -= 1;
                        p.expect_word("fi")
                    });
                }
                "while" | "until" => {
                    self.next()?;
                    return self.compound(script, upstream, |p, s, up| {
                        p.deeper()?;
                        p.list(s, &Stops::DO, up)?;
                        p.do_done(s, up)?;
                        p.depth -= 1;
                        Ok(())
                    });
                }
                "for" | "select" => {
                    self.next()?;
                    return self.compound(script, upstream, |p, s, up| p.for_loop(s, up));
                }
                "case" => {
                    self.next()?;
                    return self.compound(script, upstream, |p, s, up| p.case(s, up));
                }
                "function" => {
                    self.next()?;
                    match self.next()? {
                        Tok::Word(_) => {}
                        other => return Err(self.err(format!("a function name expected, found {}", describe(&other)))),
                    }
                    if matches!(self.peek()?, Tok::Op("(")) {
                        self.next()?;
                        self.expect_op(")")?;
                    }
                    self.skip_newlines()?;
                    return self.command(script, upstream);
                }
                "[[" => return self.conditional(script, upstream),
                "coproc" => return Err(self.err("`coproc` is not analysed")),
                w if RESERVED.contains(&w) && w != "in" && w != "]]" => {
                    return Err(self.err(format!("unexpected `{w}`")));
                }
                _ => {}
            }
        }
        if matches!(self.peek()?, Tok::Op("(")) {
            self.unpeek();
            self.skip_blanks_and_comments();
            if self.starts("((") {
                let start = self.i;
                self.i += 2;
                self.arithmetic(start)?;
                return self.compound(script, upstream, |_, _, _| Ok(()));
            }
            self.next()?;
            return self.compound(script, upstream, |p, s, up| {
                p.deeper()?;
                p.list(s, &Stops::PAREN, up)?;
                p.depth -= 1;
                p.expect_op(")")
            });
        }
        self.simple(script, upstream)
    }

    /// A compound command: its body, then the redirections that apply to all of it (recorded as a
    /// command with no words, like a bare `> file`).
    fn compound(
        &mut self,
        script: &mut Script,
        upstream: &[usize],
        body: impl FnOnce(&mut Parser<'a>, &mut Script, &[usize]) -> Result<(), ParseError>,
    ) -> Result<(), ParseError> {
        body(self, script, upstream)?;
        let mut redirects = Vec::new();
        while let Some(r) = self.redirect()? {
            redirects.push(r);
        }
        if !redirects.is_empty() {
            script.commands.push(Command {
                redirects,
                upstream: upstream.to_vec(),
                ..Command::default()
            });
        }
        Ok(())
    }

    fn do_done(&mut self, s: &mut Script, up: &[usize]) -> Result<(), ParseError> {
        self.skip_newlines()?;
        self.expect_word("do")?;
        self.list(s, &Stops::DONE, up)?;
        self.expect_word("done")
    }

    fn for_loop(&mut self, s: &mut Script, up: &[usize]) -> Result<(), ParseError> {
        self.deeper()?;
        self.unpeek();
        self.skip_blanks_and_comments();
        if self.starts("((") {
            let start = self.i;
            self.i += 2;
            self.arithmetic(start)?;
        } else {
            match self.next()? {
                Tok::Word(_) => {}
                other => return Err(self.err(format!("a loop variable expected, found {}", describe(&other)))),
            }
            self.skip_newlines()?;
            if self.peek_word()?.as_deref() == Some("in") {
                self.next()?;
                // The items are words of a command nobody runs, but their substitutions run.
                let mut items = Command {
                    upstream: up.to_vec(),
                    ..Command::default()
                };
                while let Tok::Word(_) = self.peek()? {
                    if let Tok::Word(w) = self.next()? {
                        items.words.push(w);
                    }
                }
                if items.words.iter().any(|w| w.scripts().next().is_some()) {
                    items.words.insert(
                        0,
                        Word {
                            pieces: vec![Piece::Lit(":".into())],
                        },
                    );
                    s.commands.push(items);
                }
            }
        }
        if matches!(self.peek()?, Tok::Op(";")) {
            self.next()?;
        }
        self.do_done(s, up)?;
        self.depth -= 1;
        Ok(())
    }

    fn case(&mut self, s: &mut Script, up: &[usize]) -> Result<(), ParseError> {
        self.deeper()?;
        let subject = match self.next()? {
            Tok::Word(w) => w,
            other => return Err(self.err(format!("a word expected after `case`, found {}", describe(&other)))),
        };
        if subject.scripts().next().is_some() {
            s.commands.push(Command {
                words: vec![
                    Word {
                        pieces: vec![Piece::Lit(":".into())],
                    },
                    subject,
                ],
                upstream: up.to_vec(),
                ..Command::default()
            });
        }
        self.skip_newlines()?;
        self.expect_word("in")?;
        loop {
            self.skip_newlines()?;
            if self.peek_word()?.as_deref() == Some("esac") {
                self.next()?;
                break;
            }
            if matches!(self.peek()?, Tok::Op("(")) {
                self.next()?;
            }
            loop {
                match self.next()? {
                    Tok::Word(_) => {}
                    other => return Err(self.err(format!("a case pattern expected, found {}", describe(&other)))),
                }
                match self.next()? {
                    Tok::Op("|") => continue,
                    Tok::Op(")") => break,
                    other => return Err(self.err(format!("`)` expected after a case pattern, found {}", describe(&other)))),
                }
            }
            self.list(s, &Stops::CASE_ITEM, up)?;
            if matches!(self.peek()?, Tok::Op(";;") | Tok::Op(";&") | Tok::Op(";;&")) {
                self.next()?;
            }
        }
        self.depth -= 1;
        Ok(())
    }

    fn conditional(&mut self, script: &mut Script, upstream: &[usize]) -> Result<(), ParseError> {
        let mut cmd = Command {
            upstream: upstream.to_vec(),
            ..Command::default()
        };
        self.cond = true;
        let result = (|| loop {
            match self.next()? {
                Tok::Word(w) => {
                    let end = w.bare() == Some("]]") && !cmd.words.is_empty();
                    cmd.words.push(w);
                    if end {
                        return Ok(());
                    }
                }
                Tok::Newline => {}
                Tok::Eof => return Err(self.unfinished_at("unterminated `[[ … ]]`", self.i)),
                other => return Err(self.err(format!("unexpected {} inside `[[ … ]]`", describe(&other)))),
            }
        })();
        self.cond = false;
        result?;
        while let Some(r) = self.redirect()? {
            cmd.redirects.push(r);
        }
        script.commands.push(cmd);
        Ok(())
    }

    /// A redirection operator and its target, if one comes next.
    fn redirect(&mut self) -> Result<Option<Redirect>, ParseError> {
        let fd = match self.peek()? {
            Tok::IoNumber(n) => {
                let n = *n;
                self.next()?;
                Some(n)
            }
            _ => None,
        };
        let op = match self.peek()? {
            Tok::Op(o) => match *o {
                "<" => RedirOp::Read,
                ">" | ">|" => RedirOp::Write,
                ">>" => RedirOp::Append,
                "<>" => RedirOp::ReadWrite,
                "<&" | ">&" => RedirOp::Dup,
                "&>" => RedirOp::WriteBoth,
                "&>>" => RedirOp::AppendBoth,
                "<<" | "<<-" => RedirOp::HereDoc,
                "<<<" => RedirOp::HereString,
                _ => {
                    if fd.is_some() {
                        return Err(self.err("a redirection operator expected after a descriptor number"));
                    }
                    return Ok(None);
                }
            },
            _ => {
                if fd.is_some() {
                    return Err(self.err("a redirection operator expected after a descriptor number"));
                }
                return Ok(None);
            }
        };
        let strip_tabs = matches!(self.next()?, Tok::Op("<<-"));
        let target = match self.next()? {
            Tok::Word(w) => w,
            other => return Err(self.err(format!("a redirection target expected, found {}", describe(&other)))),
        };
        if op == RedirOp::HereDoc {
            let quoted = target.pieces.iter().any(|p| matches!(p, Piece::Quoted(_)));
            let Some(delim) = target.literal().map(std::borrow::Cow::into_owned) else {
                return Err(self.err("a heredoc delimiter with an expansion in it is not analysed"));
            };
            let slot = self.bodies.len();
            self.bodies.push(HereDoc::default());
            self.pending.push(PendingDoc {
                delim,
                strip_tabs,
                expands: !quoted,
                slot,
            });
            return Ok(Some(Redirect {
                fd,
                op,
                target: RedirTarget::Pending(slot),
            }));
        }
        Ok(Some(Redirect {
            fd,
            op,
            target: RedirTarget::Word(target),
        }))
    }

    fn simple(&mut self, script: &mut Script, upstream: &[usize]) -> Result<(), ParseError> {
        let mut cmd = Command {
            upstream: upstream.to_vec(),
            ..Command::default()
        };
        loop {
            if let Some(r) = self.redirect()? {
                cmd.redirects.push(r);
                continue;
            }
            match self.peek()? {
                Tok::Word(_) => {
                    let Tok::Word(w) = self.next()? else {
                        unreachable!("peeked a word")
                    };
                    if cmd.words.is_empty() {
                        if let Some((name, value)) = split_assignment(&w) {
                            cmd.assigns.push((name, value));
                            continue;
                        }
                    }
                    cmd.words.push(w);
                }
                Tok::Op("(") if cmd.words.len() == 1 && cmd.assigns.is_empty() && cmd.redirects.is_empty() => {
                    // `name () compound`: a function definition; its body is analysed as if it ran.
                    self.next()?;
                    self.expect_op(")")?;
                    self.skip_newlines()?;
                    return self.command(script, upstream);
                }
                _ => break,
            }
        }
        if cmd.words.is_empty() && cmd.assigns.is_empty() && cmd.redirects.is_empty() {
            let t = self.peek()?.clone();
            return Err(self.err(format!("a command expected, found {}", describe(&t))));
        }
        script.commands.push(cmd);
        Ok(())
    }
}

/// `NAME=value` (or `NAME+=value`) with an unquoted name: the name and the value's word.
fn split_assignment(w: &Word) -> Option<(String, Word)> {
    let Some(Piece::Lit(first)) = w.pieces.first() else { return None };
    let eq = first.find('=')?;
    let name = first[..eq].trim_end_matches('+');
    let b = name.as_bytes();
    if b.is_empty() || !is_name_start(b[0]) || !b.iter().all(|&c| is_name(c)) {
        return None;
    }
    let mut value = Word::default();
    let rest = &first[eq + 1..];
    if !rest.is_empty() {
        value.pieces.push(Piece::Lit(rest.to_string()));
    }
    value.pieces.extend(w.pieces[1..].iter().cloned());
    Some((name.to_string(), value))
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Word(w) => format!("`{}`", w.text()),
        Tok::IoNumber(n) => format!("`{n}`"),
        Tok::Op(o) => format!("`{o}`"),
        Tok::Newline => "a newline".into(),
        Tok::Eof => "the end of the command".into(),
    }
}
