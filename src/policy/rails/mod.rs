//! The rails after the floor, one module each, every one with a `check` entry that
//! [`super::decide::ORDER`] runs in its place: edit collision and work loss (always on), the
//! subagent rails (`subagent-read-only` and the spawn rails, `subagent.rs`), the shell rails `shell-stall`, `shell-catastrophic` and `shell-posture-paired`, and the operator's rules (`operator_rule.rs`). What they share:
//! the commands of a line (`sh -c` strings included), the build folders, the ask.

pub mod catastrophic;
pub(crate) mod collision;
pub(crate) mod operator_rule;
pub mod paired;
pub(crate) mod read_only;
pub(crate) mod stall;
pub(crate) mod subagent;
pub(crate) mod untrusted;
pub(crate) mod work_loss;

use super::shell::invocation::{file_name, invocation};
use super::shell::parse::{Piece, RedirTarget, Script, Word};
use crate::decision::{Decision, Permission};
use std::path::Path;

pub(crate) const CATASTROPHIC: &str = "shell-catastrophic";
pub(crate) const PAIRED: &str = "shell-posture-paired";
pub(crate) const STALL: &str = "shell-stall";

/// The three things at stake that make `paired` ask (the seed's wording).
pub(crate) const LEAVES_MACHINE: &str = "It leaves the machine: what it sends or fetches is out of this session's reach once it runs.";
pub(crate) const OVERWRITES: &str =
    "It can overwrite or remove a path that already exists, and the harness cannot know whether that path holds work.";
pub(crate) const CHANGES_REACH: &str = "It changes who can reach a path — the one change that appears in no diff.";

/// How many characters of a normalised command the stall rail compares.
pub(crate) const STALL_PREFIX_CHARS: usize = 300;

/// Folders whose whole content is rebuilt by a build: cleaning them loses nothing.
const BUILD_DIRS: &[&str] = &[
    "build",
    "dist",
    "target",
    "out",
    "node_modules",
    ".next",
    ".nuxt",
    "coverage",
    "__pycache__",
    ".cache",
    ".gradle",
    ".tox",
    "venv",
    ".venv",
    "bin",
    "obj",
];

fn ask(rule: &str, reason: String) -> Decision {
    Decision {
        permission: Permission::Ask,
        rule: rule.to_string(),
        reason: Some(format!("{reason}\nrule={rule}")),
        user_note: None,
        follow_up: None,
        context: None,
    }
}

/// Every command of a script, nested substitutions and `sh -c` strings included.
pub(in crate::policy) fn all_commands<'s>(script: &'s Script, out: &mut Vec<(&'s Script, usize)>) {
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
pub(in crate::policy) fn inline_scripts(script: &Script) -> Vec<Script> {
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
                    if let Ok(inner) = super::shell::parse(&code) {
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

/// Whether `p` is inside a build folder of the project at `root` (only the part below the root
/// counts: a project that itself lives under a `target/` folder is not a build folder).
pub(super) fn in_build_dir(p: &Path, root: &Path) -> bool {
    let Ok(rel) = crate::pathtext::normalize(p).strip_prefix(root).map(Path::to_path_buf) else {
        return false;
    };
    rel.components()
        .any(|c| BUILD_DIRS.contains(&c.as_os_str().to_string_lossy().as_ref()))
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
