//! `shell-stall` (`shell.stallDetection`): deny the `stallRepeatThreshold`-th identical shell
//! command in a row when no file was edited in between.

use super::{STALL, STALL_PREFIX_CHARS};
use crate::decision::{Decision, Permission};
use crate::policy::claims::ClaimStore;
use crate::policy::facts::Context;

/// The rail's entry: the session's previous shell commands, asked of the record only when the
/// switch is on and there are enough of them to stall.
pub(crate) fn check(cx: &Context<'_>) -> rusqlite::Result<Option<Decision>> {
    let shell = &cx.settings.shell;
    let (Some(command), Some(session)) = (cx.shell_command(), cx.facts.session) else {
        return Ok(None);
    };
    if !shell.stall_detection {
        return Ok(None);
    }
    let Some(need) = usize::try_from(shell.stall_repeat_threshold)
        .ok()
        .and_then(|t| t.checked_sub(1))
        .filter(|n| *n > 0)
    else {
        return Ok(None);
    };
    let store = ClaimStore::new(cx.conn);
    let recent = store.recent_shell(cx.facts.provider, session, need as i64)?;
    if recent.len() < need {
        return Ok(None);
    }
    let oldest = recent.iter().map(|(id, _)| *id).min().unwrap_or(0);
    if store.edited_after(cx.facts.provider, session, oldest)? {
        return Ok(None);
    }
    let previous: Vec<String> = recent.into_iter().map(|(_, c)| c).collect();
    Ok(assess(command, &previous, shell.stall_repeat_threshold))
}

/// The stall rail's comparison key: whitespace collapsed, the first [`STALL_PREFIX_CHARS`].
pub(crate) fn stall_key(command: &str) -> String {
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
pub(crate) fn assess(command: &str, previous: &[String], threshold: i64) -> Option<Decision> {
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

    #[test]
    fn stall_on_the_nth_identical_command() {
        let prev = vec!["cargo   test".to_string(), "cargo test ".to_string()];
        let d = assess("cargo test", &prev, 3).unwrap();
        assert_eq!((d.permission, d.rule.as_str()), (Permission::Deny, STALL));
        assert!(d.reason.unwrap().contains("Change approach"));
        assert!(assess("cargo test", &prev[..1], 3).is_none());
        assert!(assess("cargo build", &prev, 3).is_none());
        assert!(assess("cargo test", &["cargo test".into(), "ls".into()], 3).is_none());
        let long_a = format!("echo {}", "a".repeat(400));
        let long_b = format!("echo {}b", "a".repeat(400));
        assert!(
            assess(&long_a, &[long_b.clone(), long_b], 3).is_some(),
            "only the first 300 characters count"
        );
        assert!(assess("x", &[], 1).is_none());
    }
}
