//! `tlc install [--<provider>…] [--dry-run]` and `tlc uninstall [--dry-run]`: wiring tlc's hook
//! entries into each provider's settings file (Claude Code's settings.json, Cursor's hooks.json:
//! see `hook::PROVIDERS`).

use crate::hook::{wiring, Provider, PROVIDERS};
use crate::render;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub providers: ProviderFlags,
    /// Print the plan and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, clap::Args)]
pub struct UninstallArgs {
    /// Print the plan and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `--<name>` for each provider in `hook::PROVIDERS`: the ones named on the command line.
#[derive(Debug, Clone, Default)]
pub struct ProviderFlags(pub Vec<Provider>);

impl clap::FromArgMatches for ProviderFlags {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(ProviderFlags(PROVIDERS.iter().copied().filter(|p| m.get_flag(p.name)).collect()))
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for ProviderFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        PROVIDERS.iter().fold(cmd, |cmd, p| {
            cmd.arg(clap::Arg::new(p.name).long(p.name).action(clap::ArgAction::SetTrue).help(format!(
                "Wire {} ({} in {}, else ~/{})",
                p.product, p.settings_file, p.config_dir_var, p.config_dir_default
            )))
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

fn read_json(path: &Path) -> anyhow::Result<Option<serde_json::Value>> {
    use crate::fsread::{read_capped_text, Links, SETTINGS_CAP};
    match read_capped_text(path, SETTINGS_CAP, Links::Follow) {
        Ok(Some(text)) if text.trim().is_empty() => Ok(Some(serde_json::json!({}))),
        Ok(Some(text)) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| crate::error::unusable(format!("{}: not valid JSON ({e}); left as it is", path.display()))),
        Ok(None) => Ok(None),
        Err(e) => Err(crate::error::refused(e.to_string())),
    }
}

fn write_with_backup(path: &Path, existed: bool, value: &serde_json::Value) -> anyhow::Result<Option<PathBuf>> {
    let backup = if existed {
        let stamp = crate::clock::now().format("%Y%m%dT%H%M%S%.3fZ");
        let name = format!(
            "{}.tlc-backup-{stamp}",
            path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
        );
        let b = path.with_file_name(name);
        std::fs::copy(path, &b)
            .map_err(|e| crate::error::refused(format!("{}: cannot back up to {}: {e}", path.display(), b.display())))?;
        Some(b)
    } else {
        None
    };
    let text = serde_json::to_string_pretty(value)? + "\n";
    crate::config::edit::write_atomic(path, text.as_bytes())?;
    Ok(backup)
}

pub fn install(args: InstallArgs) -> anyhow::Result<()> {
    let exe = std::env::current_exe().map_err(|e| crate::error::refused(format!("cannot locate the tlc binary: {e}")))?;
    let exe = exe.display().to_string();
    let explicit = !args.providers.0.is_empty();
    let mut done_any = false;
    for &p in PROVIDERS {
        if explicit && !args.providers.0.iter().any(|w| w.name == p.name) {
            continue;
        }
        let dir = match p.config_dir() {
            Ok(dir) => dir,
            Err(e) if explicit => return Err(crate::error::unusable(format!("{}: {e}", p.name))),
            Err(e) => {
                render::out(&format!("{}: {e} — skipped\n", p.name))?;
                continue;
            }
        };
        if !explicit && !dir.is_dir() {
            render::out(&format!(
                "{}: {} not found — skipped (pass --{} to wire it anyway)\n",
                p.name,
                dir.display(),
                p.name
            ))?;
            continue;
        }
        done_any = true;
        let file = dir.join(p.settings_file);
        let existing = read_json(&file)?;
        let existed = existing.is_some();
        let mut value = existing.unwrap_or_else(|| serde_json::json!({}));
        let command = wiring::hook_command(&exe, p.name);
        let added = wiring::install(p, &mut value, &command);
        if added.is_empty() {
            render::out(&format!(
                "{}: {} already runs `{command}` on every event — nothing to do\n",
                p.name,
                file.display()
            ))?;
            continue;
        }
        if args.dry_run {
            render::out(&format!(
                "{}: would add `{command}` to {} in {} (dry run: nothing written)\n",
                p.name,
                added.join(", "),
                file.display()
            ))?;
            continue;
        }
        let backup = write_with_backup(&file, existed, &value)?;
        render::out(&format!(
            "{}: added `{command}` to {} in {}\n",
            p.name,
            added.join(", "),
            file.display()
        ))?;
        if let Some(b) = backup {
            render::out(&format!("  backup: {}\n", b.display()))?;
        }
    }
    if !done_any && !explicit {
        let flags: Vec<String> = PROVIDERS.iter().map(|p| format!("--{}", p.name)).collect();
        render::out(&format!("no provider found: pass {} to wire one\n", flags.join(" or ")))?;
    }
    Ok(())
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<()> {
    for &p in PROVIDERS {
        let file = match p.config_dir() {
            Ok(dir) => dir.join(p.settings_file),
            Err(e) => {
                render::out(&format!("{}: {e} — skipped\n", p.name))?;
                continue;
            }
        };
        let Some(mut value) = read_json(&file)? else { continue };
        let removed = wiring::uninstall(p, &mut value);
        if removed.is_empty() {
            render::out(&format!("{}: {} has no tlc entries\n", p.name, file.display()))?;
            continue;
        }
        if args.dry_run {
            render::out(&format!(
                "{}: would remove tlc from {} in {} (dry run: nothing written)\n",
                p.name,
                removed.join(", "),
                file.display()
            ))?;
            continue;
        }
        let backup = write_with_backup(&file, true, &value)?;
        render::out(&format!(
            "{}: removed tlc from {} in {}\n",
            p.name,
            removed.join(", "),
            file.display()
        ))?;
        if let Some(b) = backup {
            render::out(&format!("  backup: {}\n", b.display()))?;
        }
    }
    Ok(())
}
