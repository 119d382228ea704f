//! Operator only: the check every command that changes policy runs before it changes anything.
//! Two independent conditions, and either refuses: an agent session's environment marker is
//! present, or stdin is not an interactive terminal. No flag, script or variable an agent can set
//! turns either off (an agent can unset a marker, but it cannot give its shell a terminal).

/// The environment markers agent sessions set in the commands they run: (variable, the value it
/// must have or `None` for any non-empty value, the agent it marks).
pub const AGENT_MARKERS: &[(&str, Option<&str>, &str)] = &[
    ("CLAUDECODE", None, "Claude Code"),
    ("CLAUDE_CODE_ENTRYPOINT", None, "Claude Code"),
    ("CURSOR_AGENT", None, "Cursor (cursor-agent)"),
    ("CURSOR_EXTENSION_HOST_ROLE", Some("agent-exec"), "Cursor (in-editor agent)"),
];

/// The first agent marker `env` carries: (variable, agent).
pub fn agent_marker(env: impl Fn(&str) -> Option<String>) -> Option<(&'static str, &'static str)> {
    AGENT_MARKERS.iter().find_map(|(var, want, agent)| {
        let value = env(var).filter(|v| !v.is_empty())?;
        want.is_none_or(|w| w == value).then_some((*var, *agent))
    })
}

/// Why `what` may not run here, or `None` when an operator is at a terminal.
pub fn refusal(what: &str, env: impl Fn(&str) -> Option<String>, stdin_is_terminal: bool) -> Option<String> {
    if let Some((var, agent)) = agent_marker(env) {
        return Some(format!(
            "{what} changes policy and is the operator's: it refuses inside an agent session ({var} is set: {agent}); run it from your own terminal"
        ));
    }
    if !stdin_is_terminal {
        return Some(format!(
            "{what} changes policy and needs an interactive terminal (stdin is not one): a script cannot stand in for the operator; run it from your own terminal"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn markers_refuse_whatever_the_terminal() {
        assert!(refusal("x", env(&[("CLAUDECODE", "1")]), true).unwrap().contains("CLAUDECODE"));
        assert!(refusal("x", env(&[("CURSOR_AGENT", "1")]), true).unwrap().contains("Cursor"));
        assert!(refusal("x", env(&[("CURSOR_EXTENSION_HOST_ROLE", "agent-exec")]), true).is_some());
        // A person's Cursor terminal carries the role with another value: not an agent.
        assert!(refusal("x", env(&[("CURSOR_EXTENSION_HOST_ROLE", "user")]), true).is_none());
        assert!(refusal("x", env(&[("CLAUDECODE", "")]), true).is_none());
    }

    #[test]
    fn no_terminal_refuses() {
        assert!(refusal("x", env(&[]), false).unwrap().contains("interactive terminal"));
        assert!(refusal("x", env(&[]), true).is_none());
    }
}
