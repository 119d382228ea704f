//! The command line: clap definitions and one module per command group. Each module parses,
//! calls the domain, and renders; nothing here owns SQL or business rules.

mod agent;
mod attest;
mod config_cmd;
mod context;
mod db;
mod demo;
mod doctor;
mod examples;
mod gate;
mod hook;
mod init;
mod init_wizard;
mod install;
mod lessons;
mod mode;
pub(crate) mod mutating;
mod obs;
mod obs_cost;
mod obs_data;
mod obs_ship;
mod obs_spool;
mod output;
mod policy_cmd;
mod prices;
mod rules;
mod serve;
mod ship;
mod stable;
mod status;
mod statusline;
mod update;
mod version;

pub(crate) use context::Ctx;
pub(crate) use output::OutputArgs;

use clap::{CommandFactory, Parser, Subcommand};
use std::ffi::OsString;

#[derive(Debug, Parser)]
#[command(
    name = "tlc",
    version = env!("TLC_LONG_VERSION"),
    about = "The local data service of an AI coding-agent harness",
    propagate_version = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create, upgrade, inspect and check the project and home databases.
    #[command(subcommand)]
    Db(db::DbCommand),
    /// Show the effective configuration.
    #[command(subcommand)]
    Config(config_cmd::ConfigCommand),
    /// Replay a sample agent session into a scratch directory and show what was recorded.
    Demo(demo::DemoArgs),
    /// Handle one provider hook payload on stdin (called by Claude Code and Cursor).
    Hook {
        /// The provider whose payload arrives on stdin.
        #[arg(value_parser = hook::provider_arg())]
        provider: String,
    },
    /// Add tlc's hook entries to Claude Code's settings.json and Cursor's hooks.json.
    Install(install::InstallArgs),
    /// Claude Code's statusLine: reads its JSON on stdin, prints one line (model, session cost,
    /// today's cost, the active 5-hour block, context used).
    Statusline,
    /// Remove exactly tlc's hook entries from the providers' settings.
    Uninstall(install::UninstallArgs),
    /// Read the record back: reports, events, decisions, live feed, export, prune, import.
    #[command(subcommand)]
    Obs(obs::ObsCommand),
    /// Adopt this repository; at a terminal, first ask about each opt-in feature and write the
    /// answers (without one, or with --defaults: the commented default config).
    Init(init::InitArgs),
    /// Check databases, config tiers, hook wiring, faults, gate commands, prices (read-only).
    Doctor(doctor::DoctorArgs),
    /// Posture, rails, paused stop checks, live sessions, policy divergence (read-only).
    Status(status::StatusArgs),
    /// Set the operator posture: paired, solo or focus (without a word: print it).
    Mode(mode::ModeArgs),
    /// Pause the stop checks (grind and ship challenge).
    Pause,
    /// Turn the stop checks back on.
    Resume,
    /// List policy sources that changed during a live session; `accept` clears named ones.
    Policy(policy_cmd::PolicyArgs),
    /// The operator's rule files of both tiers: trigger, proofs, verdict, and which are active,
    /// shadowed, switched off or broken (read-only).
    Rules(rules::RulesArgs),
    /// Gate commands, gate runs and the latest gate verdict.
    #[command(subcommand)]
    Gate(gate::GateCommand),
    /// The ship gate's ledger of claims, challenges and passes (read-only).
    #[command(subcommand)]
    Ship(ship::ShipCommand),
    /// What a session's last stop left open: base, attempt, gaps, next action (read-only).
    Handoff(ship::HandoffArgs),
    /// The attestation chain: one hash-chained record per session of what tlc observed
    /// (read-only; `--verify` checks every link).
    Attest(attest::AttestArgs),
    /// The revision this binary was built from, and what this project's hooks last ran
    /// (read-only).
    Version(version::VersionArgs),
    /// Update tlc from the checkout it was built from: fast-forward, rebuild, re-wire, announce
    /// the decisions that landed, then doctor (`--check`: only list what would land).
    Update(update::UpdateArgs),
    /// Lessons: add, list, show, promote, pin, unpin, forget, garden.
    #[command(subcommand)]
    Lessons(lessons::LessonsCommand),
    /// A local read-only dashboard of the record (cost, sessions, gates, policy, prices) on
    /// 127.0.0.1, with each page's numbers as JSON.
    Serve(serve::ServeArgs),
    /// The price catalog: refresh planes, look up a model, list, status.
    #[command(subcommand)]
    Prices(prices::PricesCommand),
    /// Trusted git remotes that hold agent packages.
    #[command(subcommand)]
    Stable(stable::StableCommand),
    /// Install, inspect and maintain agent packages.
    #[command(subcommand)]
    Agent(agent::AgentCommand),
    /// Print a shell completion script for bash, zsh or fish (generated from these definitions).
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print tlc's man page (roff), or write one page per command into a folder.
    Man {
        /// Write `tlc.1` and a `tlc-<command>.1` for every command into DIR instead.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<std::path::PathBuf>,
    },
}

/// The whole command tree, with each command's examples at the end of its help.
pub fn command() -> clap::Command {
    examples::with_examples(Cli::command())
}

/// The commands only an operator may run, and what each needs: changing policy (posture, pause,
/// gate commands, accepting a divergence) needs a terminal as well; adopting, wiring, stables,
/// agent packages and rewriting the record only refuse inside an agent session.
fn operator_only(cmd: &Command) -> Option<(String, mutating::Needs)> {
    use mutating::Needs::{NoAgent, Terminal};
    let (what, needs) = match cmd {
        Command::Mode(a) if a.posture.is_some() => ("`tlc mode <posture>`", Terminal),
        Command::Pause => ("`tlc pause`", Terminal),
        Command::Resume => ("`tlc resume`", Terminal),
        Command::Policy(a) if a.command.is_some() => ("`tlc policy accept`", Terminal),
        Command::Config(config_cmd::ConfigCommand::Set { .. }) => ("`tlc config set`", Terminal),
        Command::Config(config_cmd::ConfigCommand::Unset { .. }) => ("`tlc config unset`", Terminal),
        Command::Gate(gate::GateCommand::TestCommand(_)) => ("`tlc gate test-command`", Terminal),
        Command::Gate(gate::GateCommand::LintCommand(_)) => ("`tlc gate lint-command`", Terminal),
        Command::Lessons(l) => match l {
            // An agent may write a lesson for this repository, unpinned: one for every repository
            // or ranked above the rest is the operator's to write (issue 53).
            lessons::LessonsCommand::Add { global: true, .. } => ("`tlc lessons add --global`", NoAgent),
            lessons::LessonsCommand::Add { pin: true, .. } => ("`tlc lessons add --pin`", NoAgent),
            lessons::LessonsCommand::Promote { .. } => ("`tlc lessons promote`", NoAgent),
            lessons::LessonsCommand::Pin { .. } => ("`tlc lessons pin`", NoAgent),
            lessons::LessonsCommand::Unpin { .. } => ("`tlc lessons unpin`", NoAgent),
            lessons::LessonsCommand::Forget { .. } => ("`tlc lessons forget`", NoAgent),
            lessons::LessonsCommand::Garden { .. } => ("`tlc lessons garden`", NoAgent),
            _ => return None,
        },
        Command::Init(_) => ("`tlc init`", NoAgent),
        // Rebuilding and re-wiring the binary every hook runs is the operator's, at a terminal;
        // listing what would land only fetches.
        Command::Update(a) if a.check => ("`tlc update --check`", NoAgent),
        Command::Update(_) => ("`tlc update`", Terminal),
        Command::Install(_) => ("`tlc install`", NoAgent),
        Command::Uninstall(_) => ("`tlc uninstall`", NoAgent),
        Command::Db(db::DbCommand::Migrate) => ("`tlc db migrate`", NoAgent),
        Command::Obs(obs::ObsCommand::Prune { dry_run: false, .. }) => ("`tlc obs prune`", NoAgent),
        Command::Obs(obs::ObsCommand::Import(_)) => ("`tlc obs import`", NoAgent),
        Command::Prices(prices::PricesCommand::Refresh { .. }) => ("`tlc prices refresh`", NoAgent),
        Command::Stable(s) | Command::Agent(agent::AgentCommand::Stable(s)) => match s {
            stable::StableCommand::Add { .. } => ("`tlc stable add`", NoAgent),
            stable::StableCommand::Remove { .. } => ("`tlc stable remove`", NoAgent),
            stable::StableCommand::Update { .. } => ("`tlc stable update`", NoAgent),
            _ => return None,
        },
        Command::Agent(a) => match a {
            agent::AgentCommand::Install { .. } => ("`tlc agent install`", NoAgent),
            agent::AgentCommand::Upgrade { .. } => ("`tlc agent upgrade`", NoAgent),
            agent::AgentCommand::Uninstall { .. } => ("`tlc agent uninstall`", NoAgent),
            agent::AgentCommand::Prune { .. } => ("`tlc agent prune`", NoAgent),
            _ => return None,
        },
        _ => return None,
    };
    Some((what.to_string(), needs))
}

/// `tlc harness <cmd>` is accepted as `tlc <cmd>` everywhere: the seeds' spelling.
pub fn normalize_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    if args.get(1).is_some_and(|a| a == "harness") {
        args.remove(1);
    }
    args
}

/// Parses `args` and runs the command.
pub fn run(args: Vec<OsString>) -> anyhow::Result<()> {
    // The hot path skips building the whole command tree: `tlc hook <provider>` runs on every
    // tool call, and clap's full parse costs a sizable share of the hook's budget.
    if let [_, cmd] = args.as_slice() {
        if cmd == "statusline" {
            return statusline::run();
        }
        // Scripts and version checks run `tlc --version` often; clap would build the whole
        // command tree to print one constant line (the same line clap prints for it).
        if cmd == "--version" || cmd == "-V" {
            use std::io::Write;
            // A closed or full pipe is the reader's business, as it is for clap's own output.
            let _ = writeln!(std::io::stdout(), "tlc {}", env!("TLC_LONG_VERSION"));
            return Ok(());
        }
    }
    if let [_, cmd, name] = args.as_slice() {
        if cmd == "hook" {
            if let Some(provider) = name.to_str().and_then(crate::hook::provider::by_name) {
                return hook::run(provider);
            }
        }
    }
    let cli = match command()
        .try_get_matches_from(args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            // clap's usage errors are "unusable input" (2); --help and --version succeed.
            std::process::exit(if code == 0 { 0 } else { 2 });
        }
    };
    let operator = operator_only(&cli.command);
    if let Some((what, needs)) = &operator {
        mutating::operator_only(what, *needs)?;
    }
    let ctx = Ctx::new();
    let done = dispatch(&ctx, cli.command);
    // What an operator ran goes into the record its sessions' attestations read (issue 35).
    // Only the commands that change policy: the others (wiring, stables, the record's upkeep)
    // have their own traces, and a dry run or a prune must not add a row of its own.
    if let (Ok(()), Some((what, needs @ mutating::Needs::Terminal))) = (&done, &operator) {
        mutating::record_operator_command(&ctx, what, *needs);
    }
    done
}

fn dispatch(ctx: &Ctx, cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Db(cmd) => db::run(ctx, cmd),
        Command::Config(cmd) => config_cmd::run(ctx, cmd),
        Command::Demo(args) => demo::run(ctx, args),
        Command::Hook { provider } => match crate::hook::provider::by_name(&provider) {
            Some(p) => hook::run(p),
            None => Err(crate::error::unusable(format!("{provider}: not a provider"))),
        },
        Command::Install(args) => install::install(args),
        Command::Uninstall(args) => install::uninstall(args),
        Command::Statusline => statusline::run(),
        Command::Obs(cmd) => obs::run(ctx, cmd),
        Command::Init(args) => init::run(ctx, args),
        Command::Doctor(args) => doctor::run(ctx, args),
        Command::Status(args) => status::run(ctx, args),
        Command::Mode(args) => mode::mode(ctx, args),
        Command::Pause => mode::pause(ctx, true),
        Command::Resume => mode::pause(ctx, false),
        Command::Policy(args) => policy_cmd::run(ctx, args),
        Command::Gate(cmd) => gate::run(ctx, cmd),
        Command::Ship(cmd) => ship::run(ctx, cmd),
        Command::Handoff(args) => ship::handoff(ctx, args),
        Command::Attest(args) => attest::run(ctx, args),
        Command::Rules(args) => rules::run(ctx, args),
        Command::Version(args) => version::run(ctx, args),
        Command::Update(args) => update::run(ctx, args),
        Command::Lessons(cmd) => lessons::run(ctx, cmd),
        Command::Prices(cmd) => prices::run(ctx, cmd),
        Command::Serve(args) => serve::run(ctx, args),
        Command::Stable(cmd) => stable::run(ctx, cmd),
        Command::Agent(cmd) => agent::run(ctx, cmd),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut command(), "tlc", &mut out);
            crate::render::out(&String::from_utf8_lossy(&out))
        }
        Command::Man { out_dir } => man(out_dir.as_deref()),
    }
}

/// `tlc man`: the page of the whole command (stdout), or every command's page (a folder).
fn man(out_dir: Option<&std::path::Path>) -> anyhow::Result<()> {
    let cmd = command();
    match out_dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut out)?;
            crate::render::out(&String::from_utf8_lossy(&out))
        }
        Some(dir) => {
            if !dir.is_dir() {
                return Err(crate::error::unusable(format!("{}: no such folder", dir.display())));
            }
            clap_mangen::generate_to(cmd, dir).map_err(|e| crate::error::refused(format!("{}: {e}", dir.display())))?;
            eprintln!("man pages written to {}", dir.display());
            Ok(())
        }
    }
}

/// `--session`'s value as the whole id, for every command that takes one: a unique prefix is
/// completed, an ambiguous one refused; a value no session starts with is kept as given (it then
/// matches nothing, and the command says so in its own words).
pub(crate) fn whole_session_id(conn: &rusqlite::Connection, session: Option<&str>) -> anyhow::Result<Option<String>> {
    let Some(id) = session else { return Ok(None) };
    let found = crate::obs::report::Reports::new(conn).find_session(id)?;
    match found.as_slice() {
        [(_, one)] => Ok(Some(one.clone())),
        [] => Ok(Some(id.to_string())),
        _ => Err(crate::error::unusable(format!(
            "--session {id:?} matches more than one session; give more of it"
        ))),
    }
}
