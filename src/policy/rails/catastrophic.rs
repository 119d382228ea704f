//! `shell-catastrophic` (`shell.catastrophicAsk`): ask before a command that can destroy data the
//! floor does not already refuse — a device written, a disk formatted, untracked files cleaned
//! outside a build folder, a database dropped.

use super::{ask, in_build_dir, CATASTROPHIC};
use crate::decision::Decision;
use crate::policy::facts::Context;
use crate::policy::shell::classify::is_harmless_device;
use crate::policy::shell::invocation::invocation;
use crate::policy::shell::parse::{Command, RedirOp, RedirTarget, Script};
use crate::policy::shell::walk::Commands;
use std::path::{Path, PathBuf};

/// Database clients whose input is read for a destructive statement.
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

/// The rail's entry: a shell act, with the switch on.
pub(crate) fn check(cx: &Context<'_>) -> rusqlite::Result<Option<Decision>> {
    match &cx.command {
        Some(script) if cx.settings.shell.catastrophic_ask => Ok(assess(script, cx.facts.cwd, cx.facts.root)),
        _ => Ok(None),
    }
}

/// What the command can destroy, when the floor let it through.
pub fn assess(script: &Script, cwd: &Path, root: &Path) -> Option<Decision> {
    for (s, i) in Commands::of(script).iter() {
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
    let args = inv.arg_texts();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::Permission;
    use crate::policy::shell::parse;

    fn cat(cmd: &str) -> Option<Decision> {
        assess(&parse(cmd).unwrap(), Path::new("/work/project"), Path::new("/work/project"))
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
        assert!(assess(
            &parse("git clean -fdx").unwrap(),
            Path::new("/work/project/target"),
            Path::new("/work/project")
        )
        .is_none());
        let nested = Path::new("/build/target/project");
        assert!(
            assess(&parse("git clean -fdx").unwrap(), nested, nested).is_some(),
            "only folders below the root count"
        );
    }
}
