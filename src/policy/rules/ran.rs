//! What a shell line executed, as a `command(…)` proof keeps it (issue 53): the programs the
//! parsed line ran, seen through the wrappers the floor unwraps (`env`, `timeout`, `nice`,
//! `command`, `sh -c '…'`, …), each with its arguments — never the words of another program's
//! arguments (`echo cargo test`, `: cargo test`, `test cargo test`, `ls cargo test`).
//!
//! A program named by a bare word counts under that name only when it resolves on the operator's
//! `PATH` to a file outside the project: a file in the project that shadows it (`./cargo`, a
//! project folder early on `PATH`) is kept as the path it is, and so proves nothing a pattern
//! naming the real program asks for. A line that could change what a bare name runs — it assigns
//! `PATH`, defines a function or an alias, or turns builtins or hashing around — proves nothing.

use crate::policy::shell::walk::Commands;
use crate::policy::shell::{self, invocation::invocation};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Programs that change what a later bare name runs in the same shell.
const RENAMERS: &[&str] = &["alias", "enable", "hash", "shopt", "function", "unalias"];

/// The commands `text` executed, as the JSON array of their word lists a proof stores
/// (`[["cargo","test"],["./cargo","test"]]`), or `None` when it proves nothing.
///
/// `root` is the project; `path` the operator's `PATH` (the hook's own).
pub(crate) fn executed(text: &str, root: &Path, path: Option<&OsStr>) -> Option<String> {
    let script = shell::parse(text).ok()?;
    // A function definition leaves no trace in the parsed commands (its body is read as if it
    // ran), so it is looked for in the text: `cargo() { :; }; cargo test`.
    if text.contains("()") || text.contains("( )") {
        return None;
    }
    let mut out: Vec<Vec<String>> = Vec::new();
    for (s, i) in Commands::of(&script).iter() {
        let cmd = &s.commands[i];
        if cmd.assigns.iter().any(|(name, _)| name == "PATH") || cmd.words.iter().any(|w| w.text().contains("PATH=")) {
            return None;
        }
        let inv = invocation(cmd);
        if inv.lookup_only || inv.args_from_stdin {
            continue;
        }
        let (Some(program), Some(word)) = (inv.program.as_deref(), inv.program_word) else {
            continue;
        };
        if RENAMERS.contains(&program) {
            return None;
        }
        let Some(written) = word.literal() else { continue };
        let mut words = vec![canonical_program(&written, root, path)];
        words.extend(inv.arg_texts().iter().cloned());
        out.push(words);
    }
    (!out.is_empty()).then(|| serde_json::Value::from(out).to_string())
}

/// The program word as a proof keeps it: the bare name when it is what the operator's `PATH`
/// runs (a bare word resolving outside the project, or an absolute path to that same file), else
/// the word as written.
fn canonical_program(written: &str, root: &Path, path: Option<&OsStr>) -> String {
    let name = shell::invocation::file_name(written).unwrap_or(written);
    let on_path = resolve(name, root, path);
    if !written.contains('/') {
        return match on_path {
            Some(found) if !found.starts_with(root) => written.to_string(),
            // A name the operator's PATH does not run from outside the project: a project file
            // shadowing it, or no program at all. Kept so it can never read as the real one.
            Some(found) => format!("./{}", found.strip_prefix(root).unwrap_or(&found).display()),
            None => format!("?{written}"),
        };
    }
    let absolute = Path::new(written).is_absolute();
    match (absolute, on_path, std::fs::canonicalize(written).ok()) {
        (true, Some(found), Some(real)) if !found.starts_with(root) && std::fs::canonicalize(&found).ok().as_ref() == Some(&real) => {
            name.to_string()
        }
        _ => written.to_string(),
    }
}

/// Where `PATH` finds the executable `name` (relative entries read from the project root).
fn resolve(name: &str, root: &Path, path: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path?).find_map(|dir| {
        let dir = if dir.as_os_str().is_empty() || dir.is_relative() {
            root.join(dir)
        } else {
            dir
        };
        let candidate = dir.join(name);
        let meta = std::fs::metadata(&candidate).ok()?;
        (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(candidate)
    })
}

/// Whether a stored proof value ([`executed`]) holds a command that `pattern` (a `command(…)`
/// pattern's words) names: its first word is the command's program and the rest a contiguous run
/// of its arguments. A pattern word
/// with no `/` that is not a program on `path` (a project script: `build.sh`) also matches a path
/// ending `/<word>`. A value of the older form (the raw command text) proves nothing.
pub(crate) fn proves(pattern: &[String], value: &str, path: Option<&OsStr>) -> bool {
    let Ok(commands) = serde_json::from_str::<Vec<Vec<String>>>(value) else {
        return false;
    };
    let Some((program, rest)) = pattern.split_first() else {
        return false;
    };
    let script_name = !program.contains('/') && path.is_none_or(|p| !on_path_anywhere(program, p));
    commands.iter().any(|words| {
        let Some((ran, args)) = words.split_first() else { return false };
        let program_matches = ran == program
            || strip_dot(ran) == strip_dot(program) && program.contains('/')
            || (script_name && ran.contains('/') && shell::invocation::file_name(ran) == Some(program.as_str()));
        program_matches && (rest.is_empty() || (rest.len() <= args.len() && args.windows(rest.len()).any(|w| w == rest)))
    })
}

fn strip_dot(p: &str) -> &str {
    p.strip_prefix("./").unwrap_or(p)
}

/// Whether an absolute entry of `path` holds an executable `name`.
fn on_path_anywhere(name: &str, path: &OsStr) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path)
        .filter(|d| d.is_absolute())
        .any(|d| std::fs::metadata(d.join(name)).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    struct World {
        _dir: tempfile::TempDir,
        root: PathBuf,
        bin: PathBuf,
    }

    /// A project folder and a `bin` folder outside it holding `cargo` and `gh`.
    fn world() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        for (folder, name) in [
            (&bin, "cargo"),
            (&bin, "gh"),
            (&bin, "echo"),
            (&bin, "ls"),
            (&bin, "test"),
            (&root, "cargo"),
        ] {
            let p = folder.join(name);
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        World { _dir: dir, root, bin }
    }

    fn words(pattern: &str) -> Vec<String> {
        pattern.split_whitespace().map(str::to_string).collect()
    }

    fn proves_text(w: &World, pattern: &str, line: &str) -> bool {
        let path = std::env::join_paths([&w.bin]).unwrap();
        let p = words(pattern);
        executed(line, &w.root, Some(&path)).is_some_and(|v| proves(&p, &v, Some(&path)))
    }

    #[test]
    fn the_program_that_ran_proves_it_through_the_wrappers() {
        let w = world();
        for line in [
            "cargo test",
            "cargo test --all",
            "cd sub && cargo test",
            "timeout 600 cargo test",
            "env RUST_LOG=debug cargo test",
            "nice -n 5 cargo test",
            "command cargo test",
            "sh -c 'cargo test'",
            "bash -c \"cargo test -q\"",
            "cargo build && cargo test",
        ] {
            assert!(proves_text(&w, "cargo test", line), "{line}");
        }
        let abs = format!("{}/cargo test", w.bin.display());
        assert!(proves_text(&w, "cargo test", &abs), "{abs}");
    }

    #[test]
    fn the_words_of_another_program_prove_nothing() {
        let w = world();
        for line in [
            "echo cargo test",
            ": cargo test",
            "ls cargo test",
            "test cargo test",
            "true cargo test",
            "printf '%s' cargo test",
            "echo 'cargo test' | xargs echo",
            "./cargo test",
            "PATH=.:$PATH cargo test",
            "export PATH=.:$PATH; cargo test",
            "env PATH=. cargo test",
            "cargo() { :; }; cargo test",
            "alias cargo=true; cargo test",
            "cargo testing",
            "cargo build",
            "command -v cargo test",
        ] {
            assert!(!proves_text(&w, "cargo test", line), "{line}");
        }
        // A project file on PATH shadows the real program: it is the project's file that ran.
        let path = std::env::join_paths([w.root.clone(), w.bin.clone()]).unwrap();
        let v = executed("cargo test", &w.root, Some(&path)).unwrap();
        assert!(!proves(&words("cargo test"), &v, Some(&path)), "{v}");
        // An absolute path that is not what PATH runs.
        let other = format!("{}/cargo test", w.root.display());
        assert!(!proves_text(&w, "cargo test", &other));
    }

    #[test]
    fn a_project_script_is_proved_by_its_path() {
        let w = world();
        assert!(proves_text(&w, "build.sh", "./scripts/build.sh --release"));
        assert!(proves_text(&w, "scripts/build.sh", "./scripts/build.sh"));
        assert!(!proves_text(&w, "build.sh", "./mybuild.sh"));
        assert!(!proves_text(&w, "build.sh", "echo ./scripts/build.sh"));
    }

    #[test]
    fn a_raw_command_text_of_the_older_form_proves_nothing() {
        let w = world();
        let path = std::env::join_paths([&w.bin]).unwrap();
        assert!(!proves(&words("cargo test"), "cargo test", Some(&path)));
    }
}
