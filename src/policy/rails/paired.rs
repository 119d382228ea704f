//! `shell-posture-paired` (the posture `paired`): ask before a command that leaves the machine,
//! can overwrite or remove a path, or changes who can reach one. An append never asks.

use super::{ask, CHANGES_REACH, LEAVES_MACHINE, OVERWRITES, PAIRED};
use crate::decision::Decision;
use crate::policy::facts::Context;
use crate::policy::shell::classify::{classify, Class};
use crate::policy::shell::parse::Script;
use crate::policy::shell::walk::Commands;
use crate::policy::Posture;

/// The rail's entry: a shell act under `paired`.
pub(crate) fn check(cx: &Context<'_>) -> rusqlite::Result<Option<Decision>> {
    match &cx.command {
        Some(script) if cx.facts.posture == Posture::Paired => Ok(assess(script)),
        _ => Ok(None),
    }
}

/// `shell-posture-paired`: under `paired`, ask before network, overwrite/remove and reach
/// changes. An append never asks.
pub fn assess(script: &Script) -> Option<Decision> {
    let classes: Vec<Class> = Commands::of(script).iter().map(|(s, i)| classify(&s.commands[i])).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::Permission;
    use crate::policy::shell::parse;

    fn pair(cmd: &str) -> Option<Decision> {
        assess(&parse(cmd).unwrap())
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
}
