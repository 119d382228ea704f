//! `edit-collision` (always on): a second live session about to edit a path another one edited
//! within [`COLLISION_WINDOW_MINUTES`] is asked first (the claims are `policy::claims`').

use crate::decision::Decision;
use crate::policy::claims::{collision_decision, ClaimStore, COLLISION_WINDOW_MINUTES};
use crate::policy::facts::Context;

/// The rail's entry: an act that is about to write a file, in a session.
pub(crate) fn check(cx: &Context<'_>) -> rusqlite::Result<Option<Decision>> {
    let (Some(path), Some(session), Some(_)) = (cx.facts.edit_target, cx.facts.session, cx.facts.acting) else {
        return Ok(None);
    };
    let since = crate::clock::stamp(cx.facts.at - chrono::Duration::minutes(COLLISION_WINDOW_MINUTES));
    let others = ClaimStore::new(cx.conn).collisions(path, cx.facts.provider, session, &since)?;
    Ok(collision_decision(path, &others))
}
