//! Long options as the program reads them: git's option parser and GNU getopt_long accept any
//! unambiguous prefix of a long option (`git reset --har` is `--hard`, `rm --recurs` is
//! `--recursive`), so every reader of a command's arguments sees the option's full name.
//!
//! A pure function over the program's name and its argument texts. Only the programs listed here
//! are rewritten, and only a prefix that names exactly one of the program's options (an ambiguous
//! prefix is an error to the program, and runs nothing); `find` takes no long options.

use std::borrow::Cow;

/// The long options of the programs whose parsers take prefixes (git's per subcommand).
fn long_options(program: &str, subcommand: Option<&str>) -> &'static [&'static str] {
    match (program, subcommand) {
        ("git", Some("reset")) => &[
            "hard",
            "soft",
            "mixed",
            "merge",
            "keep",
            "quiet",
            "no-quiet",
            "patch",
            "recurse-submodules",
            "no-recurse-submodules",
            "intent-to-add",
            "refresh",
            "no-refresh",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
        ("git", Some("push")) => &[
            "force",
            "force-with-lease",
            "no-force-with-lease",
            "force-if-includes",
            "no-force-if-includes",
            "delete",
            "mirror",
            "all",
            "branches",
            "tags",
            "follow-tags",
            "no-follow-tags",
            "prune",
            "dry-run",
            "porcelain",
            "set-upstream",
            "verify",
            "no-verify",
            "atomic",
            "no-atomic",
            "signed",
            "no-signed",
            "push-option",
            "repo",
            "receive-pack",
            "exec",
            "quiet",
            "verbose",
            "progress",
            "recurse-submodules",
            "no-recurse-submodules",
            "thin",
            "no-thin",
            "ipv4",
            "ipv6",
        ],
        ("git", Some("clean")) => &["force", "dry-run", "quiet", "exclude", "interactive"],
        ("git", Some("checkout")) => &[
            "force",
            "ours",
            "theirs",
            "merge",
            "detach",
            "orphan",
            "patch",
            "quiet",
            "progress",
            "no-progress",
            "track",
            "no-track",
            "guess",
            "no-guess",
            "overlay",
            "no-overlay",
            "recurse-submodules",
            "no-recurse-submodules",
            "conflict",
            "ignore-skip-worktree-bits",
            "ignore-other-worktrees",
            "overwrite-ignore",
            "no-overwrite-ignore",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
        ("git", Some("switch")) => &[
            "force",
            "discard-changes",
            "create",
            "force-create",
            "detach",
            "guess",
            "no-guess",
            "track",
            "no-track",
            "orphan",
            "merge",
            "conflict",
            "quiet",
            "progress",
            "no-progress",
            "recurse-submodules",
            "no-recurse-submodules",
            "ignore-other-worktrees",
        ],
        ("git", Some("restore")) => &[
            "source",
            "staged",
            "worktree",
            "ours",
            "theirs",
            "merge",
            "conflict",
            "patch",
            "quiet",
            "progress",
            "no-progress",
            "overlay",
            "no-overlay",
            "ignore-unmerged",
            "ignore-skip-worktree-bits",
            "recurse-submodules",
            "no-recurse-submodules",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
        ("git", Some("branch")) => &[
            "delete",
            "force",
            "move",
            "copy",
            "list",
            "all",
            "remotes",
            "verbose",
            "quiet",
            "track",
            "no-track",
            "set-upstream-to",
            "unset-upstream",
            "edit-description",
            "contains",
            "no-contains",
            "merged",
            "no-merged",
            "column",
            "no-column",
            "sort",
            "points-at",
            "format",
            "color",
            "no-color",
            "show-current",
            "create-reflog",
            "abbrev",
            "no-abbrev",
            "ignore-case",
            "omit-empty",
            "recurse-submodules",
        ],
        ("git", Some("rm")) => &[
            "force",
            "cached",
            "dry-run",
            "quiet",
            "ignore-unmatch",
            "sparse",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
        ("git", Some("worktree")) => &[
            "force",
            "expire",
            "dry-run",
            "verbose",
            "porcelain",
            "reason",
            "lock",
            "detach",
            "checkout",
            "no-checkout",
            "guess-remote",
            "track",
            "orphan",
            "quiet",
        ],
        ("git", Some("stash")) => &[
            "quiet",
            "index",
            "keep-index",
            "no-keep-index",
            "include-untracked",
            "all",
            "patch",
            "staged",
            "message",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
        ("git", Some("update-ref")) => &["delete", "no-deref", "create-reflog", "stdin", "message"],
        ("git", Some("read-tree")) => &[
            "reset",
            "trivial",
            "aggressive",
            "prefix",
            "index-output",
            "no-sparse-checkout",
            "empty",
            "quiet",
            "dry-run",
            "exclude-per-directory",
            "recurse-submodules",
            "no-recurse-submodules",
        ],
        ("rm", _) => &[
            "force",
            "interactive",
            "one-file-system",
            "no-preserve-root",
            "preserve-root",
            "recursive",
            "dir",
            "verbose",
            "help",
            "version",
        ],
        ("shred", _) => &[
            "force",
            "iterations",
            "random-source",
            "remove",
            "size",
            "verbose",
            "exact",
            "zero",
            "help",
            "version",
        ],
        ("mv", _) => &[
            "backup",
            "debug",
            "exchange",
            "force",
            "interactive",
            "no-clobber",
            "no-copy",
            "strip-trailing-slashes",
            "suffix",
            "target-directory",
            "no-target-directory",
            "update",
            "verbose",
            "context",
            "help",
            "version",
        ],
        ("cp", _) => &[
            "archive",
            "attributes-only",
            "backup",
            "copy-contents",
            "debug",
            "force",
            "interactive",
            "link",
            "dereference",
            "no-clobber",
            "no-dereference",
            "preserve",
            "no-preserve",
            "parents",
            "recursive",
            "reflink",
            "remove-destination",
            "sparse",
            "strip-trailing-slashes",
            "symbolic-link",
            "suffix",
            "target-directory",
            "no-target-directory",
            "update",
            "verbose",
            "keep-directory-symlink",
            "one-file-system",
            "context",
            "help",
            "version",
        ],
        ("rmdir", _) => &["ignore-fail-on-non-empty", "parents", "verbose", "help", "version"],
        ("truncate", _) => &["no-create", "io-blocks", "reference", "size", "help", "version"],
        ("ln", _) => &[
            "backup",
            "directory",
            "force",
            "interactive",
            "logical",
            "no-dereference",
            "physical",
            "relative",
            "symbolic",
            "suffix",
            "target-directory",
            "no-target-directory",
            "verbose",
            "help",
            "version",
        ],
        _ => &[],
    }
}

/// `args` (a command's argument texts) with every abbreviated long option written in full, for
/// the programs that accept abbreviations; borrowed when nothing changes.
pub(crate) fn full_long_options<'a>(program: &str, args: &'a [String]) -> Cow<'a, [String]> {
    let subcommand = if program == "git" { git_subcommand_at(args) } else { None };
    let table = long_options(program, subcommand.map(|k| args[k].as_str()));
    if table.is_empty() {
        return Cow::Borrowed(args);
    }
    let from = subcommand.map_or(0, |k| k + 1);
    let mut out: Option<Vec<String>> = None;
    for (k, a) in args.iter().enumerate().skip(from) {
        if a == "--" {
            break;
        }
        let Some(body) = a.strip_prefix("--") else { continue };
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        if name.is_empty() || table.contains(&name) {
            continue;
        }
        let mut candidates = table.iter().filter(|o| o.starts_with(name));
        if let (Some(full), None) = (candidates.next(), candidates.next()) {
            let written = match value {
                Some(v) => format!("--{full}={v}"),
                None => format!("--{full}"),
            };
            out.get_or_insert_with(|| args.to_vec())[k] = written;
        }
    }
    match out {
        Some(v) => Cow::Owned(v),
        None => Cow::Borrowed(args),
    }
}

/// The index of git's subcommand among its arguments (after the global options, those that take
/// a value skipped with it).
pub(crate) fn git_subcommand_at(args: &[String]) -> Option<usize> {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        if matches!(
            a.as_str(),
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" | "--config-env"
        ) {
            k += 2;
            continue;
        }
        if a.starts_with('-') {
            k += 1;
            continue;
        }
        return Some(k);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(program: &str, line: &str) -> Vec<String> {
        let args: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        full_long_options(program, &args).into_owned()
    }

    #[test]
    fn unique_prefixes_are_the_options_they_abbreviate() {
        assert_eq!(full("git", "reset --har"), ["reset", "--hard"]);
        assert_eq!(full("git", "reset --h HEAD~1"), ["reset", "--hard", "HEAD~1"]);
        assert_eq!(full("git", "-C x push --mirr origin"), ["-C", "x", "push", "--mirror", "origin"]);
        assert_eq!(
            full("git", "push --force-w=main origin"),
            ["push", "--force-with-lease=main", "origin"]
        );
        assert_eq!(full("git", "checkout --forc main"), ["checkout", "--force", "main"]);
        assert_eq!(full("git", "switch --disc main"), ["switch", "--discard-changes", "main"]);
        assert_eq!(full("git", "branch --del --forc x"), ["branch", "--delete", "--force", "x"]);
        assert_eq!(full("rm", "--recurs --forc x"), ["--recursive", "--force", "x"]);
        assert_eq!(full("rm", "--no-pres /"), ["--no-preserve-root", "/"]);
        assert_eq!(full("shred", "--rem x"), ["--remove", "x"]);
    }

    #[test]
    fn ambiguous_exact_unknown_and_operand_words_are_left_alone() {
        // `--forc` could be --force, --force-with-lease or --force-if-includes: git refuses it.
        assert_eq!(full("git", "push --forc origin"), ["push", "--forc", "origin"]);
        assert_eq!(full("git", "push --force origin"), ["push", "--force", "origin"]);
        assert_eq!(full("git", "reset --zzz"), ["reset", "--zzz"]);
        assert_eq!(full("git", "checkout -- --forc"), ["checkout", "--", "--forc"]);
        assert_eq!(full("rm", "-- --recurs"), ["--", "--recurs"]);
        assert_eq!(full("find", ". --del"), [".", "--del"]);
        assert_eq!(full("git", "--no-pager log --sta"), ["--no-pager", "log", "--sta"]);
    }
}
