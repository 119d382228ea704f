//! `tlc install [--claude] [--cursor] [--dry-run]` and `tlc uninstall [--dry-run]`: wiring tlc's
//! hook entries into Claude Code's settings.json and Cursor's hooks.json.

use crate::hook::wiring;
use crate::render;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// Wire Claude Code (settings.json in CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long)]
    pub claude: bool,
    /// Wire Cursor (hooks.json in CURSOR_CONFIG_DIR, else ~/.cursor).
    #[arg(long)]
    pub cursor: bool,
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

struct Target {
    provider: &'static str,
    dir: PathBuf,
    file: PathBuf,
}

fn config_dir(var: &str, default: &str) -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(d));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(default))
}

fn targets() -> Vec<Target> {
    let mut t = Vec::new();
    if let Some(dir) = config_dir("CLAUDE_CONFIG_DIR", ".claude") {
        t.push(Target {
            provider: "claude",
            file: dir.join("settings.json"),
            dir,
        });
    }
    if let Some(dir) = config_dir("CURSOR_CONFIG_DIR", ".cursor") {
        t.push(Target {
            provider: "cursor",
            file: dir.join("hooks.json"),
            dir,
        });
    }
    t
}

fn read_json(path: &Path) -> anyhow::Result<Option<serde_json::Value>> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Some(serde_json::json!({}))),
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| crate::error::unusable(format!("{}: not valid JSON ({e}); left as it is", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(crate::error::refused(format!("{}: cannot read: {e}", path.display()))),
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
    let explicit = args.claude || args.cursor;
    let mut done_any = false;
    for t in targets() {
        let wanted = if explicit {
            (t.provider == "claude" && args.claude) || (t.provider == "cursor" && args.cursor)
        } else {
            t.dir.is_dir()
        };
        if !wanted {
            if !explicit {
                render::out(&format!(
                    "{}: {} not found — skipped (pass --{} to wire it anyway)\n",
                    t.provider,
                    t.dir.display(),
                    t.provider
                ))?;
            }
            continue;
        }
        done_any = true;
        let existing = read_json(&t.file)?;
        let existed = existing.is_some();
        let mut value = existing.unwrap_or_else(|| serde_json::json!({}));
        let command = wiring::hook_command(&exe, t.provider);
        let added = match t.provider {
            "claude" => wiring::install_claude(&mut value, &command),
            _ => wiring::install_cursor(&mut value, &command),
        };
        if added.is_empty() {
            render::out(&format!(
                "{}: {} already runs `{command}` on every event — nothing to do\n",
                t.provider,
                t.file.display()
            ))?;
            continue;
        }
        if args.dry_run {
            render::out(&format!(
                "{}: would add `{command}` to {} in {} (dry run: nothing written)\n",
                t.provider,
                added.join(", "),
                t.file.display()
            ))?;
            continue;
        }
        let backup = write_with_backup(&t.file, existed, &value)?;
        render::out(&format!(
            "{}: added `{command}` to {} in {}\n",
            t.provider,
            added.join(", "),
            t.file.display()
        ))?;
        if let Some(b) = backup {
            render::out(&format!("  backup: {}\n", b.display()))?;
        }
    }
    if !done_any && !explicit {
        render::out("no provider found: pass --claude or --cursor to wire one\n")?;
    }
    Ok(())
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<()> {
    for t in targets() {
        let Some(mut value) = read_json(&t.file)? else { continue };
        let removed = match t.provider {
            "claude" => wiring::uninstall_claude(&mut value),
            _ => wiring::uninstall_cursor(&mut value),
        };
        if removed.is_empty() {
            render::out(&format!("{}: {} has no tlc entries\n", t.provider, t.file.display()))?;
            continue;
        }
        if args.dry_run {
            render::out(&format!(
                "{}: would remove tlc from {} in {} (dry run: nothing written)\n",
                t.provider,
                removed.join(", "),
                t.file.display()
            ))?;
            continue;
        }
        let backup = write_with_backup(&t.file, true, &value)?;
        render::out(&format!(
            "{}: removed tlc from {} in {}\n",
            t.provider,
            removed.join(", "),
            t.file.display()
        ))?;
        if let Some(b) = backup {
            render::out(&format!("  backup: {}\n", b.display()))?;
        }
    }
    Ok(())
}
