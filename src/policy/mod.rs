//! Policy: the operator's posture and state, the rails, and policy integrity. A rail only
//! produces a [`crate::decision::Decision`]; the provider adapter renders it.

pub mod integrity;
pub mod state;

pub use state::OperatorState;

/// How much the agent surfaces and what earns an interruption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Posture {
    Paired,
    Solo,
    Focus,
}

impl Posture {
    pub const DEFAULT: Posture = Posture::Solo;

    pub fn parse(word: &str) -> Option<Posture> {
        match word {
            "paired" => Some(Posture::Paired),
            "solo" => Some(Posture::Solo),
            "focus" => Some(Posture::Focus),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Posture::Paired => "paired",
            Posture::Solo => "solo",
            Posture::Focus => "focus",
        }
    }
}

/// Where the running posture came from, and any word that was refused on the way.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PostureResolution {
    pub posture: Posture,
    /// `mode-state` (set by `tlc mode`), `config`, or `default`.
    pub source: &'static str,
    /// A value that was not a posture, with where it was found.
    pub rejected: Option<(String, &'static str)>,
}

/// Precedence: the mode state set by `tlc mode`, then `mode` in config, then `solo`. Any other
/// word is refused rather than absorbed, and reported.
pub fn resolve_posture(mode_state: Option<&str>, config_mode: &str) -> PostureResolution {
    let mut rejected = None;
    if let Some(word) = mode_state {
        match Posture::parse(word) {
            Some(p) => {
                return PostureResolution {
                    posture: p,
                    source: "mode-state",
                    rejected: None,
                }
            }
            None => rejected = Some((word.to_string(), "mode-state")),
        }
    }
    match Posture::parse(config_mode) {
        Some(p) => PostureResolution {
            posture: p,
            source: "config",
            rejected,
        },
        None => PostureResolution {
            posture: Posture::DEFAULT,
            source: "default",
            rejected: rejected.or_else(|| (!config_mode.is_empty()).then(|| (config_mode.to_string(), "config"))),
        },
    }
}

/// [`resolve_posture`] over a loaded config: a `mode` only the shipped defaults set counts as
/// the default, not as a config choice.
pub fn resolve_for(mode_state: Option<&str>, config: &crate::config::Config) -> PostureResolution {
    let chosen = config
        .get("mode")
        .filter(|(_, o)| o.tier != crate::config::Tier::Default)
        .map_or("", |_| config.settings.mode.as_str());
    resolve_posture(mode_state, chosen)
}

/// One rail and whether it is on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rail {
    pub rail: &'static str,
    pub key: &'static str,
    pub on: bool,
    /// Whether this tlc enforces the rail on the hook path (the others are configuration that no
    /// hook acts on yet).
    pub enforced: bool,
}

/// Every rail, whether `settings` turns it on, and whether this tlc enforces it yet. A rail
/// listed as on and enforced must act on the hook path; the others are configuration only.
pub fn rails(settings: &crate::config::Settings) -> Vec<Rail> {
    let s = settings;
    let rail = |rail, key, on, enforced| Rail { rail, key, on, enforced };
    vec![
        rail("policy integrity", "(always on)", true, true),
        rail("secret redaction", "secrets.redactOutput", s.secrets.redact_output, true),
        rail("grind (lint/test gates)", "grind.enabled", s.grind.enabled, false),
        rail("ship gate", "shipGate.enabled", s.ship_gate.enabled, false),
        rail(
            "empty-diff anti-ship",
            "shipGate.emptyDiffAntiShip",
            s.ship_gate.empty_diff_anti_ship,
            false,
        ),
        rail("catastrophic shell ask", "shell.catastrophicAsk", s.shell.catastrophic_ask, false),
        rail("shell stall detection", "shell.stallDetection", s.shell.stall_detection, false),
        rail(
            "subagent allowlist",
            "subagents.enforceAllowlist",
            s.subagents.enforce_allowlist,
            false,
        ),
        rail(
            "block parent fast",
            "subagents.blockParentFast",
            s.subagents.block_parent_fast,
            false,
        ),
        rail("idle turn gate", "intelligence.idleTurnGate", s.intelligence.idle_turn_gate, false),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posture_precedence_and_rejected_words() {
        let r = resolve_posture(Some("focus"), "paired");
        assert_eq!((r.posture, r.source), (Posture::Focus, "mode-state"));
        let r = resolve_posture(None, "paired");
        assert_eq!((r.posture, r.source), (Posture::Paired, "config"));
        let r = resolve_posture(None, "turbo");
        assert_eq!((r.posture, r.source), (Posture::Solo, "default"));
        assert_eq!(r.rejected, Some(("turbo".into(), "config")));
        let r = resolve_posture(Some("yolo"), "focus");
        assert_eq!((r.posture, r.source), (Posture::Focus, "config"));
        assert_eq!(r.rejected, Some(("yolo".into(), "mode-state")));
    }
}
