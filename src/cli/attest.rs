//! `tlc attest [--session S] [--verify] [--json]`: the attestation chain of this project, one
//! record per session, and its verification (read-only).

use super::{Ctx, OutputArgs};
use crate::policy::attest::{self, AttestStore, Attestation};
use crate::render::{self, Cell, Table};
use crate::store::{self, DbKind};
use serde_json::{json, Value};

#[derive(Debug, clap::Args)]
pub(crate) struct AttestArgs {
    /// Show only the records of this session (its id, or the start of it).
    #[arg(long, value_name = "SESSION")]
    pub session: Option<String>,
    /// Check every link of the chain: exit 0 when it holds, 1 naming the first broken record.
    #[arg(long)]
    pub verify: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

const HEADERS: [&str; 9] = [
    "seq",
    "session",
    "closed_by",
    "ended",
    "refusals",
    "stops",
    "gate_runs",
    "policy_changes",
    "ok",
];

pub(crate) fn run(ctx: &Ctx, args: AttestArgs) -> anyhow::Result<()> {
    let output = args.output.output()?;
    let project = ctx.project()?;
    let chain = match store::open_read(DbKind::Project, &project.db_path())? {
        Some(store) => {
            let st = AttestStore::new(store.conn());
            (st.chain()?, st.sessions_not_yet_attested()?)
        }
        None => (Vec::new(), 0),
    };
    let (chain, open) = chain;
    let anchor = crate::hook::boundary::attest_anchor(&project)?;
    let verification = attest::against_anchor(attest::verify(&chain), &chain, anchor);
    if args.verify {
        return print_verification(&verification, output.format == render::Format::Json);
    }
    let shown: Vec<&Attestation> = chain
        .iter()
        .filter(|a| args.session.as_deref().is_none_or(|s| a.session_id.starts_with(s)))
        .collect();
    if let (Some(s), true) = (&args.session, shown.is_empty()) {
        return Err(crate::error::unusable(format!(
            "no attestation record for session {s:?} in {}",
            project.db_path().display()
        )));
    }
    // A record is ok when the chain holds up to it (every record from the first broken one on
    // cannot be trusted as linked).
    let ok = |a: &Attestation| verification.broken_at.is_none_or(|b| a.seq < b);
    if output.format == render::Format::Json {
        let rows: Vec<Value> = shown
            .iter()
            .map(|a| {
                json!({
                    "seq": a.seq, "provider": a.provider, "session_id": a.session_id,
                    "record": serde_json::from_str::<Value>(&a.record).unwrap_or(Value::String(a.record.clone())),
                    "prev_hash": a.prev_hash, "hash": a.hash, "ok": ok(a),
                })
            })
            .collect();
        return render::json(&rows);
    }
    let mut table = Table::new(HEADERS).droppable(&["policy_changes", "ended"]);
    for a in &shown {
        let r: Value = serde_json::from_str(&a.record).unwrap_or(Value::Null);
        let count = |key: &str| {
            r[key]
                .as_array()
                .map_or(0, |xs| xs.iter().map(|x| x["count"].as_i64().unwrap_or(1)).sum::<i64>())
        };
        table.push(vec![
            Cell::Int(a.seq),
            Cell::Text(a.session_id.clone()),
            Cell::from_json(&r["closed_by"]),
            Cell::from_json(&r["ended_at"]),
            Cell::Int(count("refusals")),
            Cell::Int(count("stops")),
            Cell::Int(count("gate_runs")),
            Cell::Int(r["policy_changes"].as_array().map_or(0, |xs| xs.len() as i64)),
            Cell::Bool(ok(a)),
        ]);
    }
    if output.format != render::Format::Table {
        return table.print(output);
    }
    if shown.is_empty() {
        render::note("no attestation records yet: a session appends one when it ends")?;
    } else {
        table.print(output)?;
    }
    let mut notes = vec![match verification.broken_at {
        None => format!(
            "chain of {} records verified (`tlc attest --session <id> --json` shows a record)",
            verification.records
        ),
        Some(b) => format!(
            "the chain is broken at record {b}: {}",
            verification.reason.as_deref().unwrap_or("its hash does not match")
        ),
    }];
    if open > 0 {
        notes.push(format!(
            "{open} session(s) not attested yet: a session's record is written at its end, or at a later session's start once it has been quiet {} minutes",
            attest::QUIET_BEFORE_ATTESTED.num_minutes()
        ));
    }
    render::note(&notes.join("\n"))
}

fn print_verification(v: &attest::Verification, json: bool) -> anyhow::Result<()> {
    if json {
        render::json(v)?;
    } else if v.ok {
        render::note(&format!("attestation chain verified: {} records, every link holds", v.records))?;
    } else {
        render::note(&format!(
            "attestation chain broken at record {}: {}",
            v.broken_at.unwrap_or_default(),
            v.reason.as_deref().unwrap_or_default()
        ))?;
    }
    if v.ok {
        Ok(())
    } else {
        Err(crate::error::silent_failure())
    }
}
