//! The rules on one simple command: machine control, history rewrites, the policy surface,
//! secrets, destruction.

use super::*;
use std::borrow::Cow;

impl Floor<'_> {
    /// `machine-control`: the machine, not the project.
    pub(super) fn machine_control(&self, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        let program = inv.program.as_deref();
        let args = inv.arg_texts();
        let operands: Vec<&str> = args.iter().map(String::as_str).filter(|a| !a.starts_with('-')).collect();
        let deny = |what: String, note: &str| Some(Finding::new(Rule::MachineControl, what, note.to_string()));
        match program {
            Some(p @ ("shutdown" | "reboot" | "halt" | "poweroff" | "telinit" | "killall5")) => {
                return deny(format!("`{p}` controls the machine, not the project."), p);
            }
            Some("init") if operands.first().is_some_and(|o| matches!(*o, "0" | "1" | "6" | "s" | "S")) => {
                return deny("`init` with a runlevel controls the machine, not the project.".into(), "init");
            }
            Some(p @ ("systemctl" | "service" | "launchctl" | "rc-service")) => {
                let read_only = [
                    "status",
                    "show",
                    "list-units",
                    "list-unit-files",
                    "list-timers",
                    "is-active",
                    "is-enabled",
                    "is-failed",
                    "cat",
                    "help",
                    "list",
                    "print",
                    "--version",
                    "--help",
                ];
                let sub = if p == "service" {
                    operands.get(1).copied()
                } else {
                    operands.first().copied()
                };
                let reads = sub.is_some_and(|s| read_only.contains(&s)) || (p == "service" && args.iter().any(|a| a == "--status-all"));
                if !reads {
                    return deny(
                        format!("`{p} {}` changes the machine's services, not the project.", sub.unwrap_or("")),
                        p,
                    );
                }
            }
            Some("kill") => {
                let mut seen_signal_or_end = false;
                for a in args {
                    if a == "--" {
                        seen_signal_or_end = true;
                        continue;
                    }
                    let target_all = seen_signal_or_end && (a == "-1" || a == "1");
                    if target_all {
                        return deny(
                            format!("`kill … {a}` signals every process (or init), not the project's."),
                            "kill of every process",
                        );
                    }
                    if a.starts_with('-') {
                        seen_signal_or_end = true;
                    } else {
                        seen_signal_or_end = true;
                        if a == "1" {
                            return deny("`kill 1` signals init.".into(), "kill of init");
                        }
                    }
                }
            }
            Some("crontab") if args.iter().any(|a| a == "-r" || a == "-ri" || a == "-ir" || a == "-") || !operands.is_empty() => {
                return deny(
                    "`crontab` removing or replacing the schedule changes the machine, not the project.".into(),
                    "crontab",
                );
            }
            Some(p) if is_disk_tool(p) => {
                let targets: Vec<&Word> = inv.args.iter().copied().filter(|w| !w.text().starts_with('-')).collect();
                for w in &targets {
                    match self.resolve(w) {
                        Target::Path(path) if !path.starts_with("/dev/") => {}
                        Target::Path(path) => {
                            return deny(format!("`{p}` on {} writes a block device.", path.display()), p);
                        }
                        _ => return deny(format!("`{p}` on a target this gate cannot resolve may write a block device."), p),
                    }
                }
                if targets.is_empty() {
                    return deny(format!("`{p}` without a target controls the machine's disks."), p);
                }
            }
            _ => {}
        }
        for (_, effect, target) in self.judged_effects(cmd, inv).iter() {
            if *effect == Effect::Preserve {
                continue;
            }
            if let Target::Path(p) = target {
                if self.is_block_device(p) {
                    return deny(
                        format!("this writes {}, a block device: the machine's disk, not the project.", p.display()),
                        "write to a block device",
                    );
                }
            }
        }
        None
    }

    pub(super) fn is_block_device(&self, p: &Path) -> bool {
        let text = p.display().to_string();
        let Some(dev) = text.strip_prefix("/dev/") else { return false };
        if is_harmless_device(&text) || dev.starts_with("shm/") {
            return false;
        }
        if self.ctx.world.is_block_device(p) {
            return true;
        }
        let block = [
            "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "loop", "md", "dm-", "sr", "nbd", "zd",
        ];
        block.iter().any(|b| dev.starts_with(b)) || dev.starts_with("mapper/") || dev.starts_with("disk/")
    }

    /// `history-rewrite`: force pushes, remote branch deletion, filter-branch, a hard reset of
    /// pushed commits.
    pub(super) fn history_rewrite(&self, inv: &Invocation<'_>) -> Option<Finding> {
        if inv.program.as_deref() != Some("git") {
            return None;
        }
        let args = inv.arg_texts();
        let (sub, rest) = git_subcommand(args)?;
        let deny = |what: &str, note: &str| Some(Finding::new(Rule::HistoryRewrite, what.to_string(), note.to_string()));
        match sub {
            "push" => {
                // With a lease anywhere on the line git keeps it, `--force` or not.
                let leased = rest
                    .iter()
                    .any(|a| a.starts_with("--force-with-lease") || a.starts_with("--force-if-includes"));
                let forced = !leased
                    && (rest
                        .iter()
                        .any(|a| a == "--force" || a == "--mirror" || (a.starts_with('-') && !a.starts_with("--") && a.contains('f')))
                        || rest.iter().any(|a| a.starts_with('+') && a.len() > 1));
                if forced {
                    return deny(
                        "`git push --force` discards remote commits that are not in your history. Use --force-with-lease, which refuses when the remote moved.",
                        "force push",
                    );
                }
                let deletes = rest
                    .iter()
                    .any(|a| a == "--delete" || a == "--prune" || (a.starts_with('-') && !a.starts_with("--") && a.contains('d')))
                    || rest.iter().any(|a| a.starts_with(':') && a.len() > 1);
                if deletes {
                    return deny(
                        "this push deletes a remote branch, which removes history others may rely on.",
                        "remote branch deletion",
                    );
                }
            }
            "filter-branch" | "filter-repo" => {
                return deny(&format!("`git {sub}` rewrites the repository's history."), sub);
            }
            "reset" if rest.iter().any(|a| a == "--hard") => {
                let target = rest.iter().find(|a| !a.starts_with('-')).map(String::as_str);
                if let Some(t) = target {
                    if !resets_to_remote(t) && self.head_is_pushed(t) {
                        return deny(
                            &format!("`git reset --hard {t}` moves this branch off commits that are already pushed; the next push would have to rewrite the remote."),
                            "hard reset of pushed commits",
                        );
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// `policy-surface-write`: tlc's policy and state are the operator's.
    pub(super) fn policy_surface(&self, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        if let Some(sub) = self.tlc_mutation(inv) {
            return Some(surface_denial(
                format!("`tlc {sub}` changes tlc's policy or state, and policy is the operator's to change: run it from your own terminal, not from inside this session."),
                format!("tlc {sub}"),
            ));
        }
        for (_, effect, target) in self.judged_effects(cmd, inv).iter() {
            if let Target::Path(p) = target {
                for form in self.forms(p) {
                    let hit = self.on_surface(&form) || (*effect == Effect::Remove && self.holds_surface(&form));
                    if hit {
                        return Some(surface_denial(
                            format!("this command writes {}, which is tlc's policy or state.", p.display()),
                            format!("write to {}", p.display()),
                        ));
                    }
                }
            }
        }
        let program = inv.program.as_deref()?;
        let reader = SURFACE_READERS.contains(&program)
            || (program == "find"
                && !inv.args.iter().any(|w| {
                    matches!(
                        w.text().as_str(),
                        "-delete" | "-exec" | "-execdir" | "-ok" | "-okdir" | "-fprint" | "-fprintf" | "-fls"
                    )
                }))
            || (program == "git" && {
                let args = inv.arg_texts();
                git_subcommand(args).is_some_and(|(s, _)| GIT_READERS.contains(&s))
            })
            || program == "tlc";
        if reader {
            return None;
        }
        let interpreter = INTERPRETERS.contains(&program) || program.starts_with("python");
        for (w, t) in inv.args.iter().zip(inv.arg_texts()) {
            if interpreter && self.names_surface(t) {
                return Some(surface_denial(
                    format!("`{program}` is given a program that names tlc's policy or state; it is not a proven reader."),
                    format!("{program} naming the policy surface"),
                ));
            }
            if t.starts_with('-') {
                continue;
            }
            if let Target::Path(p) = self.resolve(w) {
                if self.forms_cheap(&p).iter().any(|f| self.on_surface(f)) {
                    return Some(surface_denial(
                        format!("`{program}` is not a proven reader, so this command cannot be shown to only read {}, which is tlc's policy or state. Reading is allowed with cat, head, grep, jq, ls or stat; `tlc status` and `tlc doctor` show the policy in effect.", p.display()),
                        format!("{program} on {}", p.display()),
                    ));
                }
            }
        }
        None
    }

    /// The wider reach of `policy-surface-write`, after the destruction rules had their say:
    /// removals under a folder that holds the surface, patterns that match it, paths built at
    /// run time that name it.
    pub(super) fn policy_surface_broad(&self, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        for (w, effect, target) in self.judged_effects(cmd, inv).iter() {
            match target {
                Target::Path(p) => {
                    if *effect == Effect::RemoveUnder {
                        for form in self.forms(p) {
                            let holds = self.ctx.surface().iter().any(|s| s.starts_with(&form));
                            if holds && self.filter_may_match_surface(inv) {
                                return Some(surface_denial(
                                    format!("this command removes files under {}, which holds tlc's policy or state, with no filter that keeps them out.", p.display()),
                                    format!("removal under {}", p.display()),
                                ));
                            }
                        }
                    }
                }
                Target::Pattern(_, pattern) => {
                    if matches!(effect, Effect::Remove | Effect::Overwrite | Effect::RemoveUnder) && self.pattern_hits_surface(pattern) {
                        return Some(surface_denial(
                            format!("the pattern {pattern} matches tlc's policy or state."),
                            format!("pattern {pattern} on the policy surface"),
                        ));
                    }
                }
                Target::Unknown => {
                    let t = w.text();
                    if self.names_surface(&t) {
                        return Some(surface_denial(
                            format!("this command builds a path into tlc's policy or state at run time ({t})."),
                            "runtime path into the policy surface".to_string(),
                        ));
                    }
                }
            }
        }
        None
    }

    pub(super) fn tlc_mutation(&self, inv: &Invocation<'_>) -> Option<String> {
        if inv.program.as_deref() != Some("tlc") {
            return None;
        }
        let args = inv.arg_texts();
        let words: Vec<String> = args.iter().filter(|a| !a.starts_with('-')).cloned().collect();
        let flags: Vec<&str> = args.iter().map(String::as_str).filter(|a| a.starts_with('-')).collect();
        let words: &[String] = if words.first().is_some_and(|w| w == "harness") {
            &words[1..]
        } else {
            &words
        };
        mutating_subcommand(words, &flags)
    }

    pub(super) fn filter_may_match_surface(&self, inv: &Invocation<'_>) -> bool {
        let args = inv.arg_texts();
        let mut filters = Vec::new();
        for (k, a) in args.iter().enumerate() {
            if matches!(a.as_str(), "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-regex") {
                if let Some(v) = args.get(k + 1) {
                    filters.push(v.clone());
                }
            }
        }
        if filters.is_empty() {
            return true;
        }
        let names = ["config.toml", "state", "rules", "tlc.db", "tlc.db-wal", "tlc.db-shm", "rule.md"];
        filters.iter().any(|f| {
            let f = f.rsplit('/').next().unwrap_or(f);
            names.iter().any(|n| shell_glob_match(f, n))
        })
    }

    pub(super) fn pattern_hits_surface(&self, pattern: &str) -> bool {
        let mut candidates: Vec<String> = Vec::new();
        for s in self.ctx.surface() {
            let mut p = s.clone();
            loop {
                candidates.push(p.display().to_string());
                if self.protected().iter().any(|r| same(r, &p)) || !p.pop() {
                    break;
                }
            }
        }
        candidates.iter().any(|c| shell_glob_match(pattern, c))
    }

    /// `secret-access`: credentials read into the transcript.
    pub(super) fn secrets(&self, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        let program = inv.program.as_deref().unwrap_or("");
        let args = inv.arg_texts();
        if NETWORK_CLIENTS.contains(&program) {
            if let Some(host) = METADATA_HOSTS.iter().find(|h| args.iter().any(|a| a.contains(*h))) {
                return Some(Finding::new(
                    Rule::SecretAccess,
                    format!("{host} is the instance metadata service, and `{program}` would copy the credentials it returns into the transcript."),
                    format!("read of {host}"),
                ));
            }
        }
        if let Some(what) = keychain_read(program, args) {
            return Some(Finding::new(
                Rule::SecretAccess,
                format!("`{what}` prints a stored credential into the transcript."),
                what,
            ));
        }
        // Each read word with its text (the arguments' texts are already built).
        let mut candidates: Vec<(&Word, Cow<'_, str>)> = Vec::new();
        if !NON_READING.contains(&program) {
            candidates.extend(inv.args.iter().zip(args).map(|(w, t)| (*w, Cow::Borrowed(t.as_str()))));
        }
        for r in &cmd.redirects {
            if matches!(r.op, RedirOp::Read | RedirOp::ReadWrite) {
                if let RedirTarget::Word(w) = &r.target {
                    candidates.push((w, Cow::Owned(w.text())));
                }
            }
        }
        for (w, t) in candidates {
            if t.starts_with('-') && !t.contains('=') {
                continue;
            }
            let target = match t.split_once('=') {
                Some((k, _)) if k.starts_with("--") || k == "if" => self.resolve(&strip_word_prefix(w, k.chars().count() + 1)),
                _ => self.resolve(w),
            };
            if let Target::Path(p) = target {
                // A symlink to a credential is followed for the programs that read the files they
                // are given; a build tool's arguments are checked as written.
                let forms = if reads_file_args(program) {
                    self.forms_cheap(&p)
                } else {
                    vec![p.clone()]
                };
                for form in forms {
                    if let Some(why) = self.is_secret(&form) {
                        let verb = if program.is_empty() { "this redirection" } else { program };
                        return Some(Finding::new(
                            Rule::SecretAccess,
                            format!("{why}; `{verb}` would read it into the transcript. Credentials do not belong in an agent's context."),
                            format!("read of {}", p.display()),
                        ));
                    }
                }
            }
        }
        None
    }

    /// `outside-project-destruction` and `unprovable-destruction`.
    pub(super) fn destruction(&self, script: &Script, _i: usize, cmd: &Command, inv: &Invocation<'_>) -> Option<Finding> {
        let program = inv.program.clone().unwrap_or_default();
        if inv.args_from_stdin && matches!(base_destructive(&program), Some(true)) {
            if let Some(found) = self.xargs_words(script, cmd, inv) {
                return found;
            }
            if !self.stdin_paths_provable(script, cmd) {
                // Literal text piped in (`echo a b | xargs rm`): each item is known, and judged.
                if let Some(found) = self.xargs_items(script, cmd, inv) {
                    return found;
                }
                return Some(Finding::new(
                    Rule::UnprovableDestruction,
                    format!("`xargs {program}` takes its targets from its input, which this gate cannot see, so their safety cannot be established. Run `{program}` with literal paths inside the project."),
                    format!("xargs {program}"),
                ));
            }
        }
        for (w, effect, target) in self.judged_effects(cmd, inv).iter() {
            let effect = *effect;
            let verb = if program.is_empty() {
                "this redirection".to_string()
            } else {
                format!("`{program}`")
            };
            // An append where credentials and login keys live (`>> ~/.ssh/authorized_keys`,
            // `tee -a`) grants access; `known_hosts` only records hosts.
            let appends = program == "tee" || cmd.redirects.iter().any(|r| matches!(&r.target, RedirTarget::Word(t) if t == w));
            if effect == Effect::Preserve && appends {
                if let Target::Path(p) = target {
                    let known_hosts = p.file_name().is_some_and(|n| n == "known_hosts");
                    if let Some(d) = self
                        .ctx
                        .secret_dirs
                        .iter()
                        .find(|d| !known_hosts && self.forms(p).iter().any(|f| under(f, d)))
                    {
                        return Some(Finding::new(
                            Rule::SecretAccess,
                            format!("{verb} adds to {}, under {}, where credentials and login keys live: what is added there grants access. Ask the operator to make this change.", p.display(), d.display()),
                            format!("{verb} adding to {}", p.display()),
                        ));
                    }
                }
            }
            if let Some(f) = self.destruction_target(target, &w.text(), &verb, effect, Some(inv)) {
                return Some(f);
            }
        }
        // Destruction as another user is never the project's: refused whatever the path.
        if let Some(as_other) = inv.via.iter().find(|v| matches!(**v, "sudo" | "doas" | "pkexec" | "runuser")) {
            if self.judged_effects(cmd, inv).iter().any(|(_, e, _)| *e != Effect::Preserve) {
                return Some(Finding::new(
                    Rule::UnprovableDestruction,
                    format!("`{as_other} {program}` would remove or overwrite files as another user, past the permissions this session has; that is never the project's work. Ask the operator to run it."),
                    format!("{as_other} {program}"),
                ));
            }
        }
        None
    }

    /// `echo a b | xargs rm -f`: the command with each literal input item in place (of the
    /// `-I` text, or after the arguments). `Some(verdict)` when the input is literal text.
    fn xargs_items(&self, script: &Script, cmd: &Command, inv: &Invocation<'_>) -> Option<Option<Finding>> {
        let text = self.literal_piped_text(script, cmd)?;
        let program = inv.program_word?;
        // `xargs -a FILE` reads its items from the file, not from the pipe.
        let from_file = cmd
            .words
            .iter()
            .take_while(|w| !std::ptr::eq(*w, program))
            .any(|w| w.text().starts_with("-a") || w.text().starts_with("--arg-file"));
        if from_file {
            return None;
        }
        let quoted = |t: &str| Word {
            pieces: vec![Piece::Quoted(t.to_string())],
        };
        let batches: Vec<Vec<Word>> = match inv.stdin_token {
            // `-I R`: one command per input line.
            Some(_) => text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(256)
                .map(|l| vec![quoted(l)])
                .collect(),
            // Otherwise every item after the arguments, in one command (as many as fit).
            None => vec![text.split_whitespace().take(256).map(quoted).collect()],
        };
        self.xargs_run(script, program, inv, batches)
    }

    /// `printf '%s\n' -rf ~ | xargs rm`: the items are the producer's own words (a `~`, a
    /// pattern, a variable kept as the shell will expand it), in one command after the
    /// arguments. `Some(verdict)` when the one producer is `echo`, or `printf` with a format of
    /// `%s` and separators only.
    fn xargs_words(&self, script: &Script, cmd: &Command, inv: &Invocation<'_>) -> Option<Option<Finding>> {
        if inv.stdin_token.is_some() {
            return None;
        }
        let [up] = cmd.upstream.as_slice() else { return None };
        let producer = script.commands.get(*up)?;
        let pinv = invocation(producer);
        let items: Vec<Word> = match pinv.program.as_deref() {
            Some("echo") => pinv
                .args
                .iter()
                .skip_while(|w| w.literal().is_some_and(|t| matches!(&*t, "-n" | "-e" | "-E" | "-ne" | "-en")))
                .map(|w| (*w).clone())
                .collect(),
            Some("printf") => {
                let format = pinv.args.first()?.literal()?;
                let separators = format.replace("%s", "");
                let only_separators = separators
                    .replace("\\n", "")
                    .replace("\\0", "")
                    .replace("\\t", "")
                    .trim()
                    .is_empty();
                if !format.contains("%s") || !only_separators {
                    return None;
                }
                pinv.args[1..].iter().map(|w| (*w).clone()).collect()
            }
            // `find X -name '*.o' | xargs rm` removes what `find X -name '*.o' -delete` would.
            Some("find") if program_is_remover(inv) && !pinv.arg_texts().iter().any(|a| a.starts_with("-exec") || a.starts_with("-ok")) => {
                let mut words: Vec<Word> = producer.words.clone();
                words.push(Word {
                    pieces: vec![Piece::Lit("-delete".into())],
                });
                let synthetic = Command {
                    words,
                    ..Command::default()
                };
                let inner = invocation(&synthetic);
                return Some(self.command(script, usize::MAX, &synthetic, &inner, 1));
            }
            _ => return None,
        };
        let program = inv.program_word?;
        // The producer's literal words may hold several items each (`echo "a b"`).
        let mut split = Vec::new();
        for w in items.into_iter().take(256) {
            match w.literal() {
                Some(t) => split.extend(t.split_whitespace().map(|i| Word {
                    pieces: vec![Piece::Quoted(i.to_string())],
                })),
                None => split.push(w),
            }
        }
        self.xargs_run(script, program, inv, vec![split])
    }

    /// xargs' command run once per batch of input items: each item in place of the `-I` text, or
    /// the batch after the arguments.
    fn xargs_run(&self, script: &Script, program: &Word, inv: &Invocation<'_>, batches: Vec<Vec<Word>>) -> Option<Option<Finding>> {
        for batch in batches {
            let value = match batch.as_slice() {
                [one] => one.clone(),
                _ => Word::default(),
            };
            let mut words = vec![program.clone()];
            let mut placed = false;
            for a in &inv.args {
                match inv.stdin_token.as_deref().filter(|t| !t.is_empty() && a.text().contains(*t)) {
                    Some(t) => {
                        placed = true;
                        words.push(super::exec::substitute(a, t, &value));
                    }
                    None => words.push((*a).clone()),
                }
            }
            if !placed {
                words.extend(batch);
            }
            let synthetic = Command {
                words,
                ..Command::default()
            };
            let inner = invocation(&synthetic);
            if let Some(f) = self.command(script, usize::MAX, &synthetic, &inner, 1) {
                return Some(Some(f));
            }
        }
        Some(None)
    }

    pub(super) fn destruction_target(
        &self,
        target: &Target,
        text: &str,
        verb: &str,
        effect: Effect,
        inv: Option<&Invocation<'_>>,
    ) -> Option<Finding> {
        if effect == Effect::Preserve {
            return None;
        }
        match target {
            Target::Unknown => {
                if matches!(effect, Effect::Remove | Effect::RemoveUnder) {
                    return Some(Finding::new(
                        Rule::UnprovableDestruction,
                        format!("{verb} removes `{text}`, whose value is only known when the command runs, so its safety cannot be established. Re-run it with a literal path inside the project."),
                        format!("unresolvable target of {verb}"),
                    ));
                }
            }
            Target::Pattern(dir, pattern) => {
                let rooted_inside = self
                    .forms(dir)
                    .iter()
                    .all(|f| self.in_zone(&f.join("x")) && !self.protected().iter().any(|r| under(r, f) && !same(r, f)));
                if !rooted_inside {
                    let (where_, _) = self.zone_name(dir);
                    return Some(Finding::new(
                        Rule::UnprovableDestruction,
                        format!("{verb} targets the pattern {pattern}, rooted {where_}, so what it matches cannot be established."),
                        format!("{verb} on a pattern outside the project"),
                    ));
                }
            }
            Target::Path(p) => {
                let targets = match (effect, inv) {
                    (Effect::Overwrite, Some(inv)) => self.overwritten(p, inv),
                    _ => vec![p.clone()],
                };
                for t in targets {
                    if effect == Effect::Overwrite && self.entry(&t).is_none() {
                        continue;
                    }
                    if t.starts_with("/dev/") {
                        continue;
                    }
                    for form in self.forms(&t) {
                        let protected = effect != Effect::RemoveUnder && self.protected().iter().any(|r| under(r, &form));
                        let inside = if effect == Effect::RemoveUnder {
                            self.in_zone(&form.join("x")) && !self.protected().iter().any(|r| under(r, &form) && !same(r, &form))
                        } else {
                            self.in_zone(&form)
                        };
                        if protected || !inside {
                            let action = if effect == Effect::Overwrite { "overwrites" } else { "removes" };
                            let place = if form != t {
                                format!("{} (which resolves to {})", t.display(), form.display())
                            } else {
                                t.display().to_string()
                            };
                            let temp_itself = self.ctx.temp.iter().chain(self.ctx.canonical.temp.iter()).any(|z| *z == form);
                            // Issue 52: the reason names what applies — the home even when it lives
                            // under a temp folder, the project itself, a folder holding one.
                            let (where_, note) = if temp_itself {
                                (
                                    "which is a temp folder itself (what is inside it may go, the folder may not)".to_string(),
                                    "a temp folder itself".to_string(),
                                )
                            } else if protected {
                                let what = self.protected_name(&form);
                                (format!("which is {what}"), what)
                            } else {
                                let (where_, note) = self.zone_name(&form);
                                let credentials = self
                                    .credential_folder(&form)
                                    .map_or(String::new(), |d| format!(" (under {}, where credentials live)", d.display()));
                                (format!("which is {where_}{credentials}"), note.to_string())
                            };
                            return Some(Finding::new(
                                Rule::OutsideProjectDestruction,
                                format!("{verb} {action} {place}, {where_}."),
                                format!("{verb}: {note}"),
                            ));
                        }
                    }
                }
            }
        }
        None
    }
}

/// Programs that read (or copy, or send) the content of the files named in their arguments.
pub(super) fn reads_file_args(program: &str) -> bool {
    use crate::policy::shell::classify::{Class, TABLE};
    program.is_empty()
        || INTERPRETERS.contains(&program)
        || program.starts_with("python")
        || matches!(
            program,
            "cp" | "mv"
                | "scp"
                | "rsync"
                | "tar"
                | "zip"
                | "gzip"
                | "curl"
                | "source"
                | "."
                | "install"
                | "tee"
                | "dd"
                | "openssl"
                | "ssh-add"
                | "gpg"
        )
        || TABLE.iter().any(|(p, c)| *p == program && *c == Class::Read)
}

/// `xargs rm`, `xargs shred -u`: the command xargs runs removes what it is given.
fn program_is_remover(inv: &Invocation<'_>) -> bool {
    matches!(inv.program.as_deref(), Some("rm" | "unlink" | "shred" | "srm" | "wipe"))
}

pub(super) fn base_destructive(program: &str) -> Option<bool> {
    Some(matches!(
        program,
        "rm" | "rmdir" | "unlink" | "shred" | "srm" | "wipe" | "mv" | "truncate"
    ))
}

pub(super) fn is_disk_tool(p: &str) -> bool {
    p == "mkfs"
        || p.starts_with("mkfs.")
        || p.starts_with("mke2fs")
        || matches!(
            p,
            "mkswap" | "wipefs" | "fdisk" | "sfdisk" | "cfdisk" | "parted" | "gdisk" | "sgdisk"
        )
}

pub(super) fn surface_denial(what: String, note: String) -> Finding {
    Finding::new(Rule::PolicySurfaceWrite, what, note)
}

pub(super) fn keychain_read(program: &str, args: &[String]) -> Option<String> {
    let first = args.iter().find(|a| !a.starts_with('-')).map(String::as_str);
    let hit = match program {
        "security" => {
            matches!(first, Some(s) if s.starts_with("find-") && s.ends_with("-password") || s == "dump-keychain" || s == "export")
        }
        "secret-tool" => matches!(first, Some("lookup" | "search")),
        "gh" => args.windows(2).any(|w| w[0] == "auth" && w[1] == "token"),
        "gcloud" => args.iter().any(|a| a == "print-access-token" || a == "print-identity-token"),
        "az" => args.iter().any(|a| a == "get-access-token"),
        "aws" => {
            args.iter().any(|a| a == "export-credentials")
                || (args.iter().any(|a| a == "configure") && args.iter().any(|a| a.contains("secret")))
        }
        "kubectl" => args.iter().any(|a| a == "--raw"),
        p if p.starts_with("docker-credential-") => first == Some("get"),
        _ => false,
    };
    hit.then(|| format!("{program} {}", args.iter().take(2).cloned().collect::<Vec<_>>().join(" ")))
}

/// Every string of `v` (at most 256, at most 8 levels deep), each with the object key it sits
/// under (an array's items under the array's key).
pub(super) fn collect_keyed<'v>(v: &'v Value, key: Option<&'v str>, out: &mut Vec<(Option<&'v str>, &'v str)>, depth: usize) {
    if depth > 8 || out.len() > 256 {
        return;
    }
    match v {
        Value::String(s) => out.push((key, s)),
        Value::Array(a) => a.iter().for_each(|x| collect_keyed(x, key, out, depth + 1)),
        Value::Object(m) => m.iter().for_each(|(k, x)| collect_keyed(x, Some(k), out, depth + 1)),
        _ => {}
    }
}
