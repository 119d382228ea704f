//! `tlc install [--<provider>…] [--dry-run]` and `tlc uninstall [--dry-run]`: wiring tlc's hook
//! entries into each provider's settings file (Claude Code's settings.json, Cursor's hooks.json:
//! see `hook::PROVIDERS`).

use crate::hook::settings_file::{diff, Settings};
use crate::hook::{additions, boundary, wiring, Provider, PROVIDERS};
use crate::policy::boundary::store::{BoundaryStore, OPERATOR_PATH};
use crate::render;
use std::path::Path;

#[derive(Debug, clap::Args)]
pub(crate) struct InstallArgs {
    #[command(flatten)]
    pub providers: ProviderFlags,
    /// Print the plan and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Also set Claude Code's statusLine to `tlc statusline` (alone, without a provider flag: only
    /// that). Another command already there is left as it is unless --replace-statusline.
    #[arg(long)]
    pub statusline: bool,
    /// With --statusline: replace another tool's statusLine.
    #[arg(long, requires = "statusline")]
    pub replace_statusline: bool,
    /// Wire the hooks only, not the client's own sandbox (tlc's boundary is then recognition
    /// only: `tlc status` says so).
    #[arg(long)]
    pub no_sandbox: bool,
}

#[derive(Debug, clap::Args)]
pub(crate) struct UninstallArgs {
    /// Print the plan and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `--<name>` for each provider in `hook::PROVIDERS`: the ones named on the command line.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProviderFlags(pub Vec<&'static dyn Provider>);

impl clap::FromArgMatches for ProviderFlags {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(ProviderFlags(PROVIDERS.iter().copied().filter(|p| m.get_flag(p.name())).collect()))
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for ProviderFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        PROVIDERS.iter().fold(cmd, |cmd, p| {
            cmd.arg(
                clap::Arg::new(p.name())
                    .long(p.name())
                    .action(clap::ArgAction::SetTrue)
                    .help(format!(
                        "Wire {} ({} in {}, else ~/{})",
                        p.product(),
                        p.settings_file(),
                        p.config_dir_var(),
                        p.config_dir_default()
                    )),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

pub(crate) fn install(args: InstallArgs) -> anyhow::Result<()> {
    let exe = std::env::current_exe().map_err(|e| crate::error::refused(format!("cannot locate the tlc binary: {e}")))?;
    let exe = exe.display().to_string();
    if args.statusline {
        install_statusline(&exe, args.replace_statusline, args.dry_run)?;
        if args.providers.0.is_empty() {
            return Ok(());
        }
    }
    let explicit = !args.providers.0.is_empty();
    let mut done_any = false;
    let paths = crate::paths::Paths::from_env()?;
    let sandbox_set = boundary::install_set(&paths);
    for &p in PROVIDERS {
        if explicit && !args.providers.0.iter().any(|w| w.name() == p.name()) {
            continue;
        }
        let dir = match p.config_dir() {
            Ok(dir) => dir,
            Err(e) if explicit => return Err(crate::error::unusable(format!("{}: {e}", p.name()))),
            Err(e) => {
                render::out(&format!("{}: {e} — skipped\n", p.name()))?;
                continue;
            }
        };
        if !explicit && !dir.is_dir() {
            render::out(&format!(
                "{}: {} not found — skipped (pass --{} to wire it anyway)\n",
                p.name(),
                dir.display(),
                p.name()
            ))?;
            continue;
        }
        done_any = true;
        wire(p, &dir, &exe, &args, &sandbox_set)?;
    }
    if !done_any && !explicit {
        let flags: Vec<String> = PROVIDERS.iter().map(|p| format!("--{}", p.name())).collect();
        render::out(&format!("no provider found: pass {} to wire one\n", flags.join(" or ")))?;
    }
    Ok(())
}

/// Wires one provider: tlc's hook entries, and where the client has a kernel sandbox, that
/// sandbox on with `protected` out of its commands' reach (issue 51). One write, one backup;
/// what the sandbox wiring added is recorded in the home database first, for `tlc uninstall`.
fn wire(
    p: &'static dyn Provider,
    dir: &Path,
    exe: &str,
    args: &InstallArgs,
    protected: &[crate::policy::boundary::Protected],
) -> anyhow::Result<()> {
    let file = dir.join(p.settings_file());
    let settings = if args.dry_run {
        Settings::read(dir, &file)?
    } else {
        Settings::read_locked(dir, &file)?
    };
    let mut value = settings.value.clone();
    let command = wiring::hook_command(exe, p.name());
    let left = |e: String| crate::error::unusable(format!("{}: {e}; left as it is", file.display()));
    let hooks = wiring::install(p, &mut value, &command).map_err(left)?;
    let mut sandbox = Vec::new();
    let mut skipped = None;
    if let Some(wants) = p.sandbox_wants(protected) {
        if args.no_sandbox {
            skipped = Some("--no-sandbox".to_string());
        } else if let Some(why) = boundary::sandbox_missing() {
            skipped = Some(why);
        } else {
            sandbox = additions::apply(&mut value, &wants).map_err(left)?;
        }
    }
    if let Some(why) = &skipped {
        render::out(&format!(
            "{}: {}'s sandbox not wired ({why}): the boundary is recognition only (`tlc status` says which routes stay open)\n",
            p.name(),
            p.product()
        ))?;
    }
    if hooks.is_empty() && sandbox.is_empty() {
        return render::out(&format!(
            "{}: {} already runs `{command}` on every event{} — nothing to do\n",
            p.name(),
            file.display(),
            if skipped.is_none() && p.sandbox_wants(protected).is_some() {
                format!(" and has {}'s sandbox on", p.product())
            } else {
                String::new()
            }
        ));
    }
    let text = settings.text_for(&value)?;
    let what = describe(&command, &hooks, &sandbox, p);
    if args.dry_run {
        render::out(&format!(
            "{}: would add {what} in {} (dry run: nothing written)\n",
            p.name(),
            file.display()
        ))?;
        return render::out(&diff(&file, &settings.text, &text));
    }
    let paths = crate::paths::Paths::from_env()?;
    let mut home = crate::store::open_write(crate::store::DbKind::Home, &paths.home_db())?;
    let tx = home.conn_mut().transaction()?;
    let store = BoundaryStore::new(&tx);
    let file_name = file.display().to_string();
    for a in &sandbox {
        store.record_added(p.name(), &file_name, a)?;
    }
    if let Some(path) = std::env::var_os("PATH") {
        let kept: Vec<std::path::PathBuf> = std::env::split_paths(&path).filter(|d| d.is_absolute()).collect();
        if let Ok(joined) = std::env::join_paths(kept) {
            store.set_fact(OPERATOR_PATH, &joined.to_string_lossy())?;
        }
    }
    let backup = settings.write(&text)?;
    tx.commit()?;
    render::out(&format!("{}: added {what} in {}\n", p.name(), file.display()))?;
    if let Some(b) = backup {
        render::out(&format!("  backup: {}\n", b.display()))?;
    }
    Ok(())
}

/// What a wiring adds, in words: the hook command's events, and the sandbox's keys.
fn describe(command: &str, hooks: &[String], sandbox: &[crate::policy::boundary::store::Added], p: &dyn Provider) -> String {
    let mut parts = Vec::new();
    if !hooks.is_empty() {
        parts.push(format!("`{command}` to {}", hooks.join(", ")));
    }
    if !sandbox.is_empty() {
        let dotted = |k: &str| k.trim_start_matches('/').replace('/', ".");
        let mut what: Vec<String> = sandbox
            .iter()
            .filter(|a| !a.container && a.item.is_empty())
            .map(|a| format!("{} = {}", dotted(&a.pointer), a.written))
            .collect();
        let items = sandbox.iter().filter(|a| !a.item.is_empty()).count();
        if items > 0 {
            let lists: std::collections::BTreeSet<String> =
                sandbox.iter().filter(|a| !a.item.is_empty()).map(|a| dotted(&a.pointer)).collect();
            what.push(format!(
                "{items} entries of the protected set in {}",
                lists.into_iter().collect::<Vec<_>>().join(" and ")
            ));
        }
        parts.push(format!("{}'s sandbox ({})", p.product(), what.join(", ")));
    }
    parts.join(" and ")
}

/// Whether a statusLine `command` is tlc's.
fn is_ours(command: &str) -> bool {
    command.trim_end().ends_with(" statusline")
        && Path::new(command.trim_end().trim_end_matches(" statusline").trim_matches('"'))
            .file_name()
            .is_some_and(|n| n == "tlc")
}

/// The provider whose settings file holds a status line (Claude Code's).
fn statusline_provider() -> anyhow::Result<&'static dyn Provider> {
    PROVIDERS
        .iter()
        .copied()
        .find(|p| p.has_statusline())
        .ok_or_else(|| crate::error::unusable("statusline: no provider takes a status line".to_string()))
}

/// `tlc install --statusline`: Claude Code's settings.json gets `statusLine` = `<tlc> statusline`.
fn install_statusline(exe: &str, replace: bool, dry_run: bool) -> anyhow::Result<()> {
    let p = statusline_provider()?;
    let dir = p.config_dir().map_err(|e| crate::error::unusable(format!("statusline: {e}")))?;
    let file = dir.join(p.settings_file());
    let settings = if dry_run {
        Settings::read(&dir, &file)?
    } else {
        Settings::read_locked(&dir, &file)?
    };
    let mut value = settings.value.clone();
    let command = format!("{exe} statusline");
    let current = value.get("statusLine").cloned();
    let current_command = current
        .as_ref()
        .and_then(|s| s.get("command"))
        .and_then(|c| c.as_str())
        .map(str::to_string);
    match &current_command {
        Some(c) if *c == command => {
            return render::out(&format!(
                "statusline: {} already runs `{command}` — nothing to do\n",
                file.display()
            ));
        }
        Some(c) if !replace && !is_ours(c) => {
            return Err(crate::error::refused(format!(
                "statusline: {} already has a statusLine (`{c}`); left as it is (pass --replace-statusline to replace it)",
                file.display()
            )));
        }
        None if current.is_some() && !replace => {
            return Err(crate::error::refused(format!(
                "statusline: {} already has a statusLine that runs no command; left as it is (pass --replace-statusline to replace it)",
                file.display()
            )));
        }
        _ => {}
    }
    let Some(obj) = value.as_object_mut() else {
        return Err(crate::error::unusable(format!(
            "{}: not a JSON object; left as it is",
            file.display()
        )));
    };
    obj.insert(
        "statusLine".into(),
        serde_json::json!({"type": "command", "command": command, "padding": 0}),
    );
    let text = settings.text_for(&value)?;
    if dry_run {
        render::out(&format!(
            "statusline: would set statusLine to `{command}` in {} (dry run: nothing written)\n",
            file.display()
        ))?;
        return render::out(&diff(&file, &settings.text, &text));
    }
    let backup = settings.write(&text)?;
    render::out(&format!("statusline: set statusLine to `{command}` in {}\n", file.display()))?;
    if let Some(b) = backup {
        render::out(&format!("  backup: {}\n", b.display()))?;
    }
    Ok(())
}

/// Removes tlc's statusLine (only tlc's) from `value`; whether it did.
fn uninstall_statusline(value: &mut serde_json::Value) -> bool {
    let ours = value
        .get("statusLine")
        .and_then(|s| s.get("command"))
        .and_then(|c| c.as_str())
        .is_some_and(is_ours);
    ours && value.as_object_mut().is_some_and(|o| o.remove("statusLine").is_some())
}

/// The providers whose settings file holds tlc's hook entries now (what `tlc update` re-wires).
/// A file that cannot be read or parsed counts as not wired.
pub(crate) fn wired_providers() -> Vec<&'static dyn Provider> {
    PROVIDERS
        .iter()
        .copied()
        .filter(|p| {
            let Ok(dir) = p.config_dir() else { return false };
            let file = dir.join(p.settings_file());
            Settings::read(&dir, &file).is_ok_and(|s| {
                wiring::wired_commands(&s.value)
                    .iter()
                    .any(|(_, cmd)| wiring::is_tlc_command(cmd, p.name()))
            })
        })
        .collect()
}

pub(crate) fn uninstall(args: UninstallArgs) -> anyhow::Result<()> {
    for &p in PROVIDERS {
        let dir = match p.config_dir() {
            Ok(dir) => dir,
            Err(e) => {
                render::out(&format!("{}: {e} — skipped\n", p.name()))?;
                continue;
            }
        };
        let file = dir.join(p.settings_file());
        if std::fs::symlink_metadata(&file).is_err() {
            continue;
        }
        let settings = if args.dry_run {
            Settings::read(&dir, &file)?
        } else {
            Settings::read_locked(&dir, &file)?
        };
        if !settings.existed {
            continue;
        }
        let mut value = settings.value.clone();
        let mut removed = wiring::uninstall(p, &mut value);
        if p.has_statusline() && uninstall_statusline(&mut value) {
            removed.push("statusLine".into());
        }
        let file_name = file.display().to_string();
        let added = recorded_additions(p, &file_name)?;
        let sandbox = additions::revert(&mut value, &added);
        if !sandbox.is_empty() {
            removed.push(format!("{}'s sandbox", p.product()));
        }
        if removed.is_empty() {
            render::out(&format!("{}: {} has no tlc entries\n", p.name(), file.display()))?;
            continue;
        }
        let text = settings.text_for(&value)?;
        if args.dry_run {
            render::out(&format!(
                "{}: would remove tlc from {} in {} (dry run: nothing written)\n",
                p.name(),
                removed.join(", "),
                file.display()
            ))?;
            render::out(&diff(&file, &settings.text, &text))?;
            continue;
        }
        let backup = settings.write(&text)?;
        if !added.is_empty() {
            forget_additions(p, &file_name)?;
        }
        render::out(&format!(
            "{}: removed tlc from {} in {}\n",
            p.name(),
            removed.join(", "),
            file.display()
        ))?;
        if let Some(b) = backup {
            render::out(&format!("  backup: {}\n", b.display()))?;
        }
    }
    Ok(())
}

/// What `tlc install` recorded adding to `file` for `p` (none when the home database does not
/// exist: nothing was recorded, and nothing is created to say so).
fn recorded_additions(p: &dyn Provider, file: &str) -> anyhow::Result<Vec<crate::policy::boundary::store::Added>> {
    let paths = crate::paths::Paths::from_env()?;
    match crate::store::open_read(crate::store::DbKind::Home, &paths.home_db())? {
        Some(home) => Ok(BoundaryStore::new(home.conn()).added(p.name(), file)?),
        None => Ok(Vec::new()),
    }
}

fn forget_additions(p: &dyn Provider, file: &str) -> anyhow::Result<()> {
    let paths = crate::paths::Paths::from_env()?;
    let home = crate::store::open_write(crate::store::DbKind::Home, &paths.home_db())?;
    BoundaryStore::new(home.conn()).forget_added(p.name(), file)?;
    Ok(())
}
