//! `tlc agent install|upgrade|uninstall|prune|describe|history|search|info`.

use super::mutating::{rerecord_if_recorded, snapshot};
use super::Ctx;
use crate::agent::install::{self, InstallOptions, InstallPlan, Installed, Prompter};
use crate::agent::maintain;
use crate::agent::records::AgentStore;
use crate::agent::upgrade::{self, UpgradePlan};
use crate::agent::{self, git, scan, schema::TableContext, skills, stable, PackageRef};
use crate::error::{refused, unusable};
use crate::render::{self, Cell, Table};
use crate::store::{self, DbKind};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(crate) enum AgentCommand {
    /// Review, confirm, pin and write `source` for <stable>/<package>[@<version>].
    Install {
        /// <stable>/<package>[@<version>] (a tag, a branch or a full commit SHA).
        package: String,
        /// The harness table's name (default: the package's).
        #[arg(long = "as")]
        as_name: Option<String>,
        /// Write into the project tier instead of the machine tier.
        #[arg(long)]
        project: bool,
        /// Answer the ordinary confirmation (never a high finding or an MCP write request).
        #[arg(long)]
        yes: bool,
        /// Allow high-severity findings, after re-typing <stable>/<package>.
        #[arg(long)]
        force_unsafe: bool,
        /// Accept every [defaults] suggestion without asking.
        #[arg(long)]
        accept_defaults: bool,
    },
    /// Move a package's tables (or one table) to the stable's fetched head, after a diff.
    Upgrade {
        /// A harness name, or <stable>/<package> for every table installed from it.
        target: String,
        /// Answer the ordinary confirmation (never a high finding or an MCP write request).
        #[arg(long)]
        yes: bool,
        /// Allow high-severity findings, after re-typing <stable>/<package>.
        #[arg(long)]
        force_unsafe: bool,
        /// Accept every [defaults] suggestion without asking.
        #[arg(long)]
        accept_defaults: bool,
    },
    /// Remove the whole [harness.<name>] table (and nothing else).
    Uninstall {
        /// The harness table's name.
        name: String,
        /// Remove it from the project tier instead of the machine tier.
        #[arg(long)]
        project: bool,
        /// Remove it without an interactive confirmation.
        #[arg(long)]
        yes: bool,
    },
    /// Remove pins nothing references any more.
    Prune {
        /// Report what would be removed and change nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
    /// Every installed package: harness name, stable, package, version, pinned commit, install
    /// time, tier, and whether the stable's clone has a newer head (read-only; no fetch).
    List {
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
    /// The effective harness table, each key's origin (local or package), and its skills.
    Describe {
        /// The harness table's name.
        name: String,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
    /// Installs and resolutions, for one harness name or all.
    History {
        /// Only this harness table (default: all).
        name: Option<String>,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
    /// Packages in the local clones of every stable (read-only; no network).
    Search {
        /// Text to look for in package names and descriptions (default: every package).
        query: Option<String>,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
    /// A package's manifest, requests, files and scan findings from the local clone (read-only).
    Info {
        /// <stable>/<package>[@<version>].
        package: String,
        #[command(flatten)]
        output: crate::cli::OutputArgs,
    },
    /// The seeds' spelling of `tlc stable …` (hidden alias).
    #[command(subcommand, hide = true)]
    Stable(super::stable::StableCommand),
}

pub(crate) fn run(ctx: &Ctx, cmd: AgentCommand) -> anyhow::Result<()> {
    match cmd {
        AgentCommand::Install {
            package,
            as_name,
            project,
            yes,
            force_unsafe,
            accept_defaults,
        } => {
            let before = snapshot(ctx)?;
            let r = PackageRef::parse(&package)?;
            let opts = InstallOptions {
                as_name,
                project,
                yes,
                force_unsafe,
                accept_defaults,
            };
            let paths = ctx.paths()?;
            match install::plan_install(paths, &r, &opts)? {
                InstallPlan::Already {
                    name,
                    file,
                    current,
                    package,
                } => render::out(&format!(
                    "[harness.{name}] in {} already names {current}; nothing changed (`tlc agent upgrade {name}` moves it to the stable's fetched head; `install {package}@<full sha>` rolls back)\n",
                    file.display()
                ))?,
                InstallPlan::Review(review) => {
                    render::out(&install::review_text(&review.candidate))?;
                    let done = install::apply_install(paths, *review, &opts, &mut Prompter::from_stdin())?;
                    render::out(&installed_text(&done))?;
                }
            }
            rerecord_if_recorded(ctx, &before)
        }
        AgentCommand::Upgrade {
            target,
            yes,
            force_unsafe,
            accept_defaults,
        } => {
            let before = snapshot(ctx)?;
            let opts = InstallOptions {
                yes,
                force_unsafe,
                accept_defaults,
                ..Default::default()
            };
            upgrade_tables(ctx, &target, &opts)?;
            rerecord_if_recorded(ctx, &before)
        }
        AgentCommand::Uninstall { name, project, yes } => {
            let before = snapshot(ctx)?;
            let done = maintain::uninstall(ctx.paths()?, &name, project, yes, &mut Prompter::from_stdin())?;
            render::out(&format!(
                "removed [harness.{}] from {} (its pin stays in the store until `tlc agent prune`)\n",
                done.name,
                done.file.display()
            ))?;
            rerecord_if_recorded(ctx, &before)
        }
        AgentCommand::Prune { dry_run, output } => {
            let output = output.output()?;
            let p = maintain::prune(ctx.paths()?, dry_run)?;
            if output.format == render::Format::Json {
                return render::json(&p);
            }
            if output.format != render::Format::Table {
                let mut t = Table::new(["pin", "action", "named_by"]);
                for r in &p.removed {
                    t.push(vec![
                        r.to_string().into(),
                        (if dry_run { "would remove" } else { "removed" }).into(),
                        Cell::Null,
                    ]);
                }
                for (pin, by) in &p.kept {
                    t.push(vec![pin.to_string().into(), "kept".into(), by.to_string().into()]);
                }
                return t.print(output);
            }
            let mut s = String::new();
            let verb = if dry_run { "would remove" } else { "removed" };
            for r in &p.removed {
                s.push_str(&format!("{verb} {r}\n"));
            }
            for (pin, by) in &p.kept {
                s.push_str(&format!("kept {pin} (named by {by})\n"));
            }
            if p.removed.is_empty() {
                s.push_str("no unreferenced pin\n");
            }
            render::out(&s)
        }
        AgentCommand::List { output } => list(ctx, output.output()?),
        AgentCommand::Describe { name, output } => describe(ctx, &name, output.output()?),
        AgentCommand::History { name, output } => history(ctx, name.as_deref(), output.output()?),
        AgentCommand::Search { query, output } => search(ctx, query.as_deref(), output.output()?),
        AgentCommand::Info { package, output } => info(ctx, &package, output.output()?),
        AgentCommand::Stable(cmd) => super::stable::run(ctx, cmd),
    }
}

/// `tlc agent upgrade`: each table in turn, its diff and review shown before it is confirmed.
fn upgrade_tables(ctx: &Ctx, target: &str, opts: &InstallOptions) -> anyhow::Result<()> {
    let paths = ctx.paths()?;
    let targets = upgrade::targets(paths, target)?;
    let mut prompter = Prompter::from_stdin();
    for table in &targets.tables {
        match upgrade::plan(paths, &targets, table)? {
            UpgradePlan::UpToDate { name, file, source } => render::out(&format!(
                "[harness.{name}] in {} is already at {source} (the stable's fetched head; `tlc stable update` fetches)\n",
                file.display()
            ))?,
            UpgradePlan::Move(m) => {
                render::out(&m.text)?;
                let done = upgrade::apply(paths, &targets, *m, opts, &mut prompter)?;
                render::out(&installed_text(&done))?;
            }
        }
    }
    Ok(())
}

/// What an install, upgrade or rollback did, as the command line says it.
fn installed_text(done: &Installed) -> String {
    let verb = match done.action.as_str() {
        "rollback" => "rolled back",
        "upgrade" => "upgraded",
        _ => "installed",
    };
    let mut s = format!(
        "{verb} {} as [harness.{}] in {}\n  source = \"{}\"\n  pin: {}{}\n",
        done.package,
        done.name,
        done.file.display(),
        done.source,
        done.pin_dir.display(),
        if done.new_pin {
            ""
        } else {
            " (already in the store; kept as it was)"
        }
    );
    for (k, v) in &done.defaults.written {
        s.push_str(&format!("  default written: {k} = {}\n", v.to_toml_text()));
    }
    for (k, v, why) in &done.defaults.skipped {
        s.push_str(&format!("  default skipped: {k} = {} — {why}\n", v.to_toml_text()));
    }
    s
}

/// `tlc agent list`: one row per installed package. CSV, JSON lines and markdown carry whole
/// commits and times; the terminal table shortens them (whole with `--wide`).
fn list(ctx: &Ctx, output: render::Output) -> anyhow::Result<()> {
    let rows = crate::agent::list::installed(ctx.paths()?)?;
    if output.format == render::Format::Json {
        return render::json(&rows);
    }
    if rows.is_empty() && output.format == render::Format::Table {
        return render::out(
            "no package installed (`tlc agent search` lists the stables' packages; `tlc agent install <stable>/<package>` installs one)\n",
        );
    }
    use render::Role;
    let mut t = Table::new([
        "harness",
        "stable",
        "package",
        "version",
        "pinned commit",
        "installed",
        "tier",
        "stable head",
        "newer head",
    ])
    .roles([
        Role::Key,
        Role::Key,
        Role::Key,
        Role::Key,
        Role::Key,
        Role::Date,
        Role::Key,
        Role::Key,
        Role::Key,
    ])
    .droppable(&["stable head", "version", "stable"]);
    for r in &rows {
        t.push(vec![
            r.harness_name.clone().into(),
            r.stable.clone().into(),
            r.package.clone().into(),
            Cell::from(r.version.clone()),
            r.pinned_commit.clone().into(),
            Cell::from(r.installed_at.clone()),
            r.tier.into(),
            Cell::from(r.stable_head.clone()),
            r.newer_head.map_or(Cell::Null, Cell::Bool),
        ]);
    }
    let wide = output.wide;
    t.print_with(output, &|col, cell| match (col, cell) {
        (7, Cell::Null) => "no local clone".into(),
        (4 | 7, c) if !wide => crate::revision::short(&c.plain()).to_string(),
        (5, c) if !wide => c.plain().chars().take(16).collect::<String>().replace('T', " "),
        (8, Cell::Bool(true)) => "yes".into(),
        (8, Cell::Bool(false)) => "no".into(),
        (8, Cell::Null) => "unknown".into(),
        (_, c) => c.plain(),
    })?;
    let newer: Vec<&str> = rows
        .iter()
        .filter(|r| r.newer_head == Some(true))
        .map(|r| r.harness_name.as_str())
        .collect();
    if output.format == render::Format::Table && !newer.is_empty() {
        render::out(&format!(
            "a stable's head is newer than the pin of {}: `tlc agent upgrade <name>` shows the diff and moves it\n",
            newer.join(", ")
        ))?;
    }
    Ok(())
}

fn describe(ctx: &Ctx, name: &str, output: render::Output) -> anyhow::Result<()> {
    let json = output.format == render::Format::Json;
    let h = ctx
        .harnesses()?
        .iter()
        .find(|h| h.name == name)
        .ok_or_else(|| unusable(format!("[harness.{name}] is not declared in any config tier")))?;
    let skills = skills::tiers(ctx.paths()?, ctx.config()?, h);
    if json {
        let values: serde_json::Map<String, serde_json::Value> = h
            .values
            .iter()
            .map(|(k, (v, o))| {
                (k.clone(), serde_json::json!({ "value": v.to_json(), "origin": o.origin, "file": o.file.as_ref().map(|f| f.display().to_string()), "line": o.line }))
            })
            .collect();
        return render::json(&serde_json::json!({
            "name": h.name,
            "file": h.file.display().to_string(),
            "tier": h.tier.name(),
            "source": h.source.as_ref().map(|s| s.to_string()),
            "pin_dir": h.pin_dir.as_ref().map(|p| p.display().to_string()),
            "values": values,
            "skills": skills,
        }));
    }
    let mut t = Table::new(["key", "value", "origin"]).roles([render::Role::Key, render::Role::Text, render::Role::Key]);
    for (k, (v, o)) in &h.values {
        t.push(vec![k.clone().into(), v.to_toml_text().into(), o.origin.into()]);
    }
    if output.format != render::Format::Table {
        // The other formats carry the table's values (JSON carries everything).
        return t.print(output);
    }
    let mut s = format!("[harness.{}] in {}\n", h.name, h.file.display());
    if let (Some(src), Some(dir)) = (&h.source, &h.pin_dir) {
        s.push_str(&format!("source: {src}\npin: {}\n", dir.display()));
    }
    render::out(&s)?;
    t.print(output)?;
    if !skills.is_empty() {
        let mut t = Table::new(["skill", "tier", "path", "shadows"]);
        for sk in &skills {
            t.push(vec![
                sk.name.clone().into(),
                sk.tier.into(),
                sk.path.clone().into(),
                sk.shadowed
                    .iter()
                    .map(|x| format!("{} ({})", x.path, x.tier))
                    .collect::<Vec<_>>()
                    .join("; ")
                    .into(),
            ]);
        }
        t.print(output)?;
    }
    Ok(())
}

fn history(ctx: &Ctx, name: Option<&str>, output: render::Output) -> anyhow::Result<()> {
    let json = output.format == render::Format::Json;
    let table = output.format == render::Format::Table;
    let paths = ctx.paths()?;
    let Some(home) = store::open_read(DbKind::Home, &paths.home_db())? else {
        if json {
            return render::json(&serde_json::json!({ "installs": [], "resolutions": [] }));
        }
        if !table {
            return Table::new([
                "time",
                "action",
                "harness",
                "package",
                "sha",
                "previous",
                "forced",
                "confirmations",
                "config file",
            ])
            .print(output);
        }
        return render::out(&format!(
            "no home database yet at {}: nothing was installed or resolved\n",
            paths.home_db().display()
        ));
    };
    let store = AgentStore::new(home.conn());
    let installs = store.installs(name)?;
    let resolutions = store.resolutions(name)?;
    if json {
        return render::json(&serde_json::json!({ "installs": installs, "resolutions": resolutions }));
    }
    let mut t = Table::new([
        "time",
        "action",
        "harness",
        "package",
        "sha",
        "previous",
        "forced",
        "confirmations",
        "config file",
    ]);
    for i in &installs {
        t.push(vec![
            i.ts.clone().into(),
            i.action.clone().into(),
            i.harness_name.clone().into(),
            format!("{}/{}", i.stable, i.package).into(),
            crate::revision::short(&i.sha).to_string().into(),
            Cell::from(i.previous_sha.as_deref().map(|p| crate::revision::short(p).to_string())),
            i.forced.into(),
            i.confirmations.to_string().into(),
            i.config_file.clone().into(),
        ]);
    }
    if !table {
        // The other formats carry the installs (JSON carries the resolutions too).
        return t.print(output);
    }
    render::out("installs:\n")?;
    t.print(output)?;
    let mut t = Table::new(["time", "harness", "source", "outcome", "config file"]);
    for r in &resolutions {
        t.push(vec![
            r.ts.clone().into(),
            r.table_name.clone().into(),
            r.source.clone().into(),
            r.outcome.clone().into(),
            r.config_file.clone().into(),
        ]);
    }
    render::out("resolutions:\n")?;
    t.print(output)
}

#[derive(serde::Serialize)]
struct Found {
    package: String,
    version: Option<String>,
    description: Option<String>,
    head: String,
    valid: bool,
}

fn search(ctx: &Ctx, query: Option<&str>, output: render::Output) -> anyhow::Result<()> {
    let format = output.format;
    let json = format == render::Format::Json;
    let paths = ctx.paths()?;
    let cfg = ctx.config()?;
    let tctx = TableContext::from_config(cfg);
    let q = query.map(str::to_lowercase);
    let mut found = Vec::new();
    for d in stable::declared(cfg) {
        let dir = stable::clone_dir(paths, &d.name);
        let Ok(head) = git::resolve_version(&dir, None) else { continue };
        for pkg in git::list_packages(&dir, &head).unwrap_or_default() {
            let files = git::read_package(&dir, &head, &pkg).unwrap_or_default();
            let m = files
                .manifest_text()
                .ok()
                .and_then(|t| agent::manifest::parse(t, Some(&files), &tctx).ok());
            let f = Found {
                package: format!("{}/{pkg}", d.name),
                version: m.as_ref().and_then(|m| m.version.clone()),
                description: m.as_ref().and_then(|m| m.description.clone()),
                head: head.clone(),
                valid: m.is_some(),
            };
            let hay = format!("{} {}", f.package, f.description.clone().unwrap_or_default()).to_lowercase();
            if q.as_ref().is_none_or(|q| hay.contains(q)) {
                found.push(f);
            }
        }
    }
    if json {
        return render::json(&found);
    }
    if found.is_empty() && format == render::Format::Table {
        return render::out("no package found in the local clones (`tlc stable update` fetches them)\n");
    }
    let mut t = Table::new(["package", "version", "description", "manifest"]);
    for f in found {
        t.push(vec![
            f.package.into(),
            f.version.into(),
            f.description.into(),
            (if f.valid { "ok" } else { "refused" }).into(),
        ]);
    }
    t.print(output)
}

fn info(ctx: &Ctx, package: &str, output: render::Output) -> anyhow::Result<()> {
    let json = output.format == render::Format::Json;
    let r = PackageRef::parse(package)?;
    let paths = ctx.paths()?;
    let cfg = ctx.config()?;
    let tctx = TableContext::from_config(cfg);
    let (sha, files) = install::read_from_clone(paths, cfg, &r)?;
    let checked = install::validate_files(&files, &r.package, &tctx);
    let homepage = checked.as_ref().ok().and_then(|m| m.homepage.clone());
    let findings = scan::scan_package(&files, homepage.as_deref());
    let text = files.manifest_text().unwrap_or_default().to_string();
    if !json && output.format != render::Format::Table {
        // The other formats carry the package's files (JSON carries everything).
        let mut t = Table::new(["path", "size", "sha256"]);
        for f in &files.files {
            t.push(vec![f.path.clone().into(), (f.bytes.len() as i64).into(), f.sha256().into()]);
        }
        t.print(output)?;
    } else if json {
        let requests = checked.as_ref().ok().map(|m| m.requests.itemised());
        render::json(&serde_json::json!({
            "package": r.name(),
            "sha": sha,
            "manifest": text,
            "valid": checked.is_ok(),
            "errors": checked.as_ref().err().cloned().unwrap_or_default(),
            "requests": requests,
            "defaults": checked.as_ref().ok().map(|m| m.ordered_defaults().into_iter().map(|(k, v)| (k.to_string(), v.to_json())).collect::<serde_json::Map<_, _>>()),
            "files": files.files.iter().map(|f| serde_json::json!({ "path": f.path, "size": f.bytes.len(), "sha256": f.sha256() })).collect::<Vec<_>>(),
            "scan_rules": scan::RULES_VERSION,
            "notice": scan::TRIPWIRE_NOTICE,
            "findings": findings,
        }))?;
    } else {
        let mut s = format!("== {}@{}\n\n-- manifest: package.toml (verbatim) --\n{text}", r.name(), sha);
        if !text.ends_with('\n') {
            s.push('\n');
        }
        match &checked {
            Ok(m) => {
                s.push_str("\n-- requests --\n");
                for q in m.requests.itemised() {
                    s.push_str(&format!("  * {q}\n"));
                }
                if !m.defaults.is_empty() {
                    s.push_str("\n-- suggested defaults (never applied unless you accept them at install) --\n");
                    for (k, v) in m.ordered_defaults() {
                        s.push_str(&format!("  {k} = {}\n", v.to_toml_text()));
                    }
                }
            }
            Err(errors) => {
                s.push_str("\n-- REFUSED: this package cannot be installed --\n");
                for e in errors {
                    s.push_str(&format!("  {e}\n"));
                }
            }
        }
        s.push_str(&format!("\n-- files ({}) --\n", files.files.len()));
        for f in &files.files {
            s.push_str(&format!("  {}  ({} bytes)\n", render::escape_controls(&f.path), f.bytes.len()));
        }
        s.push_str(&install::findings_text(&findings));
        render::out(&s)?;
    }
    if checked.is_err() {
        return Err(refused(format!("{}: the manifest is refused", r.name())));
    }
    Ok(())
}
