//! `tlc update [--check] [--source DIR] [--json]`: what an update of the checkout this binary was
//! built from would bring, and the update itself — fast-forward, rebuild, re-wire the providers
//! that were wired, announce the decisions that landed, then `doctor`.

use super::Ctx;
use crate::obs::EventStore;
use crate::render;
use crate::revision::short;
use crate::store::{self, DbKind};
use crate::update::{self, Checkout, Note, Pending};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, clap::Args)]
pub(crate) struct UpdateArgs {
    /// Only fetch and list what an update would bring: commits and decision notes. Never merges.
    #[arg(long)]
    pub check: bool,
    /// The checkout to update (default: the one this binary was built from, which `tlc version`
    /// names).
    #[arg(long, value_name = "DIR")]
    pub source: Option<PathBuf>,
    /// Print JSON (with --check: what would land; else: what landed).
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn run(ctx: &Ctx, args: UpdateArgs) -> anyhow::Result<()> {
    let dir = args.source.clone().unwrap_or_else(|| PathBuf::from(crate::revision::SOURCE_DIR));
    let checkout = update::locate(&dir)?;
    let pending = update::fetch_pending(&checkout)?;
    if args.check {
        return if args.json {
            render::json(&pending)
        } else {
            render::out_escaped(&describe(&pending))
        };
    }
    if pending.commits.is_empty() && pending.local_commits == 0 {
        let seen = announce(ctx, &checkout, &pending.head)?;
        return finish(args.json, &pending, &[], &seen, None, "already up to date: nothing landed\n");
    }
    update::fast_forward(&checkout, &pending)?;
    render::note(&format!(
        "{}: fast-forwarded to {} ({} commit(s)); building…",
        checkout.dir.display(),
        short(&pending.upstream_head),
        pending.commits.len()
    ))?;
    let binary = update::build(&checkout)?;
    let rewired = rewire(&binary)?;
    let seen = announce(ctx, &checkout, &pending.upstream_head)?;
    let mut text = describe_landed(&pending, &seen);
    text.push_str(&match rewired.is_empty() {
        true => "re-wired: no provider was wired\n".to_string(),
        false => format!("re-wired with {}: {}\n", binary.display(), rewired.join(", ")),
    });
    finish(args.json, &pending, &rewired, &seen, Some(&binary), &text)?;
    doctor(&binary)
}

/// `--check`'s listing.
fn describe(p: &Pending) -> String {
    let mut s = format!(
        "{} follows {} (at {}; this checkout at {})\n",
        p.dir,
        p.upstream,
        short(&p.upstream_head),
        short(&p.head)
    );
    if p.commits.is_empty() {
        s.push_str("nothing to update: the upstream holds no commit this checkout lacks\n");
    } else {
        s.push_str(&format!("{} commit(s) would land:\n", p.commits.len()));
        for c in &p.commits {
            s.push_str(&format!("  {} {} {}\n", short(&c.hash), c.date, c.subject));
        }
        push_notes(&mut s, &p.notes, "decision notes that would land");
    }
    if p.local_commits > 0 {
        s.push_str(&format!(
            "this checkout has {} commit(s) {} does not: `tlc update` would refuse to fast-forward\n",
            p.local_commits, p.upstream
        ));
    }
    s
}

fn push_notes(s: &mut String, notes: &[Note], heading: &str) {
    if notes.is_empty() {
        return;
    }
    s.push_str(&format!("{heading}:\n"));
    for n in notes {
        s.push_str(&format!("  {} ({})\n", n.title, n.path));
        if let Some(m) = &n.migration {
            s.push_str(&format!("    migration: {m}\n"));
        }
    }
}

/// What the update announces: the decisions this project has not been told of. A project that
/// updates for the first time (`first_time`) records where it stands and announces nothing.
#[derive(Debug, Default, serde::Serialize)]
struct Seen {
    first_time: bool,
    announced: Vec<Note>,
}

fn describe_landed(p: &Pending, seen: &Seen) -> String {
    let mut s = format!(
        "landed: {} commit(s), {} → {}\n",
        p.commits.len(),
        short(&p.head),
        short(&p.upstream_head)
    );
    if seen.first_time {
        s.push_str("this project updates for the first time: its place is recorded, nothing is announced\n");
    } else {
        push_notes(&mut s, &seen.announced, "decisions that landed");
    }
    s
}

/// The decision notes between the revision this project last saw and `now`, and `now` recorded as
/// seen. Outside a project (or with no project database yet), nothing is recorded or announced.
fn announce(ctx: &Ctx, c: &Checkout, now: &str) -> anyhow::Result<Seen> {
    let Ok(project) = ctx.project() else {
        return Ok(Seen::default());
    };
    if !project.db_path().is_file() {
        return Ok(Seen::default());
    }
    let store = store::open_write(DbKind::Project, &project.db_path())?;
    let es = EventStore::new(store.conn());
    let seen = match es.update_seen()? {
        None => Seen {
            first_time: true,
            announced: Vec::new(),
        },
        Some(before) if before == now => Seen::default(),
        Some(before) => Seen {
            first_time: false,
            // A revision the checkout no longer has (another clone) announces nothing rather than
            // failing the update.
            announced: update::notes_between(&c.dir, &before, now).unwrap_or_default(),
        },
    };
    es.set_update_seen(now)?;
    Ok(seen)
}

fn finish(json: bool, p: &Pending, rewired: &[String], seen: &Seen, binary: Option<&Path>, text: &str) -> anyhow::Result<()> {
    if json {
        render::json(&serde_json::json!({
            "dir": p.dir, "upstream": p.upstream, "from": p.head, "to": p.upstream_head,
            "commits": p.commits, "first_time": seen.first_time, "announced": seen.announced,
            "binary": binary.map(|b| b.display().to_string()), "rewired": rewired,
        }))
    } else {
        render::out_escaped(text)
    }
}

/// Runs the new binary's `install` for each provider whose settings hold tlc's entries now (other
/// tools' hooks stay as they are: install edits only its own entries).
fn rewire(binary: &Path) -> anyhow::Result<Vec<String>> {
    let wired: Vec<&str> = super::install::wired_providers().iter().map(|p| p.name()).collect();
    let mut done = Vec::new();
    for name in wired {
        let status = Command::new(binary).args(["install", &format!("--{name}")]).status()?;
        if !status.success() {
            return Err(crate::error::refused(format!(
                "{}: `install --{name}` failed ({status}); the hooks of {name} still run the old binary",
                binary.display()
            )));
        }
        done.push(name.to_string());
    }
    Ok(done)
}

/// The new binary's `doctor`, whose output is the update's last word.
fn doctor(binary: &Path) -> anyhow::Result<()> {
    let status = Command::new(binary).arg("doctor").status()?;
    if status.success() {
        Ok(())
    } else {
        Err(crate::error::silent_failure())
    }
}
