//! Operator only: the check every command that changes policy runs before it changes anything.
//! Independent conditions, and any refuses: an agent session's environment marker is present; an
//! ancestor process carries one, or is an agent's own binary; stdin is not an interactive
//! terminal, or the process has no controlling terminal. No flag, script or variable an agent can
//! set turns one off: an agent can unset a marker in its own environment (`env -u CLAUDECODE`) and
//! borrow a terminal (`script -qec …`), but a process cannot change an ancestor's environment, and
//! `/proc/<pid>/environ` keeps what each ancestor started with.

/// The environment markers agent sessions set in the commands they run: (variable, the value it
/// must have or `None` for any non-empty value, the agent it marks).
pub(crate) const AGENT_MARKERS: &[(&str, Option<&str>, &str)] = &[
    ("CLAUDECODE", None, "Claude Code"),
    ("CLAUDE_CODE_ENTRYPOINT", None, "Claude Code"),
    ("CURSOR_AGENT", None, "Cursor (cursor-agent)"),
    ("CURSOR_EXTENSION_HOST_ROLE", Some("agent-exec"), "Cursor (in-editor agent)"),
];

/// The first agent marker `env` carries: (variable, agent).
pub(crate) fn agent_marker(env: impl Fn(&str) -> Option<String>) -> Option<(&'static str, &'static str)> {
    AGENT_MARKERS.iter().find_map(|(var, want, agent)| {
        let value = env(var).filter(|v| !v.is_empty())?;
        want.is_none_or(|w| w == value).then_some((*var, *agent))
    })
}

/// The programs of agent harnesses: a process of one of these names among a command's ancestors
/// means an agent started it, whatever the environment says.
pub(crate) const AGENT_BINARIES: &[&str] = &["claude", "cursor-agent", "codex", "gemini", "aider", "opencode", "goose"];

/// One process as the ancestry walk sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Process {
    pub pid: u32,
    pub parent: u32,
    /// The program's name (`/proc/<pid>/comm`) and its command line's words.
    pub name: String,
    pub argv: Vec<String>,
    /// The environment it started with, when readable (another user's is not).
    pub env: Option<Vec<(String, String)>>,
}

/// Where the walk reads processes from.
pub(crate) trait Processes {
    fn process(&self, pid: u32) -> Option<Process>;
}

/// Linux's `/proc`, read within fsread's limits. Elsewhere nothing is known, and only the
/// process's own environment and terminal are checked (docs/policy.md says so).
pub(crate) struct ProcFs;

impl Processes for ProcFs {
    fn process(&self, pid: u32) -> Option<Process> {
        use crate::fsread::{read_capped, Links};
        let read = |file: &str| {
            read_capped(std::path::Path::new(&format!("/proc/{pid}/{file}")), 1024 * 1024, Links::Follow)
                .ok()
                .flatten()
        };
        let stat = String::from_utf8(read("stat")?).ok()?;
        // `pid (comm) state ppid …`: the name may hold spaces and parentheses; the last `)` ends it.
        let after = &stat[stat.rfind(')')? + 1..];
        let parent = after.split_whitespace().nth(1)?.parse().ok()?;
        let name = read("comm")
            .map(|b| String::from_utf8_lossy(&b).trim().to_string())
            .unwrap_or_default();
        let words = |b: Vec<u8>| -> Vec<String> {
            b.split(|c| *c == 0)
                .filter(|w| !w.is_empty())
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect()
        };
        let argv = read("cmdline").map(words).unwrap_or_default();
        let env = read("environ").map(|b| {
            words(b)
                .into_iter()
                .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
                .collect()
        });
        Some(Process {
            pid,
            parent,
            name,
            argv,
            env,
        })
    }
}

/// The first ancestor of the process whose parent is `parent` that an agent started: its
/// description (`process 4242 (bash), whose environment has CLAUDECODE (Claude Code)`).
pub(crate) fn agent_ancestor(procs: &dyn Processes, parent: u32) -> Option<String> {
    let mut pid = parent;
    for _ in 0..512 {
        if pid <= 1 {
            return None;
        }
        let p = procs.process(pid)?;
        if let Some(env) = &p.env {
            if let Some((var, agent)) = agent_marker(|k| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())) {
                return Some(format!("process {} ({}), whose environment has {var} ({agent})", p.pid, p.name));
            }
        }
        let program = |w: &str| w.rsplit('/').next().unwrap_or(w).to_string();
        let agent_binary = AGENT_BINARIES.contains(&p.name.as_str())
            || p.argv.first().is_some_and(|a| AGENT_BINARIES.contains(&program(a).as_str()))
            || p.argv.iter().take(3).any(|a| a.contains("@anthropic-ai/claude-code/"));
        if agent_binary {
            return Some(format!("process {} ({}), an agent's own program", p.pid, p.name));
        }
        if p.parent == pid {
            return None;
        }
        pid = p.parent;
    }
    None
}

/// Whether this process has a controlling terminal (`/proc/self/stat`'s `tty_nr`); `None` where
/// that cannot be read.
pub(crate) fn has_controlling_terminal() -> Option<bool> {
    let stat = crate::fsread::read_capped(std::path::Path::new("/proc/self/stat"), 64 * 1024, crate::fsread::Links::Follow).ok()??;
    let stat = String::from_utf8(stat).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    let tty: i64 = after.split_whitespace().nth(4)?.parse().ok()?;
    Some(tty != 0)
}

/// Why `what` may not run here, or `None` when an operator is at a terminal.
pub(crate) fn refusal(what: &str, env: impl Fn(&str) -> Option<String>, stdin_is_terminal: bool) -> Option<String> {
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

/// [`refusal`], then the ancestry: an agent among the ancestors refuses, naming it.
pub(crate) fn refusal_with_ancestry(
    what: &str,
    env: impl Fn(&str) -> Option<String>,
    stdin_is_terminal: bool,
    procs: &dyn Processes,
    parent: u32,
) -> Option<String> {
    if let Some(why) = refusal(what, env, stdin_is_terminal) {
        return Some(why);
    }
    agent_ancestor(procs, parent).map(|who| {
        format!("{what} changes policy and is the operator's: it was started by an agent session ({who}); run it from your own terminal")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Table(Vec<Process>);

    impl Processes for Table {
        fn process(&self, pid: u32) -> Option<Process> {
            self.0.iter().find(|p| p.pid == pid).cloned()
        }
    }

    fn proc(pid: u32, parent: u32, name: &str, env: &[(&str, &str)]) -> Process {
        Process {
            pid,
            parent,
            name: name.into(),
            argv: vec![name.into()],
            env: Some(env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
        }
    }

    #[test]
    fn an_agent_among_the_ancestors_refuses_naming_it() {
        // tlc ← script ← env -u CLAUDECODE ← bash (CLAUDECODE=1) ← claude ← a terminal's shell.
        let t = Table(vec![
            proc(50, 40, "script", &[]),
            proc(40, 30, "env", &[]),
            proc(30, 20, "bash", &[("CLAUDECODE", "1")]),
            proc(20, 10, "claude", &[]),
            proc(10, 1, "zsh", &[("HOME", "/home/me")]),
        ]);
        let why = agent_ancestor(&t, 50).unwrap();
        assert!(why.contains("process 30 (bash)") && why.contains("CLAUDECODE"), "{why}");
        // Without the marker the agent's binary itself gives it away.
        let t = Table(vec![proc(50, 20, "sh", &[]), proc(20, 10, "claude", &[]), proc(10, 1, "zsh", &[])]);
        assert!(agent_ancestor(&t, 50).unwrap().contains("process 20 (claude)"));
        // An operator's own terminal: nothing.
        let t = Table(vec![proc(50, 10, "bash", &[("TERM", "xterm")]), proc(10, 1, "sshd", &[])]);
        assert_eq!(agent_ancestor(&t, 50), None);
        // An unreadable environment (another user's process) is not a marker.
        let mut root = proc(10, 1, "sudo", &[]);
        root.env = None;
        assert_eq!(agent_ancestor(&Table(vec![root]), 10), None);
    }

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
