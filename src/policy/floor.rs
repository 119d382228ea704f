//! The floor: what an agent may never do, whatever any config says. Seven rules, evaluated
//! first on every acting event, before any config is read.
//!
//! invariant: nothing here takes a config, a database or a setting. A limit an agent can turn off
//! is not a limit. The floor reads the filesystem only to resolve paths that exist (symlinks,
//! block devices, git refs); it never runs a process.

use super::shell::classify::is_harmless_device;
use super::shell::invocation::{invocation, program_name, Invocation};
use super::shell::parse::{Command, Piece, RedirOp, RedirTarget, Script, Word};
use crate::decision::{Decision, Permission};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// The floor's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    OutsideProjectDestruction,
    UnprovableDestruction,
    SecretAccess,
    HistoryRewrite,
    MachineControl,
    UnprovableExecution,
    PolicySurfaceWrite,
}

impl Rule {
    pub const ALL: [Rule; 7] = [
        Rule::OutsideProjectDestruction,
        Rule::UnprovableDestruction,
        Rule::SecretAccess,
        Rule::HistoryRewrite,
        Rule::MachineControl,
        Rule::UnprovableExecution,
        Rule::PolicySurfaceWrite,
    ];

    pub fn as_str(self) -> &'static str {
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

    /// Whether `name` is a floor rule's name (the decision tables store names).
    pub fn is_floor(name: &str) -> bool {
        Rule::ALL.iter().any(|r| r.as_str() == name)
    }
}

/// A floor denial: the rule, what happened (for the agent) and a short note (for the operator).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: Rule,
    pub what: String,
    pub note: String,
}

impl Finding {
    fn new(rule: Rule, what: impl Into<String>, note: impl Into<String>) -> Finding {
        Finding {
            rule,
            what: what.into(),
            note: note.into(),
        }
    }

    /// The decision the hook answers with.
    pub fn decision(&self) -> Decision {
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
    pub project: PathBuf,
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    pub tlc_home: PathBuf,
    /// The system temp folders (`$TMPDIR`, `/tmp`, `/var/tmp`).
    pub temp: Vec<PathBuf>,
    /// The same folders as the filesystem resolves them (symlinks followed).
    canonical: Zones,
    surface: Vec<PathBuf>,
    protected: Vec<PathBuf>,
    markers: Vec<String>,
    /// The folders under the home where credentials live.
    secret_dirs: Vec<PathBuf>,
}

#[derive(Debug, Clone, Default)]
struct Zones {
    project: Option<PathBuf>,
    home: Option<PathBuf>,
    tlc_home: Option<PathBuf>,
    temp: Vec<PathBuf>,
}

impl Context {
    pub fn new(project: PathBuf, cwd: PathBuf, home: Option<PathBuf>, tlc_home: PathBuf, temp: Vec<PathBuf>) -> Context {
        let canon = |p: &Path| std::fs::canonicalize(p).ok();
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
    Shell(&'a str),
    /// A tool that reads a file (Read, Cursor's beforeReadFile).
    Read(&'a str),
    /// A tool that creates or replaces a file (Write).
    Write(&'a str),
    /// A tool that reads and rewrites a file (Edit, MultiEdit, NotebookEdit).
    Edit(&'a str),
    /// A tool that deletes a file.
    Delete(&'a str),
    /// An MCP tool and its input.
    Mcp {
        tool: &'a str,
        input: Option<&'a Value>,
    },
}

/// The floor's verdict on one act: `None` allows it (the rest of the policy then decides).
pub fn evaluate(ctx: &Context, act: &Act<'_>) -> Option<Finding> {
    match act {
        Act::Shell(command) => {
            let script = match super::shell::parse(command) {
                Ok(s) => s,
                Err(e) => {
                    return Some(Finding::new(
                        Rule::UnprovableExecution,
                        format!("this command cannot be split into the commands it runs ({e}), so what it would do cannot be established. Write it so a shell parser can read it: close every quote, heredoc and substitution."),
                        "a command the shell parser cannot split",
                    ))
                }
            };
            Floor::new(ctx).script(&script, 0)
        }
        Act::Read(path) => Floor::new(ctx).file_read(path),
        Act::Edit(path) => {
            let f = Floor::new(ctx);
            f.file_write(path, "edit").or_else(|| f.file_read(path))
        }
        Act::Write(path) => Floor::new(ctx).file_write(path, "write"),
        Act::Delete(path) => {
            let f = Floor::new(ctx);
            f.file_write(path, "delete").or_else(|| f.file_remove(path))
        }
        Act::Mcp { tool, input } => Floor::new(ctx).mcp(tool, *input),
    }
}

struct Floor<'c> {
    ctx: &'c Context,
    /// Paths already resolved through the filesystem during this evaluation.
    resolved: std::cell::RefCell<std::collections::HashMap<PathBuf, PathBuf>>,
    /// Whether a path is a symlink, as already asked during this evaluation.
    links: std::cell::RefCell<std::collections::HashMap<PathBuf, bool>>,
}

impl<'c> Floor<'c> {
    fn new(ctx: &'c Context) -> Floor<'c> {
        Floor {
            ctx,
            resolved: Default::default(),
            links: Default::default(),
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

const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"];
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
    "rm", "rmdir", "unlink", "shred", "ls", "stat", "test", "[", "[[", "touch", "mkdir", "chmod", "chown", "chgrp", "du", "realpath",
    "readlink", "basename", "dirname", "echo", "printf", "find", "file", "ln", "wc", "git", "tlc",
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

impl Floor<'_> {
    // ---- paths ----

    fn resolve(&self, w: &Word) -> Target {
        let mut text = String::new();
        let mut pattern = false;
        for p in &w.pieces {
            match p {
                Piece::Lit(s) => {
                    if s.contains(['*', '?', '[']) || (s.contains('{') && s.contains('}')) {
                        pattern = true;
                    }
                    text.push_str(s);
                }
                Piece::Quoted(s) => text.push_str(s),
                Piece::Tilde(u) if u.is_empty() && text.is_empty() => match &self.ctx.home {
                    Some(h) => text.push_str(&h.display().to_string()),
                    None => return Target::Unknown,
                },
                Piece::Param(name) if name == "HOME" && text.is_empty() => match &self.ctx.home {
                    Some(h) => text.push_str(&h.display().to_string()),
                    None => return Target::Unknown,
                },
                Piece::Param(name) if name == "PWD" && text.is_empty() => text.push_str(&self.ctx.cwd.display().to_string()),
                _ => return Target::Unknown,
            }
        }
        if text.is_empty() {
            return Target::Unknown;
        }
        if pattern {
            let cut = text.find(['*', '?', '[', '{']).unwrap_or(text.len());
            let dir = match text[..cut].rfind('/') {
                Some(0) => "/".to_string(),
                Some(i) => text[..i].to_string(),
                None => ".".to_string(),
            };
            return Target::Pattern(self.absolute(&dir), self.absolute(&text).display().to_string());
        }
        Target::Path(self.absolute(&text))
    }

    fn absolute(&self, text: &str) -> PathBuf {
        let p = Path::new(text);
        normalize(&if p.is_absolute() { p.to_path_buf() } else { self.ctx.cwd.join(p) })
    }

    /// The path with the symlinks of its existing part followed.
    fn canonical(&self, p: &Path) -> PathBuf {
        if let Some(c) = self.resolved.borrow().get(p) {
            return c.clone();
        }
        let c = self.canonical_uncached(p);
        self.resolved.borrow_mut().insert(p.to_path_buf(), c.clone());
        c
    }

    fn canonical_uncached(&self, p: &Path) -> PathBuf {
        if let Ok(c) = std::fs::canonicalize(p) {
            return c;
        }
        let mut existing = p.to_path_buf();
        let mut rest = Vec::new();
        while let Some(parent) = existing.parent().map(Path::to_path_buf) {
            if let Some(name) = existing.file_name() {
                rest.push(name.to_os_string());
            }
            existing = parent;
            if let Ok(c) = std::fs::canonicalize(&existing) {
                let mut out = c;
                for r in rest.iter().rev() {
                    out.push(r);
                }
                return out;
            }
        }
        p.to_path_buf()
    }

    /// Both spellings of a path: as written (normalised) and as the filesystem resolves it.
    fn forms(&self, p: &Path) -> [PathBuf; 2] {
        [p.to_path_buf(), self.canonical(p)]
    }

    /// The path as written, and as resolved when its last part is a symlink: for the checks that
    /// look at every argument of a command (a full resolution per word costs a walk per word).
    fn forms_cheap(&self, p: &Path) -> Vec<PathBuf> {
        let mut out = vec![p.to_path_buf()];
        let link = self.links.borrow().get(p).copied();
        let link = link.unwrap_or_else(|| {
            let l = std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
            self.links.borrow_mut().insert(p.to_path_buf(), l);
            l
        });
        if link {
            out.push(self.canonical(p));
        }
        out
    }

    /// Inside the project, or inside a temp folder but not inside a home folder: a home that lives
    /// under the temp folder (a CI runner's, a container's, a test's) keeps its files.
    fn in_zone(&self, p: &Path) -> bool {
        let c = &self.ctx.canonical;
        let strictly_under = |z: &PathBuf| p != z && under(p, z);
        if [Some(&self.ctx.project), c.project.as_ref()]
            .into_iter()
            .flatten()
            .any(strictly_under)
        {
            return true;
        }
        let homes = [
            self.ctx.home.as_ref(),
            c.home.as_ref(),
            Some(&self.ctx.tlc_home),
            c.tlc_home.as_ref(),
        ];
        let in_home = homes.into_iter().flatten().any(|h| under(p, h));
        !in_home && self.ctx.temp.iter().chain(c.temp.iter()).any(strictly_under)
    }

    /// The folders whose removal is never inside the project: the project itself, the homes.
    fn protected(&self) -> Vec<&PathBuf> {
        self.ctx.protected.iter().collect()
    }

    fn on_surface(&self, p: &Path) -> bool {
        self.ctx.surface().iter().any(|s| under(p, s))
    }

    /// Whether the path is a folder that holds the policy surface (but not the project or above).
    fn holds_surface(&self, p: &Path) -> bool {
        !self.protected().iter().any(|r| r.starts_with(p)) && self.ctx.surface().iter().any(|s| s.starts_with(p) && s != p)
    }

    fn is_secret(&self, p: &Path) -> Option<String> {
        let name = p.file_name()?.to_string_lossy().to_string();
        let templates = [".example", ".sample", ".template", ".dist", ".defaults"];
        if (name == ".env" || name.starts_with(".env.")) && !templates.iter().any(|t| name.ends_with(t)) {
            return Some(format!("{} holds environment secrets", p.display()));
        }
        if [
            ".git-credentials",
            ".netrc",
            ".pgpass",
            "id_rsa",
            "id_dsa",
            "id_ecdsa",
            "id_ed25519",
            ".vault-token",
        ]
        .contains(&name.as_str())
            || [".pem", ".p12", ".pfx", ".keychain", ".keychain-db"]
                .iter()
                .any(|s| name.ends_with(s))
        {
            return Some(format!("{} holds credentials", p.display()));
        }
        let ssh = self.ctx.secret_dirs.first();
        for d in &self.ctx.secret_dirs {
            if under(p, d) && !(Some(d) == ssh && (name.ends_with(".pub") || name == "known_hosts")) {
                return Some(format!("{} is under {}, where credentials live", p.display(), d.display()));
            }
        }
        None
    }

    // ---- tool events ----

    fn file_read(&self, path: &str) -> Option<Finding> {
        let p = self.absolute(path);
        for form in self.forms(&p) {
            if let Some(why) = self.is_secret(&form) {
                return Some(Finding::new(
                    Rule::SecretAccess,
                    format!("{why}; reading it would copy them into the transcript. Credentials do not belong in an agent's context."),
                    format!("read of {}", p.display()),
                ));
            }
        }
        None
    }

    fn file_write(&self, path: &str, verb: &str) -> Option<Finding> {
        let p = self.absolute(path);
        for form in self.forms(&p) {
            if self.on_surface(&form) {
                return Some(surface_denial(
                    format!(
                        "a {verb} of {} writes tlc's policy or state, which is the operator's to change.",
                        p.display()
                    ),
                    format!("{verb} of {}", p.display()),
                ));
            }
        }
        None
    }

    fn file_remove(&self, path: &str) -> Option<Finding> {
        let p = self.absolute(path);
        self.destruction_target(&Target::Path(p), path, "a delete", Effect::Remove, None)
    }

    fn mcp(&self, tool: &str, input: Option<&Value>) -> Option<Finding> {
        let lower = tool.to_ascii_lowercase();
        let reads_only = [
            "read", "get", "list", "search", "view", "find", "query", "fetch", "show", "describe",
        ]
        .iter()
        .any(|v| lower.rsplit("__").next().unwrap_or(&lower).starts_with(v));
        let mut strings = Vec::new();
        if let Some(v) = input {
            collect_strings(v, &mut strings, 0);
        }
        for s in strings {
            if let Some(host) = METADATA_HOSTS.iter().find(|h| s.contains(*h)) {
                return Some(Finding::new(
                    Rule::SecretAccess,
                    format!("{host} is a cloud metadata endpoint; the MCP tool `{tool}` would copy the credentials it serves into the transcript."),
                    format!("{tool} to {host}"),
                ));
            }
            if s.len() > 4096 || s.contains('\n') {
                continue;
            }
            let p = self.absolute(s);
            for form in self.forms(&p) {
                if !reads_only && self.on_surface(&form) {
                    return Some(surface_denial(
                        format!(
                            "the MCP tool `{tool}` names {}, tlc's policy or state, and is not a read.",
                            p.display()
                        ),
                        format!("{tool} on {}", p.display()),
                    ));
                }
                if let Some(why) = self.is_secret(&form) {
                    return Some(Finding::new(
                        Rule::SecretAccess,
                        format!("{why}; the MCP tool `{tool}` would copy them into the transcript."),
                        format!("{tool} on {}", p.display()),
                    ));
                }
            }
        }
        None
    }

    // ---- shell ----

    fn script(&self, script: &Script, depth: usize) -> Option<Finding> {
        for (i, cmd) in script.commands.iter().enumerate() {
            for w in cmd.assigns.iter().map(|(_, w)| w).chain(cmd.words.iter()) {
                for s in w.scripts() {
                    if let Some(f) = self.script(s, depth + 1) {
                        return Some(f);
                    }
                }
            }
            for r in &cmd.redirects {
                let nested: Vec<&Script> = match &r.target {
                    RedirTarget::Word(w) => w.scripts().collect(),
                    RedirTarget::HereDoc(d) => d.subs.iter().collect(),
                    RedirTarget::Pending(_) => Vec::new(),
                };
                for s in nested {
                    if let Some(f) = self.script(s, depth + 1) {
                        return Some(f);
                    }
                }
            }
            if let Some(f) = self.command(script, i, cmd, depth) {
                return Some(f);
            }
        }
        None
    }

    fn command(&self, script: &Script, i: usize, cmd: &Command, depth: usize) -> Option<Finding> {
        let inv = invocation(cmd);
        self.execution(script, cmd, &inv, depth)
            .or_else(|| self.machine_control(cmd, &inv))
            .or_else(|| self.history_rewrite(&inv))
            .or_else(|| self.policy_surface(cmd, &inv))
            .or_else(|| self.secrets(cmd, &inv))
            .or_else(|| self.destruction(script, i, cmd, &inv))
            .or_else(|| self.policy_surface_broad(cmd, &inv))
    }

    /// `unprovable-execution`: code the floor cannot read before it runs.
    fn execution(&self, script: &Script, cmd: &Command, inv: &Invocation<'_>, depth: usize) -> Option<Finding> {
        if let Some(s) = inv.split_string {
            return match s.literal() {
                Some(text) => {
                    let text = text
                        .strip_prefix("--split-string=")
                        .or_else(|| text.strip_prefix("-S"))
                        .unwrap_or(&text)
                        .to_string();
                    let mut line = text;
                    for a in &inv.args {
                        line.push(' ');
                        line.push_str(&shell_quote(&a.text()));
                    }
                    self.inline(&line, depth, "env -S")
                }
                None => Some(runtime_code("env -S")),
            };
        }
        if inv.program.is_none() && !inv.lookup_only {
            if let Some(w) = inv.program_word {
                return Some(Finding::new(
                    Rule::UnprovableExecution,
                    format!("the program this command runs is named by an expansion (`{}`), so what runs cannot be established. Name the program literally.", w.text()),
                    "a program named by an expansion",
                ));
            }
            return None;
        }
        let program = inv.program.as_deref()?;
        let args = &inv.args;
        let fetches = |s: &Script| fetches(s);
        let word_fetches = |w: &Word| w.scripts().any(fetches);
        if program == "eval" {
            let literal: Option<Vec<String>> = args.iter().map(|w| w.literal()).collect();
            return match literal {
                Some(parts) => self.inline(&parts.join(" "), depth, "eval"),
                None => self.runtime_words(args, "eval"),
            };
        }
        if matches!(program, "source" | ".") {
            if args.first().is_some_and(|w| word_fetches(w)) {
                return Some(fetched(program));
            }
            return None;
        }
        let is_shell = SHELLS.contains(&program);
        let is_interp = INTERPRETERS
            .iter()
            .any(|p| program == *p || (p.starts_with("python") && program.starts_with("python")));
        if !is_shell && !is_interp {
            return None;
        }
        // The program text: `-c`/`-e` inline, a script operand, or stdin.
        let mut k = 0;
        let mut inline: Option<&Word> = None;
        let mut reads_stdin_flag = false;
        while let Some(w) = args.get(k) {
            let Some(t) = w.literal() else { break };
            if t == "--" {
                k += 1;
                break;
            }
            if !t.starts_with('-') || t == "-" {
                break;
            }
            let inline_flag = if is_shell {
                !t.starts_with("--") && t[1..].contains('c')
            } else {
                matches!(
                    t.as_str(),
                    "-c" | "-e" | "--eval" | "-p" | "--print" | "-r" | "-E" | "-m" | "--command"
                )
            };
            if is_shell && !t.starts_with("--") && t[1..].contains('s') {
                reads_stdin_flag = true;
            }
            if inline_flag {
                inline = Some(args.get(k + 1).copied()?);
                break;
            }
            // Options that take a value.
            if is_shell && (t == "-o" || t == "+o" || t == "-O" || t == "+O") {
                k += 1;
            }
            k += 1;
        }
        if let Some(code) = inline {
            if is_shell {
                return match code.literal() {
                    Some(text) => self.inline(&text, depth, program),
                    None => self.runtime_words(&[code], program),
                };
            }
            return if word_fetches(code) { Some(fetched(program)) } else { None };
        }
        let operand = if reads_stdin_flag {
            None
        } else {
            args.get(k).copied().filter(|w| w.literal().as_deref() != Some("-"))
        };
        if let Some(op) = operand {
            if word_fetches(op) {
                return Some(fetched(program));
            }
            if matches!(program, "deno" | "bun")
                && args
                    .iter()
                    .any(|w| w.literal().is_some_and(|t| t.starts_with("http://") || t.starts_with("https://")))
            {
                return Some(fetched(program));
            }
            return None;
        }
        // The program comes from stdin: a pipe, a heredoc, a here-string or a `<` redirection.
        if cmd.upstream.iter().any(|&u| script.commands.get(u).is_some_and(is_fetcher)) {
            return Some(fetched(program));
        }
        for r in &cmd.redirects {
            match (&r.op, &r.target) {
                (RedirOp::HereDoc, RedirTarget::HereDoc(doc)) => {
                    if doc.subs.iter().any(fetches) {
                        return Some(fetched(program));
                    }
                    if is_shell {
                        if let Some(f) = self.inline(&doc.body, depth, program) {
                            return Some(f);
                        }
                    } else if self.names_surface(&doc.body) {
                        return Some(surface_denial(
                            format!(
                                "a heredoc fed to `{program}` names tlc's policy or state, so the body is a program that may write it."
                            ),
                            format!("heredoc program for {program} naming the policy surface"),
                        ));
                    }
                }
                (RedirOp::HereString, RedirTarget::Word(w)) => {
                    if word_fetches(w) {
                        return Some(fetched(program));
                    }
                    if is_shell {
                        match w.literal() {
                            Some(text) => {
                                if let Some(f) = self.inline(&text, depth, program) {
                                    return Some(f);
                                }
                            }
                            None => return self.runtime_words(&[w], program),
                        }
                    }
                }
                (RedirOp::Read, RedirTarget::Word(w)) if word_fetches(w) => return Some(fetched(program)),
                _ => {}
            }
        }
        None
    }

    /// A command line inside another (`bash -c`, `eval`, a heredoc fed to a shell).
    fn inline(&self, text: &str, depth: usize, via: &str) -> Option<Finding> {
        match super::shell::parse_nested(text, depth + 1) {
            Ok(s) => self.script(&s, depth + 1),
            Err(e) => Some(Finding::new(
                Rule::UnprovableExecution,
                format!(
                    "the command `{via}` runs cannot be split into the commands it runs ({e}), so what it would do cannot be established."
                ),
                format!("{via} with a command the parser cannot split"),
            )),
        }
    }

    /// A shell's command text that is only known at run time.
    fn runtime_words(&self, words: &[&Word], via: &str) -> Option<Finding> {
        if words.iter().any(|w| w.scripts().any(fetches)) {
            return Some(fetched(via));
        }
        let unknown_param = words.iter().any(|w| {
            w.pieces
                .iter()
                .any(|p| matches!(p, Piece::Param(n) if n != "HOME" && n != "PWD") || matches!(p, Piece::Arith))
        });
        unknown_param.then(|| runtime_code(via))
    }

    fn names_surface(&self, text: &str) -> bool {
        self.ctx.surface_markers().iter().any(|m| text.contains(m.as_str()))
    }

    /// `machine-control`: the machine, not the project.
    fn machine_control(&self, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        let program = inv.program.as_deref();
        let args: Vec<String> = inv.args.iter().map(|w| w.text()).collect();
        let operands: Vec<&str> = args.iter().map(String::as_str).filter(|a| !a.starts_with('-')).collect();
        let deny = |what: String, note: &str| Some(Finding::new(Rule::MachineControl, what, note.to_string()));
        match program {
            Some(p @ ("shutdown" | "reboot" | "halt" | "poweroff" | "telinit" | "killall5")) => {
                return deny(format!("`{p}` controls the machine, not the project."), p);
            }
            Some("init") if operands.first().is_some_and(|o| matches!(*o, "0" | "1" | "6" | "s" | "S")) => {
                return deny("`init` with a runlevel controls the machine, not the project.".into(), "init");
            }
            Some(p @ ("systemctl" | "service" | "launchctl" | "rc-service")) => {
                let read_only = [
                    "status",
                    "show",
                    "list-units",
                    "list-unit-files",
                    "list-timers",
                    "is-active",
                    "is-enabled",
                    "is-failed",
                    "cat",
                    "help",
                    "list",
                    "print",
                    "--version",
                    "--help",
                ];
                let sub = if p == "service" {
                    operands.get(1).copied()
                } else {
                    operands.first().copied()
                };
                let reads = sub.is_some_and(|s| read_only.contains(&s)) || (p == "service" && args.iter().any(|a| a == "--status-all"));
                if !reads {
                    return deny(
                        format!("`{p} {}` changes the machine's services, not the project.", sub.unwrap_or("")),
                        p,
                    );
                }
            }
            Some("kill") => {
                let mut seen_signal_or_end = false;
                for a in &args {
                    if a == "--" {
                        seen_signal_or_end = true;
                        continue;
                    }
                    let target_all = seen_signal_or_end && (a == "-1" || a == "1");
                    if target_all {
                        return deny(
                            format!("`kill … {a}` signals every process (or init), not the project's."),
                            "kill of every process",
                        );
                    }
                    if a.starts_with('-') {
                        seen_signal_or_end = true;
                    } else {
                        seen_signal_or_end = true;
                        if a == "1" {
                            return deny("`kill 1` signals init.".into(), "kill of init");
                        }
                    }
                }
            }
            Some("crontab") if args.iter().any(|a| a == "-r" || a == "-ri" || a == "-ir" || a == "-") || !operands.is_empty() => {
                return deny(
                    "`crontab` removing or replacing the schedule changes the machine, not the project.".into(),
                    "crontab",
                );
            }
            Some(p) if is_disk_tool(p) => {
                let targets: Vec<&Word> = inv.args.iter().copied().filter(|w| !w.text().starts_with('-')).collect();
                for w in &targets {
                    match self.resolve(w) {
                        Target::Path(path) if !path.starts_with("/dev/") => {}
                        Target::Path(path) => {
                            return deny(format!("`{p}` on {} writes a block device.", path.display()), p);
                        }
                        _ => return deny(format!("`{p}` on a target this gate cannot resolve may write a block device."), p),
                    }
                }
                if targets.is_empty() {
                    return deny(format!("`{p}` without a target controls the machine's disks."), p);
                }
            }
            _ => {}
        }
        for (w, effect) in self.effects(cmd, inv) {
            if effect == Effect::Preserve {
                continue;
            }
            if let Target::Path(p) = self.resolve(&w) {
                if self.is_block_device(&p) {
                    return deny(
                        format!("this writes {}, a block device: the machine's disk, not the project.", p.display()),
                        "write to a block device",
                    );
                }
            }
        }
        None
    }

    fn is_block_device(&self, p: &Path) -> bool {
        let text = p.display().to_string();
        let Some(dev) = text.strip_prefix("/dev/") else { return false };
        if is_harmless_device(&text) || dev.starts_with("shm/") {
            return false;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if let Ok(m) = std::fs::metadata(p) {
                if m.file_type().is_block_device() {
                    return true;
                }
            }
        }
        let block = [
            "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "loop", "md", "dm-", "sr", "nbd", "zd",
        ];
        block.iter().any(|b| dev.starts_with(b)) || dev.starts_with("mapper/") || dev.starts_with("disk/")
    }

    /// `history-rewrite`: force pushes, remote branch deletion, filter-branch, a hard reset of
    /// pushed commits.
    fn history_rewrite(&self, inv: &Invocation<'_>) -> Option<Finding> {
        if inv.program.as_deref() != Some("git") {
            return None;
        }
        let args: Vec<String> = inv.args.iter().map(|w| w.text()).collect();
        let (sub, rest) = git_subcommand(&args)?;
        let deny = |what: &str, note: &str| Some(Finding::new(Rule::HistoryRewrite, what.to_string(), note.to_string()));
        match sub {
            "push" => {
                let forced = rest
                    .iter()
                    .any(|a| a == "--force" || a == "--mirror" || (a.starts_with('-') && !a.starts_with("--") && a.contains('f')))
                    || rest.iter().any(|a| a.starts_with('+') && a.len() > 1);
                if forced {
                    return deny(
                        "`git push --force` discards remote commits that are not in your history. Use --force-with-lease, which refuses when the remote moved.",
                        "force push",
                    );
                }
                let deletes = rest
                    .iter()
                    .any(|a| a == "--delete" || a == "--prune" || (a.starts_with('-') && !a.starts_with("--") && a.contains('d')))
                    || rest.iter().any(|a| a.starts_with(':') && a.len() > 1);
                if deletes {
                    return deny(
                        "this push deletes a remote branch, which removes history others may rely on.",
                        "remote branch deletion",
                    );
                }
            }
            "filter-branch" | "filter-repo" => {
                return deny(&format!("`git {sub}` rewrites the repository's history."), sub);
            }
            "reset" if rest.iter().any(|a| a == "--hard") => {
                let target = rest.iter().find(|a| !a.starts_with('-')).map(String::as_str);
                if let Some(t) = target {
                    if !resets_to_remote(t) && self.head_is_pushed(t) {
                        return deny(
                            &format!("`git reset --hard {t}` moves this branch off commits that are already pushed; the next push would have to rewrite the remote."),
                            "hard reset of pushed commits",
                        );
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// Whether the current branch's commit is also a remote-tracking ref's (read from `.git`,
    /// never by running git) and `target` names a different commit.
    fn head_is_pushed(&self, target: &str) -> bool {
        let Some(git) = git_dir(&self.ctx.cwd) else { return false };
        let common = crate::fsread::read_text_or_none(&git.join("commondir"), crate::fsread::GIT_POINTER_CAP)
            .map(|c| normalize(&git.join(c.trim())))
            .unwrap_or_else(|| git.clone());
        let Some(head) = crate::fsread::read_text_or_none(&git.join("HEAD"), crate::fsread::GIT_POINTER_CAP) else {
            return false;
        };
        let Some(branch) = head.trim().strip_prefix("ref: refs/heads/") else {
            return false;
        };
        let Some(sha) = read_ref(&common, &format!("refs/heads/{branch}")) else {
            return false;
        };
        if sha.starts_with(target) && target.len() >= 7 {
            return false;
        }
        let remotes = common.join("refs").join("remotes");
        let mut names: Vec<String> = std::fs::read_dir(&remotes)
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect())
            .unwrap_or_default();
        if let Some(packed) = crate::fsread::read_text_or_none(&common.join("packed-refs"), crate::fsread::PACKED_REFS_CAP) {
            for line in packed.lines() {
                if let Some(r) = line.split_whitespace().nth(1).and_then(|r| r.strip_prefix("refs/remotes/")) {
                    if let Some((remote, _)) = r.split_once('/') {
                        names.push(remote.to_string());
                    }
                }
            }
        }
        names.sort();
        names.dedup();
        names
            .iter()
            .any(|remote| read_ref(&common, &format!("refs/remotes/{remote}/{branch}")).is_some_and(|r| r == sha))
    }

    /// `policy-surface-write`: tlc's policy and state are the operator's.
    fn policy_surface(&self, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        if let Some(sub) = self.tlc_mutation(inv) {
            return Some(surface_denial(
                format!("`tlc {sub}` changes tlc's policy or state, and policy is the operator's to change: run it from your own terminal, not from inside this session."),
                format!("tlc {sub}"),
            ));
        }
        for (w, effect) in self.effects(cmd, inv) {
            if let Target::Path(p) = self.resolve(&w) {
                for form in self.forms(&p) {
                    let hit = self.on_surface(&form) || (effect == Effect::Remove && self.holds_surface(&form));
                    if hit {
                        return Some(surface_denial(
                            format!("this command writes {}, which is tlc's policy or state.", p.display()),
                            format!("write to {}", p.display()),
                        ));
                    }
                }
            }
        }
        let program = inv.program.as_deref()?;
        let reader = SURFACE_READERS.contains(&program)
            || (program == "find"
                && !inv.args.iter().any(|w| {
                    matches!(
                        w.text().as_str(),
                        "-delete" | "-exec" | "-execdir" | "-ok" | "-okdir" | "-fprint" | "-fprintf" | "-fls"
                    )
                }))
            || (program == "git" && {
                let args: Vec<String> = inv.args.iter().map(|w| w.text()).collect();
                git_subcommand(&args).is_some_and(|(s, _)| GIT_READERS.contains(&s))
            })
            || program == "tlc";
        if reader {
            return None;
        }
        let interpreter = INTERPRETERS.contains(&program) || program.starts_with("python");
        for w in &inv.args {
            if interpreter && self.names_surface(&w.text()) {
                return Some(surface_denial(
                    format!("`{program}` is given a program that names tlc's policy or state; it is not a proven reader."),
                    format!("{program} naming the policy surface"),
                ));
            }
            if w.text().starts_with('-') {
                continue;
            }
            if let Target::Path(p) = self.resolve(w) {
                if self.forms_cheap(&p).iter().any(|f| self.on_surface(f)) {
                    return Some(surface_denial(
                        format!("`{program}` is not a proven reader, so this command cannot be shown to only read {}, which is tlc's policy or state. Reading is allowed with cat, head, grep, jq, ls or stat; `tlc status` and `tlc doctor` show the policy in effect.", p.display()),
                        format!("{program} on {}", p.display()),
                    ));
                }
            }
        }
        None
    }

    /// The wider reach of `policy-surface-write`, after the destruction rules had their say:
    /// removals under a folder that holds the surface, patterns that match it, paths built at
    /// run time that name it.
    fn policy_surface_broad(&self, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        for (w, effect) in self.effects(cmd, inv) {
            match self.resolve(&w) {
                Target::Path(p) => {
                    if effect == Effect::RemoveUnder {
                        for form in self.forms(&p) {
                            let holds = self.ctx.surface().iter().any(|s| s.starts_with(&form));
                            if holds && self.filter_may_match_surface(inv) {
                                return Some(surface_denial(
                                    format!("this command removes files under {}, which holds tlc's policy or state, with no filter that keeps them out.", p.display()),
                                    format!("removal under {}", p.display()),
                                ));
                            }
                        }
                    }
                }
                Target::Pattern(_, pattern) => {
                    if matches!(effect, Effect::Remove | Effect::Overwrite | Effect::RemoveUnder) && self.pattern_hits_surface(&pattern) {
                        return Some(surface_denial(
                            format!("the pattern {pattern} matches tlc's policy or state."),
                            format!("pattern {pattern} on the policy surface"),
                        ));
                    }
                }
                Target::Unknown => {
                    let t = w.text();
                    if self.names_surface(&t) {
                        return Some(surface_denial(
                            format!("this command builds a path into tlc's policy or state at run time ({t})."),
                            "runtime path into the policy surface".to_string(),
                        ));
                    }
                }
            }
        }
        None
    }

    fn tlc_mutation(&self, inv: &Invocation<'_>) -> Option<String> {
        if inv.program.as_deref() != Some("tlc") {
            return None;
        }
        let words: Vec<String> = inv.args.iter().map(|w| w.text()).filter(|a| !a.starts_with('-')).collect();
        let words: &[String] = if words.first().is_some_and(|w| w == "harness") {
            &words[1..]
        } else {
            &words
        };
        let sub = words.first()?.as_str();
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
            _ => false,
        };
        mutating.then(|| words.iter().take(2).cloned().collect::<Vec<_>>().join(" "))
    }

    fn filter_may_match_surface(&self, inv: &Invocation<'_>) -> bool {
        let args: Vec<String> = inv.args.iter().map(|w| w.text()).collect();
        let mut filters = Vec::new();
        for (k, a) in args.iter().enumerate() {
            if matches!(a.as_str(), "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-regex") {
                if let Some(v) = args.get(k + 1) {
                    filters.push(v.clone());
                }
            }
        }
        if filters.is_empty() {
            return true;
        }
        let names = ["config.toml", "state", "rules", "tlc.db", "tlc.db-wal", "tlc.db-shm", "rule.md"];
        filters.iter().any(|f| {
            let f = f.rsplit('/').next().unwrap_or(f);
            names.iter().any(|n| shell_glob_match(f, n))
        })
    }

    fn pattern_hits_surface(&self, pattern: &str) -> bool {
        let mut candidates: Vec<String> = Vec::new();
        for s in self.ctx.surface() {
            let mut p = s.clone();
            loop {
                candidates.push(p.display().to_string());
                if self.protected().iter().any(|r| **r == p) || !p.pop() {
                    break;
                }
            }
        }
        candidates.iter().any(|c| shell_glob_match(pattern, c))
    }

    /// `secret-access`: credentials read into the transcript.
    fn secrets(&self, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        let program = inv.program.as_deref().unwrap_or("");
        let args: Vec<String> = inv.args.iter().map(|w| w.text()).collect();
        if NETWORK_CLIENTS.contains(&program) {
            if let Some(host) = METADATA_HOSTS.iter().find(|h| args.iter().any(|a| a.contains(*h))) {
                return Some(Finding::new(
                    Rule::SecretAccess,
                    format!("{host} is the instance metadata service, and `{program}` would copy the credentials it returns into the transcript."),
                    format!("read of {host}"),
                ));
            }
        }
        if let Some(what) = keychain_read(program, &args) {
            return Some(Finding::new(
                Rule::SecretAccess,
                format!("`{what}` prints a stored credential into the transcript."),
                what,
            ));
        }
        let mut candidates: Vec<&Word> = Vec::new();
        if !NON_READING.contains(&program) {
            candidates.extend(inv.args.iter().copied());
        }
        for r in &cmd.redirects {
            if matches!(r.op, RedirOp::Read | RedirOp::ReadWrite) {
                if let RedirTarget::Word(w) = &r.target {
                    candidates.push(w);
                }
            }
        }
        for w in candidates {
            let t = w.text();
            if t.starts_with('-') && !t.contains('=') {
                continue;
            }
            let word = match t.split_once('=') {
                Some((k, _)) if k.starts_with("--") || k == "if" => strip_word_prefix(w, k.chars().count() + 1),
                _ => w.clone(),
            };
            if let Target::Path(p) = self.resolve(&word) {
                // A symlink to a credential is followed for the programs that read the files they
                // are given; a build tool's arguments are checked as written.
                let forms = if reads_file_args(program) {
                    self.forms_cheap(&p)
                } else {
                    vec![p.clone()]
                };
                for form in forms {
                    if let Some(why) = self.is_secret(&form) {
                        let verb = if program.is_empty() { "this redirection" } else { program };
                        return Some(Finding::new(
                            Rule::SecretAccess,
                            format!("{why}; `{verb}` would read it into the transcript. Credentials do not belong in an agent's context."),
                            format!("read of {}", p.display()),
                        ));
                    }
                }
            }
        }
        None
    }

    /// `outside-project-destruction` and `unprovable-destruction`.
    fn destruction(&self, script: &Script, _i: usize, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        let program = inv.program.clone().unwrap_or_default();
        if inv.args_from_stdin && matches!(base_destructive(&program), Some(true)) && !self.stdin_paths_provable(script, cmd) {
            return Some(Finding::new(
                Rule::UnprovableDestruction,
                format!("`xargs {program}` takes its targets from its input, which this gate cannot see, so their safety cannot be established. Run `{program}` with literal paths inside the project."),
                format!("xargs {program}"),
            ));
        }
        for (w, effect) in self.effects(cmd, inv) {
            let verb = if program.is_empty() {
                "this redirection".to_string()
            } else {
                format!("`{program}`")
            };
            if let Some(f) = self.destruction_target(&self.resolve(&w), &w.text(), &verb, effect, Some(inv)) {
                return Some(f);
            }
        }
        None
    }

    fn destruction_target(&self, target: &Target, text: &str, verb: &str, effect: Effect, inv: Option<&Invocation<'_>>) -> Option<Finding> {
        if effect == Effect::Preserve {
            return None;
        }
        match target {
            Target::Unknown => {
                if matches!(effect, Effect::Remove | Effect::RemoveUnder) {
                    return Some(Finding::new(
                        Rule::UnprovableDestruction,
                        format!("{verb} removes `{text}`, whose value is only known when the command runs, so its safety cannot be established. Re-run it with a literal path inside the project."),
                        format!("unresolvable target of {verb}"),
                    ));
                }
            }
            Target::Pattern(dir, pattern) => {
                let rooted_inside = self
                    .forms(dir)
                    .iter()
                    .all(|f| self.in_zone(&f.join("x")) && !self.protected().iter().any(|r| r.starts_with(f) && *r != f));
                if !rooted_inside {
                    return Some(Finding::new(
                        Rule::UnprovableDestruction,
                        format!("{verb} targets the pattern {pattern}, rooted outside the project and the temp folder, so what it matches cannot be established."),
                        format!("{verb} on a pattern outside the project"),
                    ));
                }
            }
            Target::Path(p) => {
                let targets = match (effect, inv) {
                    (Effect::Overwrite, Some(inv)) => self.overwritten(p, inv),
                    _ => vec![p.clone()],
                };
                for t in targets {
                    if effect == Effect::Overwrite && std::fs::symlink_metadata(&t).is_err() {
                        continue;
                    }
                    if t.starts_with("/dev/") {
                        continue;
                    }
                    for form in self.forms(&t) {
                        let protected = effect != Effect::RemoveUnder && self.protected().iter().any(|r| r.starts_with(&form));
                        let inside = if effect == Effect::RemoveUnder {
                            self.in_zone(&form.join("x")) && !self.protected().iter().any(|r| r.starts_with(&form) && **r != form)
                        } else {
                            self.in_zone(&form)
                        };
                        if protected || !inside {
                            let action = if effect == Effect::Overwrite { "overwrites" } else { "removes" };
                            let place = if form != t {
                                format!("{} (which resolves to {})", t.display(), form.display())
                            } else {
                                t.display().to_string()
                            };
                            let tail = if protected { ", or holds the project or a home folder" } else { "" };
                            return Some(Finding::new(
                                Rule::OutsideProjectDestruction,
                                format!("{verb} {action} {place}, which is outside the project and outside the temp folder{tail}."),
                                format!("{verb} outside the project"),
                            ));
                        }
                    }
                }
            }
        }
        None
    }

    /// For an overwrite of `p`: the paths actually replaced (a file in `p` when it is a folder).
    fn overwritten(&self, p: &Path, inv: &Invocation<'_>) -> Vec<PathBuf> {
        if !p.is_dir() || !matches!(inv.program.as_deref(), Some("cp" | "mv" | "install" | "ln" | "rsync")) {
            return vec![p.to_path_buf()];
        }
        let operands: Vec<&Word> = inv.args.iter().copied().filter(|w| !w.text().starts_with('-')).collect();
        let sources = &operands[..operands.len().saturating_sub(1)];
        sources
            .iter()
            .filter_map(|s| s.literal())
            .filter_map(|s| Path::new(s.trim_end_matches('/')).file_name().map(|n| p.join(n)))
            .collect()
    }

    /// `xargs rm` is provable when everything feeding it lists paths under roots the floor can
    /// check (`find` with literal roots, `git ls-files`).
    fn stdin_paths_provable(&self, script: &Script, cmd: &Command) -> bool {
        !cmd.upstream.is_empty()
            && cmd.upstream.iter().all(|&u| {
                let Some(up) = script.commands.get(u) else { return false };
                let inv = invocation(up);
                match inv.program.as_deref() {
                    Some("find") => find_roots(&inv).iter().all(|r| match self.resolve(r) {
                        Target::Path(p) => self.forms(&p).iter().all(|f| {
                            (self.in_zone(&f.join("x")))
                                && !self.protected().iter().any(|r| r.starts_with(f) && **r != *f)
                                && (!self.ctx.surface().iter().any(|s| s.starts_with(f)) || !self.filter_may_match_surface(&inv))
                        }),
                        _ => false,
                    }),
                    Some("git") => {
                        let args: Vec<String> = inv.args.iter().map(|w| w.text()).collect();
                        git_subcommand(&args).is_some_and(|(s, _)| s == "ls-files")
                    }
                    Some("grep" | "sort" | "uniq" | "head" | "tail") => true,
                    _ => false,
                }
            })
            && cmd.upstream.iter().any(|&u| {
                script
                    .commands
                    .get(u)
                    .is_some_and(|c| matches!(invocation(c).program.as_deref(), Some("find" | "git")))
            })
    }

    /// The paths a command writes or removes, and how.
    fn effects(&self, cmd: &Command, inv: &Invocation<'_>) -> Vec<(Word, Effect)> {
        let mut out: Vec<(Word, Effect)> = Vec::new();
        for r in &cmd.redirects {
            if let RedirTarget::Word(w) = &r.target {
                let effect = match r.op {
                    RedirOp::Write | RedirOp::WriteBoth | RedirOp::ReadWrite => Effect::Overwrite,
                    RedirOp::Append | RedirOp::AppendBoth => Effect::Preserve,
                    RedirOp::Dup => {
                        let t = w.text();
                        if t.is_empty() || t == "-" || t.bytes().all(|b| b.is_ascii_digit()) {
                            continue;
                        }
                        Effect::Overwrite
                    }
                    _ => continue,
                };
                out.push((w.clone(), effect));
            }
        }
        let Some(program) = inv.program.as_deref() else { return out };
        let args = &inv.args;
        let texts: Vec<String> = args.iter().map(|w| w.text()).collect();
        let operands = |skip_values: &[&str]| -> Vec<Word> {
            let mut ops = Vec::new();
            let mut end = false;
            let mut k = 0;
            while k < args.len() {
                let t = &texts[k];
                if !end && t == "--" {
                    end = true;
                } else if !end && t.starts_with('-') && t.len() > 1 {
                    if skip_values.contains(&t.as_str()) {
                        k += 1;
                    }
                } else {
                    ops.push(args[k].clone());
                }
                k += 1;
            }
            ops
        };
        match program {
            "rm" | "rmdir" | "unlink" | "shred" | "srm" | "trash" => {
                out.extend(operands(&[]).into_iter().map(|w| (w, Effect::Remove)));
            }
            "mv" => {
                let ops = operands(&["-t", "--target-directory", "-S", "--suffix"]);
                if let Some(t) = target_dir(&texts, args) {
                    out.push((t.clone(), Effect::Overwrite));
                    out.extend(ops.into_iter().map(|w| (w, Effect::Remove)));
                } else if let Some((last, rest)) = ops.split_last() {
                    out.push((last.clone(), Effect::Overwrite));
                    out.extend(rest.iter().map(|w| (w.clone(), Effect::Remove)));
                }
            }
            "cp" | "install" | "ln" => {
                let ops = operands(&[
                    "-t",
                    "--target-directory",
                    "-S",
                    "--suffix",
                    "-m",
                    "--mode",
                    "-o",
                    "--owner",
                    "-g",
                    "--group",
                ]);
                let ln_plain = program == "ln"
                    && !texts
                        .iter()
                        .any(|a| a == "--force" || (a.starts_with('-') && !a.starts_with("--") && a.contains('f')));
                let cp_no_clobber = program == "cp" && texts.iter().any(|a| a == "-n" || a == "--no-clobber");
                let effect = if ln_plain || cp_no_clobber {
                    Effect::Preserve
                } else {
                    Effect::Overwrite
                };
                if let Some(t) = target_dir(&texts, args) {
                    out.push((t.clone(), effect));
                } else if ops.len() >= 2 || program == "install" {
                    if let Some(last) = ops.last() {
                        out.push((last.clone(), effect));
                    }
                }
            }
            "rsync" => {
                let ops = operands(&["-e", "--rsh", "--exclude", "--include", "--filter", "-f"]);
                let delete = texts.iter().any(|a| a.starts_with("--delete"));
                if let Some((last, rest)) = ops.split_last() {
                    out.push((last.clone(), if delete { Effect::RemoveUnder } else { Effect::Overwrite }));
                    if texts.iter().any(|a| a == "--remove-source-files") {
                        out.extend(rest.iter().map(|w| (w.clone(), Effect::Remove)));
                    }
                }
            }
            "tee" => {
                let append = texts.iter().any(|a| a == "-a" || a == "--append");
                out.extend(
                    operands(&[])
                        .into_iter()
                        .map(|w| (w, if append { Effect::Preserve } else { Effect::Overwrite })),
                );
            }
            "truncate" => out.extend(
                operands(&["-s", "--size", "-r", "--reference"])
                    .into_iter()
                    .map(|w| (w, Effect::Overwrite)),
            ),
            "touch" | "mkdir" => out.extend(
                operands(&["-m", "--mode", "-d", "--date", "-r", "--reference", "-t"])
                    .into_iter()
                    .map(|w| (w, Effect::Preserve)),
            ),
            "dd" => {
                for w in args.iter() {
                    if w.text().starts_with("of=") {
                        out.push((strip_word_prefix(w, "of=".len()), Effect::Overwrite));
                    }
                }
            }
            "sed" | "perl"
                if texts.iter().any(|a| {
                    a == "-i" || a.starts_with("-i") || a == "--in-place" || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
                }) =>
            {
                let ops = operands(&["-e", "--expression", "-f", "--file", "-l", "-s"]);
                let has_script_flag = texts
                    .iter()
                    .any(|a| a == "-e" || a == "-f" || a.starts_with("--expression") || a.starts_with("--file"));
                let files = if has_script_flag || program == "perl" {
                    &ops[..]
                } else {
                    ops.get(1..).unwrap_or(&[])
                };
                out.extend(files.iter().map(|w| (w.clone(), Effect::Overwrite)));
            }
            "sort" => {
                for (k, t) in texts.iter().enumerate() {
                    if t == "-o" || t == "--output" {
                        if let Some(w) = args.get(k + 1) {
                            out.push(((*w).clone(), Effect::Overwrite));
                        }
                    }
                }
            }
            "find" => {
                let deletes = texts.iter().any(|a| a == "-delete");
                let exec_destroys = texts.windows(2).any(|p| {
                    matches!(p[0].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                        && matches!(
                            p[1].rsplit('/').next().unwrap_or(&p[1]),
                            "rm" | "shred" | "unlink" | "rmdir" | "mv" | "truncate" | "dd"
                        )
                });
                if deletes || exec_destroys {
                    let roots = find_roots(inv);
                    if roots.is_empty() {
                        out.push((dot(), Effect::RemoveUnder));
                    }
                    out.extend(roots.into_iter().map(|w| (w.clone(), Effect::RemoveUnder)));
                }
            }
            "git" => {
                let (sub, rest) = git_subcommand(&texts).unwrap_or(("", &[]));
                if sub == "clean"
                    && rest
                        .iter()
                        .any(|a| a.starts_with('-') && !a.starts_with("--") && (a.contains('d') || a.contains('x') || a.contains('X')))
                {
                    let paths: Vec<&Word> = args
                        .iter()
                        .copied()
                        .filter(|w| {
                            let t = w.text();
                            !t.starts_with('-') && t != "clean"
                        })
                        .collect();
                    if paths.is_empty() {
                        out.push((dot(), Effect::RemoveUnder));
                    } else {
                        out.extend(paths.into_iter().map(|w| (w.clone(), Effect::RemoveUnder)));
                    }
                }
            }
            _ => {}
        }
        out
    }
}

fn dot() -> Word {
    Word {
        pieces: vec![Piece::Lit(".".into())],
    }
}

/// The word without its first `n` characters (`of=/dev/sda` → `/dev/sda`).
fn strip_word_prefix(w: &Word, mut n: usize) -> Word {
    let mut out = Word::default();
    for p in &w.pieces {
        match p {
            Piece::Lit(s) | Piece::Quoted(s) if n > 0 => {
                let cut = s.char_indices().nth(n).map_or(s.len(), |(i, _)| i);
                n -= s[..cut].chars().count();
                let rest = s[cut..].to_string();
                if !rest.is_empty() {
                    out.pieces.push(if matches!(p, Piece::Lit(_)) {
                        Piece::Lit(rest)
                    } else {
                        Piece::Quoted(rest)
                    });
                }
            }
            other => out.pieces.push(other.clone()),
        }
    }
    out
}

fn target_dir<'w>(texts: &[String], args: &[&'w Word]) -> Option<&'w Word> {
    for (k, t) in texts.iter().enumerate() {
        if t == "-t" || t == "--target-directory" {
            return args.get(k + 1).copied();
        }
    }
    None
}

fn find_roots<'w>(inv: &Invocation<'w>) -> Vec<&'w Word> {
    let mut roots = Vec::new();
    for w in &inv.args {
        let t = w.text();
        if t.starts_with('-') || t == "(" || t == "!" || t == "," {
            if matches!(t.as_str(), "-H" | "-L" | "-P") {
                continue;
            }
            break;
        }
        roots.push(*w);
    }
    roots
}

/// Programs that read (or copy, or send) the content of the files named in their arguments.
fn reads_file_args(program: &str) -> bool {
    use super::shell::classify::{Class, TABLE};
    program.is_empty()
        || INTERPRETERS.contains(&program)
        || program.starts_with("python")
        || matches!(
            program,
            "cp" | "mv"
                | "scp"
                | "rsync"
                | "tar"
                | "zip"
                | "gzip"
                | "curl"
                | "source"
                | "."
                | "install"
                | "tee"
                | "dd"
                | "openssl"
                | "ssh-add"
                | "gpg"
        )
        || TABLE.iter().any(|(p, c)| *p == program && *c == Class::Read)
}

fn base_destructive(program: &str) -> Option<bool> {
    Some(matches!(program, "rm" | "rmdir" | "unlink" | "shred" | "mv" | "truncate"))
}

fn is_disk_tool(p: &str) -> bool {
    p == "mkfs"
        || p.starts_with("mkfs.")
        || p.starts_with("mke2fs")
        || matches!(
            p,
            "mkswap" | "wipefs" | "fdisk" | "sfdisk" | "cfdisk" | "parted" | "gdisk" | "sgdisk"
        )
}

fn is_fetcher(cmd: &Command) -> bool {
    invocation(cmd).program.as_deref().is_some_and(|p| FETCHERS.contains(&p))
}

/// Whether a script fetches from the network anywhere (its substitutions included).
fn fetches(s: &Script) -> bool {
    s.commands.iter().any(|c| {
        is_fetcher(c)
            || c.words
                .iter()
                .chain(c.assigns.iter().map(|(_, w)| w))
                .any(|w| w.scripts().any(fetches))
    })
}

fn fetched(via: &str) -> Finding {
    Finding::new(
        Rule::UnprovableExecution,
        format!("`{via}` would run a program fetched over the network, which does not exist for this gate to check. Download it to a file, read it, then run that file."),
        "fetched program handed to an interpreter",
    )
}

fn runtime_code(via: &str) -> Finding {
    Finding::new(
        Rule::UnprovableExecution,
        format!(
            "`{via}` runs a command built from a variable at run time, so what it would do cannot be established. Write the command out."
        ),
        format!("{via} of a runtime-built command"),
    )
}

fn surface_denial(what: String, note: String) -> Finding {
    Finding::new(Rule::PolicySurfaceWrite, what, note)
}

fn keychain_read(program: &str, args: &[String]) -> Option<String> {
    let first = args.iter().find(|a| !a.starts_with('-')).map(String::as_str);
    let hit = match program {
        "security" => {
            matches!(first, Some(s) if s.starts_with("find-") && s.ends_with("-password") || s == "dump-keychain" || s == "export")
        }
        "secret-tool" => matches!(first, Some("lookup" | "search")),
        "gh" => args.windows(2).any(|w| w[0] == "auth" && w[1] == "token"),
        "gcloud" => args.iter().any(|a| a == "print-access-token" || a == "print-identity-token"),
        "az" => args.iter().any(|a| a == "get-access-token"),
        "aws" => {
            args.iter().any(|a| a == "export-credentials")
                || (args.iter().any(|a| a == "configure") && args.iter().any(|a| a.contains("secret")))
        }
        "kubectl" => args.iter().any(|a| a == "--raw"),
        p if p.starts_with("docker-credential-") => first == Some("get"),
        _ => false,
    };
    hit.then(|| format!("{program} {}", args.iter().take(2).cloned().collect::<Vec<_>>().join(" ")))
}

/// `git [global options] <sub> …`: the subcommand and what follows it.
fn git_subcommand(args: &[String]) -> Option<(&str, &[String])> {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        if matches!(
            a.as_str(),
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
        ) {
            k += 2;
            continue;
        }
        if a.starts_with('-') {
            k += 1;
            continue;
        }
        return Some((a.as_str(), &args[k + 1..]));
    }
    None
}

fn resets_to_remote(target: &str) -> bool {
    target.contains("@{u")
        || target.contains("@{upstream}")
        || target.contains("@{push}")
        || target.starts_with("origin/")
        || target.starts_with("upstream/")
        || target.starts_with("refs/remotes/")
}

fn git_dir(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let g = d.join(".git");
        if g.is_dir() {
            return Some(g);
        }
        if let Some(text) = crate::fsread::read_text_or_none(&g, crate::fsread::GIT_POINTER_CAP) {
            let p = text.trim().strip_prefix("gitdir:")?.trim().to_string();
            return Some(normalize(&d.join(p)));
        }
        dir = d.parent();
    }
    None
}

fn read_ref(git: &Path, name: &str) -> Option<String> {
    if let Some(s) = crate::fsread::read_text_or_none(&git.join(name), crate::fsread::GIT_POINTER_CAP) {
        return Some(s.trim().to_string());
    }
    let packed = crate::fsread::read_text_or_none(&git.join("packed-refs"), crate::fsread::PACKED_REFS_CAP)?;
    packed.lines().find_map(|l| {
        let (sha, r) = l.split_once(' ')?;
        (r.trim() == name).then(|| sha.to_string())
    })
}

fn collect_strings<'v>(v: &'v Value, out: &mut Vec<&'v str>, depth: usize) {
    if depth > 8 || out.len() > 256 {
        return;
    }
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out, depth + 1)),
        Value::Object(m) => m.values().for_each(|x| collect_strings(x, out, depth + 1)),
        _ => {}
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `*`, `?` and `[…]` (any one character) and `{a,b}` alternatives.
pub fn shell_glob_match(pattern: &str, text: &str) -> bool {
    if let (Some(open), Some(close)) = (pattern.find('{'), pattern.find('}')) {
        if open < close {
            let (head, tail) = (&pattern[..open], &pattern[close + 1..]);
            return pattern[open + 1..close]
                .split(',')
                .take(64)
                .any(|alt| shell_glob_match(&format!("{head}{alt}{tail}"), text));
        }
    }
    let mut simple = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '[' {
            for d in chars.by_ref() {
                if d == ']' {
                    break;
                }
            }
            simple.push('?');
        } else {
            simple.push(c);
        }
    }
    glob(simple.as_bytes(), text.as_bytes())
}

fn glob(p: &[u8], t: &[u8]) -> bool {
    let (mut pi, mut ti, mut star, mut mark) = (0usize, 0usize, None::<usize>, 0usize);
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if pi < p.len() && (p[pi] == b'?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

/// `p` is `dir` or inside it. Both are normalised, so comparing bytes at a `/` boundary is the
/// same as comparing components, and much cheaper on the hook's path.
fn under(p: &Path, dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (p, d) = (p.as_os_str().as_bytes(), dir.as_os_str().as_bytes());
    let d = if d.len() > 1 && d.ends_with(b"/") { &d[..d.len() - 1] } else { d };
    p.starts_with(d) && (p.len() == d.len() || d == b"/" || p[d.len()] == b'/')
}

/// A path with `.` and `..` resolved without touching the filesystem.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
                if out.as_os_str().is_empty() && p.is_absolute() {
                    out.push("/");
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(if p.is_absolute() { "/" } else { "." });
    }
    out
}

/// The program a shell command word names (for reports).
pub fn program_of(w: &Word) -> Option<String> {
    program_name(w)
}

#[cfg(test)]
mod tests;
