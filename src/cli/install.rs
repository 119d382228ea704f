//! `tlc install [--<provider>…] [--dry-run]` and `tlc uninstall [--dry-run]`: wiring tlc's hook
//! entries into each provider's settings file (Claude Code's settings.json, Cursor's hooks.json:
//! see `hook::PROVIDERS`).

use crate::hook::{settings_text, wiring, Provider, PROVIDERS};
use crate::render;
use std::path::{Path, PathBuf};

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

/// How long an install waits for another tlc writing the same settings folder.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// A provider's settings file as read: its text (empty when there is no file), its value, and
/// the file a write replaces (the file itself, or the target of a symlink that stays inside
/// the provider's folder). Held open, it holds the folder's lock.
struct Settings {
    /// The file as the provider names it (`~/.claude/settings.json`).
    path: PathBuf,
    /// The regular file a write replaces.
    target: PathBuf,
    text: String,
    value: serde_json::Value,
    existed: bool,
    /// An exclusive advisory lock on the provider's folder, so two tlc runs never interleave a
    /// read-modify-write of its files.
    _lock: Option<std::fs::File>,
}

impl Settings {
    /// Reads `path` (in the provider's folder `dir`) without writing anything.
    fn read(dir: &Path, path: &Path) -> anyhow::Result<Settings> {
        Settings::open(dir, path, false)
    }

    /// Takes the folder's lock (creating the folder when it does not exist yet), then reads.
    fn read_locked(dir: &Path, path: &Path) -> anyhow::Result<Settings> {
        Settings::open(dir, path, true)
    }

    fn open(dir: &Path, path: &Path, lock: bool) -> anyhow::Result<Settings> {
        let lock = if lock { Some(lock_folder(dir)?) } else { None };
        let target = write_target(dir, path)?;
        let (text, existed) = read_text(&target)?;
        let value = if text.trim().is_empty() {
            serde_json::json!({})
        } else {
            serde_json::from_str(&text)
                .map_err(|e| crate::error::unusable(format!("{}: not valid JSON ({e}); left as it is", path.display())))?
        };
        Ok(Settings {
            path: path.to_path_buf(),
            target,
            text,
            value,
            existed,
            _lock: lock,
        })
    }

    /// The text to write for `after`: this file's text with only what differs from what it
    /// holds changed (see `hook::settings_text`).
    fn text_for(&self, after: &serde_json::Value) -> anyhow::Result<String> {
        settings_text::rewrite(&self.text, &self.value, after)
            .map_err(|e| crate::error::unusable(format!("{}: {e}; left as it is", self.path.display())))
    }

    /// Writes `text`, first copying what was there to `<file>.tlc-backup`: one backup per file
    /// (the state before the latest run), not one per run. The file is read again first: a hand
    /// edit made since it was read is never overwritten (the run is refused and says so). Both
    /// files are replaced through new temp files and a rename, never written through a link.
    fn write(&self, text: &str) -> anyhow::Result<Option<PathBuf>> {
        let (now, _) = read_text(&self.target)?;
        if now != self.text {
            return Err(crate::error::refused(format!(
                "{}: changed while tlc was editing it (a hand edit?); nothing was written — run the command again",
                self.path.display()
            )));
        }
        let mode = crate::fswrite::regular_mode(&self.target).unwrap_or(0o600);
        if mode & 0o200 == 0 && self.existed {
            return Err(crate::error::refused(format!(
                "{}: read-only (mode {mode:o}); left as it is",
                self.path.display()
            )));
        }
        let backup = if self.existed {
            let name = format!(
                "{}.tlc-backup",
                self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
            );
            let b = self.path.with_file_name(name);
            match std::fs::symlink_metadata(&b) {
                Ok(m) if !m.is_file() => {
                    return Err(crate::error::refused(format!(
                        "{}: the backup {} is {}, not a file tlc wrote; nothing was written",
                        self.path.display(),
                        b.display(),
                        crate::fsread::describe(m.file_type())
                    )))
                }
                _ => {}
            }
            crate::fswrite::replace(&b, self.text.as_bytes(), mode)
                .map_err(|e| crate::error::refused(format!("{}: cannot back up to {}: {e}", self.path.display(), b.display())))?;
            Some(b)
        } else {
            None
        };
        if let Some(dir) = self.target.parent() {
            crate::store::create_private_dir(dir).map_err(|e| crate::error::refused(format!("{}: cannot create: {e}", dir.display())))?;
        }
        crate::fswrite::replace(&self.target, text.as_bytes(), mode)
            .map_err(|e| crate::error::refused(format!("{}: cannot write: {e}", self.path.display())))?;
        Ok(backup)
    }
}

/// The file a write of `path` replaces: `path` itself (there or not yet), or the target of a
/// symlink when that target is a regular file inside the provider's folder `dir`. A link that
/// leaves the folder, dangles, or names anything but a regular file is refused.
fn write_target(dir: &Path, path: &Path) -> anyhow::Result<PathBuf> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(crate::error::refused(format!("{}: cannot read: {e}", path.display()))),
    };
    if meta.is_file() {
        return Ok(path.to_path_buf());
    }
    if !meta.file_type().is_symlink() {
        return Err(crate::error::refused(format!(
            "{}: {}, not a file; left as it is",
            path.display(),
            crate::fsread::describe(meta.file_type())
        )));
    }
    let refuse = |why: String| crate::error::refused(format!("{}: a symbolic link {why}; left as it is", path.display()));
    let target = std::fs::canonicalize(path).map_err(|e| refuse(format!("that does not resolve ({e})")))?;
    let inside = std::fs::canonicalize(dir).is_ok_and(|d| target.starts_with(d));
    if !inside {
        return Err(refuse(format!("to {}, outside {}", target.display(), dir.display())));
    }
    if !std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_file()) {
        return Err(refuse(format!("to {}, which is not a regular file", target.display())));
    }
    Ok(target)
}

/// The text of the regular file `path`, and whether it exists.
fn read_text(path: &Path) -> anyhow::Result<(String, bool)> {
    use crate::fsread::{read_capped_text, Links, SETTINGS_CAP};
    match read_capped_text(path, SETTINGS_CAP, Links::Refuse) {
        Ok(Some(text)) => Ok((text, true)),
        Ok(None) => Ok((String::new(), false)),
        Err(e) => Err(crate::error::refused(e.to_string())),
    }
}

/// An exclusive advisory lock on the folder `dir` (created when missing), waiting at most
/// [`LOCK_WAIT`] for another holder.
fn lock_folder(dir: &Path) -> anyhow::Result<std::fs::File> {
    crate::store::create_private_dir(dir).map_err(|e| crate::error::refused(format!("{}: cannot create: {e}", dir.display())))?;
    let folder = crate::fswrite::open_folder(dir).map_err(|e| crate::error::refused(format!("{}: cannot open: {e}", dir.display())))?;
    let start = std::time::Instant::now();
    loop {
        match folder.try_lock() {
            Ok(()) => return Ok(folder),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(crate::error::refused(format!(
                    "{}: another tlc has held its lock for {} s; nothing was written",
                    dir.display(),
                    LOCK_WAIT.as_secs()
                )))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(crate::error::refused(format!("{}: cannot lock: {e}", dir.display()))),
        }
    }
}

/// A unified diff of `path` from `before` to `after` (what a run would write).
fn diff(path: &Path, before: &str, after: &str) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string()
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
        let file = dir.join(p.settings_file());
        let settings = if args.dry_run {
            Settings::read(&dir, &file)?
        } else {
            Settings::read_locked(&dir, &file)?
        };
        let mut value = settings.value.clone();
        let command = wiring::hook_command(&exe, p.name());
        let added = wiring::install(p, &mut value, &command)
            .map_err(|e| crate::error::unusable(format!("{}: {e}; left as it is", file.display())))?;
        if added.is_empty() {
            render::out(&format!(
                "{}: {} already runs `{command}` on every event — nothing to do\n",
                p.name(),
                file.display()
            ))?;
            continue;
        }
        let text = settings.text_for(&value)?;
        if args.dry_run {
            render::out(&format!(
                "{}: would add `{command}` to {} in {} (dry run: nothing written)\n",
                p.name(),
                added.join(", "),
                file.display()
            ))?;
            render::out(&diff(&file, &settings.text, &text))?;
            continue;
        }
        let backup = settings.write(&text)?;
        render::out(&format!(
            "{}: added `{command}` to {} in {}\n",
            p.name(),
            added.join(", "),
            file.display()
        ))?;
        if let Some(b) = backup {
            render::out(&format!("  backup: {}\n", b.display()))?;
        }
    }
    if !done_any && !explicit {
        let flags: Vec<String> = PROVIDERS.iter().map(|p| format!("--{}", p.name())).collect();
        render::out(&format!("no provider found: pass {} to wire one\n", flags.join(" or ")))?;
    }
    Ok(())
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
