//! The subagent rails, on a spawn (Claude Code's `Agent`/`Task` PreToolUse, Cursor's
//! `subagentStart` and its `Task` preToolUse), in this order, each a `decisions` rule:
//! `subagent-blocked-pattern` (always on: the built-in fast shapes plus
//! `subagents.blockedPatterns`), `subagent-model-required` (`subagents.requireModel`),
//! `subagent-allowlist` (`subagents.enforceAllowlist` with a non-empty `allowedModels`),
//! `subagent-min-effort` (`subagents.minEffort`), `subagent-parent-fast`
//! (`subagents.blockParentFast`, against the session's recorded model). `subagents.blockMode`
//! says whether a refusal denies or asks.
//!
//! A model string comes from the agent: it is compared in one normal form ([`model_key`]), and a
//! string no model is named by (too long, control or non-ASCII characters that could hide a
//! blocked name) is refused under the always-on rule rather than guessed at.

use crate::config::Settings;
use crate::decision::{Decision, Permission};
use crate::policy::facts::{Context, Spawn};

pub(crate) const BLOCKED_PATTERN: &str = "subagent-blocked-pattern";
pub(crate) const MODEL_REQUIRED: &str = "subagent-model-required";
pub(crate) const ALLOWLIST: &str = "subagent-allowlist";
pub(crate) const MIN_EFFORT: &str = "subagent-min-effort";
pub(crate) const PARENT_FAST: &str = "subagent-parent-fast";

/// The fast shapes every spawn is checked against, whatever the operator's list says: `*-fast`
/// names (`gpt-5-fast`, `gpt-5-fast-preview`), a `fast=true` parameter (`x[fast=true]`, which
/// reads `x-fast-true` in normal form), and Cursor's fast composer model.
pub(crate) const FAST_PATTERNS: &[&str] = &["*-fast", "*-fast-*", "composer-fast*"];

/// The longest string taken for a model name; anything longer is no model's name.
pub(crate) const MAX_MODEL_CHARS: usize = 200;

/// The word a spawn that names no model is compared as: it runs on its parent's model.
pub(crate) const INHERIT: &str = "inherit";

/// How much of a model string a message quotes.
const QUOTED_CHARS: usize = 80;

/// The spawn rails' entry.
pub(crate) fn check(cx: &Context<'_>) -> rusqlite::Result<Option<Decision>> {
    Ok(cx.facts.spawn.and_then(|s| assess(&s, cx.facts.parent_model, cx.settings)))
}

/// The first spawn rail that refuses `spawn`, in the order above; `parent` is the session's
/// model as recorded.
pub(crate) fn assess(spawn: &Spawn<'_>, parent: Option<&str>, s: &Settings) -> Option<Decision> {
    let sub = &s.subagents;
    let refuse = |rule: &str, why: String, key: &str| Some(refusal(&sub.block_mode, rule, why, key));
    let model = spawn.model.map(str::trim).filter(|m| !m.is_empty());
    if let Some(m) = model {
        if let Some(odd) = not_a_model_name(m) {
            return refuse(
                BLOCKED_PATTERN,
                format!("The subagent model {} is not a model name ({odd}).", quote(m)),
                "subagents.blockedPatterns",
            );
        }
        let key = model_key(m);
        if let Some(p) = first_match(
            &key,
            FAST_PATTERNS.iter().copied().chain(sub.blocked_patterns.iter().map(String::as_str)),
        ) {
            return refuse(
                BLOCKED_PATTERN,
                format!(
                    "The subagent model {} matches the blocked pattern {p:?}: fast variants are refused (the built-in fast shapes always apply; subagents.blockedPatterns adds to them).",
                    quote(m)
                ),
                "subagents.blockedPatterns",
            );
        }
    }
    if sub.require_model && model.is_none() {
        return refuse(
            MODEL_REQUIRED,
            "This subagent spawn names no model, and subagents.requireModel is on: name the model it runs on.".into(),
            "subagents.requireModel",
        );
    }
    if sub.enforce_allowlist && !sub.allowed_models.is_empty() {
        let asked = model.map_or_else(|| INHERIT.to_string(), model_key);
        if first_match(&asked, sub.allowed_models.iter().map(String::as_str)).is_none() {
            let shown = model.map_or_else(|| format!("{INHERIT} (no model named)"), quote);
            return refuse(
                ALLOWLIST,
                format!(
                    "The subagent model {shown} is not on subagents.allowedModels ({}). Spawn it with one of those.",
                    sub.allowed_models.iter().map(|m| quote(m)).collect::<Vec<_>>().join(", ")
                ),
                "subagents.allowedModels",
            );
        }
    }
    if let Some(min) = Effort::parse(&sub.min_effort).filter(|e| *e > Effort::Off) {
        let stated = spawn.effort.and_then(Effort::parse).or_else(|| model.and_then(Effort::of_model));
        if let Some(e) = stated.filter(|e| *e < min) {
            return refuse(
                MIN_EFFORT,
                format!(
                    "This subagent spawn runs at effort {}, below subagents.minEffort = {}: spawn it at {} or above.",
                    e.as_str(),
                    min.as_str(),
                    min.as_str()
                ),
                "subagents.minEffort",
            );
        }
    }
    if sub.block_parent_fast {
        if let Some(p) = parent.map(str::trim).filter(|p| !p.is_empty()) {
            let key = model_key(p);
            if not_a_model_name(p).is_some()
                || first_match(
                    &key,
                    FAST_PATTERNS.iter().copied().chain(sub.blocked_patterns.iter().map(String::as_str)),
                )
                .is_some()
            {
                return refuse(
                    PARENT_FAST,
                    format!(
                        "This session runs on {}, a fast variant, and subagents.blockParentFast refuses its spawns whatever model they name.",
                        quote(p)
                    ),
                    "subagents.blockParentFast",
                );
            }
        }
    }
    None
}

/// The refusal of `rule`: denied, or asked under `blockMode = "ask"`; it names the key that
/// changes it, which only the operator can (policy integrity refuses an agent's edit).
pub(crate) fn refusal(block_mode: &str, rule: &str, why: String, key: &str) -> Decision {
    let permission = if block_mode == "ask" { Permission::Ask } else { Permission::Deny };
    Decision {
        permission,
        rule: rule.to_string(),
        reason: Some(format!(
            "{why} Only the operator changes `{key}` (in the config, from a terminal); an agent's edit to it is refused.\nrule={rule}"
        )),
        user_note: Some(format!("tlc {rule}: {}", why.chars().take(160).collect::<String>())),
        follow_up: None,
        context: None,
    }
}

/// Why `m` names no model, or `None`: too long, a control character, or a character outside
/// ASCII (a look-alike letter or an invisible one could hide a blocked name).
pub(crate) fn not_a_model_name(m: &str) -> Option<String> {
    let n = m.chars().count();
    if n > MAX_MODEL_CHARS {
        return Some(format!("{n} characters; a model name has at most {MAX_MODEL_CHARS}"));
    }
    if m.chars().any(char::is_control) {
        return Some("it holds a control character".into());
    }
    if !m.is_ascii() {
        return Some("it holds characters outside ASCII".into());
    }
    None
}

/// The form models and patterns are compared in: lower case; every run of characters other than
/// letters, digits, `.` and `*` is one `-`, none at either end. `GPT-5 Fast`, `gpt-5_fast` and
/// `gpt-5--fast` all read `gpt-5-fast`; `x[fast=true]` reads `x-fast-true`.
pub(crate) fn model_key(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '.' || c == '*' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// The first of `patterns` (compared in [`model_key`] form, `*` matching any run) that matches
/// `key`.
fn first_match<'p>(key: &str, patterns: impl Iterator<Item = &'p str>) -> Option<&'p str> {
    patterns
        .filter(|p| !p.trim().is_empty())
        .find(|p| crate::pathtext::wildcard_match(&model_key(p), key))
}

fn quote(m: &str) -> String {
    let n = m.chars().count();
    if n <= QUOTED_CHARS {
        format!("{m:?}")
    } else {
        format!("{:?}… ({n} characters)", m.chars().take(QUOTED_CHARS).collect::<String>())
    }
}

/// A reasoning effort, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Effort {
    Off,
    Low,
    Medium,
    High,
    Max,
}

impl Effort {
    pub(crate) fn parse(word: &str) -> Option<Effort> {
        Some(match word.trim().to_ascii_lowercase().as_str() {
            "off" => Effort::Off,
            "minimal" | "low" => Effort::Low,
            "medium" => Effort::Medium,
            "high" => Effort::High,
            "xhigh" | "max" => Effort::Max,
            _ => return None,
        })
    }

    /// The effort a model name states: its last part (`cursor-grok-4.5-high`, or
    /// `gpt-5[effort=low]`, which reads `gpt-5-effort-low`).
    pub(crate) fn of_model(m: &str) -> Option<Effort> {
        let key = model_key(m);
        let last = key.rsplit('-').next()?;
        Effort::parse(last).filter(|e| *e != Effort::Off)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Effort::Off => "off",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::Max => "max",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn(model: Option<&str>) -> Spawn<'_> {
        Spawn { model, effort: None }
    }

    fn rule(d: Option<Decision>) -> Option<String> {
        d.map(|d| d.rule)
    }

    #[test]
    fn fast_shapes_are_refused_whatever_the_list_says() {
        let s = Settings::default();
        for m in [
            "gpt-5-fast",
            "GPT-5-FAST",
            "gpt-5 fast",
            "gpt-5_fast",
            "gpt-5--fast",
            "gpt-5-fast-preview",
            "x[fast=true]",
            "x[FAST = true]",
            "composer-fast",
            " gpt-5-fast ",
        ] {
            let d = assess(&spawn(Some(m)), None, &s).unwrap_or_else(|| panic!("{m} let through"));
            assert_eq!((d.permission, d.rule.as_str()), (Permission::Deny, BLOCKED_PATTERN), "{m}");
            assert!(d.reason.unwrap().contains("subagents.blockedPatterns"), "{m}: names the key");
        }
        for m in ["gpt-5", "breakfast-model", "composer-2.5", "sonnet", "fastest-gpt"] {
            assert_eq!(rule(assess(&spawn(Some(m)), None, &s)), None, "{m}");
        }
        let mut s = Settings::default();
        s.subagents.blocked_patterns = vec!["haiku*".into()];
        assert_eq!(rule(assess(&spawn(Some("Haiku-4.5")), None, &s)).as_deref(), Some(BLOCKED_PATTERN));
        assert_eq!(
            rule(assess(&spawn(Some("gpt-5-fast")), None, &s)).as_deref(),
            Some(BLOCKED_PATTERN),
            "added to, never replaced"
        );
    }

    #[test]
    fn odd_model_strings_are_answered_not_guessed() {
        let s = Settings::default();
        let long = "a".repeat(10 * 1024);
        let d = assess(&spawn(Some(&long)), None, &s).unwrap();
        assert_eq!(d.rule, BLOCKED_PATTERN);
        assert!(d.reason.as_deref().unwrap().len() < 1000, "a 10 KB name is not echoed whole");
        for m in ["gpt-5-f\u{200b}ast", "gpt\u{2011}5\u{2011}fast", "gpt-5-fаst", "gpt-5\n-fast"] {
            assert_eq!(rule(assess(&spawn(Some(m)), None, &s)).as_deref(), Some(BLOCKED_PATTERN), "{m:?}");
        }
        assert_eq!(rule(assess(&spawn(Some("")), None, &s)), None, "empty is no model");
        assert_eq!(rule(assess(&spawn(Some("*")), None, &s)), None);
    }

    #[test]
    fn the_allowlist_names_its_key_and_takes_inherit() {
        let mut s = Settings::default();
        s.subagents.enforce_allowlist = true;
        s.subagents.allowed_models = vec!["sonnet".into()];
        let d = assess(&spawn(Some("opus")), None, &s).unwrap();
        assert_eq!((d.permission, d.rule.as_str()), (Permission::Deny, ALLOWLIST));
        assert!(d.reason.as_deref().unwrap().contains("subagents.allowedModels"));
        assert_eq!(rule(assess(&spawn(Some("Sonnet")), None, &s)), None, "any case");
        assert_eq!(
            rule(assess(&spawn(None), None, &s)).as_deref(),
            Some(ALLOWLIST),
            "no model is inherit"
        );
        s.subagents.allowed_models.push("inherit".into());
        assert_eq!(rule(assess(&spawn(None), None, &s)), None);
        assert_eq!(
            rule(assess(&spawn(Some("sonnet[thinking=on]")), None, &s)).as_deref(),
            Some(ALLOWLIST),
            "parameters change the model"
        );
        s.subagents.allowed_models.clear();
        assert_eq!(rule(assess(&spawn(Some("opus")), None, &s)), None, "an empty list enforces nothing");
        s.subagents.enforce_allowlist = false;
        s.subagents.allowed_models = vec!["sonnet".into()];
        assert_eq!(rule(assess(&spawn(Some("opus")), None, &s)), None, "off");
    }

    #[test]
    fn model_required_min_effort_parent_fast_and_ask() {
        let mut s = Settings::default();
        s.subagents.require_model = true;
        assert_eq!(rule(assess(&spawn(None), None, &s)).as_deref(), Some(MODEL_REQUIRED));
        assert_eq!(rule(assess(&spawn(Some("sonnet")), None, &s)), None);
        s.subagents.require_model = false;

        s.subagents.min_effort = "high".into();
        assert_eq!(rule(assess(&spawn(Some("glm-5.2-low")), None, &s)).as_deref(), Some(MIN_EFFORT));
        assert_eq!(
            rule(assess(&spawn(Some("gpt-5[effort=medium]")), None, &s)).as_deref(),
            Some(MIN_EFFORT)
        );
        let low = Spawn {
            effort: Some("LOW"),
            ..spawn(Some("sonnet"))
        };
        assert_eq!(rule(assess(&low, None, &s)).as_deref(), Some(MIN_EFFORT));
        assert_eq!(rule(assess(&spawn(Some("cursor-grok-4.5-high")), None, &s)), None);
        assert_eq!(
            rule(assess(&spawn(Some("sonnet")), None, &s)),
            None,
            "no stated effort: the parent's"
        );
        s.subagents.min_effort = "off".into();
        assert_eq!(rule(assess(&spawn(Some("glm-5.2-low")), None, &s)), None);

        s.subagents.block_parent_fast = true;
        assert_eq!(
            rule(assess(&spawn(Some("sonnet")), Some("gpt-5-fast"), &s)).as_deref(),
            Some(PARENT_FAST)
        );
        assert_eq!(rule(assess(&spawn(Some("sonnet")), Some("claude-opus-4"), &s)), None);
        assert_eq!(rule(assess(&spawn(Some("sonnet")), None, &s)), None);
        s.subagents.block_parent_fast = false;
        assert_eq!(rule(assess(&spawn(Some("sonnet")), Some("gpt-5-fast"), &s)), None);

        s.subagents.block_mode = "ask".into();
        let d = assess(&spawn(Some("gpt-5-fast")), None, &s).unwrap();
        assert_eq!(d.permission, Permission::Ask);
    }

    #[test]
    fn glob_and_key() {
        use crate::pathtext::wildcard_match as glob;
        assert_eq!(model_key("  GPT-5 [Fast=TRUE] "), "gpt-5-fast-true");
        assert!(glob("*-fast-*", "x-fast-true"));
        assert!(glob("a*b*c", "aXbYc"));
        assert!(!glob("a*b*c", "aXbY"));
        assert!(glob("*", ""));
        assert!(!glob("", "x"));
    }
}
