//! `tlc lessons add|list|show|promote|pin|unpin|forget|garden` (docs/lessons.md). `list` and
//! `show` only read; `promote`, `pin`, `unpin`, `forget`, `garden` and `add --global|--pin` are
//! the operator's (`cli::operator_only`). `add` may run inside an agent session: the lesson is then
//! the agent's (`origin = agent`, an id of its own), in this project only, and rewrites no lesson
//! the operator wrote, pinned or promoted.

use super::mutating::Mutation;
use super::Ctx;
use crate::lesson::{self, core, garden, refs, Effectiveness, Lesson, LessonStore, NewLesson, Origin, Tier};
use crate::render::{self, Cell, Table};
use crate::store::{self, DbKind};
use clap::Subcommand;
use std::collections::HashMap;
use std::path::Path;

#[derive(Debug, Subcommand)]
pub(crate) enum LessonsCommand {
    /// Record a lesson (active immediately, confidence 0.8; the id is a hash of the instruction).
    Add {
        /// The instruction, or `-` to read it from stdin (at most 2,000 characters are kept;
        /// secrets are redacted).
        text: String,
        /// The gate it is about (lint, test, ...).
        #[arg(long)]
        gate: Option<String>,
        /// Comma-separated tokens that make it relevant.
        #[arg(long)]
        tokens: Option<String>,
        /// What to avoid.
        #[arg(long)]
        avoid: Option<String>,
        /// What to prefer.
        #[arg(long)]
        prefer: Option<String>,
        /// What to check before retrying.
        #[arg(long)]
        check: Option<String>,
        /// path[:symbol] inside the repository the lesson is about (repeatable): while one is
        /// missing, the lesson is stale and withheld.
        #[arg(long = "ref")]
        refs: Vec<String>,
        /// An end date (RFC 3339 or YYYY-MM-DD), in the future.
        #[arg(long)]
        until: Option<String>,
        /// Store it in the home database (every repository) instead of this project's.
        #[arg(long)]
        global: bool,
        /// Pin it: never pruned, never quarantined, ranked first.
        #[arg(long)]
        pin: bool,
    },
    /// List core, global and project lessons with their refs' states and effectiveness (read-only).
    List {
        /// Only this tier: core, global or project.
        #[arg(long, value_parser = ["core", "global", "project"])]
        tier: Option<String>,
        /// Only this status: candidate, active or quarantine.
        #[arg(long, value_parser = ["candidate", "active", "quarantine"])]
        status: Option<String>,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
    /// Show one lesson (read-only).
    Show {
        /// The lesson's id (`tlc lessons list` shows them).
        id: String,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
    /// Move a project lesson to the global tier (every repository); the project no longer holds it.
    Promote {
        /// The id of a project lesson.
        id: String,
    },
    /// Pin a lesson: never pruned, never quarantined, ranked first.
    Pin {
        /// The id of a project or global lesson.
        id: String,
    },
    /// Unpin a lesson.
    Unpin {
        /// The id of a project or global lesson.
        id: String,
    },
    /// Delete a project or global lesson.
    Forget {
        /// The id of a project or global lesson.
        id: String,
    },
    /// Run the garden over the project and global lessons and print its transitions.
    Garden {
        /// Print the transitions the garden would make, and write nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
}

/// `text` trimmed, redacted and cut to [`lesson::TEXT_CAP`] characters; `what` names it in the note.
fn clean(what: &str, text: &str) -> String {
    let redactor = crate::obs::redact::Redactor::new("lessons");
    let text = text.trim();
    let text = redactor.redact_str(text).unwrap_or_else(|| text.to_string());
    let n = text.chars().count();
    if n > lesson::TEXT_CAP {
        eprintln!("tlc: note: {what} has {n} characters; the first {} are kept", lesson::TEXT_CAP);
    }
    lesson::cap_chars(&text, lesson::TEXT_CAP)
}

/// The most of stdin `lessons add -` reads.
const STDIN_CAP: u64 = 4 * 1024 * 1024;

fn read_stdin() -> anyhow::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin().take(STDIN_CAP + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > STDIN_CAP {
        return Err(crate::error::unusable(format!(
            "the lesson's text on stdin is over {} MiB; a lesson keeps 2,000 characters",
            STDIN_CAP / (1024 * 1024)
        )));
    }
    String::from_utf8(bytes).map_err(|e| crate::error::unusable(format!("the lesson's text on stdin is not UTF-8: {e}")))
}

fn refuse_core(id: &str) -> anyhow::Result<()> {
    if core::is_core(id) {
        return Err(crate::error::unusable(format!(
            "lesson {id:?} is a core lesson: compiled in and read-only"
        )));
    }
    Ok(())
}

fn unknown(id: &str) -> anyhow::Error {
    crate::error::unusable(format!(
        "no project or global lesson has the id {id:?} (`tlc lessons list` shows them)"
    ))
}

pub(crate) fn run(ctx: &Ctx, cmd: LessonsCommand) -> anyhow::Result<()> {
    match cmd {
        LessonsCommand::Add {
            text,
            gate,
            tokens,
            avoid,
            prefer,
            check,
            refs: given_refs,
            until,
            global,
            pin,
        } => {
            let text = if text == "-" { read_stdin()? } else { text };
            if text.trim().is_empty() {
                return Err(crate::error::unusable("the lesson's text is empty"));
            }
            if let Some(u) = &until {
                let t = crate::clock::parse(u).map_err(|e| crate::error::unusable(format!("--until: {e}")))?;
                if t <= crate::clock::now() {
                    return Err(crate::error::unusable(format!(
                        "--until {u:?} is in the past: the lesson would never be said"
                    )));
                }
            }
            let project = ctx.project()?;
            for r in &given_refs {
                refs::check_new(project.root(), r).map_err(crate::error::unusable)?;
            }
            // Who writes it, decided as the operator check decides it: a marker cleared from the
            // command's own environment (`env -u CLAUDECODE tlc lessons add …`) still leaves the
            // agent among its ancestors.
            let agent = super::mutating::started_by_agent("`tlc lessons add`");
            if let (Some(why), true) = (&agent, global || pin) {
                // `cli::operator_only` refused this already; kept here so that no route to this
                // code lets an agent's lesson reach every repository or outrank the rest.
                return Err(crate::error::refused(format!("--global and --pin are the operator's: {why}")));
            }
            let (origin, category) = match agent {
                Some(_) => (Origin::Agent, "agent-session"),
                None => (Origin::Operator, "manual"),
            };
            let opt = |what: &str, v: Option<String>| v.filter(|v| !v.trim().is_empty()).map(|v| clean(what, &v));
            let lesson = NewLesson {
                instruction: clean("the lesson's text", &text),
                gate,
                tokens: tokens.as_deref().map(lesson::parse_tokens).unwrap_or_default(),
                avoid: opt("--avoid", avoid),
                prefer: opt("--prefer", prefer),
                check: opt("--check", check),
                refs: given_refs,
                until,
                pinned: pin,
                category: category.into(),
                origin,
            };
            let id = lesson::id_for(&lesson.instruction, origin);
            if origin == Origin::Agent {
                // A global lesson of this id is one the operator promoted (or an agent wrote there
                // before that was the operator's): a project lesson of the same id would shadow it
                // (the nearer tier wins), so the agent may not write one.
                if let Some(home) = store::open_read(DbKind::Home, &ctx.paths()?.home_db())? {
                    if LessonStore::new(home.conn(), DbKind::Home).get(&id)?.is_some() {
                        return Err(crate::error::refused(format!(
                            "lesson {id} is in the global tier: an agent session may not rewrite or shadow it; the operator changes it (`tlc lessons forget {id}` from their own terminal)"
                        )));
                    }
                }
            }
            let now = crate::clock::now_stamp();
            let written = if global {
                let store = store::open_write(DbKind::Home, &ctx.paths()?.home_db())?;
                LessonStore::new(store.conn(), DbKind::Home).add(&lesson, &now)?
            } else {
                let m = Mutation::begin(ctx, "lessons add")?;
                let written = LessonStore::new(m.store.conn(), DbKind::Project).add(&lesson, &now)?;
                m.finish()?;
                written
            };
            let Some(id) = written else {
                return Err(crate::error::refused(format!(
                    "lesson {id} was pinned by the operator: an agent session may not rewrite it; the operator changes it (`tlc lessons unpin {id}` from their own terminal)"
                )));
            };
            render::out(&format!("{id}\n"))
        }
        LessonsCommand::List { tier, status, output } => {
            let output = output.output()?;
            let all = read_all(ctx)?;
            let rows: Vec<&Listed> = all
                .iter()
                .filter(|l| tier.as_deref().is_none_or(|t| l.tier.as_str() == t))
                .filter(|l| status.as_deref().is_none_or(|s| l.lesson.status == s))
                .collect();
            if output.format == render::Format::Json {
                return render::json(&rows.iter().map(|l| l.to_json()).collect::<Vec<_>>());
            }
            if rows.is_empty() && output.format == render::Format::Table {
                return render::out("no lessons match\n");
            }
            let mut t = Table::new([
                "id",
                "tier",
                "status",
                "gate",
                "origin",
                "instruction",
                "refs",
                "valid",
                "verdict",
                "pinned",
            ])
            .roles([
                render::Role::Key,
                render::Role::Key,
                render::Role::Key,
                render::Role::Key,
                render::Role::Key,
                render::Role::Text,
                render::Role::Text,
                render::Role::Key,
                render::Role::Key,
                render::Role::Key,
            ])
            .droppable(&["refs", "pinned", "valid"]);
            for l in rows {
                t.push(vec![
                    l.lesson.id.clone().into(),
                    l.tier.as_str().into(),
                    Cell::Text(if l.stale() {
                        format!("{} (stale)", l.lesson.status)
                    } else {
                        l.lesson.status.clone()
                    }),
                    l.lesson.gate.clone().into(),
                    l.lesson.origin.clone().into(),
                    l.lesson.instruction.clone().into(),
                    Cell::Text(
                        l.refs
                            .iter()
                            .map(|(r, s)| format!("{r} {}", s.as_str()))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                    l.validity.into(),
                    l.effect.verdict.clone().into(),
                    (if l.lesson.pinned { "yes" } else { "" }).into(),
                ]);
            }
            t.print(output)
        }
        LessonsCommand::Show { id, output } => {
            let output = output.output()?;
            let all = read_all(ctx)?;
            let Some(l) = all.iter().find(|l| l.lesson.id == id) else {
                return Err(unknown(&id));
            };
            let v = l.to_json();
            if output.format == render::Format::Json {
                return render::json(&v);
            }
            Table::record(&v).print(output)
        }
        LessonsCommand::Promote { id } => {
            refuse_core(&id)?;
            let project = ctx.project()?;
            let now = crate::clock::now_stamp();
            let project_lesson = match store::open_read(DbKind::Project, &project.db_path())? {
                Some(pstore) => LessonStore::new(pstore.conn(), DbKind::Project).get(&id)?,
                None => None,
            };
            let Some(mut l) = project_lesson else {
                // A global lesson an agent wrote, never promoted, is given to no repository until
                // the operator promotes it where it is.
                let home_db = ctx.paths()?.home_db();
                if let Some(read) = store::open_read(DbKind::Home, &home_db)? {
                    let unendorsed = LessonStore::new(read.conn(), DbKind::Home)
                        .get(&id)?
                        .is_some_and(|l| l.by_agent() && l.promoted_at.is_none());
                    drop(read);
                    if unendorsed {
                        let home = store::open_write(DbKind::Home, &home_db)?;
                        LessonStore::new(home.conn(), DbKind::Home).set_promoted(&id, &now)?;
                        return render::out(&format!("{id}\n"));
                    }
                }
                return Err(crate::error::unusable(format!(
                    "no project lesson has the id {id:?}: only a project lesson (or a global one an agent wrote and no operator promoted) is promoted"
                )));
            };
            l.promoted_at = Some(now);
            let home = store::open_write(DbKind::Home, &ctx.paths()?.home_db())?;
            LessonStore::new(home.conn(), DbKind::Home).insert_whole(&l)?;
            let pstore = store::open_write(DbKind::Project, &project.db_path())?;
            LessonStore::new(pstore.conn(), DbKind::Project).delete(&id)?;
            render::out(&format!("{id}\n"))
        }
        LessonsCommand::Pin { id } => set_pinned(ctx, &id, true),
        LessonsCommand::Unpin { id } => set_pinned(ctx, &id, false),
        LessonsCommand::Forget { id } => {
            refuse_core(&id)?;
            for (kind, path) in tier_paths(ctx)? {
                if store::open_read(kind, &path)?.is_none() {
                    continue;
                }
                let s = store::open_write(kind, &path)?;
                if LessonStore::new(s.conn(), kind).delete(&id)? {
                    return render::out(&format!("{id}\n"));
                }
            }
            Err(unknown(&id))
        }
        LessonsCommand::Garden { dry_run, output } => {
            let output = output.output()?;
            let rules = garden::Rules::from(&ctx.config()?.settings);
            let now = crate::clock::now();
            let at = crate::clock::stamp(now);
            let mut all: Vec<(Tier, garden::Transition)> = Vec::new();
            for (kind, path) in tier_paths(ctx)? {
                let tier = if kind == DbKind::Project { Tier::Project } else { Tier::Global };
                let Some(read) = store::open_read(kind, &path)? else { continue };
                let plan = garden::plan(&LessonStore::new(read.conn(), kind).list()?, now, &rules);
                drop(read);
                if !dry_run && !plan.is_empty() {
                    let mut s = store::open_write(kind, &path)?;
                    let tx = s.conn_mut().transaction()?;
                    let st = LessonStore::new(&tx, kind);
                    for t in &plan {
                        st.apply(t, &at)?;
                    }
                    tx.commit()?;
                }
                all.extend(plan.into_iter().map(|t| (tier, t)));
            }
            if output.format == render::Format::Json {
                let v: Vec<serde_json::Value> = all
                    .iter()
                    .map(|(tier, t)| {
                        let mut v = serde_json::to_value(t).unwrap_or_default();
                        if let Some(o) = v.as_object_mut() {
                            o.insert("tier".into(), tier.as_str().into());
                        }
                        v
                    })
                    .collect();
                return render::json(&v);
            }
            if all.is_empty() && output.format == render::Format::Table {
                return render::out("the garden has nothing to change\n");
            }
            let mut t = Table::new(["tier", "id", "from", "to", "reason"]).roles([
                render::Role::Key,
                render::Role::Key,
                render::Role::Key,
                render::Role::Key,
                render::Role::Text,
            ]);
            for (tier, tr) in all {
                t.push(vec![
                    tier.as_str().into(),
                    tr.id.into(),
                    tr.from.into(),
                    tr.to.as_str().into(),
                    tr.reason.into(),
                ]);
            }
            t.print(output)
        }
    }
}

fn set_pinned(ctx: &Ctx, id: &str, pinned: bool) -> anyhow::Result<()> {
    refuse_core(id)?;
    let now = crate::clock::now_stamp();
    for (kind, path) in tier_paths(ctx)? {
        if store::open_read(kind, &path)?.is_none() {
            continue;
        }
        let s = store::open_write(kind, &path)?;
        if LessonStore::new(s.conn(), kind).set_pinned(id, pinned, &now)? {
            return render::out(&format!("{id}\n"));
        }
    }
    Err(unknown(id))
}

/// The project database, then the home one: the nearer tier first.
fn tier_paths(ctx: &Ctx) -> anyhow::Result<Vec<(DbKind, std::path::PathBuf)>> {
    Ok(vec![
        (DbKind::Project, ctx.project()?.db_path()),
        (DbKind::Home, ctx.paths()?.home_db()),
    ])
}

/// A lesson as `list` and `show` print it.
struct Listed {
    tier: Tier,
    lesson: Lesson,
    refs: Vec<(String, refs::RefState)>,
    validity: &'static str,
    effect: Effectiveness,
}

impl Listed {
    fn stale(&self) -> bool {
        self.refs.iter().any(|(_, s)| s.stale())
    }

    fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(&self.lesson).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("tier".into(), self.tier.as_str().into());
            o.insert(
                "ref_states".into(),
                self.refs
                    .iter()
                    .map(|(r, s)| serde_json::json!({"ref": r, "state": s.as_str()}))
                    .collect::<Vec<_>>()
                    .into(),
            );
            o.insert("stale".into(), self.stale().into());
            o.insert("validity".into(), self.validity.into());
            o.insert("effectiveness".into(), serde_json::to_value(&self.effect).unwrap_or_default());
        }
        v
    }
}

/// Every lesson of every tier (the nearer tier first), read-only: no database is created.
fn read_all(ctx: &Ctx) -> anyhow::Result<Vec<Listed>> {
    let project = ctx.project()?;
    let now = crate::clock::now();
    let mut effect: HashMap<String, Effectiveness> = HashMap::new();
    let mut out = Vec::new();
    let mut push = |tier: Tier, l: Lesson, root: &Path| {
        out.push((tier, refs::states(root, &l.refs), l));
    };
    if let Some(s) = store::open_read(DbKind::Project, &project.db_path())? {
        let st = LessonStore::new(s.conn(), DbKind::Project);
        effect = st.effectiveness()?;
        for l in st.list()? {
            push(Tier::Project, l, project.root());
        }
    }
    if let Some(s) = store::open_read(DbKind::Home, &ctx.paths()?.home_db())? {
        for l in LessonStore::new(s.conn(), DbKind::Home).list()? {
            push(Tier::Global, l, project.root());
        }
    }
    for l in core::lessons() {
        push(Tier::Core, l, project.root());
    }
    Ok(out
        .into_iter()
        .map(|(tier, refs, lesson)| {
            let expired = lesson
                .until
                .as_deref()
                .is_some_and(|u| crate::clock::parse(u).is_ok_and(|u| u < now));
            let early = lesson
                .valid_from
                .as_deref()
                .is_some_and(|v| crate::clock::parse(v).is_ok_and(|v| v > now));
            let validity = if expired {
                "expired"
            } else if early {
                "not-yet"
            } else {
                "valid"
            };
            let effect = effect.get(&lesson.id).cloned().unwrap_or(Effectiveness {
                injected: 0,
                graded: 0,
                helped: 0,
                neutral: 0,
                verdict: "not-injected".into(),
            });
            Listed {
                tier,
                lesson,
                refs,
                validity,
                effect,
            }
        })
        .collect())
}
