//! The capability catalog: the optional features that have a switch of their own, each off at its
//! shipped default. `tlc init` asks about each at a terminal (docs/init.md) and `tlc doctor` warns
//! about each left off (docs/doctor.md); nothing ever turns one on by itself.
//!
//! One table, one line per feature: the wizard asks by the key's kind (`keys.rs`: a boolean is a
//! yes/no, an enum a choice, a list a command or a list of words) and doctor compares the key's
//! effective value with its shipped default, so adding an opt-in is adding its line here.
//!
//! Not offered: shipping (`[ship]`, machine tier only: a project cannot send its record off the
//! machine), and the untrusted-content rails, whose keys this tlc does not have yet.

use super::registry::{self, KeySpec};
use super::{Config, Origin, Value};

/// One optional feature.
#[derive(Debug, Clone, Copy)]
pub struct OptIn {
    /// The feature as the operator knows it.
    pub feature: &'static str,
    /// The key that switches it on.
    pub key: &'static str,
    /// Keys asked only once the switch is turned on: what the feature needs to act (grind's
    /// commands, the allowlist's models).
    pub then: &'static [&'static str],
}

const fn opt(feature: &'static str, key: &'static str, then: &'static [&'static str]) -> OptIn {
    OptIn { feature, key, then }
}

/// Every opt-in, in the order the wizard asks.
pub const CATALOG: &[OptIn] = &[
    opt("grind", "grind.enabled", &["grind.testCommand", "grind.lintCommand"]),
    opt("docs gate", "docs.command", &[]),
    opt("ship gate", "shipGate.enabled", &[]),
    opt("comment policy", "comments.enabled", &[]),
    opt("duplication", "duplication.enabled", &[]),
    opt("supply chain", "supplyChain.enabled", &[]),
    opt("lessons", "intelligence.lessons.enabled", &[]),
    opt("subagent model required", "subagents.requireModel", &[]),
    opt("subagent allowlist", "subagents.enforceAllowlist", &["subagents.allowedModels"]),
    opt("subagent minimum effort", "subagents.minEffort", &[]),
    opt("subagent parent fast", "subagents.blockParentFast", &[]),
    opt("untrusted content", "untrustedContent.enabled", &["untrustedContent.mode"]),
    opt("plan gate", "planGate.enabled", &[]),
    opt("operator rules", "rules.enabled", &[]),
];

impl OptIn {
    /// The switch's spec (every catalog key is a known key: a unit test keeps it so).
    pub(crate) fn spec(&self) -> Option<&'static KeySpec> {
        registry::spec(self.key)
    }
}

/// One opt-in as a configuration has it.
#[derive(Debug, Clone)]
pub(crate) struct OptInState {
    pub opt: OptIn,
    /// The effective value.
    pub value: Value,
    /// Where it comes from.
    pub origin: Origin,
    /// False while the value is the shipped default (off).
    pub on: bool,
}

/// Every opt-in of the catalog with its effective value in `cfg`.
pub(crate) fn states(cfg: &Config) -> Vec<OptInState> {
    CATALOG
        .iter()
        .filter_map(|opt| {
            let spec = opt.spec()?;
            let (value, origin) = cfg.get(opt.key)?.clone();
            let on = value != Value::from_default(spec.default);
            Some(OptInState {
                opt: *opt,
                value,
                origin,
                on,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::registry::{Default, Tiers};
    use super::*;

    /// Whether `d` is a value that switches nothing on: false, an empty list, "off".
    fn is_off(d: Default) -> bool {
        match d {
            Default::Bool(b) => !b,
            Default::List(l) => l.is_empty(),
            Default::Str(s) => s == "off",
            Default::Off => true,
            Default::Int(_) | Default::Float(_) => false,
        }
    }

    /// Whether a project config may set `spec` (the wizard writes the project tier).
    fn offerable(spec: &KeySpec) -> bool {
        spec.tiers == Tiers::Both && spec.policy
    }

    #[test]
    fn every_opt_in_is_a_project_key_that_ships_off() {
        for opt in CATALOG.iter() {
            let spec = opt.spec().unwrap_or_else(|| panic!("{}: not in keys.rs", opt.key));
            assert!(offerable(spec), "{}: a project cannot set it", opt.key);
            assert!(is_off(spec.default), "{}: an opt-in ships off", opt.key);
            assert!(!opt.key.starts_with("ship."), "shipping is machine tier only");
            for then in opt.then {
                let s = registry::spec(then).unwrap_or_else(|| panic!("{then}: not in keys.rs"));
                assert!(offerable(s), "{then}: a project cannot set it");
            }
        }
        let mut keys: Vec<&str> = CATALOG.iter().map(|o| o.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), CATALOG.len(), "one line per opt-in");
    }

    #[test]
    fn the_shipped_defaults_leave_every_opt_in_off_and_a_set_key_turns_it_on() {
        let all = states(&Config::defaults());
        assert_eq!(all.len(), CATALOG.len());
        assert!(all.iter().all(|s| !s.on), "{all:?}");
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p.toml");
        std::fs::write(&project, "[grind]\nenabled = true\n[subagents]\nminEffort = \"high\"\n").unwrap();
        let cfg = Config::load_files(&dir.path().join("none.toml"), Some(&project)).unwrap();
        let on: Vec<&str> = states(&cfg).iter().filter(|s| s.on).map(|s| s.opt.key).collect();
        assert_eq!(on, ["grind.enabled", "subagents.minEffort"]);
    }
}
