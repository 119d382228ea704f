//! `unprovable-execution`, and the walk over a command line: every simple command, every
//! command line inside another (`bash -c`, `eval`, heredocs), every substitution.

use super::*;
use crate::policy::shell::parse::Connector;
use interp::Lang;
use std::borrow::Cow;

impl Floor<'_> {
    pub(super) fn script(&self, script: &Script, depth: usize) -> Option<Finding> {
        // `cd X && …` moves only what follows within its `&&` list; `cd X || …` not even that.
        // When the list ends, either may be where the line goes on: both join the set.
        let mut conditional: Vec<(usize, Vec<Option<PathBuf>>)> = Vec::new();
        for (i, cmd) in script.commands.iter().enumerate() {
            while conditional.last().is_some_and(|(end, _)| i >= *end) {
                if let Some((_, dirs)) = conditional.pop() {
                    self.join_cwds(dirs);
                }
            }
            let inv = invocation(cmd);
            // `/bin/r[m]`: each program the pattern names is judged as the command's program.
            match self.program_glob(cmd, &inv) {
                Err(f) => return Some(f),
                Ok(Some(commands)) => {
                    for c in &commands {
                        let folders = self.cwds.borrow().clone();
                        if let Some(f) = self.in_its_folders(script, i, c, &invocation(c), depth, folders) {
                            return Some(f);
                        }
                    }
                }
                Ok(None) => {
                    let folders = self.cwds.borrow().clone();
                    if let Some(f) = self.in_its_folders(script, i, cmd, &inv, depth, folders) {
                        return Some(f);
                    }
                }
            }
            if let Some(dirs) = self.after(cmd, &inv) {
                match cmd.connector {
                    Connector::And => {
                        let before = self.cwds.replace(dirs);
                        conditional.push((cmd.list_end, before));
                    }
                    Connector::Or => conditional.push((cmd.list_end, dirs)),
                    Connector::None => self.join_cwds(dirs),
                }
            }
        }
        for (_, dirs) in conditional {
            self.join_cwds(dirs);
        }
        None
    }

    /// One command judged in every folder it may run in: `env -C DIR cmd` runs in DIR, whatever
    /// the line's `cd`s did; any other in each of `folders`. The current folder is left at the
    /// last one judged.
    fn in_its_folders(
        &self,
        script: &Script,
        i: usize,
        cmd: &Command,
        inv: &Invocation<'_>,
        depth: usize,
        folders: Vec<Option<PathBuf>>,
    ) -> Option<Finding> {
        let cwds = match inv.chdir {
            Some((w, skip)) => self.dirs_named(&strip_word_prefix(w, skip)),
            None => folders,
        };
        for cwd in cwds {
            *self.cwd.borrow_mut() = cwd;
            if let Some(f) = self.nested(cmd, depth).or_else(|| self.command(script, i, cmd, inv, depth)) {
                return Some(f);
            }
        }
        None
    }

    /// The command lines inside a command's words and redirections (`$(…)`, `<(…)`, heredoc
    /// substitutions), each run in the folder the command runs in.
    fn nested(&self, cmd: &Command, depth: usize) -> Option<Finding> {
        for w in cmd.assigns.iter().map(|(_, w)| w).chain(cmd.words.iter()) {
            for s in w.scripts() {
                if let Some(f) = self.sub_script(s, depth) {
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
                if let Some(f) = self.sub_script(s, depth) {
                    return Some(f);
                }
            }
        }
        None
    }

    /// A script run from the current command's folder (a substitution, `bash -c`, …): it starts
    /// there, and the folders its own `cd`s reach join the line's.
    fn sub_script(&self, s: &Script, depth: usize) -> Option<Finding> {
        let here = self.cwd.borrow().clone();
        let outer = self.cwds.replace(vec![here.clone()]);
        let found = self.script(s, depth + 1);
        let inner = self.cwds.replace(outer);
        *self.cwd.borrow_mut() = here;
        self.join_cwds(inner);
        found
    }

    fn join_cwds(&self, more: Vec<Option<PathBuf>>) {
        let mut cwds = self.cwds.borrow_mut();
        for c in more {
            if !cwds.contains(&c) {
                if cwds.len() >= MAX_CWDS {
                    if !cwds.contains(&None) {
                        cwds.push(None);
                    }
                    return;
                }
                cwds.push(c);
            }
        }
    }

    /// The folders a `cd` argument (or `env -C`'s) may name, from each folder the line may be in.
    pub(super) fn dirs_named(&self, w: &Word) -> Vec<Option<PathBuf>> {
        let literal_absolute = w.literal().is_some_and(|t| t.starts_with('/'));
        let bases: Vec<Option<PathBuf>> = if literal_absolute {
            vec![self.cwd.borrow().clone()]
        } else {
            self.cwds.borrow().clone()
        };
        let saved = self.cwd.borrow().clone();
        let mut out = Vec::new();
        for base in bases {
            *self.cwd.borrow_mut() = base;
            let d = match self.resolve(w) {
                Target::Path(p) => Some(p),
                _ => None,
            };
            if !out.contains(&d) {
                out.push(d);
            }
        }
        *self.cwd.borrow_mut() = saved;
        out
    }

    /// What a command leaves for the rest of the line: the files it writes (with their text when
    /// it is literal), and — returned — the folders a `cd`, `pushd` or `chdir` moves to.
    fn after(&self, cmd: &Command, inv: &Invocation<'_>) -> Option<Vec<Option<PathBuf>>> {
        let effects = self.effects(cmd, inv);
        let text = if effects.is_empty() { None } else { literal_output(cmd, inv) };
        for (w, effect) in effects {
            if effect == Effect::Remove || effect == Effect::RemoveUnder {
                continue;
            }
            let appended = cmd
                .redirects
                .iter()
                .any(|r| matches!(r.op, RedirOp::Append | RedirOp::AppendBoth) && matches!(&r.target, RedirTarget::Word(t) if *t == w));
            if let Target::Path(p) = self.resolve(&w) {
                let mut written = self.written.borrow_mut();
                let from_redirect = cmd.redirects.iter().any(|r| matches!(&r.target, RedirTarget::Word(t) if *t == w));
                let content = if from_redirect { text.clone() } else { None };
                let content = match (appended, written.get(&p)) {
                    (true, Some(Some(before))) => content.map(|c| format!("{before}{c}")),
                    (true, Some(None)) => None,
                    _ => content,
                };
                written.insert(p, content);
            }
        }
        if !matches!(inv.program.as_deref(), Some("cd" | "pushd" | "chdir")) {
            return None;
        }
        let target = inv.args.iter().find(|w| {
            let t = w.text();
            !(t.starts_with('-') && t.len() > 1 && t[1..].chars().all(|c| "LPe@".contains(c)))
        });
        Some(match target {
            // `cd` alone goes home.
            None => vec![self.ctx.home.clone()],
            // `cd -` goes back to a folder already in the set.
            Some(w) if w.literal().as_deref() == Some("-") => self.cwds.borrow().clone(),
            // `pushd +N` rotates the stack: a folder this line cannot name.
            Some(w) if inv.program.as_deref() == Some("pushd") && w.literal().is_some_and(|t| t.starts_with('+') || t.starts_with('-')) => {
                vec![None]
            }
            Some(w) => self.dirs_named(w),
        })
    }

    /// The text of a script file the line runs: what an earlier command of the line wrote to it,
    /// or the file itself when it lies where an agent can write (the project, a temp folder) and
    /// is a regular text file under [`world::SCRIPT_CAP`].
    fn script_text(&self, p: &Path) -> ScriptText {
        if let Some(known) = self.written.borrow().get(p) {
            return match known {
                Some(t) => ScriptText::Known(t.clone()),
                None => ScriptText::Unknown("it is written by this same command line, from output that is only known when it runs"),
            };
        }
        let agent_writable = self.forms(p).iter().any(|f| self.in_zone(f));
        if !agent_writable {
            return ScriptText::NotRead;
        }
        match self.ctx.world.read_text(p, world::SCRIPT_CAP) {
            Some(t) => ScriptText::Known(t),
            None if self.entry(p).is_none() => ScriptText::NotRead,
            None => ScriptText::Unknown("it is not a regular text file of at most 1 MiB"),
        }
    }

    /// Every rule on one simple command, in order.
    pub(super) fn command(&self, script: &Script, i: usize, cmd: &Command, inv: &Invocation<'_>, depth: usize) -> Option<Finding> {
        let may_lose = |p: &str| crate::policy::work_loss::MAY_LOSE.contains(&p);
        if let (Some(ran), Some(program)) = (&self.ran, inv.program.as_deref().filter(|p| may_lose(p))) {
            let seen = Ran {
                program: program.to_string(),
                args: inv.arg_texts().to_vec(),
                dynamic: inv.args.iter().map(|w| w.literal().is_none()).collect(),
                cwd: self.cwd.borrow().clone(),
            };
            let mut ran = ran.borrow_mut();
            if ran.len() < MAX_RAN {
                ran.push(seen);
            }
        }
        // The memo belongs to this call: a command judged inside it (one `find -exec` carries)
        // has its own, and the outer one is back when it returns.
        let outer = self.effects_memo.take();
        let found = self
            .execution(script, cmd, inv, depth)
            .or_else(|| self.machine_control(cmd, inv))
            .or_else(|| self.history_rewrite(inv))
            .or_else(|| self.policy_surface(cmd, inv))
            .or_else(|| self.secrets(cmd, inv))
            .or_else(|| self.destruction(script, i, cmd, inv))
            .or_else(|| self.policy_surface_broad(cmd, inv))
            .or_else(|| self.carried(script, cmd, inv, depth));
        *self.effects_memo.borrow_mut() = outer;
        found
    }

    /// [`Floor::effects`] of the command being judged, each word with its [`Floor::resolve`]:
    /// four rules walk them, and computing them once per command (not once per rule) took a
    /// tenth off the floor's time on a compound line.
    pub(super) fn judged_effects(&self, cmd: &Command, inv: &Invocation<'_>) -> std::rc::Rc<[(Word, Effect, Target)]> {
        let reassigned = self.reassigned.borrow().len();
        if let Some(m) = self.effects_memo.borrow().as_ref() {
            if std::ptr::eq(m.cmd, cmd) && m.cwd == *self.cwd.borrow() && m.reassigned == reassigned {
                return m.effects.clone();
            }
        }
        let effects: std::rc::Rc<[(Word, Effect, Target)]> = self
            .effects(cmd, inv)
            .into_iter()
            .map(|(w, e)| {
                let t = self.resolve(&w);
                (w, e, t)
            })
            .collect();
        *self.effects_memo.borrow_mut() = Some(EffectsMemo {
            cmd,
            cwd: self.cwd.borrow().clone(),
            reassigned,
            effects: effects.clone(),
        });
        effects
    }

    /// `unprovable-execution`: code the floor cannot read before it runs; and every program the
    /// floor can read (a command line in a string, a script file, interpreter code), read.
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
        if let Some(text) = inv.command_text {
            return self.command_line_word(text, depth, inv.via.last().copied().unwrap_or("flock"));
        }
        if inv.program.is_none() && !inv.lookup_only {
            if let Some(w) = inv.program_word {
                if w.literal().is_some_and(|t| t.is_empty()) {
                    return Some(Finding::new(
                        Rule::UnprovableExecution,
                        "the program this command runs is an empty word (`\"\"`), which no shell runs as anything you meant. Name the program.",
                        "an empty program name",
                    ));
                }
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
            let literal: Option<Vec<String>> = args.iter().map(|w| w.literal().map(Cow::into_owned)).collect();
            return match literal {
                Some(parts) => self.inline(&parts.join(" "), depth, "eval"),
                None => self.runtime_words(args, "eval"),
            };
        }
        if matches!(program, "source" | ".") {
            let file = args.first()?;
            if word_fetches(file) {
                return Some(fetched(program));
            }
            // `. /dev/stdin <<< '…'`: the script is what arrives on stdin.
            if file
                .literal()
                .is_some_and(|t| matches!(&*t, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"))
            {
                return self.stdin_program(script, cmd, depth, program, true, Lang::Other);
            }
            // `source <(printf …)`: the script is what the substitution prints.
            if let [Piece::Proc { script: s, input: true }] = file.pieces.as_slice() {
                return self.printed_program(s, depth, program);
            }
            return self.script_file(file, depth, program, Lang::Other);
        }
        // `trap 'CMD' EXIT`: the command runs later, when the signal or the event comes.
        if program == "trap" {
            return self.trap(args, depth);
        }
        // `alias zz='rm -rf ~'`: what the alias stands for runs wherever it is used (in an
        // interactive shell or under `shopt -s expand_aliases`); each definition is judged as the
        // command it stands for, and remembered for the words that use it.
        if program == "alias" {
            return self.alias_definitions(args, depth);
        }
        if let Some(found) = self.alias_use(inv, depth) {
            return found;
        }
        if program == "git" {
            if let Some(found) = self.git_config(script, cmd, inv, depth) {
                return found;
            }
        }
        // A program run by its path (`./deploy.sh`, `tools/x`): a text file is read like a
        // script; a binary (or a file outside the project and the temp folders) is not.
        if let Some(w) = inv.program_word.filter(|w| w.literal().is_some_and(|t| t.contains('/'))) {
            if let Target::Path(p) = self.resolve(w) {
                if let ScriptText::Known(text) = self.script_text(&p) {
                    let lang = shebang_lang(&text);
                    if let Some(f) = self.program_text(&text, depth, &p.display().to_string(), lang) {
                        return Some(f);
                    }
                }
                if let Some(None) = self.written.borrow().get(&p) {
                    return Some(unread_script(
                        &p.display().to_string(),
                        "it is written by this same command line, from output that is only known when it runs",
                    ));
                }
            }
        }
        let is_shell = SHELLS.contains(&program);
        let is_interp = INTERPRETERS
            .iter()
            .any(|p| program == *p || (p.starts_with("python") && program.starts_with("python")));
        if matches!(program, "at" | "batch") {
            return self.stdin_program(script, cmd, depth, program, true, Lang::Other);
        }
        if !is_shell && !is_interp {
            return None;
        }
        let lang = if is_shell { Lang::Other } else { Lang::of(program) };
        // `deno eval CODE`.
        if program == "deno" && args.first().and_then(|w| w.literal()).as_deref() == Some("eval") {
            return match args.get(1).and_then(|w| w.literal()) {
                Some(code) => self.code(&code, lang, depth, "deno eval"),
                None => args.get(1).map(|_| runtime_code("deno eval")),
            };
        }
        if lang == Lang::Awk {
            if let Some(found) = self.awk_program(args, depth, program) {
                return found;
            }
        }
        if program == "osascript" {
            if let Some(found) = self.osascript_program(args, depth) {
                return found;
            }
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
                matches!(&*t, "-c" | "-e" | "--eval" | "-p" | "--print" | "-r" | "-E" | "-m" | "--command")
            };
            if is_shell && !t.starts_with("--") && t[1..].contains('s') {
                reads_stdin_flag = true;
            }
            if inline_flag {
                // `xargs bash -c`: the first input item is the program.
                if inv.args_from_stdin && args.get(k + 1).is_none() {
                    return Some(input_code(&format!("xargs {program} -c")));
                }
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
            // `xargs -I{} bash -c 'rm -rf {}'`: each input item is spliced into the program.
            if let Some(token) = inv.stdin_token.as_deref().filter(|t| !t.is_empty()) {
                if code.text().contains(token) {
                    return Some(input_code(&format!("xargs {program}")));
                }
            }
            if is_shell {
                return self.command_line_word(code, depth, program);
            }
            if word_fetches(code) {
                return Some(fetched(program));
            }
            return match code.literal() {
                // The words after the code are its own arguments (`sys.argv`, `$ARGV`, …).
                Some(text) => {
                    let own: Vec<Option<String>> = args.iter().skip(k + 2).map(|w| w.literal().map(Cow::into_owned)).collect();
                    self.code(&interp::with_arguments(&text, lang, &own), lang, depth, program)
                }
                // `python -c "$CODE"`: code only known at run time.
                None if code.pieces.iter().any(|p| !matches!(p, Piece::Lit(_) | Piece::Quoted(_))) => Some(runtime_code(program)),
                None => None,
            };
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
            // `python -m module`: only a file operand is read; and only in a language the floor
            // reads (awk's operand is its program, sqlite3's a database).
            if !is_shell
                && (lang == Lang::Other || k > 0 && args.get(k - 1).is_some_and(|w| w.literal().is_some_and(|t| t.starts_with('-'))))
            {
                return None;
            }
            return self.script_file(op, depth, program, lang);
        }
        if !is_shell && lang == Lang::Other {
            return self.stdin_legacy(script, cmd, program);
        }
        self.stdin_program(script, cmd, depth, program, is_shell, lang)
    }

    /// awk's program: the first operand (after `-v`, `-F`, `-W` and their values), or gawk's
    /// `-e`/`--source` text. `Some(verdict)` when a program was found in the words (a `-f` file
    /// is the operator's program and is not read); `None` to go on as for other interpreters.
    fn awk_program(&self, args: &[&Word], depth: usize, program: &str) -> Option<Option<Finding>> {
        let mut k = 0;
        while let Some(w) = args.get(k) {
            let Some(t) = w.literal() else { break };
            match &*t {
                "--" => {
                    k += 1;
                    break;
                }
                "-f" | "--file" => return Some(None),
                "-e" | "--source" => return Some(self.awk_text(args.get(k + 1)?, depth, program)),
                "-v" | "-F" | "-W" | "--assign" | "--field-separator" => k += 2,
                _ if t.starts_with("-f") || t.starts_with("--file=") => return Some(None),
                _ if t.starts_with("--source=") => {
                    return Some(self.code(&t["--source=".len()..], Lang::Awk, depth, program));
                }
                _ if t.starts_with('-') && t.len() > 1 => k += 1,
                _ => break,
            }
        }
        args.get(k).map(|w| self.awk_text(w, depth, program))
    }

    fn awk_text(&self, w: &Word, depth: usize, program: &str) -> Option<Finding> {
        match w.literal() {
            Some(text) => self.code(&text, Lang::Awk, depth, program),
            None => self.runtime_words(&[w], program),
        }
    }

    /// osascript's program: every `-e` statement joined (it runs them as one script), in the
    /// language `-l` names. `None` when there is no `-e`.
    fn osascript_program(&self, args: &[&Word], depth: usize) -> Option<Option<Finding>> {
        let mut lang = Lang::AppleScript;
        let mut lines = Vec::new();
        let mut k = 0;
        while let Some(w) = args.get(k) {
            match w.literal().as_deref() {
                Some("-l") => {
                    if args
                        .get(k + 1)
                        .and_then(|l| l.literal())
                        .is_some_and(|l| l.eq_ignore_ascii_case("javascript"))
                    {
                        lang = Lang::JavaScript;
                    }
                    k += 2;
                }
                Some("-e") => {
                    let code = args.get(k + 1)?;
                    match code.literal() {
                        Some(text) => lines.push(text),
                        None => return Some(self.runtime_words(&[code], "osascript").or(Some(runtime_code("osascript")))),
                    }
                    k += 2;
                }
                _ => k += 1,
            }
        }
        (!lines.is_empty()).then(|| self.code(&lines.join("\n"), lang, depth, "osascript"))
    }

    /// A shell, interpreter or `at` that reads its program from stdin: a heredoc, a here-string,
    /// a `<` file, or a pipe from commands whose output the floor can reconstruct (literal
    /// `echo`/`printf`, `cat` of a readable file); anything else piped in is refused.
    fn stdin_program(&self, script: &Script, cmd: &Command, depth: usize, program: &str, is_shell: bool, lang: Lang) -> Option<Finding> {
        if cmd.upstream.iter().any(|&u| script.commands.get(u).is_some_and(is_fetcher)) {
            return Some(fetched(program));
        }
        for r in &cmd.redirects {
            match (&r.op, &r.target) {
                (RedirOp::HereDoc, RedirTarget::HereDoc(doc)) => {
                    if doc.subs.iter().any(fetches) {
                        return Some(fetched(program));
                    }
                    if doc.expands && doc.body.contains('$') && !is_shell {
                        return Some(runtime_code(program));
                    }
                    return self.program_text(&doc.body, depth, program, lang);
                }
                (RedirOp::HereString, RedirTarget::Word(w)) => {
                    if w.scripts().any(fetches) {
                        return Some(fetched(program));
                    }
                    return match w.literal() {
                        Some(text) => self.program_text(&text, depth, program, lang),
                        None => self.runtime_words(&[w], program).or(Some(runtime_code(program))),
                    };
                }
                (RedirOp::Read, RedirTarget::Word(w)) => {
                    if w.scripts().any(fetches) {
                        return Some(fetched(program));
                    }
                    return self.script_file(w, depth, program, lang);
                }
                _ => {}
            }
        }
        if cmd.upstream.is_empty() {
            return None;
        }
        match self.piped_text(script, cmd) {
            Piped::Text(text) => self.program_text(&text, depth, program, lang),
            Piped::Unknown(from) => Some(Finding::new(
                Rule::UnprovableExecution,
                format!("`{program}` reads its program from the output of `{from}`, which is only known when it runs, so what it would do cannot be established. Write the commands out."),
                format!("{program} reading a program from {from}"),
            )),
        }
    }

    /// An interpreter the floor does not read (awk, sqlite3, lua, …) fed on stdin: only a fetched
    /// program and a heredoc naming the policy surface are refused.
    fn stdin_legacy(&self, script: &Script, cmd: &Command, program: &str) -> Option<Finding> {
        if cmd.upstream.iter().any(|&u| script.commands.get(u).is_some_and(is_fetcher)) {
            return Some(fetched(program));
        }
        for r in &cmd.redirects {
            if let (RedirOp::HereDoc, RedirTarget::HereDoc(doc)) = (&r.op, &r.target) {
                if doc.subs.iter().any(fetches) {
                    return Some(fetched(program));
                }
                if self.names_surface(&doc.body) {
                    return Some(surface_denial(
                        format!("a heredoc fed to `{program}` names tlc's policy or state, so the body is a program that may write it."),
                        format!("heredoc program for {program} naming the policy surface"),
                    ));
                }
            }
        }
        None
    }

    /// What the commands piped into `cmd` print, when the floor can tell.
    /// The text piped into `cmd` when every command before it prints literal text (`echo`,
    /// `printf`); a file's content is not taken as known here, whoever wrote it.
    pub(super) fn literal_piped_text(&self, script: &Script, cmd: &Command) -> Option<String> {
        if cmd.upstream.is_empty() {
            return None;
        }
        let mut text = String::new();
        for &u in &cmd.upstream {
            let up = script.commands.get(u)?;
            text.push_str(&literal_output(up, &invocation(up))?);
        }
        Some(text)
    }

    pub(super) fn piped_text(&self, script: &Script, cmd: &Command) -> Piped {
        let mut text = String::new();
        for &u in &cmd.upstream {
            let Some(up) = script.commands.get(u) else {
                return Piped::Unknown("a command".into());
            };
            let inv = invocation(up);
            let program = inv.program.clone().unwrap_or_else(|| "an expansion".into());
            if let Some(out) = literal_output(up, &inv) {
                text.push_str(&out);
                continue;
            }
            match program.as_str() {
                // Passes its input through.
                "tee" => continue,
                "cat" => {
                    let files: Vec<&&Word> = inv.args.iter().filter(|w| !w.text().starts_with('-')).collect();
                    if files.is_empty() {
                        continue;
                    }
                    for f in files {
                        let Target::Path(p) = self.resolve(f) else {
                            return Piped::Unknown(format!("cat {}", f.text()));
                        };
                        match self.script_text(&p) {
                            ScriptText::Known(t) => text.push_str(&t),
                            // The operator's own file, or none (cat prints nothing).
                            ScriptText::NotRead => {}
                            ScriptText::Unknown(_) => return Piped::Unknown(format!("cat {}", p.display())),
                        }
                    }
                }
                other => return Piped::Unknown(other.to_string()),
            }
        }
        Piped::Text(text)
    }

    /// A script file a shell, an interpreter or `source` runs.
    fn script_file(&self, w: &Word, depth: usize, via: &str, lang: Lang) -> Option<Finding> {
        let Target::Path(p) = self.resolve(w) else {
            return w
                .pieces
                .iter()
                .any(|p| matches!(p, Piece::Param(_) | Piece::Subst(_)))
                .then(|| runtime_code(via));
        };
        match self.script_text(&p) {
            ScriptText::Known(text) => {
                let lang = if lang == Lang::Other { shebang_lang(&text) } else { lang };
                self.program_text(&text, depth, &format!("{via} {}", p.display()), lang)
            }
            ScriptText::Unknown(why) => Some(unread_script(&p.display().to_string(), why)),
            ScriptText::NotRead => None,
        }
    }

    /// A program's text: a command line for a shell, code for an interpreter.
    fn program_text(&self, text: &str, depth: usize, via: &str, lang: Lang) -> Option<Finding> {
        match lang {
            Lang::Other => self.inline(text, depth, via),
            lang => self.code(text, lang, depth, via),
        }
    }

    /// Interpreter code: the command lines it runs are read as command lines, the paths it
    /// removes as removals; what it builds at run time is unprovable; naming tlc's policy surface
    /// or an operator command anywhere in it is refused.
    pub(super) fn code(&self, text: &str, lang: Lang, depth: usize, via: &str) -> Option<Finding> {
        self.note_reassigned(text);
        if self.names_surface(text) {
            return Some(surface_denial(
                format!("the code `{via}` runs names tlc's policy or state; it is not a proven reader."),
                format!("{via} naming the policy surface"),
            ));
        }
        if let Some(sub) = names_operator_command(text) {
            return Some(surface_denial(
                format!("the code `{via}` runs names `tlc {sub}`, which changes tlc's policy or state: that is the operator's to run, from their own terminal."),
                format!("{via} naming tlc {sub}"),
            ));
        }
        for act in interp::acts(text, lang) {
            match act {
                interp::CodeAct::Runs { call, line: Some(line) } => {
                    if let Some(f) = self.inline(&line, depth, &format!("{via} ({call})")) {
                        return Some(f);
                    }
                }
                interp::CodeAct::Runs { call, line: None } => {
                    return Some(Finding::new(
                        Rule::UnprovableExecution,
                        format!("the code `{via}` runs passes `{call}` a command built at run time, so what it would run cannot be established. Write the command out as a literal."),
                        format!("{via}: {call} of a runtime-built command"),
                    ))
                }
                interp::CodeAct::Removes { call, path: Some(path), tree } => {
                    let word = Word {
                        pieces: vec![Piece::Quoted(path.clone())],
                    };
                    let effect = if tree { Effect::RemoveUnder } else { Effect::Remove };
                    let target = self.resolve(&word);
                    // `rmtree(x)` removes x itself too.
                    if let Some(f) = self.destruction_target(&target, &path, &format!("`{call}` in `{via}`"), Effect::Remove, None) {
                        return Some(f);
                    }
                    if effect == Effect::RemoveUnder {
                        if let Some(f) = self.destruction_target(&target, &path, &format!("`{call}` in `{via}`"), effect, None) {
                            return Some(f);
                        }
                    }
                    if let Target::Path(p) = &target {
                        if self.forms(p).iter().any(|f| self.on_surface(f) || self.holds_surface(f)) {
                            return Some(surface_denial(
                                format!("`{call}` in `{via}` removes {}, which is tlc's policy or state.", p.display()),
                                format!("{call} of {}", p.display()),
                            ));
                        }
                    }
                }
                interp::CodeAct::Removes { call, path: None, .. } => {
                    return Some(Finding::new(
                        Rule::UnprovableDestruction,
                        format!("the code `{via}` runs removes a path built at run time with `{call}`, so its safety cannot be established. Use a literal path inside the project."),
                        format!("{via}: {call} of a runtime-built path"),
                    ))
                }
            }
        }
        None
    }

    /// A word holding a command line a shell runs (`sh -c WORD`, `su -c WORD`, `flock -c WORD`).
    fn command_line_word(&self, w: &Word, depth: usize, via: &str) -> Option<Finding> {
        match w.literal() {
            Some(text) => self.inline(&text, depth, via),
            // `parallel bash -c 'echo {}'`: parallel quotes each input item, so it reaches the
            // command line as one word whose value is unknown.
            None if w.pieces.iter().all(|p| match p {
                Piece::Lit(_) | Piece::Quoted(_) => true,
                Piece::Param(n) => n == PARALLEL_ITEM,
                _ => false,
            }) =>
            {
                let text: String = w
                    .pieces
                    .iter()
                    .map(|p| match p {
                        Piece::Lit(s) | Piece::Quoted(s) => s.clone(),
                        _ => "\"$PARALLEL_ITEM\"".to_string(),
                    })
                    .collect();
                self.inline(&text, depth, via)
            }
            None => self.runtime_words(&[w], via),
        }
    }

    /// The commands a command carries and runs: `find -exec`, `parallel`, `watch`, `su -c`,
    /// `runuser -c`, `script -c`, `tmux new …`. Each is judged as if it ran on its own.
    fn carried(&self, script: &Script, cmd: &Command, inv: &Invocation<'_>, depth: usize) -> Option<Finding> {
        let program = inv.program.as_deref()?;
        if !matches!(program, "find" | "parallel" | "watch" | "su" | "runuser" | "script" | "tmux") {
            return None;
        }
        let texts = inv.arg_texts();
        let run = |words: Vec<Word>| -> Option<Finding> {
            if words.is_empty() || depth + 1 >= crate::policy::shell::parse::MAX_DEPTH {
                return None;
            }
            let synthetic = Command {
                words,
                upstream: cmd.upstream.clone(),
                ..Command::default()
            };
            let inner = invocation(&synthetic);
            // `parallel env -C ../other rm -rf {} ::: build` runs where `env -C` says.
            let here = self.cwd.borrow().clone();
            let found = self.in_its_folders(script, usize::MAX, &synthetic, &inner, depth + 1, vec![here.clone()]);
            *self.cwd.borrow_mut() = here;
            found
        };
        match program {
            "find" => {
                let roots = find_roots(inv);
                // What `{}` stands for: any path under the root — a pattern when find's filters may
                // match tlc's policy surface, else a plain path under it (so `-name '*.o'` keeps
                // the surface out, as it does for `-delete`).
                let surface_possible = self.filter_may_match_surface(inv);
                let placeholder = |root: Option<&Word>| -> Word {
                    let mut w = root.cloned().unwrap_or_else(dot);
                    w.pieces
                        .push(Piece::Lit(if surface_possible { "/*".into() } else { "/found-by-find".into() }));
                    w
                };
                let mut k = 0;
                while k < inv.args.len() {
                    if matches!(texts[k].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                        let end = (k + 1..inv.args.len())
                            .find(|&j| texts[j] == ";" || texts[j] == "+")
                            .unwrap_or(inv.args.len());
                        // `{}` is each starting point too, when the expression may select it.
                        let itself = find_may_match_root(texts);
                        for root in if roots.is_empty() {
                            vec![None]
                        } else {
                            roots.iter().map(|r| Some(*r)).collect()
                        } {
                            let mut stands_for = vec![placeholder(root)];
                            if itself {
                                stands_for.push(root.cloned().unwrap_or_else(dot));
                            }
                            for value in stands_for {
                                let words: Vec<Word> = inv.args[k + 1..end]
                                    .iter()
                                    .map(|w| if w.text() == "{}" { value.clone() } else { (*w).clone() })
                                    .collect();
                                if let Some(f) = run(words) {
                                    return Some(f);
                                }
                            }
                        }
                        k = end;
                    }
                    k += 1;
                }
                None
            }
            "parallel" => {
                // Parallel's own options come first; these take the next word as their value.
                const VALUED: &[&str] = &[
                    "-j",
                    "--jobs",
                    "-P",
                    "--max-procs",
                    "-S",
                    "--sshlogin",
                    "--results",
                    "--res",
                    "--joblog",
                    "-d",
                    "--delimiter",
                    "-a",
                    "--arg-file",
                    "-N",
                    "-n",
                    "--max-args",
                    "-L",
                    "--max-lines",
                    "--timeout",
                    "--delay",
                    "--tmpdir",
                    "--workdir",
                    "--wd",
                    "-E",
                    "--colsep",
                    "-C",
                    "--tagstring",
                    "--memfree",
                    "--load",
                    "-I",
                    "--replace",
                ];
                let sep = texts.iter().position(|t| t == ":::" || t == "::::" || t == ":::+" || t == "::::+");
                let end = sep.unwrap_or(texts.len());
                let mut start = 0;
                let mut from_file = false;
                while start < end && texts[start].starts_with('-') {
                    if matches!(texts[start].as_str(), "-a" | "--arg-file") || texts[start].starts_with("--arg-file=") {
                        from_file = true;
                    }
                    if VALUED.contains(&texts[start].as_str()) {
                        start += 1;
                    }
                    start += 1;
                }
                let template: Vec<&Word> = inv.args[start.min(end)..end].to_vec();
                let fill = |value: &Word| -> Option<Finding> {
                    if template.is_empty() {
                        return self.command_line_word(value, depth, "parallel");
                    }
                    let mut words: Vec<Word> = Vec::new();
                    let mut placed = false;
                    for w in &template {
                        if w.text().contains("{}") {
                            placed = true;
                            words.push(substitute(w, "{}", value));
                        } else {
                            words.push((*w).clone());
                        }
                    }
                    if !placed {
                        words.push(value.clone());
                    }
                    run(words)
                };
                let Some(sep) = sep.filter(|&i| texts[i] != "::::" && texts[i] != "::::+" && !from_file) else {
                    // Arguments from stdin: literal text piped in is read line by line; anything
                    // else (a program's output, a file) is only known when it runs.
                    if !from_file {
                        if let Some(text) = self.literal_piped_text(script, cmd) {
                            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                                let item = Word {
                                    pieces: vec![Piece::Quoted(line.to_string())],
                                };
                                let found = if template.is_empty() {
                                    self.inline(line, depth, "parallel")
                                } else {
                                    fill(&item)
                                };
                                if found.is_some() {
                                    return found;
                                }
                            }
                            return None;
                        }
                    }
                    if template.is_empty() {
                        return Some(input_code("parallel"));
                    }
                    let item = Word {
                        pieces: vec![Piece::Param(PARALLEL_ITEM.into())],
                    };
                    return fill(&item);
                };
                for value in &inv.args[sep + 1..] {
                    if value.text().starts_with(":::") {
                        continue;
                    }
                    if let Some(f) = fill(value) {
                        return Some(f);
                    }
                }
                None
            }
            "watch" => {
                let mut k = 0;
                let mut exec = false;
                while k < texts.len() && texts[k].starts_with('-') {
                    let t = &texts[k];
                    if t == "-x" || t == "--exec" {
                        exec = true;
                    }
                    if matches!(t.as_str(), "-n" | "--interval" | "-q" | "--equexit") {
                        k += 1;
                    }
                    k += 1;
                }
                let rest: Vec<&Word> = inv.args.get(k..).map(<[_]>::to_vec).unwrap_or_default();
                if exec {
                    return run(rest.into_iter().cloned().collect());
                }
                self.joined(&rest, depth, "watch")
            }
            "su" | "runuser" | "script" => {
                let long = "--command";
                for (k, t) in texts.iter().enumerate() {
                    if let Some(v) = t.strip_prefix(&format!("{long}=")) {
                        return self.inline(v, depth, program);
                    }
                    let short_c = t.starts_with('-') && !t.starts_with("--") && t.ends_with('c');
                    if t == long || t == "--session-command" || short_c {
                        return inv.args.get(k + 1).and_then(|w| self.command_line_word(w, depth, program));
                    }
                }
                None
            }
            "tmux" => {
                let sub = texts.iter().position(|t| {
                    matches!(
                        t.as_str(),
                        "new"
                            | "new-session"
                            | "new-window"
                            | "neww"
                            | "split-window"
                            | "splitw"
                            | "respawn-pane"
                            | "respawnp"
                            | "respawn-window"
                            | "respawnw"
                            | "run-shell"
                            | "run"
                    )
                })?;
                let mut k = sub + 1;
                while k < texts.len() && texts[k].starts_with('-') {
                    let t = &texts[k];
                    if t.len() == 2 && "scntxyeFflT".contains(&t[1..]) {
                        k += 1;
                    }
                    k += 1;
                }
                let rest: Vec<&Word> = inv.args.get(k..).map(<[_]>::to_vec).unwrap_or_default();
                self.joined(&rest, depth, "tmux")
            }
            _ => None,
        }
    }

    /// Words a program joins with spaces into one command line for `sh -c` (`watch`, `tmux`).
    fn joined(&self, words: &[&Word], depth: usize, via: &str) -> Option<Finding> {
        if words.is_empty() {
            return None;
        }
        let literal: Option<Vec<String>> = words.iter().map(|w| w.literal().map(Cow::into_owned)).collect();
        match literal {
            Some(parts) => self.inline(&parts.join(" "), depth, via),
            None => self.runtime_words(words, via).or(Some(runtime_code(via))),
        }
    }

    /// A command line inside another (`bash -c`, `eval`, a heredoc fed to a shell).
    pub(super) fn inline(&self, text: &str, depth: usize, via: &str) -> Option<Finding> {
        self.note_reassigned(text);
        match crate::policy::shell::parse_as_run(text, depth + 1) {
            Ok((_, s)) => self.sub_script(&s, depth),
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
        // Anything but literal text (a variable, a substitution's output) is only known at run
        // time; `$HOME` and `$PWD` are known.
        let unknown = words.iter().any(|w| {
            w.pieces.iter().any(|p| match p {
                Piece::Param(n) => !matches!(n.as_str(), "HOME" | "PWD") || self.reassigned.borrow().contains(&n.as_str()),
                Piece::Subst(s) => !prints_shell_setup(s),
                Piece::Arith | Piece::Proc { .. } => true,
                _ => false,
            })
        });
        unknown.then(|| runtime_code(via))
    }

    /// A line (or code) that may set `$HOME`, `$PWD` or `$TMPDIR` itself (`TMPDIR=/ …`, `export
    /// TMPDIR`, `unset TMPDIR`, `read TMPDIR`, `os.environ['TMPDIR']`): from here on the floor no
    /// longer knows their value from its own environment.
    pub(super) fn note_reassigned(&self, text: &str) {
        for name in ["HOME", "PWD", "TMPDIR"] {
            if !self.reassigned.borrow().contains(&name) && names_variable_unexpanded(text, name) {
                self.reassigned.borrow_mut().push(name);
            }
        }
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

/// Whether `text` names the variable `name` other than by expanding it (`$NAME`, `${NAME…}`):
/// an assignment, `export`, `unset`, `read`, `for NAME in`, an interpreter's environment.
fn names_variable_unexpanded(text: &str, name: &str) -> bool {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(at) = text[from..].find(name) {
        let start = from + at;
        let end = start + name.len();
        let before = start.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(end).copied();
        let expanded = matches!(before, Some(b'$')) || (matches!(before, Some(b'{')) && start >= 2 && bytes[start - 2] == b'$');
        if !expanded && !before.is_some_and(word) && !after.is_some_and(word) {
            return true;
        }
        from = end;
    }
    false
}

/// The name standing for an input item of `parallel` (quoted by parallel when it runs).
const PARALLEL_ITEM: &str = "PARALLEL_ITEM";

/// A program whose code is spliced from its input (`xargs bash -c`, `parallel bash -c {}`).
pub(super) fn input_code(via: &str) -> Finding {
    Finding::new(
        Rule::UnprovableExecution,
        format!("`{via}` runs code made from its input, which is only known when it runs, so what it would do cannot be established. Write the commands out."),
        format!("{via} running its input as code"),
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

/// A script's text as the floor can know it.
pub(super) enum ScriptText {
    Known(String),
    /// Where an agent writes, but not readable as a script: why.
    Unknown(&'static str),
    /// Outside the project and the temp folders: the operator's own, not read.
    NotRead,
}

/// What a pipe feeds a command.
pub(super) enum Piped {
    Text(String),
    /// The program whose output cannot be known.
    Unknown(String),
}

fn unread_script(path: &str, why: &str) -> Finding {
    Finding::new(
        Rule::UnprovableExecution,
        format!("this runs the script {path}, but {why}, so what it would do cannot be established. Write the script to a file first, then run it in its own command."),
        format!("script {path} not readable as text"),
    )
}

/// The language a script's first line names (`#!/usr/bin/env python3`); a shell's otherwise.
pub(super) fn shebang_lang(text: &str) -> Lang {
    let Some(line) = text.lines().next().and_then(|l| l.strip_prefix("#!")) else {
        return Lang::Other;
    };
    let mut parts = line.split_whitespace();
    let mut program = parts.next().unwrap_or("").rsplit('/').next().unwrap_or("");
    if program == "env" {
        program = parts.find(|p| !p.starts_with('-')).unwrap_or("");
    }
    Lang::of(program)
}

/// The text a command prints when the floor can tell it exactly: `echo` or `printf` of literal
/// words, `cat` of a heredoc that does not expand. `None` for anything else.
pub(super) fn literal_output(cmd: &Command, inv: &Invocation<'_>) -> Option<String> {
    let program = inv.program.as_deref()?;
    let args: Option<Vec<String>> = inv.args.iter().map(|w| w.literal().map(Cow::into_owned)).collect();
    match program {
        "echo" => {
            let args = args?;
            let mut newline = true;
            let mut escapes = false;
            let mut k = 0;
            while let Some(a) = args.get(k) {
                if a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| "neE".contains(c)) {
                    newline &= !a.contains('n');
                    escapes = a.contains('e') || (escapes && !a.contains('E'));
                    k += 1;
                } else {
                    break;
                }
            }
            let mut text = args[k..].join(" ");
            if escapes {
                text = unescape(&text);
            }
            if newline {
                text.push('\n');
            }
            Some(text)
        }
        "printf" => {
            let args = args?;
            let (format, values) = args.split_first()?;
            Some(printf(format, values))
        }
        "cat" if inv.args.is_empty() => cmd.redirects.iter().find_map(|r| match &r.target {
            RedirTarget::HereDoc(d) if !(d.expands && d.body.contains('$')) => Some(d.body.clone()),
            RedirTarget::Word(w) if r.op == RedirOp::HereString => w.literal().map(|t| t.into_owned() + "\n"),
            _ => None,
        }),
        _ => None,
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// `printf FORMAT VALUES…` for `%s`, `%b`, `%d` and `%%` (the format reused while values remain).
fn printf(format: &str, values: &[String]) -> String {
    let format = unescape(format);
    let mut out = String::new();
    let mut vals = values.iter();
    loop {
        let mut used = false;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('%') => out.push('%'),
                Some('s' | 'd' | 'i') => {
                    used = true;
                    out.push_str(vals.next().map_or("", String::as_str));
                }
                Some('b') => {
                    used = true;
                    out.push_str(&unescape(vals.next().map_or("", String::as_str)));
                }
                Some(o) => {
                    out.push('%');
                    out.push(o);
                }
                None => out.push('%'),
            }
        }
        if !used || vals.len() == 0 {
            return out;
        }
    }
}

/// A word written back into a command line: its literal text quoted, or a variable the floor
/// cannot know (so a removal of it is unprovable) when its value is only known at run time.
pub(super) fn shell_quote_word(w: &Word) -> String {
    match w.literal() {
        Some(t) => shell_quote(&t),
        None => format!("\"${PARALLEL_ITEM}\""),
    }
}

/// `w` with `placeholder` in its literal text replaced by `value`'s pieces.
pub(super) fn substitute(w: &Word, placeholder: &str, value: &Word) -> Word {
    let mut out = Word::default();
    for p in &w.pieces {
        match p {
            Piece::Lit(s) | Piece::Quoted(s) if s.contains(placeholder) => {
                let mut parts = s.split(placeholder).peekable();
                while let Some(part) = parts.next() {
                    if !part.is_empty() {
                        out.pieces.push(Piece::Quoted(part.to_string()));
                    }
                    if parts.peek().is_some() {
                        out.pieces.extend(value.pieces.iter().cloned());
                    }
                }
            }
            other => out.pieces.push(other.clone()),
        }
    }
    out
}

/// The operator command (`pause`, `mode focus`, …) a program's text names with `tlc`, if any:
/// `tlc` as a word (or a string) followed, at most a few tokens on, by a mutating subcommand.
pub(super) fn names_operator_command(text: &str) -> Option<String> {
    let tokens: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .filter(|t| !t.is_empty())
        .collect();
    for (k, t) in tokens.iter().enumerate() {
        if *t != "tlc" {
            continue;
        }
        let rest: Vec<String> = tokens[k + 1..]
            .iter()
            .take(4)
            .filter(|t| !t.starts_with('-') && **t != "harness")
            .map(|t| t.to_string())
            .collect();
        // A flag may come after a lesson's text of any length: every later flag-like token counts.
        let flags: Vec<&str> = tokens[k + 1..].iter().copied().filter(|t| t.starts_with('-')).collect();
        if let Some(sub) = super::mutating_subcommand(&rest, &flags) {
            return Some(sub);
        }
    }
    None
}

/// Programs whose output is meant to be `eval`ed into the shell that runs them (`eval
/// "$(ssh-agent -s)"`, `eval "$(pyenv init -)"`): environment setup, not a command an agent chose.
const SHELL_SETUP_PRINTERS: &[&str] = &[
    "ssh-agent",
    "gpg-agent",
    "keychain",
    "pyenv",
    "rbenv",
    "nodenv",
    "jenv",
    "goenv",
    "direnv",
    "brew",
    "conda",
    "mamba",
    "micromamba",
    "starship",
    "zoxide",
    "fnm",
    "mise",
    "rtx",
    "dircolors",
    "opam",
    "luarocks",
];

/// Whether a substitution only runs [`SHELL_SETUP_PRINTERS`].
fn prints_shell_setup(s: &Script) -> bool {
    !s.commands.is_empty()
        && s.commands
            .iter()
            .all(|c| invocation(c).program.as_deref().is_some_and(|p| SHELL_SETUP_PRINTERS.contains(&p)))
}
