//! `tlc gate test-command|lint-command <cmd> [args...]`, `tlc gate run [lint|test]`,
//! `tlc gate show [--json]`.

use super::mutating::Mutation;
use super::Ctx;
use crate::gate::{self, Gate, GateStore};
use crate::obs::redact::Redactor;
use crate::render;
use crate::store::{self, DbKind};
use clap::Subcommand;
use std::time::Duration;

#[derive(Debug, Subcommand)]
pub(crate) enum GateCommand {
    /// Set grind.testCommand in the project config and turn the gate on (grind.enabled = true;
    /// --off sets the command only). Refused unless the command resolves on PATH.
    TestCommand(SetArgs),
    /// Set grind.lintCommand in the project config and turn the gate on (grind.enabled = true;
    /// --off sets the command only). Refused unless the command resolves on PATH.
    LintCommand(SetArgs),
    /// Run the configured lint and/or test gate now and record the run.
    Run {
        /// Which gate (default: every configured one, lint first).
        #[arg(value_enum)]
        gate: Option<Gate>,
    },
    /// Print the latest gate run (harness.gate.v1 with --json). Read-only.
    Show {
        /// Which gate (default: the latest run of either).
        #[arg(value_enum)]
        gate: Option<Gate>,
        /// Only runs of this session.
        #[arg(long)]
        session: Option<String>,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
}

#[derive(Debug, clap::Args)]
pub(crate) struct SetArgs {
    /// Set the command without turning the gate on (grind.enabled stays as it is).
    #[arg(long)]
    pub off: bool,
    /// The command and its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub argv: Vec<String>,
}

pub(crate) fn run(ctx: &Ctx, cmd: GateCommand) -> anyhow::Result<()> {
    match cmd {
        GateCommand::TestCommand(a) => set_command(ctx, Gate::Test, a),
        GateCommand::LintCommand(a) => set_command(ctx, Gate::Lint, a),
        GateCommand::Run { gate } => run_gates(ctx, gate),
        GateCommand::Show { gate, session, output } => show(ctx, gate, session.as_deref(), output.output()?),
    }
}

fn set_command(ctx: &Ctx, g: Gate, a: SetArgs) -> anyhow::Result<()> {
    let what = format!("`tlc gate {}-command`", g.as_str());
    let Some(first) = a.argv.first().filter(|f| !f.is_empty()) else {
        return Err(crate::error::refused(format!(
            "{what}: the argv is empty; nothing was written ({} unchanged)",
            g.key()
        )));
    };
    let Some(resolved) = gate::resolve_on_path(first) else {
        return Err(crate::error::refused(format!(
            "{what}: `{first}` does not resolve on PATH: a gate command that cannot run is a config fault; nothing was written"
        )));
    };
    let m = Mutation::begin(ctx, &format!("gate {}-command", g.as_str()))?;
    let mut edit = m.project.edit_config()?;
    edit.set(g.key(), toml_edit::Value::Array(a.argv.iter().map(String::as_str).collect()));
    if !a.off {
        edit.set("grind.enabled", true.into());
    }
    edit.save()?;
    m.finish()?;
    let cfg = crate::config::Config::load(&m.project.paths)?;
    let mut text = format!(
        "{} = {:?} in {} ({first} resolves to {})\n",
        g.key(),
        a.argv,
        edit.path().display(),
        resolved.display()
    );
    let on = cfg.settings.grind.enabled;
    text.push_str(&if on {
        format!(
            "the {} gate is on (grind.enabled = true): the next stop that changed code runs it\n",
            g.as_str()
        )
    } else {
        format!(
            "the {} gate is off (grind.enabled = false): `tlc config set grind.enabled true` turns it on\n",
            g.as_str()
        )
    });
    let append = cfg.settings.grind.append_files.as_str();
    match (append, gate::narrow::runner(&a.argv)) {
        ("auto", Some(r)) => text.push_str(&format!(
            "the next stop runs: `{}` followed by the changed files {} takes (grind.appendFiles = auto)\n",
            a.argv.join(" "),
            r.name
        )),
        ("always", _) => text.push_str(&format!(
            "the next stop runs: `{}` followed by the changed files (grind.appendFiles = always)\n",
            a.argv.join(" ")
        )),
        _ => text.push_str(&format!("the next stop runs: `{}`, exactly as written\n", a.argv.join(" "))),
    }
    render::out(&text)
}

fn run_gates(ctx: &Ctx, only: Option<Gate>) -> anyhow::Result<()> {
    let cfg = ctx.config()?;
    let s = &cfg.settings;
    let gates: Vec<(Gate, Vec<String>)> = [Gate::Lint, Gate::Test, Gate::Docs]
        .into_iter()
        .filter(|g| only.is_none_or(|o| o == *g))
        .map(|g| {
            let argv = match g {
                Gate::Lint => s.grind.lint_command.clone(),
                Gate::Test => s.grind.test_command.clone(),
                Gate::Docs => s.docs.command.clone(),
            };
            (g, argv)
        })
        .collect();
    if let Some((g, _)) = gates.iter().find(|(_, argv)| argv.is_empty() && only.is_some()) {
        return Err(crate::error::unusable(format!("{} is not set: {}", g.key(), g.setter())));
    }
    let gates: Vec<_> = gates.into_iter().filter(|(_, argv)| !argv.is_empty()).collect();
    if gates.is_empty() {
        return Err(crate::error::unusable(
            "none of grind.lintCommand, grind.testCommand and docs.command is set: set one with `tlc gate test-command <cmd> [args...]`",
        ));
    }
    let mut m = Mutation::begin(ctx, "gate run")?;
    if let Err(h) = GateStore::try_lock(m.store.conn_mut(), None, None)? {
        return Err(crate::error::refused(format!(
            "the gate lock in {} is held by {}; try again when it finishes",
            m.store.path().display(),
            h.describe()
        )));
    }
    let redactor = s.secrets.redact_output.then(|| Redactor::new(""));
    let jail = crate::hook::boundary::jail(&m.project.paths);
    let mut failed = false;
    let mut results = Vec::new();
    // The argv the stop would run for the tree as it is: the changes from HEAD, narrowed as the
    // stop narrows them (`grind.appendFiles`).
    let changed = if m.project.paths.in_git {
        let tree = crate::gate::changes::Tree {
            root: m.project.root(),
            jail: &jail,
        };
        let head = crate::gate::changes::read_head(m.project.root());
        crate::gate::changes::changed_files(tree, &head)
            .map(|c| c.present().map(str::to_string).collect::<Vec<_>>())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    for (g, argv) in &gates {
        let argv = match g {
            Gate::Docs => argv.clone(),
            _ => crate::gate::narrow::final_argv(argv, &s.grind.append_files, &changed),
        };
        let req = gate::RunRequest {
            gate: *g,
            argv: argv.clone(),
            root: m.project.root(),
            jail: &jail,
            timeout: Duration::from_secs(u64::try_from(s.grind.gate_timeout_seconds.max(1)).unwrap_or(300)),
            provider: None,
            session: None,
            attempt: None,
            files: Vec::new(),
            inputs: Default::default(),
        };
        let mut run = gate::execute(&req, redactor.as_ref());
        run.id = GateStore::new(m.store.conn()).insert_run(&run)?;
        failed |= !run.passed();
        results.push(run);
    }
    GateStore::new(m.store.conn()).unlock()?;
    m.finish()?;
    for r in &results {
        render::out(&format!(
            "{} gate: {} [{}] (exit {}) in {} ms: {}\n",
            r.gate,
            r.verdict,
            r.classification(),
            r.exit_code.map_or("none".into(), |c| c.to_string()),
            r.duration_ms,
            r.command.join(" ")
        ))?;
        if !r.passed() && !r.output_tail.is_empty() {
            render::out(&format!("--- output tail ---\n{}\n", r.output_tail.trim_end()))?;
        }
    }
    if failed {
        return Err(crate::error::silent_failure());
    }
    Ok(())
}

fn show(ctx: &Ctx, only: Option<Gate>, session: Option<&str>, output: render::Output) -> anyhow::Result<()> {
    let json = output.format == render::Format::Json;
    let project = ctx.project()?;
    let latest = match store::open_read(DbKind::Project, &project.db_path())? {
        Some(store) => {
            let session = super::whole_session_id(store.conn(), session)?;
            GateStore::new(store.conn()).latest(only.map(Gate::as_str), session.as_deref())?
        }
        None => None,
    };
    if !json && output.format != render::Format::Table {
        let mut t = render::Table::new(["gate", "id", "started_at", "verdict", "exit_code", "duration_ms", "command"]);
        if let Some(r) = &latest {
            t.push(vec![
                r.gate.clone().into(),
                r.id.into(),
                r.started_at.clone().into(),
                r.verdict.clone().into(),
                r.exit_code.into(),
                r.duration_ms.into(),
                r.command.join(" ").into(),
            ]);
        }
        return t.print(output);
    }
    match (latest, json) {
        (Some(r), true) => render::json(&r.to_v1()),
        (None, true) => render::json(&serde_json::Value::Null),
        (None, false) => render::out("no gate run recorded yet\n"),
        (Some(r), false) => {
            let mut text = format!(
                "{} gate run {} at {}: {} [{}] (exit {}) in {} ms{}\ncommand: {}\n",
                r.gate,
                r.id,
                r.started_at,
                r.verdict,
                r.classification(),
                r.exit_code.map_or("none".into(), |c| c.to_string()),
                r.duration_ms,
                match (r.reused_from, &r.deferred_to) {
                    (Some(from), _) => format!(", reused from run {from}"),
                    (_, Some(holder)) => format!(", deferred: the lock was held by {holder}"),
                    _ => String::new(),
                },
                r.command.join(" ")
            );
            if let Some(session) = &r.session_id {
                text.push_str(&format!(
                    "session: {} {session}, attempt {}\n",
                    r.provider.as_deref().unwrap_or("?"),
                    r.attempt.map_or("-".into(), |a| a.to_string())
                ));
            }
            for (i, f) in r.findings.iter().enumerate() {
                text.push_str(&format!("{}. {}\n", i + 1, f.summary));
            }
            if !r.output_tail.is_empty() {
                text.push_str(&format!("--- output tail ---\n{}\n", r.output_tail.trim_end()));
            }
            render::out(&text)
        }
    }
}
