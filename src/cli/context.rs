//! What every command needs: the resolved locations and the loaded configuration.

use crate::agent::resolve::ResolvedHarness;
use crate::config::Config;
use crate::paths::Paths;
use crate::project::Project;
use crate::render;
use crate::store::{self, DbKind, Store};
use std::cell::OnceCell;

/// Lazily resolved context: a command that needs no config never reads one.
#[derive(Default)]
pub(crate) struct Ctx {
    paths: OnceCell<Paths>,
    config: OnceCell<Config>,
    harnesses: OnceCell<Vec<ResolvedHarness>>,
}

impl Ctx {
    pub(crate) fn new() -> Ctx {
        Ctx::default()
    }

    pub(crate) fn paths(&self) -> anyhow::Result<&Paths> {
        if let Some(p) = self.paths.get() {
            return Ok(p);
        }
        crate::clock::check_env()?;
        let p = Paths::from_env()?;
        Ok(self.paths.get_or_init(|| p))
    }

    /// The effective configuration; an invalid tier file is an error naming it. Every
    /// `[harness.*]` table is resolved (a `source` from the local pin store only) and validated
    /// here, so every command that loads config refuses a broken or missing pin by name. The hook
    /// path calls `Config::load` directly and never fails on harness tables.
    pub(crate) fn config(&self) -> anyhow::Result<&Config> {
        if let Some(c) = self.config.get() {
            return Ok(c);
        }
        let paths = self.paths()?;
        let c = Config::load(paths)?;
        let resolved = crate::agent::resolve::resolve_config(paths, &c)?;
        let _ = self.harnesses.set(resolved);
        Ok(self.config.get_or_init(|| c))
    }

    /// The configuration without resolving harness tables: for the commands that repair them
    /// (`stable add|update|remove`, `agent install|upgrade|uninstall|prune`).
    pub(crate) fn raw_config(&self) -> anyhow::Result<Config> {
        Ok(Config::load(self.paths()?)?)
    }

    /// Every harness table as it takes effect (resolved and validated).
    pub(crate) fn harnesses(&self) -> anyhow::Result<&[ResolvedHarness]> {
        self.config()?;
        Ok(self.harnesses.get().map(Vec::as_slice).unwrap_or_default())
    }

    /// The repository and where its state lives (guest repositories keep it under the home).
    pub(crate) fn project(&self) -> anyhow::Result<Project> {
        Ok(Project::locate(self.paths()?, self.config()?))
    }

    /// The project database for reading (`None`: nothing was recorded yet; nothing is created).
    pub(crate) fn project_store(&self) -> anyhow::Result<Option<Store>> {
        Ok(store::open_read(DbKind::Project, &self.project()?.db_path())?)
    }

    /// The plain sentence (or JSON object) a reading command prints when the project has no
    /// database yet.
    pub(crate) fn nothing_recorded(&self, json: bool) -> anyhow::Result<()> {
        let project = self.project()?;
        if json {
            return render::json(&serde_json::json!({"recorded": false, "database": project.db_path().display().to_string()}));
        }
        render::out(&format!(
            "nothing recorded yet for {} (no database at {})\n",
            project.root().display(),
            project.db_path().display()
        ))
    }
}
