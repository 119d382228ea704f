//! Every simple command a parsed line runs, in one walk for every reader: the line's own commands
//! (the bodies of compound commands, substitutions and process substitutions, a heredoc's
//! substitutions) and those of the `sh -c` strings it runs, each such string parsed once. The
//! shell rails, the operator's rules, the untrusted-content rail and the rule proofs read a line
//! through [`Commands`]; the floor has its own walk, which also follows folders and files.

use super::invocation::{file_name, invocation};
use super::parse::{Piece, RedirTarget, Script, Word};

/// The commands of a line: its own and those of the `sh -c` strings it runs.
pub(crate) struct Commands<'s> {
    line: &'s Script,
    /// The `sh -c` strings' scripts, parsed (nested ones included).
    inner: Vec<Script>,
}

impl<'s> Commands<'s> {
    pub(crate) fn of(line: &'s Script) -> Commands<'s> {
        Commands {
            line,
            inner: inline_scripts(line),
        }
    }

    /// Each command as its script and its index there: the line's own first, then each `-c`
    /// string's, in the order they appear.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Script, usize)> {
        let mut out = Vec::new();
        all_commands(self.line, &mut out);
        for s in &self.inner {
            all_commands(s, &mut out);
        }
        out.into_iter()
    }
}

/// Every command of a script, nested substitutions included (not `sh -c` strings: [`inline_scripts`]).
fn all_commands<'s>(script: &'s Script, out: &mut Vec<(&'s Script, usize)>) {
    for (i, c) in script.commands.iter().enumerate() {
        out.push((script, i));
        for w in c.words.iter().chain(c.assigns.iter().map(|(_, w)| w)) {
            for s in w.scripts() {
                all_commands(s, out);
            }
        }
        for r in &c.redirects {
            match &r.target {
                RedirTarget::Word(w) => w.scripts().for_each(|s| all_commands(s, out)),
                RedirTarget::HereDoc(d) => d.subs.iter().for_each(|s| all_commands(s, out)),
                RedirTarget::Pending(_) => {}
            }
        }
    }
}

/// The shells whose `-c` string [`inline_scripts`] reads.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh"];

/// Whether `w`, as a program word, would name one of `programs` (its [`file_name`], as
/// [`crate::policy::shell::invocation::program_name`] reads it), without building its text when it
/// is one plain piece.
fn names_program(w: &Word, programs: &[&str]) -> bool {
    let named = |t: &str| file_name(t).is_some_and(|n| programs.contains(&n));
    match w.pieces.as_slice() {
        [Piece::Lit(t) | Piece::Quoted(t)] => named(t),
        _ => w.literal().is_some_and(|t| named(&t)),
    }
}

/// `sh -c '…'` and `bash -c '…'` strings, parsed: their commands are what runs.
fn inline_scripts(script: &Script) -> Vec<Script> {
    let mut out = Vec::new();
    let mut cmds = Vec::new();
    all_commands(script, &mut cmds);
    for (s, i) in cmds {
        // The program is the file name of one of the command's words: a command with no word
        // naming a shell runs none, and is not taken through the wrappers.
        if !s.commands[i].words.iter().any(|w| names_program(w, SHELLS)) {
            continue;
        }
        let inv = invocation(&s.commands[i]);
        if !inv.program.as_deref().is_some_and(|p| SHELLS.contains(&p)) {
            continue;
        }
        let mut args = inv.args.iter();
        while let Some(a) = args.next() {
            let t = a.text();
            if t.starts_with('-') && !t.starts_with("--") && t.contains('c') {
                if let Some(code) = args.next().and_then(|w| w.literal()) {
                    if let Ok(inner) = super::parse(&code) {
                        out.extend(inline_scripts(&inner));
                        out.push(inner);
                    }
                }
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::parse;

    fn inner(line: &str) -> Vec<String> {
        let script = parse(line).expect("parses");
        inline_scripts(&script)
            .iter()
            .flat_map(|s| {
                s.commands
                    .iter()
                    .map(|c| c.words.iter().map(Word::text).collect::<Vec<_>>().join(" "))
            })
            .collect()
    }

    #[test]
    fn a_shell_string_is_read_however_the_shell_is_named() {
        for line in [
            "bash -c 'git clean -fdx'",
            "/bin/sh -c 'git clean -fdx'",
            "\"ba\"sh -c 'git clean -fdx'",
            "b\\ash -c 'git clean -fdx'",
            "env -i PATH=/bin nice -n 5 zsh -c 'git clean -fdx'",
            "sudo -u root dash -ec 'git clean -fdx'",
            "echo ok && ksh -c 'git clean -fdx'",
            "x=$(bash -c 'git clean -fdx')",
        ] {
            assert_eq!(inner(line), ["git clean -fdx"], "{line}");
        }
    }

    #[test]
    fn a_line_with_no_shell_program_has_no_inner_script() {
        for line in [
            "cargo test -c 'git clean -fdx'",
            "grep -c bash file",
            "echo sh -c 'rm -rf /'",
            "$SHELL -c 'git clean -fdx'",
            "bashful -c 'git clean -fdx'",
        ] {
            assert!(inner(line).is_empty(), "{line}: {:?}", inner(line));
        }
    }

    #[test]
    fn names_program_reads_the_file_name_of_a_literal_word() {
        let word = |text: &str| parse(text).expect("parses").commands[0].words[0].clone();
        assert!(names_program(&word("/usr/bin/bash"), SHELLS));
        assert!(names_program(&word("'sh'"), SHELLS));
        assert!(names_program(&word("s'h'"), SHELLS));
        assert!(!names_program(&word("$X"), SHELLS));
        assert!(!names_program(&word("sh$X"), SHELLS));
        assert!(!names_program(&word("/bin/"), SHELLS));
    }
}
