//! The floor: what an agent may never do, whatever any config says. Seven rules, evaluated
//! first on every acting event, before any config is read.
//!
//! invariant: nothing here takes a config, a database or a setting. A limit an agent can turn off
//! is not a limit. The floor reads the filesystem only to resolve paths that exist (symlinks,
//! block devices, git refs); it never runs a process.

use super::shell::classify::is_harmless_device;
use super::shell::invocation::{invocation, Invocation};
use super::shell::parse::{Command, Piece, RedirOp, RedirTarget, Script, Word};
use crate::decision::{Decision, Permission};
use serde_json::Value;
use std::path::{Path, PathBuf};

mod effects;
mod exec;
mod git;
mod interp;
mod later;
mod paths;
mod rules;
mod tools;
mod words;
pub(crate) mod world;

use crate::pathtext::normalize;
pub(in crate::policy) use git::git_subcommand;
use git::*;
use rules::*;
pub(crate) use words::shell_glob_match;
use words::*;
#[cfg(test)]
pub(crate) use world::Virtual;
pub(crate) use world::{Disk, World};

/// The floor's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Rule {
    OutsideProjectDestruction,
    UnprovableDestruction,
    SecretAccess,
    HistoryRewrite,
    MachineControl,
    UnprovableExecution,
    PolicySurfaceWrite,
}

impl Rule {
    pub(crate) const ALL: [Rule; 7] = [
        Rule::OutsideProjectDestruction,
        Rule::UnprovableDestruction,
        Rule::SecretAccess,
        Rule::HistoryRewrite,
        Rule::MachineControl,
        Rule::UnprovableExecution,
        Rule::PolicySurfaceWrite,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Rule::OutsideProjectDestruction => "outside-project-destruction",
            Rule::UnprovableDestruction => "unprovable-destruction",
            Rule::SecretAccess => "secret-access",
            Rule::HistoryRewrite => "history-rewrite",
            Rule::MachineControl => "machine-control",
            Rule::UnprovableExecution => "unprovable-execution",
            Rule::PolicySurfaceWrite => "policy-surface-write",
        }
    }
}

/// A floor denial: the rule, what happened (for the agent) and a short note (for the operator).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub(crate) rule: Rule,
    pub(crate) what: String,
    pub(crate) note: String,
}

impl Finding {
    fn new(rule: Rule, what: impl Into<String>, note: impl Into<String>) -> Finding {
        Finding {
            rule,
            what: what.into(),
            note: note.into(),
        }
    }

    /// The verdict when the engine itself failed on an act (a bug): what it cannot establish is
    /// refused.
    pub(crate) fn unreadable() -> Finding {
        Finding::new(
            Rule::UnprovableExecution,
            "tlc could not analyse this command (an internal error in its shell analysis), so what it would do cannot be established. Rewrite it more simply.",
            "the floor's analysis failed",
        )
    }

    /// The decision the hook answers with.
    pub(crate) fn decision(&self) -> Decision {
        Decision {
            permission: Permission::Deny,
            rule: self.rule.as_str().to_string(),
            reason: Some(format!(
                "FLOOR: {}\nThis is a floor rule — it has no config switch, because a limit an agent can turn off is not a limit. Restate what you need and let the operator decide; do not work around this.\nrule={}",
                self.what,
                self.rule.as_str()
            )),
            user_note: Some(format!("tlc floor rule {}: {}", self.rule.as_str(), self.note)),
            follow_up: None,
            context: None,
        }
    }
}

/// Where the floor stands: the project, the working directory of the command, the home folders.
#[derive(Debug, Clone)]
pub struct Context {
    pub(crate) project: PathBuf,
    pub(crate) cwd: PathBuf,
    pub(crate) home: Option<PathBuf>,
    pub(crate) tlc_home: PathBuf,
    /// The system temp folders (`$TMPDIR`, `/tmp`, `/var/tmp`).
    pub(crate) temp: Vec<PathBuf>,
    /// The same folders as the filesystem resolves them (symlinks followed).
    canonical: Zones,
    surface: Vec<PathBuf>,
    protected: Vec<PathBuf>,
    markers: Vec<String>,
    /// The folders under the home where credentials live.
    secret_dirs: Vec<PathBuf>,
    /// What the floor may know of the machine.
    world: std::sync::Arc<dyn World>,
    /// `$TMPDIR` as the hook's own environment has it (`$HOME` is [`Context::home`], `$PWD` the
    /// folder the command runs in).
    pub(crate) tmpdir: Option<PathBuf>,
}

#[derive(Debug, Clone, Default)]
struct Zones {
    project: Option<PathBuf>,
    home: Option<PathBuf>,
    tlc_home: Option<PathBuf>,
    temp: Vec<PathBuf>,
}

impl Context {
    /// The floor's context on the real disk: the project root, the command's working directory,
    /// the operator's home (when known), tlc's runtime home and the system temp folders.
    pub fn new(project: PathBuf, cwd: PathBuf, home: Option<PathBuf>, tlc_home: PathBuf, temp: Vec<PathBuf>) -> Context {
        Context::in_world(std::sync::Arc::new(Disk), project, cwd, home, tlc_home, temp)
    }

    /// [`Context::new`] over another world than the disk (the tables of the floor's tests).
    pub(crate) fn in_world(
        world: std::sync::Arc<dyn World>,
        project: PathBuf,
        cwd: PathBuf,
        home: Option<PathBuf>,
        tlc_home: PathBuf,
        temp: Vec<PathBuf>,
    ) -> Context {
        let canon = |p: &Path| world.canonicalize(p);
        let canonical = Zones {
            project: canon(&project),
            home: home.as_deref().and_then(canon),
            tlc_home: canon(&tlc_home),
            temp: temp.iter().filter_map(|t| canon(t)).collect(),
        };
        let mut ctx = Context {
            project: normalize(&project),
            cwd: normalize(&cwd),
            home: home.map(|h| normalize(&h)),
            tlc_home: normalize(&tlc_home),
            temp: temp.iter().map(|t| normalize(t)).collect(),
            canonical,
            surface: Vec::new(),
            protected: Vec::new(),
            markers: Vec::new(),
            secret_dirs: Vec::new(),
            world: world.clone(),
            tmpdir: std::env::var_os("TMPDIR")
                .filter(|t| !t.is_empty())
                .map(|t| normalize(Path::new(&t))),
        };
        if let Some(home) = &ctx.home {
            ctx.secret_dirs = SECRET_HOME_DIRS.iter().map(|d| home.join(d)).collect();
        }
        ctx.surface = ctx.compute_surface();
        ctx.markers = ctx.compute_markers();
        let c = &ctx.canonical;
        ctx.protected = [
            Some(&ctx.project),
            c.project.as_ref(),
            ctx.home.as_ref(),
            c.home.as_ref(),
            Some(&ctx.tlc_home),
            c.tlc_home.as_ref(),
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
        ctx
    }

    /// Adds the rest of the protected set (issue 51: the clients' settings files, the operator's
    /// start-up files, the repository's git hooks and config, as `policy::boundary` names them)
    /// to the policy surface: writing one is refused like writing tlc's own state.
    pub(crate) fn with_protected(mut self, members: impl IntoIterator<Item = PathBuf>) -> Context {
        for m in members {
            let m = normalize(&m);
            if let Some(c) = self.world.canonicalize(&m).filter(|c| *c != m) {
                self.surface.push(c);
            }
            self.surface.push(m);
        }
        self.surface.sort();
        self.surface.dedup();
        self
    }

    /// The system temp folders of this process: `$TMPDIR` (or the platform's), `/tmp`, `/var/tmp`.
    pub fn system_temp() -> Vec<PathBuf> {
        let mut out = vec![std::env::temp_dir()];
        for t in ["/tmp", "/var/tmp"] {
            let p = PathBuf::from(t);
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    fn surface(&self) -> &[PathBuf] {
        &self.surface
    }

    fn compute_surface(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for root in [Some(&self.project), self.canonical.project.as_ref()].into_iter().flatten() {
            let h = root.join(".tlc").join("harness");
            out.push(h.join("config.toml"));
            out.push(h.join("state"));
            out.push(h.join("rules"));
        }
        out.push(self.tlc_home.clone());
        if let Some(t) = &self.canonical.tlc_home {
            out.push(t.clone());
        }
        out
    }

    /// Text that names the policy surface inside a program an interpreter runs.
    fn surface_markers(&self) -> &[String] {
        &self.markers
    }

    fn compute_markers(&self) -> Vec<String> {
        let mut out: Vec<String> = [".tlc/harness/config", ".tlc/harness/state", ".tlc/harness/rules", "TLC_HOME"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        out.push(self.tlc_home.display().to_string());
        if let Some(home) = &self.home {
            if let Ok(rel) = self.tlc_home.strip_prefix(home) {
                out.push(format!("~/{}", rel.display()));
            }
        }
        out
    }
}

/// What an acting event is about to do.
#[derive(Debug, Clone)]
pub enum Act<'a> {
    /// A shell command line (Bash, Cursor's beforeShellExecution).
    Shell(&'a str),
    /// A tool that reads a file (Read, Cursor's beforeReadFile).
    Read(&'a str),
    /// A tool that creates or replaces a file (Write).
    Write(&'a str),
    /// A tool that reads and rewrites a file (Edit, MultiEdit, NotebookEdit).
    Edit(&'a str),
    /// A tool that deletes a file.
    Delete(&'a str),
    /// A command asked to run outside the client's sandbox (Claude Code's
    /// `dangerouslyDisableSandbox`), where tlc's policy and state are read-only (issue 51).
    SandboxEscape,
    /// An MCP tool and its input.
    Mcp {
        /// The tool's name as the provider gives it.
        tool: &'a str,
        /// Its input, when the payload has one.
        input: Option<&'a Value>,
    },
}

/// The subcommand of `tlc <words…>` when it changes tlc's policy, state, wiring or record
/// (`pause`, `mode focus`, `gate test-command`, …): the operator's, never an agent's. `words` are
/// the positional words, `flags` the words that begin with `-`: `lessons add` is an agent's to run,
/// but with `--global` or `--pin` it is the operator's (issue 53).
pub(super) fn mutating_subcommand(words: &[String], flags: &[&str]) -> Option<String> {
    let sub = words.first()?.as_str();
    if sub == "lessons" && words.get(1).is_some_and(|w| w == "add") {
        let operator_flag = ["--global", "--pin"].into_iter().find(|f| {
            flags
                .iter()
                .any(|g| g == f || g.strip_prefix(f).is_some_and(|rest| rest.starts_with('=')))
        });
        return operator_flag.map(|f| format!("lessons add {f}"));
    }
    let second = words.get(1).map(String::as_str);
    let mutating = match sub {
        "pause" | "resume" | "init" | "install" | "uninstall" | "hook" => true,
        "mode" => second.is_some(),
        "policy" => second == Some("accept"),
        "gate" => matches!(second, Some("test-command" | "lint-command")),
        "stable" => matches!(second, Some("add" | "remove" | "update")),
        "agent" => matches!(second, Some("install" | "upgrade" | "uninstall" | "prune" | "stable")),
        "obs" => matches!(second, Some("prune" | "import")),
        "db" => second == Some("migrate"),
        "prices" => second == Some("refresh"),
        "lessons" => matches!(
            second,
            Some("remove" | "rm" | "forget" | "pin" | "unpin" | "promote" | "edit" | "garden" | "prune" | "import")
        ),
        _ => false,
    };
    mutating.then(|| words.iter().take(2).cloned().collect::<Vec<_>>().join(" "))
}

/// A simple command the walk saw run: the program (through its wrappers), its arguments as the
/// words read, and the folder it runs in (`None`: one only known at run time). Every command a
/// line runs is one — inside substitutions, `bash -c`, heredocs fed to a shell, interpreter
/// `system()` strings, and the commands `find -exec`, `parallel`, `xargs` and `watch` carry — so
/// the work-loss rule judges each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// The program's file name, through its wrappers.
    pub program: String,
    /// Each argument's text as the walk read it.
    pub args: Vec<String>,
    /// Per argument: its value is only known at run time (a variable, a substitution's output).
    pub dynamic: Vec<bool>,
    /// The folder it runs in; `None` when that is only known at run time.
    pub cwd: Option<PathBuf>,
}

/// The floor's verdict on one act: `None` allows it (the rest of the policy then decides).
pub fn evaluate(ctx: &Context, act: &Act<'_>) -> Option<Finding> {
    evaluate_in(act, &Floor::new(ctx))
}

/// The floor's verdict on a shell command line already parsed (`script` is `command` as
/// [`super::shell::parse`] splits it), and, with `recording`, every simple command it runs that
/// can lose work ([`crate::policy::work_loss::MAY_LOSE`]) as the walk saw it: for the hook, which
/// hands the same parse on to the rails instead of parsing the line twice. A line that does not
/// parse is [`unparsable`].
pub fn evaluate_parsed(ctx: &Context, command: &str, script: &Script, recording: bool) -> (Option<Finding>, Vec<Ran>) {
    let mut floor = Floor::new(ctx);
    if recording {
        floor.ran = Some(Default::default());
    }
    floor.note_reassigned(command);
    let found = floor.script(script, 0);
    (found, floor.ran.map(|r| r.into_inner()).unwrap_or_default())
}

/// The floor's verdict on a command line the shell parser cannot split.
pub(crate) fn unparsable(e: &super::shell::ParseError) -> Finding {
    Finding::new(
        Rule::UnprovableExecution,
        format!("this command cannot be split into the commands it runs ({e}), so what it would do cannot be established. Write it so a shell parser can read it: close every quote, heredoc and substitution."),
        "a command the shell parser cannot split",
    )
}

fn evaluate_in(act: &Act<'_>, floor: &Floor<'_>) -> Option<Finding> {
    match act {
        Act::Shell(command) => {
            floor.note_reassigned(command);
            match super::shell::parse_as_run(command, 0) {
                Ok((_, script)) => floor.script(&script, 0),
                Err(e) => Some(unparsable(&e)),
            }
        }
        Act::Read(path) => floor.file_read(path),
        Act::Edit(path) => floor.file_write(path, "edit").or_else(|| floor.file_read(path)),
        Act::Write(path) => floor.file_write(path, "write"),
        Act::Delete(path) => floor.file_write(path, "delete").or_else(|| floor.file_remove(path)),
        Act::Mcp { tool, input } => floor.mcp(tool, *input),
        Act::SandboxEscape => Some(surface_denial(
            "this command asks to run outside the sandbox (`dangerouslyDisableSandbox`), which keeps tlc's policy and state, the clients' settings and the operator's start-up files read-only to the agent's commands. Run it inside the sandbox; if it cannot work there, tell the operator what it needs.".to_string(),
            "a command asked to run outside the sandbox".to_string(),
        )),
    }
}

struct Floor<'c> {
    ctx: &'c Context,
    /// Paths already resolved through the filesystem during this evaluation, and whether
    /// anything is there (see [`Floor::canonical`]). Keyed by the path's bytes: the paths are
    /// normalised, and hashing bytes is cheaper than hashing a `Path`'s components.
    resolved: std::cell::RefCell<PathMap<(PathBuf, bool)>>,
    /// What is at a path (its last component not followed), as already asked of the world during
    /// this evaluation: one question per path, whichever check asks (see [`Floor::entry`]).
    entries: std::cell::RefCell<PathMap<Option<bool>>>,
    /// Every folder a command of the line may run in by now: the hook's own, then each one a
    /// `cd`, `pushd` or `builtin cd` before it may have moved to (`None`: one only known at run
    /// time). A command must pass in all of them: which `&&`, `||`, subshell or `popd` undid a
    /// `cd` is not tracked, so the set only grows (see [`MAX_CWDS`]).
    cwds: std::cell::RefCell<Vec<Option<PathBuf>>>,
    /// The folder of the command being checked (one of `cwds`; `env -C` names its own).
    cwd: std::cell::RefCell<Option<PathBuf>>,
    /// Files an earlier command of the line writes: their text when the writer's output is
    /// literal (`echo 'tlc pause' > x.sh`), `None` when it is not; a later `sh x.sh` reads it here.
    written: std::cell::RefCell<std::collections::BTreeMap<PathBuf, Option<String>>>,
    /// The commands seen run, when asked for (see [`evaluate_parsed`]).
    ran: Option<std::cell::RefCell<Vec<Ran>>>,
    /// `HOME`, `PWD`, `TMPDIR` when the line may set them itself: their value is then unknown.
    reassigned: std::cell::RefCell<Vec<&'static str>>,
    /// The aliases the line defines (`alias zz='rm -rf ~'`), by name: a later command named by
    /// one is judged as what it expands to.
    aliases: std::cell::RefCell<std::collections::BTreeMap<String, String>>,
    /// The effects of the command being judged, with their words resolved (see [`EffectsMemo`]).
    effects_memo: std::cell::RefCell<Option<EffectsMemo>>,
}

/// What [`Floor::judged_effects`] worked out, and what for: the command (by address: it is alive,
/// borrowed, for the whole `command` call that owns the memo), the folder it runs in, and how many
/// variables the line had reassigned (that list only grows). Anything else computes afresh.
struct EffectsMemo {
    cmd: *const Command,
    cwd: Option<PathBuf>,
    reassigned: usize,
    effects: std::rc::Rc<[(Word, Effect, Target)]>,
}

/// A per-evaluation cache keyed by a path's bytes. foldhash, not the standard library's SipHash:
/// hashing path prefixes was a tenth of the floor's work on a compound line, and its per-process
/// random seed still keeps a crafted line from choosing the collisions.
type PathMap<V> = std::collections::HashMap<std::ffi::OsString, V, foldhash::fast::RandomState>;

/// The most folders a line's `cd`s are followed into; past it, a folder only known at run time.
const MAX_CWDS: usize = 16;
/// The most commands recorded for the work-loss rule (a line holds at most 20,000; a command
/// judged in several folders counts once per folder).
const MAX_RAN: usize = 40_000;

impl<'c> Floor<'c> {
    fn new(ctx: &'c Context) -> Floor<'c> {
        Floor {
            cwds: std::cell::RefCell::new(vec![Some(ctx.cwd.clone())]),
            cwd: std::cell::RefCell::new(Some(ctx.cwd.clone())),
            written: Default::default(),
            ran: None,
            reassigned: Default::default(),
            aliases: Default::default(),
            ctx,
            resolved: Default::default(),
            entries: Default::default(),
            effects_memo: Default::default(),
        }
    }
}

/// A word's value as far as it can be known before the command runs.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    Path(PathBuf),
    /// A glob or brace pattern: the folder it is rooted in, and the whole pattern.
    Pattern(PathBuf, String),
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// The path is removed (or moved away).
    Remove,
    /// The path's content is replaced if it exists.
    Overwrite,
    /// Content is added or the path is created; what exists survives.
    Preserve,
    /// Everything under the path matching a filter is removed (`find … -delete`).
    RemoveUnder,
}

/// Folders under the home where credentials live (`.ssh` first: its public keys are not secret).
const SECRET_HOME_DIRS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".docker",
    ".azure",
    ".config/gh",
    ".config/gcloud",
    ".npmrc",
    ".pypirc",
    "Library/Keychains",
    ".local/share/keyrings",
];

const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"];

/// Whether the program named `program` runs code it is given, or is tlc: a shell, an interpreter,
/// a launcher that runs any other program (`env`, `xargs`, `sudo`, …). A client setting that runs
/// one outside its sandbox reopens the boundary (`tlc doctor` says so).
pub(crate) fn runs_code_or_tlc(program: &str) -> bool {
    const LAUNCHERS: &[&str] = &[
        "tlc", "env", "xargs", "sudo", "doas", "nohup", "setsid", "timeout", "nice", "exec", "command", "script", "tmux", "screen", "make",
        "npm", "npx", "node", "git", "find", "parallel", "watch", "at", "batch",
    ];
    SHELLS.contains(&program) || INTERPRETERS.contains(&program) || LAUNCHERS.contains(&program)
}
const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "ruby",
    "perl",
    "php",
    "lua",
    "deno",
    "bun",
    "pwsh",
    "powershell",
    "Rscript",
    "osascript",
    "awk",
    "gawk",
    "mawk",
    "sqlite3",
    "tclsh",
    "jshell",
    "irb",
];
const FETCHERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "aria2c",
    "http",
    "https",
    "xh",
    "lwp-request",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
];
const NETWORK_CLIENTS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "aria2c",
    "http",
    "https",
    "xh",
    "lwp-request",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ssh",
    "ftp",
    "lynx",
    "w3m",
    "links",
];
const METADATA_HOSTS: &[&str] = &[
    "169.254.169.254",
    "169.254.170.2",
    "100.100.100.200",
    "metadata.google.internal",
    "fd00:ec2::254",
];
/// Programs that never put a file's content in front of the agent.
const NON_READING: &[&str] = &[
    "rm", "rmdir", "unlink", "shred", "srm", "wipe", "ls", "stat", "test", "[", "[[", "touch", "mkdir", "chmod", "chown", "chgrp", "du",
    "realpath", "readlink", "basename", "dirname", "echo", "printf", "find", "file", "ln", "wc", "git", "tlc",
];
/// Programs proven to only read: they may name the policy surface.
const SURFACE_READERS: &[&str] = &[
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ls",
    "stat",
    "wc",
    "diff",
    "cmp",
    "file",
    "jq",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "shasum",
    "strings",
    "od",
    "xxd",
    "hexdump",
    "test",
    "[",
    "[[",
    "echo",
    "printf",
    "tree",
    "du",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "cd",
    "pushd",
    "bat",
];
const GIT_READERS: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "ls-files",
    "cat-file",
    "blame",
    "grep",
    "rev-parse",
    "ls-tree",
    "shortlog",
    "describe",
];

#[cfg(test)]
mod tests;
