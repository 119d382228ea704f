//! What every command needs: the resolved locations and the loaded configuration.

use crate::config::Config;
use crate::paths::Paths;
use crate::project::Project;
use std::cell::OnceCell;

/// Lazily resolved context: a command that needs no config never reads one.
#[derive(Default)]
pub struct Ctx {
    paths: OnceCell<Paths>,
    config: OnceCell<Config>,
}

impl Ctx {
    pub fn new() -> Ctx {
        Ctx::default()
    }

    pub fn paths(&self) -> anyhow::Result<&Paths> {
        if let Some(p) = self.paths.get() {
            return Ok(p);
        }
        crate::clock::check_env().map_err(crate::error::unusable)?;
        let p = Paths::from_env().map_err(crate::error::unusable)?;
        Ok(self.paths.get_or_init(|| p))
    }

    /// The effective configuration; an invalid tier file is an error naming it.
    pub fn config(&self) -> anyhow::Result<&Config> {
        if let Some(c) = self.config.get() {
            return Ok(c);
        }
        let c = Config::load(self.paths()?)?;
        Ok(self.config.get_or_init(|| c))
    }

    /// The repository and where its state lives (guest repositories keep it under the home).
    pub fn project(&self) -> anyhow::Result<Project> {
        Ok(Project::locate(self.paths()?, self.config()?))
    }
}
