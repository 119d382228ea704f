//! `subagent-read-only` (`subagents.readOnlyTypes`, default `["explore"]`): a tool call made by a
//! subagent of a read-only type (the provider's `agent_type`, any case) may not write. It may
//! not write, edit or delete a file, run a shell command that writes, removes or changes who can
//! reach a path (the paired rail's classes), call an MCP tool (tlc cannot tell what it does), or
//! spawn a subagent of its own (which could write for it).

use crate::decision::Decision;
use crate::policy::facts::{Context, Subject};
use crate::policy::shell::classify::{classify, Class};
use crate::policy::shell::parse::Script;
use crate::policy::shell::walk::Commands;

pub(crate) const RULE: &str = "subagent-read-only";

/// The rail's entry: an acting event of a subagent whose type is listed.
pub(crate) fn check(cx: &Context<'_>) -> rusqlite::Result<Option<Decision>> {
    let (Some(agent), Some(acting)) = (cx.facts.agent_type, cx.facts.acting) else {
        return Ok(None);
    };
    let sub = &cx.settings.subagents;
    if !is_read_only(agent, &sub.read_only_types) {
        return Ok(None);
    }
    let writes = if cx.facts.spawn.is_some() {
        Some("spawns a subagent, which could write for it")
    } else if cx.facts.edit_target.is_some() {
        Some("writes a file")
    } else {
        match acting.subject {
            Subject::Shell => match &cx.command {
                Some(script) if !script_writes(script) => None,
                Some(_) => Some("runs a shell command that writes"),
                None => Some("runs a shell command tlc cannot read"),
            },
            Subject::Mcp if !acting.reads_only => Some("calls an MCP tool, which may write"),
            _ => None,
        }
    };
    Ok(writes.map(|what| assess(agent, what, &sub.block_mode)))
}

/// Whether `agent` is one of `types`, compared trimmed and in any case.
pub(crate) fn is_read_only(agent: &str, types: &[String]) -> bool {
    let agent = agent.trim();
    !agent.is_empty() && types.iter().any(|t| t.trim().eq_ignore_ascii_case(agent))
}

/// Whether any command of `script` (`sh -c` strings included) overwrites, removes or changes
/// who can reach a path.
pub(crate) fn script_writes(script: &Script) -> bool {
    Commands::of(script).iter().any(|(s, i)| {
        matches!(
            classify(&s.commands[i]),
            Class::Write | Class::WritePreserving | Class::Destructive | Class::Privilege
        )
    })
}

/// The refusal: the subagent `agent` is read-only and this act `what`.
pub(crate) fn assess(agent: &str, what: &str, block_mode: &str) -> Decision {
    let shown: String = agent.chars().take(60).collect();
    super::subagent::refusal(
        block_mode,
        RULE,
        format!("A {shown:?} subagent is read-only (subagents.readOnlyTypes), and this call {what}. Report what you found to the agent that spawned you; it makes the change."),
        "subagents.readOnlyTypes",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::Permission;
    use crate::policy::shell::parse;

    #[test]
    fn read_only_types_in_any_case() {
        let types = vec!["explore".to_string()];
        assert!(is_read_only("Explore", &types));
        assert!(is_read_only(" EXPLORE ", &types));
        assert!(!is_read_only("general-purpose", &types));
        assert!(!is_read_only("", &["".to_string()]));
    }

    #[test]
    fn which_commands_write() {
        for cmd in [
            "cp a b",
            "echo x > f",
            "echo x >> log",
            "rm -rf d",
            "chmod 600 k",
            "sh -c 'mv a b'",
            "touch f",
            "sed -i s/a/b/ f",
        ] {
            assert!(script_writes(&parse(cmd).unwrap()), "{cmd}");
        }
        for cmd in ["ls -la", "grep -rn x .", "cat a | wc -l", "git log --oneline", "echo x > /dev/null"] {
            assert!(!script_writes(&parse(cmd).unwrap()), "{cmd}");
        }
        let d = assess("explore", "writes a file", "deny");
        assert_eq!((d.permission, d.rule.as_str()), (Permission::Deny, RULE));
        assert!(d.reason.unwrap().contains("subagents.readOnlyTypes"));
    }
}
