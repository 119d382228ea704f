//! `tlc stable add|update|remove|list|lint`: the trust ledger of agent packages.

use super::mutating::{rerecord_if_recorded, snapshot};
use super::Ctx;
use crate::agent::{self, stable};
use crate::error::refused;
use crate::render::{self, Cell, Progress, Table};
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum StableCommand {
    /// Trust a git remote: write [stable.<name>] into the machine tier and clone it.
    Add {
        /// The stable's name (`[stable.<name>]`).
        name: String,
        /// The git remote's URL.
        remote: String,
        /// Declared visibility (the default).
        #[arg(long, conflicts_with = "private")]
        public: bool,
        /// Declared visibility: the remote needs the operator's credentials.
        #[arg(long)]
        private: bool,
    },
    /// Fetch one stable, or every stable (the only command that fetches).
    Update {
        /// The stable to fetch (default: every stable).
        name: Option<String>,
    },
    /// Delete [stable.<name>] and its clone; list what is still installed from it.
    Remove {
        /// The stable's name.
        name: String,
    },
    /// Every stable: remote, visibility, last fetch, head (the full SHA in every form but table; read-only).
    List {
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
    /// Validate and scan every package of a stable checkout (default: the current directory).
    Lint {
        /// The checkout to lint (default: the current directory).
        path: Option<PathBuf>,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
}

pub(crate) fn run(ctx: &Ctx, cmd: StableCommand) -> anyhow::Result<()> {
    match cmd {
        StableCommand::Add {
            name,
            remote,
            public: _,
            private,
        } => {
            let before = snapshot(ctx)?;
            let paths = ctx.paths()?;
            let cfg = ctx.raw_config()?;
            let st = stable::add(paths, &cfg, &name, &remote, !private)?;
            render::out(&format!(
                "added stable {name} ({}) to {}\n  clone: {}\n  head: {}\n",
                if private { "private" } else { "public" },
                paths.machine_config().display(),
                stable::clone_dir(paths, &name).display(),
                st.head.as_deref().unwrap_or("(no default branch)")
            ))?;
            // The machine tier changed: live sessions' baselines follow it.
            rerecord_if_recorded(ctx, &before)
        }
        StableCommand::Update { name } => {
            let paths = ctx.paths()?;
            let cfg = ctx.raw_config()?;
            let mut progress = Progress::new("stable update", 0);
            let mut last = 0u64;
            let done = stable::update(paths, &cfg, name.as_deref(), &mut |done, total| {
                progress.set_total(total);
                progress.inc(done.saturating_sub(last));
                last = done;
            })?;
            progress.finish();
            let mut failed = false;
            for u in &done {
                match &u.error {
                    Some(e) => {
                        failed = true;
                        eprintln!("tlc: stable {}: {e}", u.name);
                    }
                    None => {
                        let moved = if u.before == u.head {
                            "unchanged".to_string()
                        } else {
                            format!("{} -> {}", short(u.before.as_deref()), short(u.head.as_deref()))
                        };
                        render::out(&format!(
                            "stable {}: fetched, head {} ({moved})\n",
                            u.name,
                            u.head.as_deref().unwrap_or("-")
                        ))?;
                    }
                }
            }
            if done.is_empty() {
                render::out("no stable is declared (add one with `tlc stable add <name> <remote>`)\n")?;
            }
            if failed {
                return Err(crate::error::silent_failure());
            }
            Ok(())
        }
        StableCommand::Remove { name } => {
            let before = snapshot(ctx)?;
            let paths = ctx.paths()?;
            let cfg = ctx.raw_config()?;
            let still = stable::remove(paths, &cfg, &name)?;
            let mut s = format!("removed [stable.{name}] from {} and its clone\n", paths.machine_config().display());
            if still.is_empty() {
                s.push_str("nothing is installed from it\n");
            } else {
                s.push_str("still installed from it (not uninstalled):\n");
                for l in still {
                    s.push_str(&format!("  {l}\n"));
                }
            }
            render::out(&s)?;
            rerecord_if_recorded(ctx, &before)
        }
        StableCommand::List { output } => {
            let output = output.output()?;
            let format = output.format;
            let rows = stable::list(ctx.paths()?, ctx.config()?)?;
            if format == render::Format::Json {
                return render::json(&rows);
            }
            if rows.is_empty() && format == render::Format::Table {
                return render::out("no stable is declared (add one with `tlc stable add <name> <remote>`)\n");
            }
            let mut t = Table::new(["stable", "remote", "visibility", "last fetch", "head"]);
            for r in rows {
                t.push(vec![
                    r.name.into(),
                    r.remote.into(),
                    r.visibility.into(),
                    r.last_fetch.into(),
                    Cell::from(r.head),
                ]);
            }
            t.print_with(output, &|i, c| {
                if i == 4 && format == render::Format::Table {
                    c.plain().chars().take(12).collect()
                } else {
                    c.plain()
                }
            })
        }
        StableCommand::Lint { path, output } => {
            let output = output.output()?;
            let json = output.format == render::Format::Json;
            let dir = match path {
                Some(p) => p,
                None => std::env::current_dir()?,
            };
            let report = agent::maintain::lint(&dir)?;
            let failed = report
                .iter()
                .any(|p| !p.errors.is_empty() || p.findings.iter().any(|f| f.severity == agent::scan::Severity::High));
            if json {
                render::json(
                    &serde_json::json!({ "scan_rules": agent::scan::RULES_VERSION, "notice": agent::scan::TRIPWIRE_NOTICE, "ok": !failed, "packages": report }),
                )?;
            } else if output.format != render::Format::Table {
                let mut t = Table::new(["package", "manifest", "errors", "findings"]);
                for p in &report {
                    t.push(vec![
                        p.package.clone().into(),
                        (if p.errors.is_empty() { "ok" } else { "refused" }).into(),
                        p.errors.join("; ").into(),
                        p.findings.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("; ").into(),
                    ]);
                }
                t.print(output)?;
            } else {
                let mut s = String::new();
                for p in &report {
                    s.push_str(&format!(
                        "{}: {}\n",
                        p.package,
                        if p.errors.is_empty() { "manifest ok" } else { "REFUSED" }
                    ));
                    for e in &p.errors {
                        s.push_str(&format!("  error: {e}\n"));
                    }
                    for f in &p.findings {
                        s.push_str(&format!("  {f}\n"));
                    }
                }
                s.push_str(&format!("{}\n", agent::scan::TRIPWIRE_NOTICE));
                render::out(&s)?;
            }
            if failed {
                return Err(refused(format!(
                    "{}: lint failed (a refused manifest or a high-severity finding)",
                    dir.display()
                )));
            }
            Ok(())
        }
    }
}

fn short(s: Option<&str>) -> String {
    s.map(|s| s[..12.min(s.len())].to_string()).unwrap_or_else(|| "-".into())
}
