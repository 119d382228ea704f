//! `operator-rule:<file>` (`rules.enabled`): the operator's rule files on an acting event. A rule
//! whose trigger this act fires and whose proofs tlc has not observed answers with its verdict:
//! `deny` refuses; `ask` asks under the posture `paired` and refuses under `solo` and `focus`
//! (posture reaches `ask` and nothing else); `follow-up` and `warn` allow, with the rule's text
//! as context ([`advise`], late in the order so that it never hides another rail's objection).
//! `on: stop` rules are the stop's (`gate::stop`).
//!
//! The hook loads the rule files and reads HEAD only with the switch on (`Prior::rules`); with it
//! off this rail is one `None` check.

use crate::decision::{Decision, Permission};
use crate::policy::facts::{Context, Subject};
use crate::policy::rules::trigger::{self, Act, OwnRepo};
use crate::policy::rules::{self, Scope, Trigger, Unmet, Verdict};
use crate::policy::Posture;

/// What the order names this rail by (each decision carries `operator-rule:<file>`).
pub(crate) const RULE: &str = rules::RULE;

/// The rules this act fires whose proofs are missing, and where they were checked.
fn evaluate<'p>(cx: &Context<'p>) -> rusqlite::Result<Option<(Vec<Unmet<'p>>, Scope<'p>)>> {
    let prior: &'p crate::policy::Prior = cx.prior;
    let (Some(input), Some(acting)) = (prior.rules.as_ref(), cx.facts.acting) else {
        return Ok(None);
    };
    let on_actions: Vec<_> = input.set.active().into_iter().filter(|(_, s)| s.on != Trigger::Stop).collect();
    if on_actions.is_empty() {
        return Ok(None);
    }
    let act = Act {
        tool: cx.facts.tool,
        script: cx.command.as_deref(),
        mcp: acting.subject == Subject::Mcp,
        input: input.tool_input.as_ref(),
    };
    // Issue 53: "this repository" is the remote baselined with the session's policy; an `origin`
    // rewritten during the session is a divergence, not a new scope.
    let baselined = match cx.facts.session {
        Some(session) => crate::policy::integrity::IntegrityStore::new(cx.conn).baselined_origin(cx.facts.provider, session)?,
        None => None,
    };
    let own = match &baselined {
        Some(url) => OwnRepo::baselined(cx.facts.root, url.as_deref()),
        None => OwnRepo::new(cx.facts.root),
    };
    let fired = trigger::fired(&act, &own);
    let scope = Scope {
        root: cx.facts.root,
        provider: cx.facts.provider,
        session: cx.facts.session,
        head: input.head.as_deref(),
        in_git: cx.facts.in_git,
    };
    let hit = on_actions.into_iter().filter(|(_, s)| fired.fires(&s.on));
    Ok(Some((rules::unmet(cx.conn, hit, &scope)?, scope)))
}

/// The refusal (or, for `ask` under `paired`, the question) of every fired `deny`/`ask` rule
/// whose proofs are missing.
pub(crate) fn check(cx: &Context<'_>) -> rusqlite::Result<Option<Decision>> {
    let Some((unmet, scope)) = evaluate(cx)? else {
        return Ok(None);
    };
    let blocking: Vec<&Unmet<'_>> = unmet
        .iter()
        .filter(|u| matches!(u.spec.otherwise, Verdict::Deny | Verdict::Ask))
        .collect();
    let Some(first) = blocking.first() else {
        return Ok(None);
    };
    let only_asks = blocking.iter().all(|u| u.spec.otherwise == Verdict::Ask);
    let permission = if only_asks && cx.facts.posture == Posture::Paired {
        Permission::Ask
    } else {
        Permission::Deny
    };
    let reason = blocking.iter().map(|u| u.text(&scope)).collect::<Vec<_>>().join("\n\n");
    let rule = first.rule_name();
    Ok(Some(Decision {
        permission,
        reason: Some(format!("{reason}\nrule={rule}")),
        user_note: Some(format!("tlc operator rule {}: {}", first.file.name, first.missing_line(&scope))),
        rule,
        follow_up: None,
        context: None,
    }))
}

/// The text of every fired `follow-up`/`warn` rule whose proofs are missing, as context on an
/// action that is allowed.
pub(crate) fn advise(cx: &Context<'_>) -> rusqlite::Result<Option<Decision>> {
    let Some((unmet, scope)) = evaluate(cx)? else {
        return Ok(None);
    };
    let notes: Vec<&Unmet<'_>> = unmet
        .iter()
        .filter(|u| matches!(u.spec.otherwise, Verdict::FollowUp | Verdict::Warn))
        .collect();
    let Some(first) = notes.first() else {
        return Ok(None);
    };
    let text = notes
        .iter()
        .map(|u| match u.spec.otherwise {
            Verdict::FollowUp => format!("{}\nAllowed; make this your next action.", u.text(&scope)),
            _ => u.text(&scope),
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    Ok(Some(Decision {
        rule: first.rule_name(),
        context: Some(text),
        ..Decision::allow()
    }))
}
