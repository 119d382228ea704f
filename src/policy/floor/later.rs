//! Code that runs later or elsewhere, read as code: `trap` bodies, aliases defined in the line,
//! `source` of what a substitution prints, and git's `-c` settings that name a command (an alias,
//! a pager, an editor, a hook folder).

use super::*;
use exec::{fetched, fetches, runtime_code, shell_quote_word};

/// Git settings whose value is a command line git runs through the shell (section and name,
/// lowercased; `*` stands for any subsection).
const GIT_COMMAND_KEYS: &[&str] = &[
    "core.fsmonitor",
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "sequence.editor",
    "diff.external",
    "diff.*.command",
    "diff.*.textconv",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "credential.helper",
    "credential.*.helper",
    "gpg.program",
    "gpg.*.program",
    "uploadpack.packobjectshook",
    "pager.*",
    "interactive.difffilter",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "remote.*.vcs",
];

/// Whether a git setting's key (lowercased) names a command git runs.
fn git_command_key(key: &str) -> bool {
    GIT_COMMAND_KEYS.iter().any(|pattern| match pattern.split_once(".*.") {
        Some((section, name)) => key
            .strip_prefix(section)
            .and_then(|r| r.strip_prefix('.'))
            .is_some_and(|r| r.rsplit_once('.').is_some_and(|(_, n)| n == name)),
        None => match pattern.strip_suffix(".*") {
            Some(section) => key.strip_prefix(section).is_some_and(|r| r.starts_with('.')),
            None => key == *pattern,
        },
    })
}

impl Floor<'_> {
    /// `trap [--] ACTION SIGNAL…`: the action is a command line the shell runs when the signal
    /// (or `EXIT`, `ERR`, `RETURN`, `DEBUG`) comes, judged as if it ran now.
    pub(super) fn trap(&self, args: &[&Word], depth: usize) -> Option<Finding> {
        let mut rest = args;
        if rest.first().and_then(|w| w.literal()).as_deref() == Some("--") {
            rest = &rest[1..];
        }
        let [action, _signal, ..] = rest else { return None };
        match action.literal() {
            // `trap -p`, `trap -l`, `trap - INT` (reset): no action.
            Some(t) if t.starts_with('-') => None,
            Some(t) => self.inline(&t, depth, "trap"),
            None => self.runtime_words(&[action], "trap").or(Some(runtime_code("trap"))),
        }
    }

    /// `alias NAME=VALUE…`: each value judged as the command it stands for, and remembered, so a
    /// later command that uses the alias is judged as what it expands to.
    pub(super) fn alias_definitions(&self, args: &[&Word], depth: usize) -> Option<Finding> {
        for w in args {
            let Some(text) = w.literal() else {
                return self.runtime_words(&[w], "alias").or(Some(runtime_code("alias")));
            };
            let Some((name, value)) = text.split_once('=') else { continue };
            if name.starts_with('-') {
                continue;
            }
            self.aliases.borrow_mut().insert(name.to_string(), value.to_string());
            if let Some(f) = self.inline(value, depth, &format!("alias {name}")) {
                return Some(f);
            }
        }
        None
    }

    /// A command whose program is an alias defined earlier in the line: `Some(verdict)` on the
    /// command the alias expands to (the alias is not expanded again inside itself, as in bash).
    pub(super) fn alias_use(&self, inv: &Invocation<'_>, depth: usize) -> Option<Option<Finding>> {
        let name = inv.program_word?.literal()?;
        let name = name.into_owned();
        let value = self.aliases.borrow_mut().remove(&name)?;
        let mut line = value.clone();
        for a in &inv.args {
            line.push(' ');
            line.push_str(&shell_quote_word(a));
        }
        let found = self.inline(&line, depth, &format!("alias {name}"));
        self.aliases.borrow_mut().insert(name, value);
        Some(found)
    }

    /// `source <(…)`: the script is what the substitution prints, read when every command of it
    /// prints literal text (`printf`, `echo`); anything else is only known when it runs.
    pub(super) fn printed_program(&self, s: &Script, depth: usize, via: &str) -> Option<Finding> {
        if fetches(s) {
            return Some(fetched(via));
        }
        let mut text = String::new();
        for c in &s.commands {
            match exec::literal_output(c, &invocation(c)) {
                Some(out) => text.push_str(&out),
                None => return Some(runtime_code(via)),
            }
        }
        self.inline(&text, depth, via)
    }

    /// git's `-c KEY=VALUE` (and `--config-env`) on the command line: a `!` alias is a shell
    /// command, a plain alias the subcommand it names, a setting whose value git runs (a pager,
    /// an editor, a filter) a command line, a hook folder or an included file code the floor
    /// does not read. `Some(verdict)` when a setting decided; `None` to judge the command as
    /// written.
    pub(super) fn git_config(&self, script: &Script, cmd: &Command, inv: &Invocation<'_>, depth: usize) -> Option<Option<Finding>> {
        let texts = inv.arg_texts();
        let mut settings: Vec<(usize, String, Option<String>)> = Vec::new();
        let mut k = 0;
        while let Some(a) = texts.get(k) {
            match a.as_str() {
                "-c" => {
                    let pair = texts.get(k + 1)?;
                    let known = inv.args.get(k + 1).is_some_and(|w| w.literal().is_some());
                    let (key, value) = pair.split_once('=').unwrap_or((pair, "true"));
                    settings.push((k, key.to_ascii_lowercase(), known.then(|| value.to_string())));
                    k += 2;
                }
                "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => k += 2,
                a if a.starts_with("--config-env=") => {
                    let key = a["--config-env=".len()..].split_once('=').map_or("", |(key, _)| key);
                    settings.push((k, key.to_ascii_lowercase(), None));
                    k += 1;
                }
                a if a.starts_with('-') => k += 1,
                _ => break,
            }
        }
        if settings.is_empty() {
            return None;
        }
        let sub = texts.get(k).map(String::as_str);
        let via = |key: &str| format!("git -c {key}");
        for (at, key, value) in &settings {
            let unknown = || {
                Some(Some(Finding::new(
                    Rule::UnprovableExecution,
                    format!("`git -c {key}=…` gives git a command to run whose text is only known when it runs, so what it would do cannot be established. Write the value out."),
                    format!("git -c {key} from a runtime value"),
                )))
            };
            if let Some(name) = key.strip_prefix("alias.") {
                if Some(name) != sub.map(str::to_ascii_lowercase).as_deref() {
                    continue;
                }
                let Some(value) = value else { return unknown() };
                let rest = &inv.args[k + 1..];
                if let Some(shell) = value.strip_prefix('!') {
                    // git runs `sh -c 'VALUE "$@"' VALUE ARGS…`.
                    let mut line = shell.to_string();
                    for a in rest {
                        line.push(' ');
                        line.push_str(&shell_quote_word(a));
                    }
                    return Some(self.inline(&line, depth, &via(key)));
                }
                // A plain alias is the subcommand (and options) it names, with this setting left
                // out so an alias naming itself is not expanded again (git refuses that).
                let alias = match crate::policy::shell::parse(value) {
                    Ok(parsed) => parsed.commands.into_iter().next().map(|c| c.words).unwrap_or_default(),
                    Err(_) => return Some(Some(exec::runtime_code(&via(key)))),
                };
                let mut words: Vec<Word> = cmd.words.iter().take_while(|w| !std::ptr::eq(*w, inv.args[0])).cloned().collect();
                words.extend(
                    inv.args[..k]
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != *at && *j != at + 1)
                        .map(|(_, w)| (*w).clone()),
                );
                words.extend(alias);
                words.extend(rest.iter().map(|w| (*w).clone()));
                let synthetic = Command {
                    words,
                    upstream: cmd.upstream.clone(),
                    ..Command::default()
                };
                let inner = invocation(&synthetic);
                return Some(self.command(script, usize::MAX, &synthetic, &inner, depth + 1));
            }
            if git_command_key(key) {
                let Some(value) = value else { return unknown() };
                let line = value.strip_prefix('!').unwrap_or(value);
                // `core.fsmonitor=true` and `credential.helper=store` name git's own helpers.
                if matches!(line, "true" | "false" | "") || key.starts_with("credential") && !value.starts_with('!') && !value.contains('/')
                {
                    continue;
                }
                if let Some(f) = self.inline(line, depth, &via(key)) {
                    return Some(Some(f));
                }
                continue;
            }
            let reads_code = key == "core.hookspath" || key == "include.path" || key.starts_with("includeif.") && key.ends_with(".path");
            if reads_code && !matches!(value.as_deref(), Some("/dev/null" | "")) {
                return Some(Some(Finding::new(
                    Rule::UnprovableExecution,
                    format!("`git -c {key}=…` makes git run or read code from a place the floor does not read (hooks, or settings that may name commands), so what it would do cannot be established. Run git without it."),
                    format!("git -c {key}"),
                )));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::git_command_key;

    #[test]
    fn git_keys_that_run_commands_are_known_by_section_and_name() {
        for key in [
            "core.pager",
            "pager.log",
            "diff.foo.textconv",
            "filter.lfs.smudge",
            "credential.https://x.helper",
            "core.fsmonitor",
        ] {
            assert!(git_command_key(key), "{key}");
        }
        for key in [
            "core.quotepath",
            "user.name",
            "diff.foo.binary",
            "pagerx.log",
            "filter.lfs.required",
            "color.ui",
        ] {
            assert!(!git_command_key(key), "{key}");
        }
    }
}
