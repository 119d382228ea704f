//! `tlc ship ledger [--session S] [--json]` and `tlc handoff [--session S] [--json]`: what the
//! stop checks recorded, read back. Read-only: opens the project database only if it exists.

use super::Ctx;
use crate::gate::ship::{LedgerRow, ShipLedger};
use crate::gate::turn::TurnStore;
use crate::render::{self, Role, Table};
use crate::store::{self, DbKind};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(crate) enum ShipCommand {
    /// The ship ledger: every claim, challenge and pass, oldest first (read-only).
    Ledger {
        /// Only rows of this session.
        #[arg(long)]
        session: Option<String>,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
}

#[derive(Debug, clap::Args)]
pub(crate) struct HandoffArgs {
    /// The session (default: the most recently active one).
    #[arg(long)]
    pub session: Option<String>,
    // JSON carries the turn and its outcomes; csv, jsonl and markdown the outcomes.
    #[command(flatten)]
    pub output: crate::cli::OutputArgs,
}

pub(crate) fn run(ctx: &Ctx, cmd: ShipCommand) -> anyhow::Result<()> {
    let ShipCommand::Ledger { session, output } = cmd;
    let output = output.output()?;
    let json = output.format == render::Format::Json;
    let project = ctx.project()?;
    let rows: Vec<LedgerRow> = match store::open_read(DbKind::Project, &project.db_path())? {
        Some(store) => {
            let session = super::whole_session_id(store.conn(), session.as_deref())?;
            ShipLedger::new(store.conn()).list(session.as_deref())?
        }
        None => Vec::new(),
    };
    if json {
        return render::json(&rows);
    }
    if rows.is_empty() && output.format == render::Format::Table {
        return render::out("no ship ledger rows recorded yet\n");
    }
    let mut t = Table::new(["ts", "provider", "session", "outcome", "claim", "detail", "files", "evidence dir"])
        .roles([
            Role::Date,
            Role::Key,
            Role::Id,
            Role::Key,
            Role::Text,
            Role::Text,
            Role::List,
            Role::Text,
        ])
        .droppable(&["provider", "evidence dir", "files"]);
    for r in rows {
        t.push(vec![
            r.ts.into(),
            r.provider.unwrap_or_default().into(),
            r.session.unwrap_or_default().into(),
            r.outcome.into(),
            r.summary.unwrap_or_default().into(),
            r.detail.unwrap_or_default().into(),
            r.files.join(", ").into(),
            r.evidence_dir.unwrap_or_default().into(),
        ]);
    }
    t.print(output)
}

/// The handoff of one session: its turn row and its latest stop outcomes.
pub(crate) fn handoff(ctx: &Ctx, args: HandoffArgs) -> anyhow::Result<()> {
    let output = args.output.output()?;
    let json = output.format == render::Format::Json;
    let outcome_headers = ["ts", "turn", "attempt", "outcome", "rule", "detail"];
    let project = ctx.project()?;
    // `intelligence.failureClassification` off: no category is shown, even one kept before.
    let classify = ctx.config()?.settings.intelligence.failure_classification;
    let Some(store) = store::open_read(DbKind::Project, &project.db_path())? else {
        return if json {
            render::json(&serde_json::Value::Null)
        } else if output.format != render::Format::Table {
            Table::new(outcome_headers).print(output)
        } else {
            render::out("no handoff recorded yet\n")
        };
    };
    let st = TurnStore::new(store.conn());
    let session = super::whole_session_id(store.conn(), args.session.as_deref())?;
    let Some(mut turn) = st.latest(session.as_deref())? else {
        if let Some(s) = &args.session {
            return Err(crate::error::unusable(format!(
                "no turn recorded for session {s:?} in {}",
                store.path().display()
            )));
        }
        return if json {
            render::json(&serde_json::Value::Null)
        } else if output.format != render::Format::Table {
            Table::new(outcome_headers).print(output)
        } else {
            render::out("no handoff recorded yet\n")
        };
    };
    let outcomes = st.outcomes(&turn.provider, &turn.session_id, 20)?;
    if !classify {
        turn.last_category = None;
    }
    if json {
        let outcomes: Vec<serde_json::Value> = outcomes
            .iter()
            .map(|(ts, t, o)| serde_json::json!({"ts": ts, "turn": t, "outcome": o.outcome, "rule": o.rule, "attempt": o.attempt, "fingerprint": o.fingerprint, "detail": o.detail}))
            .collect();
        let mut v = serde_json::to_value(&turn)?;
        if let (false, Some(o)) = (classify, v.as_object_mut()) {
            o.remove("last_category");
        }
        v["outcomes"] = serde_json::Value::Array(outcomes);
        return render::json(&v);
    }
    let mut text = format!(
        "session: {} {} (turn {}, updated {})\nbase: {} at {} (from {})\nattempt: {}\nlast result: {}{}\n",
        turn.provider,
        turn.session_id,
        turn.turn,
        turn.updated_at,
        turn.base_head.as_deref().unwrap_or("unknown"),
        turn.base_at,
        turn.base_source,
        turn.attempt,
        turn.last_result.as_deref().unwrap_or("none"),
        turn.last_rule.as_deref().map(|r| format!(" ({r})")).unwrap_or_default(),
    );
    if let Some(c) = &turn.last_category {
        text.push_str(&format!("failure category: {c}\n"));
    }
    if let Some(fp) = &turn.last_fingerprint {
        text.push_str(&format!("last fingerprint: {fp}\n"));
    }
    if turn.open_gaps.is_empty() {
        text.push_str("open gaps: none\n");
    } else {
        text.push_str("open gaps:\n");
        for (i, g) in turn.open_gaps.iter().enumerate() {
            text.push_str(&format!("  {}\n", g.line(i + 1)));
        }
    }
    if let Some(n) = &turn.next_action {
        text.push_str(&format!("next action: {n}\n"));
    }
    let table = output.format == render::Format::Table;
    if table {
        render::out(&text)?;
    }
    if !outcomes.is_empty() || !table {
        let mut t = Table::new(outcome_headers).roles([Role::Date, Role::Number, Role::Number, Role::Key, Role::Key, Role::Text]);
        for (ts, turn_no, o) in outcomes {
            t.push(vec![
                ts.into(),
                turn_no.map_or(String::new(), |n| n.to_string()).into(),
                o.attempt.to_string().into(),
                o.outcome.as_str().into(),
                o.rule.into(),
                o.detail.unwrap_or_default().into(),
            ]);
        }
        t.print(output)?;
    }
    Ok(())
}
