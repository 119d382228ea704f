//! The configurable shell rails: `shell-catastrophic` (ask before data-destroying commands the
//! floor does not refuse), `shell-posture-paired` (under `paired`, ask before a command that
//! leaves the machine, can overwrite or remove a path, or changes who can reach one) and
//! `shell-stall` (deny the Nth identical command in a row). Pure: the hook supplies the posture,
//! the switches and the session's previous commands.

use super::shell::classify::{classify, is_harmless_device, Class};
use super::shell::invocation::invocation;
use super::shell::parse::{Command, RedirOp, RedirTarget, Script};
use crate::decision::{Decision, Permission};
use std::path::{Path, PathBuf};

pub const CATASTROPHIC: &str = "shell-catastrophic";
pub const PAIRED: &str = "shell-posture-paired";
pub const STALL: &str = "shell-stall";

/// The three things at stake that make `paired` ask (the seed's wording).
pub const LEAVES_MACHINE: &str = "It leaves the machine: what it sends or fetches is out of this session's reach once it runs.";
pub const OVERWRITES: &str =
    "It can overwrite or remove a path that already exists, and the harness cannot know whether that path holds work.";
pub const CHANGES_REACH: &str = "It changes who can reach a path — the one change that appears in no diff.";

/// How many characters of a normalised command the stall rail compares.
pub const STALL_PREFIX_CHARS: usize = 300;

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

const DB_CLIENTS: &[&str] = &[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "sqlcmd",
    "mongo",
    "mongosh",
    "redis-cli",
    "clickhouse-client",
    "cockroach",
    "duckdb",
    "cqlsh",
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

/// `sh -c '…'` and `bash -c '…'` strings, parsed: their commands are what runs.
fn inline_scripts(script: &Script) -> Vec<Script> {
    let mut out = Vec::new();
    let mut cmds = Vec::new();
    all_commands(script, &mut cmds);
    for (s, i) in cmds {
        let inv = invocation(&s.commands[i]);
        if !inv
            .program
            .as_deref()
            .is_some_and(|p| matches!(p, "sh" | "bash" | "zsh" | "dash" | "ksh"))
        {
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

/// The work-loss rule (always on): a command that would discard work git cannot give back, as the
/// repository says (see [`super::work_loss`]), is denied — asked about in `paired`, where the
/// operator is there to answer — naming what it would lose. `ran` is every command the line runs,
/// as the floor's walk saw them; the tree is read only when one of them can lose work.
pub fn work_loss(ran: &[super::floor::Ran], root: &Path, posture: super::Posture) -> Option<Decision> {
    let mut risks = super::work_loss::risks_ran(ran, root);
    // A removal under a build folder, or of nothing that exists, loses no work: no git look.
    for r in &mut risks {
        if let super::work_loss::Risk::ChangesUnder { paths, removal: true, .. } = r {
            paths.retain(|p| !in_build_dir(p, root) && std::fs::symlink_metadata(p).is_ok());
        }
    }
    risks.retain(|r| !matches!(r, super::work_loss::Risk::ChangesUnder { paths, removal: true, .. } if paths.is_empty()));
    if risks.is_empty() {
        return None;
    }
    let (command, lost, safe) = super::work_loss::assess(&risks, root)?;
    let what = super::work_loss::describe(&command, &lost, safe);
    let rule = super::work_loss::RULE;
    Some(if posture == super::Posture::Paired {
        ask(rule, format!("tlc asks before this command: {what}"))
    } else {
        Decision {
            permission: Permission::Deny,
            rule: rule.to_string(),
            reason: Some(format!("{what}\nrule={rule}")),
            user_note: Some(format!("tlc {rule}: {command}")),
            follow_up: None,
            context: None,
        }
    })
}

/// `shell-catastrophic`: what the command can destroy, when the floor let it through.
pub fn catastrophic(script: &Script, cwd: &Path, root: &Path) -> Option<Decision> {
    let inner = inline_scripts(script);
    let mut cmds = Vec::new();
    all_commands(script, &mut cmds);
    for s in &inner {
        all_commands(s, &mut cmds);
    }
    for (s, i) in cmds {
        if let Some(what) = catastrophic_command(s, &s.commands[i], cwd, root) {
            return Some(ask(
                CATASTROPHIC,
                format!("tlc asks before this command: {what} It can destroy data that no undo brings back."),
            ));
        }
    }
    None
}

fn catastrophic_command(script: &Script, cmd: &Command, cwd: &Path, root: &Path) -> Option<String> {
    for r in &cmd.redirects {
        if matches!(r.op, RedirOp::Write | RedirOp::WriteBoth | RedirOp::ReadWrite) {
            if let RedirTarget::Word(w) = &r.target {
                if let Some(t) = w
                    .literal()
                    .filter(|t| t.starts_with("/dev/") && !is_harmless_device(t) && !t.starts_with("/dev/shm/"))
                {
                    return Some(format!("it writes the device {t}."));
                }
            }
        }
    }
    let inv = invocation(cmd);
    let program = inv.program.as_deref()?;
    let args: Vec<String> = inv.args.iter().map(|w| w.text()).collect();
    match program {
        "dd" => {
            if let Some(of) = args.iter().find_map(|a| a.strip_prefix("of=")) {
                if of.starts_with("/dev/") && !is_harmless_device(of) {
                    return Some(format!("`dd` writes the device {of}."));
                }
            }
        }
        p if p == "mkfs" || p.starts_with("mkfs.") || p.starts_with("mke2fs") || p == "mkswap" || p == "wipefs" => {
            let target = args.iter().rev().find(|a| !a.starts_with('-')).cloned().unwrap_or_default();
            return Some(format!("`{p}` formats {target}, erasing what it holds."));
        }
        "diskutil" => {
            let sub = args
                .iter()
                .find(|a| !a.starts_with('-'))
                .map(|s| s.to_ascii_lowercase())
                .unwrap_or_default();
            if sub.starts_with("erase")
                || sub.starts_with("zero")
                || sub.starts_with("random")
                || sub.starts_with("secureerase")
                || sub.starts_with("partition")
                || sub.starts_with("reformat")
            {
                return Some(format!("`diskutil {sub}` erases a disk."));
            }
        }
        "git" => {
            let sub_at = args.iter().position(|a| !a.starts_with('-'))?;
            if args[sub_at] == "clean" {
                let rest = &args[sub_at + 1..];
                let short = |c: char| rest.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c));
                let forced = short('f') || rest.iter().any(|a| a == "--force");
                if forced && (short('d') || short('x') || short('X')) {
                    let paths: Vec<PathBuf> = rest.iter().filter(|a| !a.starts_with('-')).map(|a| cwd.join(a)).collect();
                    let scopes = if paths.is_empty() { vec![cwd.to_path_buf()] } else { paths };
                    if !scopes.iter().all(|p| in_build_dir(p, root)) {
                        return Some(format!(
                            "`git {}` deletes untracked (and with -x ignored) files outside a build folder.",
                            args[sub_at..].join(" ")
                        ));
                    }
                }
            }
        }
        "dropdb" => return Some("`dropdb` drops a database.".into()),
        p if DB_CLIENTS.contains(&p) => {
            let mut text = args.join(" ");
            for r in &cmd.redirects {
                text.push(' ');
                match &r.target {
                    RedirTarget::HereDoc(d) => text.push_str(&d.body),
                    RedirTarget::Word(w) if r.op == RedirOp::HereString => text.push_str(&w.text()),
                    _ => {}
                }
            }
            for &u in &cmd.upstream {
                if let Some(up) = script.commands.get(u) {
                    for w in &up.words {
                        text.push(' ');
                        text.push_str(&w.text());
                    }
                    for r in &up.redirects {
                        if let RedirTarget::HereDoc(d) = &r.target {
                            text.push(' ');
                            text.push_str(&d.body);
                        }
                    }
                }
            }
            if let Some(stmt) = destructive_sql(&text) {
                return Some(format!("`{p}` runs `{stmt}`."));
            }
        }
        _ => {}
    }
    None
}

/// Whether `p` is inside a build folder of the project at `root` (only the part below the root
/// counts: a project that itself lives under a `target/` folder is not a build folder).
pub(super) fn in_build_dir(p: &Path, root: &Path) -> bool {
    let Ok(rel) = super::floor::normalize(p).strip_prefix(root).map(Path::to_path_buf) else {
        return false;
    };
    rel.components()
        .any(|c| BUILD_DIRS.contains(&c.as_os_str().to_string_lossy().as_ref()))
}

fn destructive_sql(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '('))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    for pair in words.windows(2) {
        match (pair[0].as_str(), pair[1].as_str()) {
            ("drop", o @ ("database" | "schema" | "table")) => return Some(format!("DROP {}", o.to_ascii_uppercase())),
            ("truncate", "table") => return Some("TRUNCATE TABLE".into()),
            _ => {}
        }
    }
    words
        .iter()
        .find(|w| matches!(w.as_str(), "flushall" | "flushdb") || w.starts_with("dropdatabase("))
        .map(|w| w.to_ascii_uppercase())
}

/// `shell-posture-paired`: under `paired`, ask before network, overwrite/remove and reach
/// changes. An append never asks.
pub fn paired(script: &Script) -> Option<Decision> {
    let inner = inline_scripts(script);
    let mut cmds = Vec::new();
    all_commands(script, &mut cmds);
    for s in &inner {
        all_commands(s, &mut cmds);
    }
    let classes: Vec<Class> = cmds.iter().map(|(s, i)| classify(&s.commands[*i])).collect();
    let mut stakes = Vec::new();
    if classes.contains(&Class::Network) {
        stakes.push(LEAVES_MACHINE);
    }
    if classes.iter().any(|c| matches!(c, Class::Write | Class::Destructive)) {
        stakes.push(OVERWRITES);
    }
    if classes.contains(&Class::Privilege) {
        stakes.push(CHANGES_REACH);
    }
    if stakes.is_empty() {
        return None;
    }
    let top = classes.iter().max().copied().unwrap_or(Class::Read);
    Some(ask(
        PAIRED,
        format!("Posture paired asks before this {} command. {}", top.as_str(), stakes.join(" ")),
    ))
}

/// The stall rail's comparison key: whitespace collapsed, the first [`STALL_PREFIX_CHARS`].
pub fn stall_key(command: &str) -> String {
    command
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(STALL_PREFIX_CHARS)
        .collect()
}

/// `shell-stall`: `previous` are the session's last `threshold - 1` shell commands, newest
/// first, with no file edit after the oldest of them. Denies when they all equal `command`.
pub fn stall(command: &str, previous: &[String], threshold: i64) -> Option<Decision> {
    let need = usize::try_from(threshold).ok()?.checked_sub(1)?;
    if need == 0 || previous.len() < need {
        return None;
    }
    let key = stall_key(command);
    if !previous.iter().take(need).all(|p| stall_key(p) == key) {
        return None;
    }
    let follow = format!(
        "Change approach: this is run {} of the same command in a row, with no file edited in between, and repeating it will not change the result. Read its output, change the code or the command, or stop and report BLOCKED / TRIED / NEED.",
        need + 1
    );
    Some(Decision {
        permission: Permission::Deny,
        rule: STALL.to_string(),
        reason: Some(format!("STALL: {follow}\nrule={STALL}")),
        user_note: Some(format!("tlc shell-stall: the same command {} times in a row", need + 1)),
        follow_up: Some(follow),
        context: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::parse;

    fn cat(cmd: &str) -> Option<Decision> {
        catastrophic(&parse(cmd).unwrap(), Path::new("/work/project"), Path::new("/work/project"))
    }

    fn pair(cmd: &str) -> Option<Decision> {
        paired(&parse(cmd).unwrap())
    }

    #[test]
    fn catastrophic_asks() {
        for cmd in [
            "dd if=/dev/zero of=/dev/ttyS0",
            "mkfs.ext4 disk.img",
            "diskutil eraseDisk JHFS+ x disk2",
            "git clean -fdx",
            "git clean -fd src",
            "psql -c 'DROP DATABASE prod'",
            "echo 'drop table users;' | mysql app",
            "redis-cli FLUSHALL",
            "dropdb prod",
            "sqlite3 app.db <<'SQL'\nDROP TABLE t;\nSQL",
            "bash -c 'git clean -fdx'",
        ] {
            let d = cat(cmd).unwrap_or_else(|| panic!("{cmd}"));
            assert_eq!((d.permission, d.rule.as_str()), (Permission::Ask, CATASTROPHIC), "{cmd}");
        }
        for cmd in [
            "git clean -fdx build",
            "git clean -n",
            "psql -c 'select 1'",
            "dd if=a of=b",
            "rm -rf build",
        ] {
            assert!(cat(cmd).is_none(), "{cmd}");
        }
        assert!(catastrophic(
            &parse("git clean -fdx").unwrap(),
            Path::new("/work/project/target"),
            Path::new("/work/project")
        )
        .is_none());
        let nested = Path::new("/build/target/project");
        assert!(
            catastrophic(&parse("git clean -fdx").unwrap(), nested, nested).is_some(),
            "only folders below the root count"
        );
    }

    #[test]
    fn paired_asks_with_what_is_at_stake() {
        let d = pair("cp a b").unwrap();
        assert_eq!((d.permission, d.rule.as_str()), (Permission::Ask, PAIRED));
        assert!(d.reason.as_deref().unwrap().contains(OVERWRITES));
        assert!(pair("curl https://x").unwrap().reason.unwrap().contains(LEAVES_MACHINE));
        assert!(pair("chmod 600 key").unwrap().reason.unwrap().contains(CHANGES_REACH));
        assert!(pair("echo x > out.txt").is_some());
        for cmd in [
            "echo x >> log",
            "ls -la",
            "cargo test",
            "mkdir -p a",
            "git status",
            "grep x . > /dev/null",
        ] {
            assert!(pair(cmd).is_none(), "{cmd}");
        }
    }

    #[test]
    fn stall_on_the_nth_identical_command() {
        let prev = vec!["cargo   test".to_string(), "cargo test ".to_string()];
        let d = stall("cargo test", &prev, 3).unwrap();
        assert_eq!((d.permission, d.rule.as_str()), (Permission::Deny, STALL));
        assert!(d.reason.unwrap().contains("Change approach"));
        assert!(stall("cargo test", &prev[..1], 3).is_none());
        assert!(stall("cargo build", &prev, 3).is_none());
        assert!(stall("cargo test", &["cargo test".into(), "ls".into()], 3).is_none());
        let long_a = format!("echo {}", "a".repeat(400));
        let long_b = format!("echo {}b", "a".repeat(400));
        assert!(
            stall(&long_a, &[long_b.clone(), long_b], 3).is_some(),
            "only the first 300 characters count"
        );
        assert!(stall("x", &[], 1).is_none());
    }
}
