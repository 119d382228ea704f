//! Policy: the operator's posture and state, the rails, and policy integrity. A rail only
//! produces a [`crate::decision::Decision`]; the provider adapter renders it.

pub(crate) mod attest;
pub(crate) mod boundary;
pub(crate) mod catalog;
pub(crate) mod claims;
pub(crate) mod contract;
pub(crate) mod decide;
pub(crate) mod facts;
pub mod floor;
pub(crate) mod integrity;
pub(crate) mod operator;
pub mod rails;
pub(crate) mod rules;
pub mod shell;
pub(crate) mod state;
pub(crate) mod untrusted;
pub(crate) mod work_loss;

pub(crate) use decide::decide;
pub(crate) use facts::{ActFacts, Acting, Prior, Spawn};
pub(crate) use state::OperatorState;

/// How much the agent surfaces and what earns an interruption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Posture {
    Paired,
    Solo,
    Focus,
}

impl Posture {
    pub(crate) const DEFAULT: Posture = Posture::Solo;

    pub(crate) fn parse(word: &str) -> Option<Posture> {
        match word {
            "paired" => Some(Posture::Paired),
            "solo" => Some(Posture::Solo),
            "focus" => Some(Posture::Focus),
            _ => None,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Posture::Paired => "paired",
            Posture::Solo => "solo",
            Posture::Focus => "focus",
        }
    }
}

/// Where the running posture came from, and any word that was refused on the way.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct PostureResolution {
    pub posture: Posture,
    /// `mode-state` (set by `tlc mode`), `config`, or `default`.
    pub source: &'static str,
    /// A value that was not a posture, with where it was found.
    pub rejected: Option<(String, &'static str)>,
}

/// Precedence: the mode state set by `tlc mode`, then `mode` in config, then `solo`. Any other
/// word is refused rather than absorbed, and reported.
pub(crate) fn resolve_posture(mode_state: Option<&str>, config_mode: &str) -> PostureResolution {
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
pub(crate) fn resolve_for(mode_state: Option<&str>, config: &crate::config::Config) -> PostureResolution {
    let chosen = config
        .get("mode")
        .filter(|(_, o)| o.tier != crate::config::Tier::Default)
        .map_or("", |_| config.settings.mode.as_str());
    resolve_posture(mode_state, chosen)
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
