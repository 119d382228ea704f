//! `work-loss` (always on): a command that would discard work git cannot give back.

use super::{ask, in_build_dir};
use crate::decision::{Decision, Permission};
use crate::policy::facts::Context;
use crate::policy::floor::Ran;
use crate::policy::Posture;
use std::path::Path;

/// The rail's entry: a shell act in a git checkout.
pub(crate) fn check(cx: &Context<'_>) -> rusqlite::Result<Option<Decision>> {
    if !cx.facts.in_git || cx.facts.ran.is_empty() {
        return Ok(None);
    }
    Ok(assess(cx.facts.ran, cx.facts.root, cx.facts.posture))
}

/// The work-loss rule (always on): a command that would discard work git cannot give back, as the
/// repository says (see [`crate::policy::work_loss`]), is denied — asked about in `paired`, where the
/// operator is there to answer — naming what it would lose. `ran` is every command the line runs,
/// as the floor's walk saw them; the tree is read only when one of them can lose work.
pub(crate) fn assess(ran: &[Ran], root: &Path, posture: Posture) -> Option<Decision> {
    let mut risks = crate::policy::work_loss::risks_ran(ran, root);
    // A removal under a build folder, or of nothing that exists, loses no work: no git look.
    for r in &mut risks {
        if let crate::policy::work_loss::Risk::ChangesUnder { paths, removal: true, .. } = r {
            paths.retain(|p| !in_build_dir(p, root) && (crate::policy::work_loss::is_pattern(p) || std::fs::symlink_metadata(p).is_ok()));
        }
    }
    risks.retain(|r| !matches!(r, crate::policy::work_loss::Risk::ChangesUnder { paths, removal: true, .. } if paths.is_empty()));
    if risks.is_empty() {
        return None;
    }
    let (command, lost, safe) = crate::policy::work_loss::assess(&risks, root)?;
    let what = crate::policy::work_loss::describe(&command, &lost, safe);
    let rule = crate::policy::work_loss::RULE;
    Some(if posture == Posture::Paired {
        ask(rule, format!("tlc asks before this command: {what}"))
    } else {
        Decision {
            permission: Permission::Deny,
            rule: rule.to_string(),
            reason: Some(format!("{what}\nrule={rule}")),
            user_note: Some(format!("tlc {rule}: {command}")),
            follow_up: None,
            context: None,
        }
    })
}
