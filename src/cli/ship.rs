//! `tlc ship ledger [--session S] [--json]` and `tlc handoff [--session S] [--json]`: what the
//! stop checks recorded, read back. Read-only: opens the project database only if it exists.

use super::Ctx;
use crate::gate::ship::{LedgerRow, ShipLedger};
use crate::gate::turn::TurnStore;
use crate::render::{self, Table};
use crate::store::{self, DbKind};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ShipCommand {
    /// The ship ledger: every claim, challenge and pass, oldest first (read-only).
    Ledger {
        /// Only rows of this session.
        #[arg(long)]
        session: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, clap::Args)]
pub struct HandoffArgs {
    /// The session (default: the most recently active one).
    #[arg(long)]
    pub session: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Ctx, cmd: ShipCommand) -> anyhow::Result<()> {
    let ShipCommand::Ledger { session, json } = cmd;
    let project = ctx.project()?;
    let rows: Vec<LedgerRow> = match store::open_read(DbKind::Project, &project.db_path())? {
        Some(store) => ShipLedger::new(store.conn()).list(session.as_deref())?,
        None => Vec::new(),
    };
    if json {
        return render::json(&rows);
    }
    if rows.is_empty() {
        return render::out("no ship ledger rows recorded yet\n");
    }
    let mut t = Table::new(["ts", "provider", "session", "outcome", "claim", "detail", "files", "evidence dir"]);
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
    t.print(render::Format::Table)
}

/// The handoff of one session: its turn row and its latest stop outcomes.
pub fn handoff(ctx: &Ctx, args: HandoffArgs) -> anyhow::Result<()> {
    let project = ctx.project()?;
    let Some(store) = store::open_read(DbKind::Project, &project.db_path())? else {
        return if args.json {
            render::json(&serde_json::Value::Null)
        } else {
            render::out("no handoff recorded yet\n")
        };
    };
    let st = TurnStore::new(store.conn());
    let Some(turn) = st.latest(args.session.as_deref())? else {
        if let Some(s) = &args.session {
            return Err(crate::error::unusable(format!(
                "no turn recorded for session {s:?} in {}",
                store.path().display()
            )));
        }
        return if args.json {
            render::json(&serde_json::Value::Null)
        } else {
            render::out("no handoff recorded yet\n")
        };
    };
    let outcomes = st.outcomes(&turn.provider, &turn.session_id, 20)?;
    if args.json {
        let outcomes: Vec<serde_json::Value> = outcomes
            .iter()
            .map(|(ts, t, o)| serde_json::json!({"ts": ts, "turn": t, "outcome": o.outcome, "rule": o.rule, "attempt": o.attempt, "fingerprint": o.fingerprint, "detail": o.detail}))
            .collect();
        let mut v = serde_json::to_value(&turn)?;
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
    render::out(&text)?;
    if !outcomes.is_empty() {
        let mut t = Table::new(["ts", "turn", "attempt", "outcome", "rule", "detail"]);
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
        t.print(render::Format::Table)?;
    }
    Ok(())
}
