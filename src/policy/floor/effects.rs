//! What a command writes or removes, and how.

use super::*;

impl Floor<'_> {
    /// For an overwrite of `p`: the paths actually replaced (a file in `p` when it is a folder).
    pub(super) fn overwritten(&self, p: &Path, inv: &Invocation<'_>) -> Vec<PathBuf> {
        if !self.ctx.world.is_dir(p) || !matches!(inv.program.as_deref(), Some("cp" | "mv" | "install" | "ln" | "rsync")) {
            return vec![p.to_path_buf()];
        }
        let operands: Vec<&Word> = inv.args.iter().copied().filter(|w| !w.text().starts_with('-')).collect();
        let sources = &operands[..operands.len().saturating_sub(1)];
        sources
            .iter()
            .filter_map(|s| s.literal())
            .filter_map(|s| Path::new(s.trim_end_matches('/')).file_name().map(|n| p.join(n)))
            .collect()
    }

    /// `xargs rm` is provable when everything feeding it lists paths under roots the floor can
    /// check (`find` with literal roots, `git ls-files`).
    pub(super) fn stdin_paths_provable(&self, script: &Script, cmd: &Command) -> bool {
        !cmd.upstream.is_empty()
            && cmd.upstream.iter().all(|&u| {
                let Some(up) = script.commands.get(u) else { return false };
                let inv = invocation(up);
                match inv.program.as_deref() {
                    Some("find") => find_roots(&inv).iter().all(|r| match self.resolve(r) {
                        Target::Path(p) => self.forms(&p).iter().all(|f| {
                            (self.in_zone(&f.join("x")))
                                && !self.protected().iter().any(|r| under(r, f) && !same(r, f))
                                && (!self.ctx.surface().iter().any(|s| s.starts_with(f)) || !self.filter_may_match_surface(&inv))
                        }),
                        _ => false,
                    }),
                    Some("git") => {
                        let args = inv.arg_texts();
                        git_subcommand(args).is_some_and(|(s, _)| s == "ls-files")
                    }
                    Some("grep" | "sort" | "uniq" | "head" | "tail") => true,
                    _ => false,
                }
            })
            && cmd.upstream.iter().any(|&u| {
                script
                    .commands
                    .get(u)
                    .is_some_and(|c| matches!(invocation(c).program.as_deref(), Some("find" | "git")))
            })
    }

    /// The paths a command writes or removes, and how.
    pub(super) fn effects(&self, cmd: &Command, inv: &Invocation<'_>) -> Vec<(Word, Effect)> {
        let mut out: Vec<(Word, Effect)> = Vec::new();
        for r in &cmd.redirects {
            if let RedirTarget::Word(w) = &r.target {
                let effect = match r.op {
                    RedirOp::Write | RedirOp::WriteBoth | RedirOp::ReadWrite => Effect::Overwrite,
                    RedirOp::Append | RedirOp::AppendBoth => Effect::Preserve,
                    RedirOp::Dup => {
                        let t = w.text();
                        if t.is_empty() || t == "-" || t.bytes().all(|b| b.is_ascii_digit()) {
                            continue;
                        }
                        Effect::Overwrite
                    }
                    _ => continue,
                };
                out.push((w.clone(), effect));
            }
        }
        let Some(program) = inv.program.as_deref() else { return out };
        let args = &inv.args;
        // Most commands write nothing: no argument's text is built for them.
        const WRITERS: &[&str] = &[
            "rm", "rmdir", "unlink", "shred", "srm", "wipe", "trash", "mv", "cp", "install", "ln", "rsync", "tee", "truncate", "touch",
            "mkdir", "dd", "sed", "perl", "sort", "find", "git",
        ];
        if !WRITERS.contains(&program) {
            return out;
        }
        let texts = inv.arg_texts();
        let operands = |skip_values: &[&str]| -> Vec<Word> {
            let mut ops = Vec::new();
            let mut end = false;
            let mut k = 0;
            while k < args.len() {
                let t = &texts[k];
                if !end && t == "--" {
                    end = true;
                } else if !end && t.starts_with('-') && t.len() > 1 {
                    if skip_values.contains(&t.as_str()) {
                        k += 1;
                    }
                } else {
                    ops.push(args[k].clone());
                }
                k += 1;
            }
            ops
        };
        match program {
            "rm" | "rmdir" | "unlink" | "shred" | "srm" | "wipe" | "trash" => {
                out.extend(operands(&[]).into_iter().map(|w| (w, Effect::Remove)));
            }
            "mv" => {
                let ops = operands(&["-t", "--target-directory", "-S", "--suffix"]);
                if let Some(t) = target_dir(texts, args) {
                    out.push((t.clone(), Effect::Overwrite));
                    out.extend(ops.into_iter().map(|w| (w, Effect::Remove)));
                } else if let Some((last, rest)) = ops.split_last() {
                    out.push((last.clone(), Effect::Overwrite));
                    out.extend(rest.iter().map(|w| (w.clone(), Effect::Remove)));
                }
            }
            "cp" | "install" | "ln" => {
                let ops = operands(&[
                    "-t",
                    "--target-directory",
                    "-S",
                    "--suffix",
                    "-m",
                    "--mode",
                    "-o",
                    "--owner",
                    "-g",
                    "--group",
                ]);
                let ln_plain = program == "ln"
                    && !texts
                        .iter()
                        .any(|a| a == "--force" || (a.starts_with('-') && !a.starts_with("--") && a.contains('f')));
                let cp_no_clobber = program == "cp" && texts.iter().any(|a| a == "-n" || a == "--no-clobber");
                let effect = if ln_plain || cp_no_clobber {
                    Effect::Preserve
                } else {
                    Effect::Overwrite
                };
                if let Some(t) = target_dir(texts, args) {
                    out.push((t.clone(), effect));
                } else if ops.len() >= 2 || program == "install" {
                    if let Some(last) = ops.last() {
                        out.push((last.clone(), effect));
                    }
                }
            }
            "rsync" => {
                let ops = operands(&["-e", "--rsh", "--exclude", "--include", "--filter", "-f"]);
                let delete = texts.iter().any(|a| a.starts_with("--delete"));
                if let Some((last, rest)) = ops.split_last() {
                    out.push((last.clone(), if delete { Effect::RemoveUnder } else { Effect::Overwrite }));
                    if texts.iter().any(|a| a == "--remove-source-files") {
                        out.extend(rest.iter().map(|w| (w.clone(), Effect::Remove)));
                    }
                }
            }
            "tee" => {
                let append = texts.iter().any(|a| a == "-a" || a == "--append");
                out.extend(
                    operands(&[])
                        .into_iter()
                        .map(|w| (w, if append { Effect::Preserve } else { Effect::Overwrite })),
                );
            }
            "truncate" => out.extend(
                operands(&["-s", "--size", "-r", "--reference"])
                    .into_iter()
                    .map(|w| (w, Effect::Overwrite)),
            ),
            "touch" | "mkdir" => out.extend(
                operands(&["-m", "--mode", "-d", "--date", "-r", "--reference", "-t"])
                    .into_iter()
                    .map(|w| (w, Effect::Preserve)),
            ),
            "dd" => {
                for w in args.iter() {
                    if w.text().starts_with("of=") {
                        out.push((strip_word_prefix(w, "of=".len()), Effect::Overwrite));
                    }
                }
            }
            "sed" | "perl"
                if texts.iter().any(|a| {
                    a == "-i" || a.starts_with("-i") || a == "--in-place" || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
                }) =>
            {
                let ops = operands(&["-e", "--expression", "-f", "--file", "-l", "-s"]);
                let has_script_flag = texts
                    .iter()
                    .any(|a| a == "-e" || a == "-f" || a.starts_with("--expression") || a.starts_with("--file"));
                let files = if has_script_flag || program == "perl" {
                    &ops[..]
                } else {
                    ops.get(1..).unwrap_or(&[])
                };
                out.extend(files.iter().map(|w| (w.clone(), Effect::Overwrite)));
            }
            "sort" => {
                for (k, t) in texts.iter().enumerate() {
                    if t == "-o" || t == "--output" {
                        if let Some(w) = args.get(k + 1) {
                            out.push(((*w).clone(), Effect::Overwrite));
                        }
                    }
                }
            }
            "find" => {
                // `-delete` is find's own action only outside an `-exec … ;` (where it is an
                // argument of the command run).
                let mut in_exec = false;
                let mut deletes = false;
                let mut k = 0;
                while k < texts.len() {
                    match texts[k].as_str() {
                        "-exec" | "-execdir" | "-ok" | "-okdir" => in_exec = true,
                        ";" | "+" if in_exec => in_exec = false,
                        "-delete" if !in_exec => deletes = true,
                        t if !in_exec && FIND_VALUED.contains(&t) => k += 1,
                        _ => {}
                    }
                    k += 1;
                }
                let exec_destroys = texts.windows(2).any(|p| {
                    matches!(p[0].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                        && matches!(
                            p[1].rsplit('/').next().unwrap_or(&p[1]),
                            "rm" | "shred" | "srm" | "wipe" | "unlink" | "rmdir" | "mv" | "truncate" | "dd"
                        )
                });
                if deletes || exec_destroys {
                    let roots = find_roots(inv);
                    if roots.is_empty() {
                        out.push((dot(), Effect::RemoveUnder));
                    }
                    // `-delete` removes a starting point too when the expression selects it.
                    // (The project and the home are left to the rules on what is under them:
                    // `find . -delete` removes the policy surface.)
                    if deletes && find_may_match_root(texts) {
                        for w in &roots {
                            if !matches!(self.resolve(w), Target::Path(p) if self.protected().iter().any(|r| same(r, &p))) {
                                out.push(((*w).clone(), Effect::Remove));
                            }
                        }
                    }
                    out.extend(roots.into_iter().map(|w| (w.clone(), Effect::RemoveUnder)));
                }
            }
            "git" => {
                let (sub, rest) = git_subcommand(texts).unwrap_or(("", &[]));
                let dry_run = rest
                    .iter()
                    .any(|a| a == "--dry-run" || (a.starts_with('-') && !a.starts_with("--") && a.contains('n')));
                if sub == "clean"
                    && !dry_run
                    && rest
                        .iter()
                        .any(|a| a.starts_with('-') && !a.starts_with("--") && (a.contains('d') || a.contains('x') || a.contains('X')))
                {
                    let paths: Vec<&Word> = args
                        .iter()
                        .copied()
                        .filter(|w| {
                            let t = w.text();
                            !t.starts_with('-') && t != "clean"
                        })
                        .collect();
                    if paths.is_empty() {
                        out.push((dot(), Effect::RemoveUnder));
                    } else {
                        out.extend(paths.into_iter().map(|w| (w.clone(), Effect::RemoveUnder)));
                    }
                }
            }
            _ => {}
        }
        out
    }
}
