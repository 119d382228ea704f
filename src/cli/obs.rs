//! `tlc obs …`: reading the record back. Every report reads views; nothing here writes except
//! `prune` and `import`, and a report never creates a database, a folder or a file (`--out`
//! writes only the file it names).

use super::obs_data::ExportArgs;
use super::Ctx;
use crate::cli::OutputArgs;
use crate::obs::report::{EventLine, Reports, SessionReport};
use crate::render::{self, Cell, Format, Output, Role, Table};
use crate::store::{self, DbKind};
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum ObsCommand {
    /// One session's rollup (the most recent when none is named); --all-repos reads the spool.
    Report(ReportArgs),
    /// The last N events (default 20), filtered by kind, session and plane.
    Events(EventsArgs),
    /// The last N decisions the hooks made, each with its rule.
    Why(WhyArgs),
    /// Follow new signal events as they are written, until interrupted.
    Live(LiveArgs),
    /// Export any view as CSV or JSON, optionally within a time window.
    Export(ExportArgs),
    /// List the views of each database and their columns.
    Views {
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Drop records older than obs.retentionDays from the project database and the spool.
    Prune {
        /// Report what would be dropped and change nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Import records from elsewhere.
    #[command(subcommand)]
    Import(ImportCommand),
    /// Token usage and estimated cost by day, week, month, model, session or project (read-only).
    Cost(super::obs_cost::CostArgs),
    /// Send what was recorded since the last acknowledged send to an OpenTelemetry collector (OTLP/HTTP).
    Ship(super::obs_ship::ShipArgs),
    /// The home database's cross-repository spool.
    #[command(subcommand)]
    Spool(SpoolCommand),
}

#[derive(Debug, Subcommand)]
pub(crate) enum SpoolCommand {
    /// Send the home spool every record of this project it does not hold yet (idempotent).
    CatchUp {
        #[command(flatten)]
        output: OutputArgs,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ImportCommand {
    /// The TypeScript harness's JSONL state (observability, audit, ship-ledger and spool lines).
    Jsonl {
        /// The JSONL files to import (observability, audit, ship-ledger or spool lines).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Claude Code transcripts (`<dir>/<project>/<session>.jsonl`) into the home database; idempotent.
    Transcripts {
        /// The transcripts folder (default: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`).
        dir: Option<PathBuf>,
        /// Read every file again from the top: responses stored before tlc kept the 1-hour cache
        /// writes get them, and their cost is priced again with them.
        #[arg(long)]
        rescan: bool,
        #[command(flatten)]
        output: OutputArgs,
    },
}

#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// Session id (or a unique prefix); default: the most recent session.
    pub session: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Also write the report as markdown to FILE.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Report every repository from the home database's spool instead of this project.
    #[arg(long)]
    pub all_repos: bool,
}

#[derive(Debug, clap::Args)]
pub(crate) struct EventsArgs {
    /// How many events (the most recent).
    #[arg(default_value_t = 20)]
    pub n: i64,
    /// A kind (`shell.start`) or a family (`shell`).
    #[arg(long)]
    pub kind: Option<String>,
    /// Only this session (its id or a unique prefix).
    #[arg(long)]
    pub session: Option<String>,
    /// signal, debug, audit, or all (default: signal).
    #[arg(long, default_value = "signal")]
    pub plane: String,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct WhyArgs {
    /// How many decisions (the most recent).
    #[arg(default_value_t = 10)]
    pub n: i64,
    /// Only this session (its id or a unique prefix).
    #[arg(long)]
    pub session: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct LiveArgs {
    /// Poll interval in milliseconds.
    #[arg(long, default_value_t = 250)]
    pub interval_ms: u64,
    /// Print one JSON object per line.
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn run(ctx: &Ctx, cmd: ObsCommand) -> anyhow::Result<()> {
    match cmd {
        ObsCommand::Report(a) => report(ctx, a),
        ObsCommand::Events(a) => events(ctx, a),
        ObsCommand::Why(a) => why(ctx, a),
        ObsCommand::Live(a) => live(ctx, a),
        ObsCommand::Export(a) => super::obs_data::export(ctx, a),
        ObsCommand::Views { output } => super::obs_data::views(output.output()?),
        ObsCommand::Prune { dry_run, output } => super::obs_data::prune(ctx, dry_run, output.output()?),
        ObsCommand::Import(ImportCommand::Jsonl { files, output }) => super::obs_data::import_jsonl(ctx, &files, output.output()?),
        ObsCommand::Import(ImportCommand::Transcripts { dir, rescan, output }) => {
            super::obs_cost::import(ctx, dir, rescan, output.output()?)
        }
        ObsCommand::Cost(a) => super::obs_cost::cost(ctx, a),
        ObsCommand::Ship(a) => super::obs_ship::ship(ctx, a),
        ObsCommand::Spool(SpoolCommand::CatchUp { output }) => super::obs_spool::catch_up_command(ctx, output.output()?),
    }
}

fn report(ctx: &Ctx, a: ReportArgs) -> anyhow::Result<()> {
    let output = a.output.output()?;
    if a.all_repos {
        return super::obs_spool::report_all_repos(ctx, output);
    }
    let Some(store) = ctx.project_store()? else {
        return ctx.nothing_recorded(output.is_json());
    };
    let conn = store.conn();
    let reports = Reports::new(conn);
    let (provider, session) = match &a.session {
        Some(id) => {
            let found = reports.find_session(id)?;
            match found.as_slice() {
                [one] => one.clone(),
                [] => return Err(crate::error::unusable(format!("no session {id:?} in {}", store.path().display()))),
                _ => {
                    return Err(crate::error::unusable(format!(
                        "session prefix {id:?} matches more than one session; give more of it"
                    )))
                }
            }
        }
        None => match reports.latest_session()? {
            Some(s) => s,
            None => return ctx.nothing_recorded(output.is_json()),
        },
    };
    let Some(rep) = reports.session(&provider, &session)? else {
        return Err(crate::error::unusable(format!(
            "no session {session:?} in {}",
            store.path().display()
        )));
    };
    if let Some(path) = &a.out {
        crate::config::edit::write_atomic(path, markdown(&rep).as_bytes())?;
    }
    match output.format {
        Format::Json => render::json(&report_json(&rep)?),
        Format::Jsonl => render::json_text(serde_json::to_string(&report_json(&rep)?)? + "\n"),
        Format::Markdown => render::out(&markdown(&rep)),
        Format::Csv => rollup_table(&rep).print(Format::Csv),
        Format::Table => render::out(&terminal(&rep, output)),
    }
}

/// The camelCase names the report's JSON carried before every name was snake_case, with the
/// snake_case name each one duplicates. Kept for one release so scripts written against the
/// old names keep working (docs/obs.md says when they go).
const LEGACY_NAMES: [(&str, &str); 4] = [
    ("gate_time", "gateTime"),
    ("total_ms", "totalMs"),
    ("worst_ms", "worstMs"),
    ("by_rule", "byRule"),
];

/// The report as JSON: snake_case names, plus the old camelCase duplicates.
fn report_json(rep: &SessionReport) -> anyhow::Result<serde_json::Value> {
    fn alias(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                for (_, child) in map.iter_mut() {
                    alias(child);
                }
                for (snake, camel) in LEGACY_NAMES {
                    if let Some(x) = map.get(snake).cloned() {
                        map.insert(camel.to_string(), x);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(alias),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(rep)?;
    alias(&mut v);
    Ok(v)
}

fn cost_text(rep: &SessionReport) -> String {
    match (rep.estimated_cost_usd, rep.cost_incomplete) {
        (Some(c), false) => render::usd(c),
        (Some(c), true) => format!("{} (incomplete: a model had no price)", render::usd(c)),
        (None, true) => "unknown (no model had a price)".into(),
        (None, false) => "no usage recorded".into(),
    }
}

fn rollup_table(rep: &SessionReport) -> Table {
    let mut t = Table::new(["field", "value"]);
    let rows: Vec<(&str, Cell)> = vec![
        ("session_id", rep.session_id.clone().into()),
        ("provider", rep.provider.clone().into()),
        ("started_at", rep.started_at.clone().into()),
        ("updated_at", rep.updated_at.clone().into()),
        ("models", rep.models.join(", ").into()),
        ("estimated_cost_usd", rep.estimated_cost_usd.into()),
        ("cost_incomplete", rep.cost_incomplete.into()),
        ("cost_alert_sent", rep.cost_alert_sent.into()),
        ("context_tokens", rep.context_tokens.into()),
        ("input_tokens", rep.input_tokens.into()),
        ("output_tokens", rep.output_tokens.into()),
        ("cache_read_tokens", rep.cache_read_tokens.into()),
        ("cache_write_tokens", rep.cache_write_tokens.into()),
        ("prompts", rep.prompts.into()),
        ("responses", rep.responses.into()),
        ("generations", rep.generations.into()),
        ("thoughts", rep.thoughts.into()),
        ("compactions", rep.compactions.into()),
        ("denials", rep.denials.into()),
        ("gates_pass", rep.gates.pass.into()),
        ("gates_fail", rep.gates.fail.into()),
        ("gates_deferred", rep.gates.deferred.into()),
        ("shell_allow", rep.shell.allow.into()),
        ("shell_ask", rep.shell.ask.into()),
        ("shell_deny", rep.shell.deny.into()),
        ("gate_runs", rep.gate_time.runs.into()),
        ("gate_reused", rep.gate_time.reused.into()),
        ("gate_total_ms", rep.gate_time.total_ms.into()),
        ("gate_worst_ms", rep.gate_time.worst_ms.into()),
    ];
    for (k, v) in rows {
        t.push(vec![k.into(), v]);
    }
    t
}

/// The report's sections as (title, table) pairs.
fn sections(rep: &SessionReport) -> Vec<(&'static str, Table)> {
    let mut out = Vec::new();
    let mut cost = Table::new(["estimated cost", "input", "output", "cache write", "cache read", "cost alert"]).roles([
        Role::Text,
        Role::Number,
        Role::Number,
        Role::Number,
        Role::Number,
        Role::Key,
    ]);
    cost.push(vec![
        cost_text(rep).into(),
        render::thousands(rep.input_tokens).into(),
        render::thousands(rep.output_tokens).into(),
        render::thousands(rep.cache_write_tokens).into(),
        render::thousands(rep.cache_read_tokens).into(),
        (if rep.cost_alert_sent { "fired" } else { "not fired" }).into(),
    ]);
    out.push(("Cost and tokens", cost));
    // Two counts a reader could take for one another: the responses the agent showed (text the
    // user read) and the model's API calls (each tool call is one), whose tokens the report sums.
    let mut act = Table::new([
        "prompts",
        "responses shown",
        "API calls (generations)",
        "thoughts",
        "compactions",
        "policy denials",
        "gates pass/fail",
        "shell allow/ask/deny",
    ]);
    act.push(vec![
        rep.prompts.into(),
        rep.responses.into(),
        rep.generations.into(),
        rep.thoughts.into(),
        rep.compactions.into(),
        rep.denials.into(),
        match rep.gates.deferred {
            0 => format!("{}/{}", rep.gates.pass, rep.gates.fail),
            n => format!("{}/{} ({n} deferred)", rep.gates.pass, rep.gates.fail),
        }
        .into(),
        format!("{}/{}/{}", rep.shell.allow, rep.shell.ask, rep.shell.deny).into(),
    ]);
    out.push(("Activity", act));
    let mut models = Table::new(["model"]);
    for m in &rep.models {
        models.push(vec![m.clone().into()]);
    }
    out.push(("Models", models));
    let mut tools = Table::new(["tool", "calls", "ok", "fail", "denied", "asked", "total ms"]).roles([
        Role::Text,
        Role::Number,
        Role::Number,
        Role::Number,
        Role::Number,
        Role::Number,
        Role::Number,
    ]);
    for t in &rep.tools {
        tools.push(vec![
            t.tool.clone().into(),
            t.calls.into(),
            t.ok.into(),
            t.fail.into(),
            t.denied.into(),
            t.asked.into(),
            t.total_ms.into(),
        ]);
    }
    out.push(("Tools", tools));
    let mut subs = Table::new(["subagent", "started", "ended", "tool calls"]);
    for s in &rep.subagents {
        subs.push(vec![
            s.subagent_type.clone().into(),
            s.started.into(),
            s.ended.into(),
            s.tool_calls.into(),
        ]);
    }
    out.push(("Subagents", subs));
    let mut gt = Table::new(["runs", "reused", "total ms", "worst ms"]);
    gt.push(vec![
        rep.gate_time.runs.into(),
        rep.gate_time.reused.into(),
        rep.gate_time.total_ms.into(),
        rep.gate_time.worst_ms.into(),
    ]);
    out.push(("Gate time", gt));
    let mut ints = Table::new(["rule", "subject", "asks", "denials", "total"]).roles([
        Role::Text,
        Role::Key,
        Role::Number,
        Role::Number,
        Role::Number,
    ]);
    for i in &rep.interruptions {
        ints.push(vec![
            i.rule.clone().into(),
            i.subject.clone().into(),
            i.asks.into(),
            i.denials.into(),
            i.total.into(),
        ]);
    }
    out.push(("Interruptions by rule (the rails a posture calibrates)", ints));
    let mut floor = Table::new(["floor rule", "denials"]).roles([Role::Text, Role::Number]);
    for f in &rep.floor {
        floor.push(vec![f.rule.clone().into(), f.denials.into()]);
    }
    out.push(("Floor denials (kept out of the interruption rate: no posture chooses them)", floor));
    let mut rails = Table::new(["rail", "decision", "times"]);
    for r in &rep.rails {
        rails.push(vec![r.rule.clone().into(), r.permission.clone().into(), r.count.into()]);
    }
    out.push(("Rails that fired", rails));
    let mut stops = Table::new(["stop rule", "outcome", "stops"]).roles([Role::Text, Role::Key, Role::Number]);
    for st in &rep.stops {
        stops.push(vec![st.rule.clone().into(), st.outcome.clone().into(), st.count.into()]);
    }
    out.push(("Stops by rule", stops));
    let mut contracts = Table::new(["posture contract", "sent", "characters"]).roles([Role::Text, Role::Number, Role::Number]);
    for c in &rep.contracts {
        contracts.push(vec![c.posture.clone().into(), c.sent.into(), c.chars.into()]);
    }
    out.push(("Posture contract", contracts));
    let mut observed = Table::new(["rail", "reading", "turns"]).roles([Role::Key, Role::Key, Role::Number]);
    for o in &rep.observations {
        observed.push(vec![o.rail.clone().into(), o.reading.clone().into(), o.count.into()]);
    }
    out.push(("Observation readings", observed));
    out
}

fn header(rep: &SessionReport) -> String {
    let context = match rep.context_tokens {
        Some(n) => format!("\ncontext at its last start: {} tokens", render::thousands(n)),
        None => String::new(),
    };
    format!(
        "session {} ({})\nfrom {} to {}{context}",
        render::escape_controls(&rep.session_id),
        rep.provider,
        rep.started_at,
        rep.updated_at
    )
}

fn terminal(rep: &SessionReport, output: Output) -> String {
    let mut s = format!("{}\n", header(rep));
    for (title, table) in sections(rep) {
        s.push_str(&format!("\n{title}\n"));
        if table.rows.is_empty() {
            s.push_str("  none\n");
        } else {
            s.push_str(&table.to_terminal_in(render::terminal_width().map(usize::from), output.wide, &|_, c| c.plain()));
            s.push('\n');
        }
    }
    s
}

fn markdown(rep: &SessionReport) -> String {
    let mut s = format!("# tlc session report\n\n{}\n", header(rep));
    for (title, table) in sections(rep) {
        s.push_str(&format!("\n## {title}\n\n"));
        if table.rows.is_empty() {
            s.push_str("None.\n");
        } else {
            s.push_str(&table.to_markdown(&|_, c| c.plain()));
        }
    }
    s
}

/// An event's attributes as `key=value` words (the provider's event name left out).
fn attrs_detail(attrs: &serde_json::Value) -> String {
    attrs
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, _)| *k != "event")
                .map(|(k, v)| format!("{k}={}", v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn events_table(lines: &[EventLine]) -> Table {
    let mut t = Table::new(["id", "ts", "provider", "kind", "plane", "session", "tool", "ms", "detail"])
        .roles([
            Role::Number,
            Role::Date,
            Role::Key,
            Role::Key,
            Role::Key,
            Role::Id,
            Role::Text,
            Role::Number,
            Role::Text,
        ])
        .droppable(&["plane", "provider", "id", "ms", "tool"]);
    for e in lines {
        let detail = attrs_detail(&e.attrs);
        t.push(vec![
            e.id.into(),
            e.ts.clone().into(),
            e.provider.clone().into(),
            e.kind.clone().into(),
            e.plane.clone().into(),
            e.session_id.clone().into(),
            e.tool.clone().into(),
            e.duration_ms.into(),
            detail.into(),
        ]);
    }
    t
}

fn events(ctx: &Ctx, a: EventsArgs) -> anyhow::Result<()> {
    let plane = match a.plane.as_str() {
        "all" => None,
        p @ ("signal" | "debug" | "audit") => Some(p.to_string()),
        other => {
            return Err(crate::error::unusable(format!(
                "--plane {other:?}: expected signal, debug, audit or all"
            )))
        }
    };
    let output = a.output.output()?;
    let Some(store) = ctx.project_store()? else {
        return ctx.nothing_recorded(output.is_json());
    };
    let conn = store.conn();
    let reports = Reports::new(conn);
    let session = super::whole_session_id(conn, a.session.as_deref())?;
    let lines = reports.events(a.n.max(0), a.kind.as_deref(), session.as_deref(), plane.as_deref())?;
    match output.format {
        Format::Json => render::json(&lines),
        Format::Jsonl => render::json_text(jsonl(&lines)?),
        Format::Table if lines.is_empty() => render::out("no events match\n"),
        // A person reads the time to the second; JSON and CSV keep the stamp whole.
        _ => events_table(&lines).print_with(output, &|i, c| match (i, c) {
            (1, Cell::Text(ts)) if output.format == Format::Table && !output.wide && ts.len() >= 19 => ts[..19].replace('T', " "),
            _ => c.plain(),
        }),
    }
}

/// One compact JSON object per line.
fn jsonl<T: serde::Serialize>(items: &[T]) -> anyhow::Result<String> {
    let mut s = String::new();
    for i in items {
        s.push_str(&serde_json::to_string(i)?);
        s.push('\n');
    }
    Ok(s)
}

fn why(ctx: &Ctx, a: WhyArgs) -> anyhow::Result<()> {
    let output = a.output.output()?;
    let Some(store) = ctx.project_store()? else {
        return ctx.nothing_recorded(output.is_json());
    };
    let conn = store.conn();
    let reports = Reports::new(conn);
    let session = super::whole_session_id(conn, a.session.as_deref())?;
    let lines = reports.decisions(a.n.max(0), session.as_deref())?;
    match output.format {
        Format::Json => return render::json(&lines),
        Format::Jsonl => return render::json_text(jsonl(&lines)?),
        Format::Table if lines.is_empty() => {
            return render::out(
                "The hooks have made no decisions here yet: no shell command, tool call or MCP call has been asked about, and no stop was checked.\n",
            )
        }
        _ => {}
    }
    let mut t = Table::new(["ts", "session", "subject", "decision", "rule", "posture", "what", "reason"])
        .roles([
            Role::Date,
            Role::Id,
            Role::Key,
            Role::Key,
            Role::Key,
            Role::Key,
            Role::Text,
            Role::Text,
        ])
        .droppable(&["posture", "subject"]);
    for d in &lines {
        t.push(vec![
            d.ts.clone().into(),
            d.session_id.clone().into(),
            d.subject.clone().into(),
            d.permission.clone().into(),
            d.rule.clone().into(),
            d.posture.clone().into(),
            d.detail.clone().into(),
            d.reason.as_deref().map(readable).into(),
        ]);
    }
    t.print_with(output, &|i, c| match (i, c) {
        (0, Cell::Text(ts)) if output.format == Format::Table && !output.wide && ts.len() >= 19 => ts[..19].replace('T', " "),
        _ => c.plain(),
    })
}

fn live(ctx: &Ctx, a: LiveArgs) -> anyhow::Result<()> {
    let project = ctx.project()?;
    let db = project.db_path();
    let interval = std::time::Duration::from_millis(a.interval_ms.max(20));
    if !a.json {
        render::out(&format!("following signal events in {} (Ctrl-C to stop)\n", db.display()))?;
    }
    // Wait for the database to appear rather than creating it.
    let store = loop {
        if let Some(s) = store::open_read(DbKind::Project, &db)? {
            break s;
        }
        std::thread::sleep(interval);
    };
    let mut last = {
        let conn = store.conn();
        Reports::new(conn).max_event_id()?
    };
    loop {
        let lines = {
            let conn = store.conn();
            Reports::new(conn).signal_after(last)?
        };
        for e in &lines {
            last = last.max(e.id);
            if a.json {
                render::json_line(e)?;
            } else {
                let detail = render::escape_controls(&attrs_detail(&e.attrs)).into_owned();
                render::out(&format!(
                    "{} {} {} {}{}\n",
                    e.ts,
                    e.provider,
                    e.kind,
                    e.session_id.as_deref().unwrap_or("-"),
                    if detail.is_empty() { String::new() } else { format!(" {detail}") }
                ))?;
            }
        }
        if lines.is_empty() {
            std::thread::sleep(interval);
        }
    }
}

/// A reason as one readable line in a table: its lines joined, the floor's boilerplate after the
/// first line (the same two sentences on every floor denial) and its `rule=` tail left out (the
/// rule has a column of its own).
fn readable(reason: &str) -> String {
    crate::decision::reason_lines(reason).join(" ")
}
