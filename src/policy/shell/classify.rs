//! The one classifier table: what a shell command can do to the machine, in six classes. The
//! posture rail asks before the last four under `paired`; the floor and the catastrophic rail
//! look at targets, not classes.

use super::invocation::{invocation, Invocation};
use super::parse::{Command, RedirOp, RedirTarget};

/// What a command can do, from least to most reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Class {
    /// Reads, lists, prints, computes.
    Read,
    /// Creates or appends; an existing path's content survives (`mkdir`, `touch`, `>>`, builds).
    WritePreserving,
    /// Can overwrite an existing path (`cp`, `mv`, `tee`, `>`, `sed -i`).
    Write,
    /// Changes who can reach a path or runs as someone else (`chmod`, `chown`, `sudo`).
    Privilege,
    /// Leaves the machine (`curl`, `ssh`, `git push`, package installs).
    Network,
    /// Removes paths or data (`rm`, `shred`, `dd of=`, `git clean`).
    Destructive,
}

impl Class {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Class::Read => "read",
            Class::WritePreserving => "write-preserving",
            Class::Write => "write",
            Class::Privilege => "privilege",
            Class::Network => "network",
            Class::Destructive => "destructive",
        }
    }
}

use Class::*;

/// Programs and their class before any refinement by subcommand or flag. A program not listed
/// counts as write-preserving: it may create files, and nothing shows it overwrites one.
pub(crate) const TABLE: &[(&str, Class)] = &[
    // read
    ("cat", Read),
    ("head", Read),
    ("tail", Read),
    ("less", Read),
    ("more", Read),
    ("grep", Read),
    ("egrep", Read),
    ("fgrep", Read),
    ("rg", Read),
    ("ag", Read),
    ("ls", Read),
    ("tree", Read),
    ("find", Read),
    ("fd", Read),
    ("stat", Read),
    ("file", Read),
    ("wc", Read),
    ("du", Read),
    ("df", Read),
    ("diff", Read),
    ("cmp", Read),
    ("sort", Read),
    ("uniq", Read),
    ("cut", Read),
    ("tr", Read),
    ("nl", Read),
    ("tac", Read),
    ("rev", Read),
    ("column", Read),
    ("jq", Read),
    ("yq", Read),
    ("awk", Read),
    ("gawk", Read),
    ("sed", Read),
    ("echo", Read),
    ("printf", Read),
    ("pwd", Read),
    ("cd", Read),
    ("pushd", Read),
    ("popd", Read),
    ("which", Read),
    ("type", Read),
    ("whereis", Read),
    ("true", Read),
    ("false", Read),
    ("test", Read),
    ("[", Read),
    ("[[", Read),
    (":", Read),
    ("env", Read),
    ("printenv", Read),
    ("date", Read),
    ("whoami", Read),
    ("id", Read),
    ("uname", Read),
    ("hostname", Read),
    ("ps", Read),
    ("basename", Read),
    ("dirname", Read),
    ("realpath", Read),
    ("readlink", Read),
    ("sleep", Read),
    ("seq", Read),
    ("xxd", Read),
    ("od", Read),
    ("hexdump", Read),
    ("strings", Read),
    ("md5sum", Read),
    ("sha1sum", Read),
    ("sha256sum", Read),
    ("shasum", Read),
    ("base64", Read),
    ("export", Read),
    ("set", Read),
    ("unset", Read),
    ("read", Read),
    ("wait", Read),
    ("exit", Read),
    ("return", Read),
    ("shift", Read),
    ("local", Read),
    ("declare", Read),
    ("source", Read),
    (".", Read),
    ("eval", Read),
    ("history", Read),
    ("man", Read),
    ("tlc", Read),
    // write-preserving
    ("mkdir", WritePreserving),
    ("touch", WritePreserving),
    ("ln", WritePreserving),
    ("mktemp", WritePreserving),
    ("make", WritePreserving),
    ("cargo", WritePreserving),
    ("go", WritePreserving),
    ("npm", WritePreserving),
    ("pnpm", WritePreserving),
    ("yarn", WritePreserving),
    ("bun", WritePreserving),
    ("pytest", WritePreserving),
    ("python", WritePreserving),
    ("python3", WritePreserving),
    ("node", WritePreserving),
    ("git", WritePreserving),
    // write
    ("cp", Write),
    ("mv", Write),
    ("tee", Write),
    ("install", Write),
    ("rsync", Write),
    ("truncate", Write),
    ("patch", Write),
    ("tar", Write),
    ("unzip", Write),
    ("gzip", Write),
    ("gunzip", Write),
    ("zip", Write),
    ("perl", Write),
    ("dd", Write),
    // privilege
    ("chmod", Privilege),
    ("chown", Privilege),
    ("chgrp", Privilege),
    ("setfacl", Privilege),
    ("chattr", Privilege),
    ("sudo", Privilege),
    ("doas", Privilege),
    ("su", Privilege),
    // network
    ("curl", Network),
    ("wget", Network),
    ("ssh", Network),
    ("scp", Network),
    ("sftp", Network),
    ("nc", Network),
    ("ncat", Network),
    ("netcat", Network),
    ("socat", Network),
    ("telnet", Network),
    ("ftp", Network),
    ("http", Network),
    ("https", Network),
    ("xh", Network),
    ("aria2c", Network),
    ("gh", Network),
    ("npx", Network),
    ("pip", Network),
    ("pip3", Network),
    ("apt", Network),
    ("apt-get", Network),
    ("brew", Network),
    ("gem", Network),
    ("aws", Network),
    ("gcloud", Network),
    ("az", Network),
    ("kubectl", Network),
    // destructive
    ("rm", Destructive),
    ("rmdir", Destructive),
    ("unlink", Destructive),
    ("shred", Destructive),
    ("wipefs", Destructive),
    ("mkfs", Destructive),
    ("mkswap", Destructive),
    ("fdisk", Destructive),
    ("sfdisk", Destructive),
    ("parted", Destructive),
    ("dropdb", Destructive),
];

/// Write targets that are not files: writing to them overwrites nothing.
pub(crate) const HARMLESS_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/tty",
    "/dev/ptmx",
];

/// Whether a redirect or write target is a harmless device (`/dev/null`, `/dev/fd/2`, …).
pub(crate) fn is_harmless_device(path: &str) -> bool {
    HARMLESS_DEVICES.contains(&path) || path.starts_with("/dev/fd/") || path.starts_with("/dev/pts/")
}

fn base_class(program: &str) -> Class {
    if program.starts_with("mkfs.") || program.starts_with("mke2fs") {
        return Destructive;
    }
    if program.starts_with("python") || program.starts_with("pip") {
        return if program.starts_with("pip") { Network } else { WritePreserving };
    }
    TABLE.iter().find(|(p, _)| *p == program).map_or(WritePreserving, |(_, c)| *c)
}

fn has_flag(args: &[String], short: char, long: &[&str]) -> bool {
    args.iter()
        .any(|a| long.contains(&a.as_str()) || (a.starts_with('-') && !a.starts_with("--") && a.len() > 1 && a[1..].contains(short)))
}

fn first_operand(args: &[String]) -> Option<&str> {
    args.iter().map(String::as_str).find(|a| !a.starts_with('-'))
}

/// The class of the program `inv` runs, refined by its subcommand and flags.
pub(crate) fn program_class(inv: &Invocation<'_>) -> Class {
    if inv.lookup_only {
        return Read;
    }
    let Some(program) = inv.program.as_deref() else {
        return WritePreserving;
    };
    let args = inv.arg_texts();
    let sub = first_operand(args);
    let class = match program {
        "sed" | "perl" if has_flag(args, 'i', &["--in-place"]) => Write,
        "sed" => Read,
        "perl" => WritePreserving,
        "awk" | "gawk" if args.iter().any(|a| a == "inplace") => Write,
        "sort" if has_flag(args, 'o', &["--output"]) => Write,
        "find" if args.iter().any(|a| a == "-delete") => Destructive,
        "find" if args.iter().any(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")) => Write,
        "tee" if has_flag(args, 'a', &["--append"]) => WritePreserving,
        "cp" if has_flag(args, 'n', &["--no-clobber"]) => WritePreserving,
        "ln" if has_flag(args, 'f', &["--force"]) => Write,
        "dd" if args.iter().any(|a| a.starts_with("of=")) => Destructive,
        "dd" => Read,
        "rsync" if args.iter().any(|a| a.contains(':') && !a.starts_with('-')) => Network,
        "rsync" if args.iter().any(|a| a.starts_with("--delete") || a == "--remove-source-files") => Destructive,
        "tar" if has_flag(args, 't', &["--list"]) && !has_flag(args, 'x', &["--extract"]) => Read,
        "git" => git_class(sub, args),
        "cargo" => match sub {
            Some("install" | "add" | "update" | "publish" | "search" | "login" | "yank" | "fetch") => Network,
            Some("fmt") if !args.iter().any(|a| a == "--check") => Write,
            Some("clean") => Destructive,
            _ => WritePreserving,
        },
        "npm" | "pnpm" | "yarn" | "bun" => match sub {
            Some("install" | "i" | "add" | "ci" | "update" | "upgrade" | "publish" | "login" | "dlx" | "create" | "x") => Network,
            None if program == "yarn" => Network,
            _ => WritePreserving,
        },
        "go" => match sub {
            Some("get" | "install") => Network,
            Some("mod") if args.iter().any(|a| a == "download" || a == "tidy") => Network,
            _ => WritePreserving,
        },
        "uv" | "poetry" | "pipx" | "bundle" => match sub {
            Some("add" | "install" | "sync" | "update" | "pip" | "lock" | "publish") => Network,
            _ => WritePreserving,
        },
        "docker" | "podman" => match sub {
            Some("pull" | "push" | "login" | "build" | "run") => Network,
            Some("rm" | "rmi" | "prune" | "system") => Destructive,
            _ => WritePreserving,
        },
        "systemctl" | "service" | "launchctl" => Privilege,
        "tlc" => Read,
        p => base_class(p),
    };
    // A wrapper that runs the program as another user reaches at least as far as privilege.
    if inv.via.iter().any(|w| matches!(*w, "sudo" | "doas")) {
        class.max(Privilege)
    } else {
        class
    }
}

fn git_class(sub: Option<&str>, args: &[String]) -> Class {
    match sub {
        Some(
            "status" | "diff" | "log" | "show" | "ls-files" | "blame" | "grep" | "rev-parse" | "describe" | "shortlog" | "cat-file"
            | "ls-tree" | "rev-list" | "reflog" | "whatchanged" | "help" | "version" | "--version" | "name-rev" | "merge-base",
        ) => Read,
        Some("branch" | "tag") if has_flag(args, 'D', &[]) || has_flag(args, 'd', &["--delete"]) => Destructive,
        Some("branch" | "tag") if has_flag(args, 'M', &[]) || has_flag(args, 'm', &["--move"]) || has_flag(args, 'f', &["--force"]) => {
            Write
        }
        Some("branch" | "tag" | "remote" | "config" | "stash") if args.len() <= 1 => Read,
        Some("config") if args.iter().any(|a| a == "--get" || a == "--list" || a == "-l" || a == "--get-all") => Read,
        Some("remote") if args.iter().any(|a| a == "-v" || a == "show" || a == "get-url") => Read,
        Some("stash") if args.iter().any(|a| a == "list" || a == "show") => Read,
        Some("push" | "pull" | "fetch" | "clone" | "ls-remote" | "submodule") => Network,
        Some("remote") if args.iter().any(|a| a == "update") => Network,
        Some("clean") => Destructive,
        Some("reset") if args.iter().any(|a| a == "--hard") => Destructive,
        Some("checkout") if args.iter().any(|a| a == "--" || a == "." || a == "-f" || a == "--force") => Write,
        Some(
            "restore" | "rebase" | "merge" | "cherry-pick" | "revert" | "am" | "apply" | "mv" | "rm" | "reset" | "switch" | "checkout",
        ) => Write,
        Some("stash") if args.iter().any(|a| a == "drop" || a == "clear") => Destructive,
        Some("stash") if args.iter().any(|a| a == "pop" || a == "apply") => Write,
        Some("filter-branch" | "filter-repo" | "gc" | "prune") => Destructive,
        _ => WritePreserving,
    }
}

/// The class a redirection gives its command: `>` overwrites, `>>` appends, `<` reads.
pub(crate) fn redirect_class(op: RedirOp, target: &RedirTarget) -> Class {
    let path = match target {
        RedirTarget::Word(w) => w.literal(),
        _ => None,
    };
    if path.as_deref().is_some_and(is_harmless_device) {
        return Read;
    }
    match op {
        RedirOp::Write | RedirOp::WriteBoth | RedirOp::ReadWrite => Write,
        RedirOp::Dup
            if path
                .as_deref()
                .is_some_and(|p| !p.is_empty() && !p.bytes().all(|b| b.is_ascii_digit()) && p != "-") =>
        {
            Write
        }
        RedirOp::Append | RedirOp::AppendBoth => WritePreserving,
        _ => Read,
    }
}

/// The class of one simple command: its program's, raised by its redirections.
pub(crate) fn classify(cmd: &Command) -> Class {
    let inv = invocation(cmd);
    let base = if cmd.words.is_empty() { Read } else { program_class(&inv) };
    cmd.redirects.iter().map(|r| redirect_class(r.op, &r.target)).fold(base, Class::max)
}
