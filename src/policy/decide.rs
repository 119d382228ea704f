//! The order of the per-event checks, in one table ([`ORDER`]), and the one function that runs
//! them ([`decide`]). The hook maps a payload to [`ActFacts`], hands over what was decided before
//! its transaction ([`Prior`]), and renders the verdict for its provider; it does not know which
//! check comes first.
//!
//! Adding a rail: write `rails/<name>.rs` with one `pub fn check(cx: &Context<'_>) ->
//! rusqlite::Result<Option<Decision>>` and its tests, and put it in [`ORDER`] where it belongs.
//! A check returns `None` when it has no objection; the first `Some` is the verdict.

use super::facts::Context;
use super::rails;
use crate::decision::{Decision, Permission};

/// One check in the order.
pub(crate) struct Rail {
    /// The rule name its decisions carry (or, for a group of rules, what it is). Nothing reads
    /// it: it labels each entry of [`ORDER`] for the reader (a decision carries its own rule).
    #[allow(dead_code)]
    pub name: &'static str,
    pub check: fn(&Context<'_>) -> rusqlite::Result<Option<Decision>>,
}

/// The per-event checks, first to last: the first objection is the verdict. The floor and policy
/// integrity have no switch; edit collision and work loss are always on; a read-only subagent's
/// write and the spawn rails (`subagent-*`) follow `subagents.*`; `untrusted-command` follows
/// `untrustedContent.mode = "enforce"`; the shell rails follow their switches and the posture;
/// the operator's rules (`rules.enabled`) refuse or ask before `paired` asks (a missing proof
/// says more than a question), and their `follow-up`/`warn` text comes after every objection;
/// the stop checks answer only what everything before allowed (a block, or an allow that carries
/// context for the agent); the framing of untrusted content comes last (context only).
pub(crate) const ORDER: &[Rail] = &[
    Rail {
        name: "floor",
        check: |cx| Ok(cx.prior.floor.clone()),
    },
    Rail {
        name: super::integrity::RULE,
        check: |cx| Ok(cx.prior.integrity.clone().filter(|d| d.permission != Permission::Allow)),
    },
    Rail {
        name: super::claims::EDIT_COLLISION,
        check: rails::collision::check,
    },
    Rail {
        name: rails::STALL,
        check: rails::stall::check,
    },
    Rail {
        name: super::work_loss::RULE,
        check: rails::work_loss::check,
    },
    Rail {
        name: rails::read_only::RULE,
        check: rails::read_only::check,
    },
    Rail {
        name: "subagent spawn",
        check: rails::subagent::check,
    },
    Rail {
        name: rails::untrusted::RULE,
        check: rails::untrusted::check,
    },
    Rail {
        name: rails::CATASTROPHIC,
        check: rails::catastrophic::check,
    },
    Rail {
        name: rails::operator_rule::RULE,
        check: rails::operator_rule::check,
    },
    Rail {
        name: rails::PAIRED,
        check: rails::paired::check,
    },
    Rail {
        name: "operator-rule advice",
        check: rails::operator_rule::advise,
    },
    Rail {
        name: "stop checks",
        check: |cx| Ok(cx.prior.stop.clone()),
    },
    Rail {
        name: super::untrusted::FRAME_RULE,
        check: |cx| Ok(cx.prior.untrusted.clone()),
    },
];

/// The verdict on one event: the first objection in [`ORDER`], else allow.
pub(crate) fn decide(cx: &Context<'_>) -> rusqlite::Result<Decision> {
    for rail in ORDER {
        if let Some(d) = (rail.check)(cx)? {
            return Ok(d);
        }
    }
    Ok(Decision::allow())
}
