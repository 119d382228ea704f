//! What the hook decides before and around recording: the floor (first, from the raw payload,
//! before any config is read), the edit a tool call is about to make, and the turning of an ask
//! into a deny where nobody can answer it. Which events act, on what, and which can ask is each
//! provider's to say (its [`super::Provider`]); what follows is the same for all of them.

use super::provider::Provider;
use crate::decision::{Decision, Permission};
use crate::paths::Paths;
use crate::policy::floor::{self, Act, Context};
use crate::policy::shell::Script;
use serde_json::Value;
use std::path::PathBuf;

/// The prefix of an ask turned into a deny because the event cannot ask.
pub(crate) const NO_ESCALATION: &str = "Escalation unavailable on this provider — ";
/// The prefix of an ask turned into a deny because the permission mode answers no prompts.
pub(crate) const NO_OPERATOR: &str = "No operator is answering prompts in this permission mode — ";

/// Where relative paths in the payload are resolved: the folder its command or tool runs in.
pub(crate) fn work_dir(provider: &dyn Provider, v: &Value) -> Option<PathBuf> {
    provider.work_dir(v).map(PathBuf::from).filter(|p| p.is_absolute())
}

/// The floor's context for this payload.
fn context(provider: &dyn Provider, v: &Value, paths: &Paths) -> Context {
    let cwd = work_dir(provider, v)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| paths.root.clone());
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    use crate::policy::boundary::Member;
    // tlc's own folders are the surface already, with the evidence folder an agent writes.
    let protected = crate::policy::boundary::protected_set(&super::boundary::places(paths))
        .into_iter()
        .filter(|m| !matches!(m.member, Member::TlcHome | Member::ProjectState))
        .map(|m| m.path);
    Context::new(paths.root.clone(), cwd, home, paths.home.clone(), Context::system_temp()).with_protected(protected)
}

/// What the floor decided on an acting event.
#[derive(Default)]
pub(crate) struct FloorVerdict {
    /// The denial; `None` lets the rest of the policy decide.
    pub floor: Option<Decision>,
    /// Every command the line runs that can lose work (git or a remover), as the floor's walk
    /// saw it, for the work-loss rule.
    pub ran: Vec<floor::Ran>,
    /// The shell line and its parse, handed on so the rails do not parse it again.
    pub parsed: Option<(String, Script)>,
}

/// The floor's decision on an acting event's `acts` (the provider's reading of `v`).
pub(crate) fn floor(provider: &dyn Provider, acts: &[Act<'_>], v: &Value, paths: &Paths) -> FloorVerdict {
    if acts.is_empty() {
        return FloorVerdict::default();
    }
    let ctx = context(provider, v, paths);
    // A panic in the engine (a bug) must not answer neutrally, which would let the act through:
    // it denies, as anything the floor cannot establish does.
    let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut out = FloorVerdict::default();
        for a in acts {
            let found = match a {
                Act::Shell(command) => match crate::policy::shell::parse_as_run(command, 0) {
                    Ok((command, script)) => {
                        let (found, seen) = floor::evaluate_parsed(&ctx, command, &script, true);
                        out.ran.extend(seen);
                        if out.parsed.is_none() {
                            out.parsed = Some((command.to_string(), script));
                        }
                        found
                    }
                    Err(e) => Some(floor::unparsable(&e)),
                },
                _ => floor::evaluate(&ctx, a),
            };
            if found.is_some() {
                out.floor = found.map(|f| f.decision());
                return out;
            }
        }
        out
    }));
    verdict.unwrap_or_else(|_| FloorVerdict {
        floor: Some(floor::Finding::unreadable().decision()),
        ..FloorVerdict::default()
    })
}

/// The file an acting event is about to write (absolute), for the edit-collision claim.
pub(crate) fn edit_target(provider: &dyn Provider, acts: &[Act<'_>], v: &Value, paths: &Paths) -> Option<String> {
    let p = acts.iter().find_map(|a| match a {
        Act::Write(p) | Act::Edit(p) | Act::Delete(p) => Some(*p),
        _ => None,
    })?;
    Some(absolute(provider, v, paths, p))
}

/// A file the provider reports edited (absolute): claimed, never asked about.
pub(crate) fn edited_file(provider: &dyn Provider, v: &Value, paths: &Paths) -> Option<String> {
    provider.edited_file(v).map(|p| absolute(provider, v, paths, p))
}

fn absolute(provider: &dyn Provider, v: &Value, paths: &Paths, p: &str) -> String {
    let path = std::path::Path::new(p);
    let base = work_dir(provider, v).unwrap_or_else(|| paths.root.clone());
    crate::pathtext::normalize_in(&base, path).display().to_string()
}

/// An ask nobody can answer becomes a deny that says why; the stored decision is this one.
pub(crate) fn escalate(mut d: Decision, can_ask: bool, unattended: bool) -> Decision {
    if d.permission != Permission::Ask {
        return d;
    }
    let prefix = if !can_ask {
        NO_ESCALATION
    } else if unattended {
        NO_OPERATOR
    } else {
        return d;
    };
    d.permission = Permission::Deny;
    d.reason = Some(format!("{prefix}{}", d.reason.unwrap_or_default()));
    d
}
