//! Shell commands: the tokenizer/parser ([`parse`]) with brace expansion ([`expand`]), the view of one command through its wrappers
//! ([`invocation`]) and the one classifier table ([`classify`]).
//!
//! The tokenizer is written here rather than taken from a crate: brush-parser (the one
//! maintained, MIT-licensed bash parser) aborted the process with a stack overflow on 10,000
//! nested `$(`, took 4.5 s on 1,000 nested `{ }` groups and brings 77 crates (insta and tracing
//! among its normal dependencies); yash-syntax is GPL-3.0; conch-parser has had no release since
//! 2017; shell-words splits words but knows no operators, heredocs or substitutions.

pub(crate) mod classify;
pub(crate) mod expand;
pub(crate) mod invocation;
pub(crate) mod options;
pub(crate) mod parse;
pub(crate) mod walk;

/// A command line split into the simple commands it runs ([`parse::parse`]), each command's words
/// brace-expanded as bash expands them ([`expand::script`]), in nested substitutions too.
pub fn parse(src: &str) -> Result<Script, ParseError> {
    let mut script = parse::parse(src)?;
    let mut budget = expand::budget_for(src);
    expand::script(&mut script, &mut budget);
    Ok(script)
}
pub(crate) use parse::{ParseError, Script};

/// The part of `src` a shell runs although it cannot parse the whole: when the text ends inside
/// a quote or a construct it opened ([`ParseError::unfinished`]), bash reads and runs each complete
/// line before the one where the error lies and then stops, running nothing of that line or after
/// (`echo 'x` runs nothing: the part is empty). `None` for any other error (the line is refused).
fn runnable_prefix<'s>(src: &'s str, e: &ParseError) -> Option<&'s str> {
    if !e.unfinished {
        return None;
    }
    let line_start = src.get(..e.at)?.rfind('\n').map_or(0, |i| i + 1);
    Some(&src[..line_start])
}

/// A command line (`depth` levels inside another) as the shell runs it, parsed: the whole line,
/// or — when bash refuses it for ending inside a quote or a construct it opened — the complete
/// lines before the error, which bash runs before it stops ([`runnable_prefix`]; `echo 'x` runs
/// nothing). Any other parse error is the line's.
pub(crate) fn parse_as_run(src: &str, depth: usize) -> Result<(&str, Script), ParseError> {
    match parse_nested(src, depth) {
        Ok(script) => Ok((src, script)),
        Err(e) => match runnable_prefix(src, &e) {
            Some(prefix) => parse_nested(prefix, depth).map(|s| (prefix, s)).map_err(|_| e),
            None => Err(e),
        },
    }
}

/// Parses a command line found inside another (`bash -c '…'`, `eval …`), `depth` levels down.
pub(crate) fn parse_nested(src: &str, depth: usize) -> Result<Script, ParseError> {
    if depth >= parse::MAX_DEPTH {
        return Err(ParseError {
            message: format!("shells nested more than {} levels deep", parse::MAX_DEPTH),
            at: 0,
            unfinished: false,
        });
    }
    parse(src)
}

#[cfg(test)]
mod tests;
