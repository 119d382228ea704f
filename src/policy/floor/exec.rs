//! `unprovable-execution`, and the walk over a command line: every simple command, every
//! command line inside another (`bash -c`, `eval`, heredocs), every substitution.

use super::*;

impl Floor<'_> {
    pub(super) fn script(&self, script: &Script, depth: usize) -> Option<Finding> {
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

    pub(super) fn command(&self, script: &Script, i: usize, cmd: &Command, depth: usize) -> Option<Finding> {
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
    pub(super) fn execution(&self, script: &Script, cmd: &Command, inv: &Invocation<'_>, depth: usize) -> Option<Finding> {
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
    pub(super) fn inline(&self, text: &str, depth: usize, via: &str) -> Option<Finding> {
        match crate::policy::shell::parse_nested(text, depth + 1) {
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
    pub(super) fn runtime_words(&self, words: &[&Word], via: &str) -> Option<Finding> {
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

    pub(super) fn names_surface(&self, text: &str) -> bool {
        self.ctx.surface_markers().iter().any(|m| text.contains(m.as_str()))
    }
}

pub(super) fn is_fetcher(cmd: &Command) -> bool {
    invocation(cmd).program.as_deref().is_some_and(|p| FETCHERS.contains(&p))
}

/// Whether a script fetches from the network anywhere (its substitutions included).
pub(super) fn fetches(s: &Script) -> bool {
    s.commands.iter().any(|c| {
        is_fetcher(c)
            || c.words
                .iter()
                .chain(c.assigns.iter().map(|(_, w)| w))
                .any(|w| w.scripts().any(fetches))
    })
}

pub(super) fn fetched(via: &str) -> Finding {
    Finding::new(
        Rule::UnprovableExecution,
        format!("`{via}` would run a program fetched over the network, which does not exist for this gate to check. Download it to a file, read it, then run that file."),
        "fetched program handed to an interpreter",
    )
}

pub(super) fn runtime_code(via: &str) -> Finding {
    Finding::new(
        Rule::UnprovableExecution,
        format!(
            "`{via}` runs a command built from a variable at run time, so what it would do cannot be established. Write the command out."
        ),
        format!("{via} of a runtime-built command"),
    )
}
