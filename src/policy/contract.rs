//! The posture's contract (issue 33, item 3): the one short block a session start gives the agent,
//! saying what reaches the operator under the running posture and when a question may still be
//! asked (the seed's "operator posture"). It is sent once, at a fresh session start: a `mode`
//! changed during the session is a policy change and reaches the agent at its next session.

use super::Posture;

/// The most characters the block may have.
#[cfg(test)]
const MAX_CHARS: usize = 600;

/// The contract of `posture`.
pub(crate) fn contract(posture: Posture) -> &'static str {
    match posture {
        Posture::Paired => {
            "POSTURE paired: explain as you go, and ask the operator before any sizable move; tlc asks before a shell command that leaves the machine, overwrites or removes a path, or changes who can reach one. DEADLINE: ask early — an unclear goal belongs in your first actions; once the work is under way, take the most reasonable reading and state the assumption instead of asking."
        }
        Posture::Solo => {
            "POSTURE solo: work on your own. Only three things reach the operator: an irreversible or destructive action, a real dead-end after exhausting your sources, and ambiguity that changes the outcome. DEADLINE: ask early — an unclear goal belongs in your first actions; once the work is under way, take the most reasonable reading and state the assumption in one line instead of asking: a late question is worse than a decision."
        }
        Posture::Focus => {
            "POSTURE focus: only a destructive action or a real dead-end reaches the operator. Settle ambiguity yourself: take the most reasonable reading and state the assumption in one line. DEADLINE: focus admits exactly one early question — a goal you cannot read before starting, asked in your first actions — and none after: ask early or not at all."
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_contract_fits_and_says_what_reaches_the_operator() {
        for p in [Posture::Paired, Posture::Solo, Posture::Focus] {
            let c = contract(p);
            assert!(c.chars().count() <= MAX_CHARS, "{p:?}: {} characters", c.chars().count());
            assert!(c.starts_with(&format!("POSTURE {}:", p.as_str())));
            assert!(c.contains("DEADLINE"));
        }
        assert!(contract(Posture::Solo).contains("ambiguity that changes the outcome"));
        assert!(contract(Posture::Focus).contains("exactly one early question"));
        assert!(!contract(Posture::Focus).contains("ambiguity that changes the outcome"));
        assert!(contract(Posture::Paired).contains("before any sizable move"));
    }
}
