//! `tlc lessons add <text> [...]` and `tlc lessons list [--json]` (read-only).

use super::mutating::Mutation;
use super::Ctx;
use crate::lesson::{parse_tokens, LessonStore, NewLesson};
use crate::render::{self, Cell, Table};
use crate::store::{self, DbKind};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum LessonsCommand {
    /// Record a lesson (active immediately; the id is a hash of the instruction).
    Add {
        /// The instruction.
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
        /// path[:symbol] the lesson is about.
        #[arg(long = "ref")]
        reference: Option<String>,
        /// An end date (RFC 3339 or YYYY-MM-DD).
        #[arg(long)]
        until: Option<String>,
        /// Store it in the home database (every repository) instead of this project's.
        #[arg(long)]
        global: bool,
    },
    /// List project and global lessons (read-only).
    List {
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
}

pub fn run(ctx: &Ctx, cmd: LessonsCommand) -> anyhow::Result<()> {
    match cmd {
        LessonsCommand::Add {
            text,
            gate,
            tokens,
            avoid,
            reference,
            until,
            global,
        } => {
            if text.trim().is_empty() {
                return Err(crate::error::unusable("the lesson's text is empty"));
            }
            if let Some(u) = &until {
                crate::clock::parse(u).map_err(|e| crate::error::unusable(format!("--until: {e}")))?;
            }
            // Operator only (see `cli::operator_only`): never written from inside an agent session.
            let lesson = NewLesson {
                instruction: text,
                gate,
                tokens: tokens.as_deref().map(parse_tokens).unwrap_or_default(),
                avoid,
                reference,
                until,
                category: "manual".into(),
            };
            let (id, db) = if global {
                let store = store::open_write(DbKind::Home, &ctx.paths()?.home_db())?;
                let id = LessonStore::new(store.conn(), DbKind::Home).add(&lesson)?;
                (id, store.path().to_path_buf())
            } else {
                let m = Mutation::begin(ctx, "lessons add")?;
                let id = LessonStore::new(m.store.conn(), DbKind::Project).add(&lesson)?;
                m.finish()?;
                (id, m.store.path().to_path_buf())
            };
            render::out(&format!("lesson {id} recorded in {}\n", db.display()))
        }
        LessonsCommand::List { output } => {
            let output = output.output()?;
            let json = output.format == render::Format::Json;
            let project = ctx.project()?;
            let mut all = Vec::new();
            for (tier, kind, path) in [
                ("project", DbKind::Project, project.db_path()),
                ("global", DbKind::Home, ctx.paths()?.home_db()),
            ] {
                if let Some(store) = store::open_read(kind, &path)? {
                    for l in LessonStore::new(store.conn(), kind).list()? {
                        all.push((tier, l));
                    }
                }
            }
            if json {
                let v: Vec<serde_json::Value> = all
                    .iter()
                    .map(|(tier, l)| {
                        let mut v = serde_json::to_value(l).unwrap_or_default();
                        if let Some(o) = v.as_object_mut() {
                            o.insert("tier".into(), (*tier).into());
                        }
                        v
                    })
                    .collect();
                return render::json(&v);
            }
            if all.is_empty() && output.format == render::Format::Table {
                return render::out("no lessons recorded yet\n");
            }
            let mut t = Table::new(["id", "tier", "instruction", "gate", "tokens", "category", "status"])
                .roles([
                    render::Role::Number,
                    render::Role::Key,
                    render::Role::Text,
                    render::Role::Key,
                    render::Role::Text,
                    render::Role::Key,
                    render::Role::Key,
                ])
                .droppable(&["category", "tokens"]);
            for (tier, l) in all {
                t.push(vec![
                    l.id.into(),
                    (*tier).into(),
                    l.instruction.into(),
                    l.gate.into(),
                    Cell::Text(l.tokens.join(",")),
                    l.category.into(),
                    l.status.into(),
                ]);
            }
            t.print(output)
        }
    }
}
