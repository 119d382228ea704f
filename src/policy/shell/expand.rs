//! Brace expansion, as bash applies it to a simple command's words before any other expansion:
//! `{rm,-rf,~}` is the three words `rm -rf ~`, `/bin/{r,}m` is `/bin/rm /bin/m`, `f{1..3}` is
//! `f1 f2 f3`. [`super::parse`] applies it to every command ([`script`]) so that every reader of a command — the
//! floor, the rails, the work-loss rule — sees the words bash runs, not their spelling.
//!
//! Quoted braces and commas are text, as in bash; an expansion (`$x`, `$(…)`) is kept whole inside
//! the words it lands in. A word whose expansion would exceed [`MAX_WORDS`] is left as written
//! (the floor then judges its braces as a pattern it cannot resolve).

use super::parse::{Piece, RedirTarget, Script, Word};

/// The most words brace expansion may make of one command: bash makes any number, but a line
/// that asks for more is judged as written rather than costing the hook its time.
pub(crate) const MAX_WORDS: usize = 4096;

/// A word's characters as brace expansion sees them.
#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    /// An unquoted character: braces and commas in it are live.
    Live(char),
    /// A quoted or escaped character: text.
    Dead(char),
    /// An expansion, a tilde prefix: carried whole.
    Atom(&'a Piece),
}

/// What brace expansion may cost one parse of `src`, in characters scanned and made: a multiple of
/// the line's length, so that no line can make the parser's time or memory grow past a constant
/// factor of what it was handed.
pub(crate) fn budget_for(src: &str) -> usize {
    src.len().saturating_mul(64).saturating_add(64 * 1024)
}

/// Brace expansion over every simple command of `script`, and of the scripts inside its words
/// (substitutions, process substitutions, a heredoc's substitutions), within one `budget`.
pub(crate) fn script(script: &mut Script, budget: &mut usize) {
    for cmd in &mut script.commands {
        for w in cmd.assigns.iter_mut().map(|(_, w)| w).chain(cmd.words.iter_mut()) {
            nested(w, budget);
        }
        for r in &mut cmd.redirects {
            match &mut r.target {
                RedirTarget::Word(w) => nested(w, budget),
                RedirTarget::HereDoc(doc) => doc.subs.iter_mut().for_each(|s| self::script(s, budget)),
                RedirTarget::Pending(_) => {}
            }
        }
        if let Some(words) = command_words(&cmd.words, budget) {
            cmd.words = words;
        }
    }
}

fn nested(w: &mut Word, budget: &mut usize) {
    for p in &mut w.pieces {
        if let Piece::Subst(s) | Piece::Proc { script: s, .. } = p {
            script(s, budget);
        }
    }
}

/// `words` with brace expansion applied; `None` when no word has a brace expression (the common
/// case, decided by a scan that allocates nothing). Each expansion's cost is taken from `budget`;
/// a word whose expansion would exceed what is left is kept as written.
pub(crate) fn command_words(words: &[Word], budget: &mut usize) -> Option<Vec<Word>> {
    if !words.iter().any(may_expand) {
        return None;
    }
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        if !may_expand(w) {
            out.push(w.clone());
            continue;
        }
        match braces(w, MAX_WORDS.saturating_sub(out.len()), budget) {
            Some(expanded) => out.extend(expanded),
            None => out.push(w.clone()),
        }
    }
    Some(out)
}

/// Whether an unquoted part of the word holds both braces (a brace expression needs them).
fn may_expand(w: &Word) -> bool {
    let (mut open, mut close) = (false, false);
    for p in &w.pieces {
        if let Piece::Lit(s) = p {
            open |= s.contains('{');
            close |= s.contains('}');
        }
    }
    open && close
}

/// The words one word expands to (at most `cap`), or `None` when it has no brace expression or
/// would make more than `cap` or cost more than `budget` holds (what it cost is taken from it).
pub(crate) fn braces(w: &Word, cap: usize, budget: &mut usize) -> Option<Vec<Word>> {
    let toks = tokens(w);
    let mut spent = toks.len();
    if spent > *budget {
        return None;
    }
    first_expression(&toks)?;
    let mut out = Vec::new();
    let done = expand(&toks, cap, &mut out, &mut spent, *budget);
    *budget = budget.saturating_sub(spent);
    done?;
    Some(out.into_iter().filter(|t| !t.is_empty()).map(|t| word(&t)).collect())
}

fn tokens(w: &Word) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    for p in &w.pieces {
        match p {
            Piece::Lit(s) => out.extend(s.chars().map(Tok::Live)),
            Piece::Quoted(s) => out.extend(s.chars().map(Tok::Dead)),
            other => out.push(Tok::Atom(other)),
        }
    }
    out
}

/// What a brace expression stands for.
enum Expression<'t, 'a> {
    /// `{a,b,c}`: each alternative's tokens.
    Alternatives(Vec<&'t [Tok<'a>]>),
    /// `{1..5}`, `{a..e}`, `{01..10..2}`: each item's text.
    Sequence(Vec<String>),
}

/// The first brace expression: where it opens and closes, and what it stands for. One pass with
/// a stack of the open braces (an unmatched `{` is text, as in bash), so a word of many braces
/// costs its length, not its length squared.
fn first_expression<'t, 'a>(toks: &'t [Tok<'a>]) -> Option<(usize, usize, Expression<'t, 'a>)> {
    let mut open: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut first: Option<(usize, usize, Vec<usize>)> = None;
    for (j, t) in toks.iter().enumerate() {
        match t {
            Tok::Live('{') => open.push((j, Vec::new())),
            Tok::Live(',') => {
                if let Some((_, commas)) = open.last_mut() {
                    commas.push(j);
                }
            }
            Tok::Live('}') => {
                let Some((at, commas)) = open.pop() else { continue };
                // A sequence expression is short: longer text is not one, and is not scanned.
                let valid = !commas.is_empty() || (j - at <= 64 && sequence(&toks[at + 1..j]).is_some());
                if valid && first.as_ref().is_none_or(|(f, _, _)| at < *f) {
                    first = Some((at, j, commas));
                }
            }
            _ => {}
        }
    }
    let (at, close, commas) = first?;
    if commas.is_empty() {
        return Some((at, close, Expression::Sequence(sequence(&toks[at + 1..close])?)));
    }
    let mut alts = Vec::with_capacity(commas.len() + 1);
    let mut from = at + 1;
    for c in commas {
        alts.push(&toks[from..c]);
        from = c + 1;
    }
    alts.push(&toks[from..close]);
    Some((at, close, Expression::Alternatives(alts)))
}

/// Appends every expansion of `toks` to `out`; `None` past `cap` words or once `spent` (the
/// characters scanned and made so far) passes `limit`.
fn expand<'a>(toks: &[Tok<'a>], cap: usize, out: &mut Vec<Vec<Tok<'a>>>, spent: &mut usize, limit: usize) -> Option<()> {
    *spent = spent.saturating_add(toks.len());
    if *spent > limit {
        return None;
    }
    let Some((open, close, expression)) = first_expression(toks) else {
        if out.len() >= cap {
            return None;
        }
        out.push(toks.to_vec());
        return Some(());
    };
    let (before, after) = (&toks[..open], &toks[close + 1..]);
    let mut each = |middle: &[Tok<'a>]| -> Option<()> {
        let mut joined = Vec::with_capacity(before.len() + middle.len() + after.len());
        joined.extend_from_slice(before);
        joined.extend_from_slice(middle);
        joined.extend_from_slice(after);
        expand(&joined, cap, out, spent, limit)
    };
    match expression {
        Expression::Alternatives(alts) => alts.into_iter().try_for_each(each),
        Expression::Sequence(items) => items.into_iter().try_for_each(|item| {
            // A sequence's items are text: their characters are not expanded again.
            let middle: Vec<Tok<'a>> = item.chars().map(Tok::Dead).collect();
            each(&middle)
        }),
    }
}

/// A sequence expression's items: `x..y` or `x..y..step` over integers (zero-padded when either
/// end is) or single letters; `None` when the text is not one, or has more than [`MAX_WORDS`].
fn sequence(inner: &[Tok<'_>]) -> Option<Vec<String>> {
    let text: String = inner
        .iter()
        .map(|t| match t {
            Tok::Live(c) => Some(*c),
            _ => None,
        })
        .collect::<Option<String>>()?;
    let parts: Vec<&str> = text.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [a, b] => (*a, *b, None),
        [a, b, s] => (*a, *b, Some(s.parse::<i64>().ok()?)),
        _ => return None,
    };
    let step = step.map(i64::unsigned_abs).filter(|s| *s > 0).unwrap_or(1);
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        let count = a.abs_diff(b) / step + 1;
        if count > MAX_WORDS as u64 {
            return None;
        }
        let padded = |s: &str| s.trim_start_matches('-').len() > 1 && s.trim_start_matches('-').starts_with('0');
        let width = if padded(from) || padded(to) { from.len().max(to.len()) } else { 0 };
        let mut items = Vec::with_capacity(count as usize);
        let mut v = a;
        for _ in 0..count {
            items.push(if width > 0 {
                if v < 0 {
                    format!("-{:0w$}", v.unsigned_abs(), w = width - 1)
                } else {
                    format!("{v:0width$}")
                }
            } else {
                v.to_string()
            });
            let step = i64::try_from(step).unwrap_or(i64::MAX);
            v = if a <= b { v.saturating_add(step) } else { v.saturating_sub(step) };
        }
        return Some(items);
    }
    let (mut a, mut b) = (from.chars(), to.chars());
    match (a.next(), a.next(), b.next(), b.next()) {
        (Some(x), None, Some(y), None) if x.is_ascii_alphabetic() && y.is_ascii_alphabetic() => {
            let (x, y) = (x as u8, y as u8);
            let range: Vec<u8> = if x <= y { (x..=y).collect() } else { (y..=x).rev().collect() };
            Some(range.into_iter().step_by(step as usize).map(|c| (c as char).to_string()).collect())
        }
        _ => None,
    }
}

/// The word for expanded tokens: live runs are unquoted text, dead runs quoted, atoms as they
/// were; a leading unquoted `~` is a tilde prefix again (bash expands it after braces).
fn word(toks: &[Tok<'_>]) -> Word {
    let mut pieces: Vec<Piece> = Vec::new();
    let mut rest = toks;
    if rest.first() == Some(&Tok::Live('~')) {
        let name_len = rest[1..]
            .iter()
            .take_while(|t| matches!(t, Tok::Live(c) if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .count();
        let user: String = rest[1..=name_len]
            .iter()
            .filter_map(|t| match t {
                Tok::Live(c) => Some(*c),
                _ => None,
            })
            .collect();
        pieces.push(Piece::Tilde(user));
        rest = &rest[name_len + 1..];
    }
    for t in rest {
        match t {
            Tok::Live(c) => match pieces.last_mut() {
                Some(Piece::Lit(s)) => s.push(*c),
                _ => pieces.push(Piece::Lit(c.to_string())),
            },
            Tok::Dead(c) => match pieces.last_mut() {
                Some(Piece::Quoted(s)) => s.push(*c),
                _ => pieces.push(Piece::Quoted(c.to_string())),
            },
            Tok::Atom(p) => pieces.push((*p).clone()),
        }
    }
    Word { pieces }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::parse;

    /// The words of the first command of `line`, each as its text.
    fn words(line: &str) -> Vec<String> {
        let s = parse(line).unwrap();
        s.commands[0].words.iter().map(Word::text).collect()
    }

    #[test]
    fn braces_expand_as_bash_expands_them() {
        for (line, want) in [
            ("{rm,-rf,~}", vec!["rm", "-rf", "~"]),
            ("echo a{b,c}d", vec!["echo", "abd", "acd"]),
            ("echo {a,b}{1,2}", vec!["echo", "a1", "a2", "b1", "b2"]),
            ("echo {a,{b,c}}", vec!["echo", "a", "b", "c"]),
            ("/bin/{r,}m x", vec!["/bin/rm", "/bin/m", "x"]),
            ("echo f{1..3}", vec!["echo", "f1", "f2", "f3"]),
            ("echo {3..1}", vec!["echo", "3", "2", "1"]),
            ("echo {01..03}", vec!["echo", "01", "02", "03"]),
            ("echo {1..7..3}", vec!["echo", "1", "4", "7"]),
            ("echo {a..c}", vec!["echo", "a", "b", "c"]),
            ("echo {,a}", vec!["echo", "a"]),
            ("echo x{,}", vec!["echo", "x", "x"]),
            ("echo \"{a,b}\"", vec!["echo", "{a,b}"]),
            ("echo {a\\,b}", vec!["echo", "{a,b}"]),
            ("echo {a}", vec!["echo", "{a}"]),
            ("find . -exec rm {} \\;", vec!["find", ".", "-exec", "rm", "{}", ";"]),
            ("echo {$x,y}", vec!["echo", "$x", "y"]),
            ("echo ${x}", vec!["echo", "$x"]),
            ("echo {1..2}{a,b}", vec!["echo", "1a", "1b", "2a", "2b"]),
            (
                "echo {9223372036854775806..9223372036854775807}",
                vec!["echo", "9223372036854775806", "9223372036854775807"],
            ),
            ("echo {1..3..-9223372036854775808}", vec!["echo", "1"]),
            ("echo {a,{b,c}", vec!["echo", "{a,b", "{a,c"]),
        ] {
            assert_eq!(words(line), want, "{line}");
        }
    }

    #[test]
    fn a_tilde_brace_expansion_makes_is_a_tilde_prefix() {
        let s = parse("{rm,-rf,~/x,~bob}").unwrap();
        let w = &s.commands[0].words;
        assert_eq!(w[2].pieces, vec![Piece::Tilde(String::new()), Piece::Lit("/x".into())]);
        assert_eq!(w[3].pieces, vec![Piece::Tilde("bob".into())]);
    }

    #[test]
    fn assignments_and_huge_expansions_are_left_as_written() {
        let s = parse("X={a,b} echo ok").unwrap();
        assert_eq!(s.commands[0].assigns[0].1.text(), "{a,b}");
        let many = "echo {1..9}{1..9}{1..9}{1..9}{1..9}";
        assert_eq!(words(many), vec!["echo", "{1..9}{1..9}{1..9}{1..9}{1..9}"]);
        assert_eq!(words("echo {1..100000}"), vec!["echo", "{1..100000}"]);
        // A word of many braces is answered in its length's time, and the line's budget holds.
        let deep = format!("echo {}a,b{}", "{".repeat(200_000), "}".repeat(200_000));
        assert_eq!(parse(&deep).unwrap().commands[0].words.len(), 3);
        let bombs = "echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}\n".repeat(2000);
        assert!(parse(&bombs).unwrap().commands.iter().all(|c| c.words.len() <= MAX_WORDS + 1));
    }
}
