//! What the hook answers, in no provider's terms: a [`Permission`] and the rail behind it. Policy
//! produces a [`Decision`], `obs` records it, and each provider adapter in `hook` renders it. It
//! sits below all three so that none of them depends on another for it.

/// A permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Permission {
    Allow,
    Ask,
    Deny,
}

impl Permission {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Permission::Allow => "allow",
            Permission::Ask => "ask",
            Permission::Deny => "deny",
        }
    }
}

/// What the hook answers: a permission (for an action), optionally a reason, a follow-up for
/// the agent, or context to add. `rule` names the rail that decided (`none` when none did).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub(crate) permission: Permission,
    pub(crate) rule: String,
    pub(crate) reason: Option<String>,
    /// A short line for the person watching (the provider's user-facing message), when it
    /// differs from the reason the agent reads.
    pub(crate) user_note: Option<String>,
    pub(crate) follow_up: Option<String>,
    pub(crate) context: Option<String>,
}

impl Decision {
    /// No rail objected.
    pub(crate) fn allow() -> Decision {
        Decision {
            permission: Permission::Allow,
            rule: "none".into(),
            reason: None,
            user_note: None,
            follow_up: None,
            context: None,
        }
    }

    pub(crate) fn deny(rule: &str, reason: String) -> Decision {
        Decision {
            permission: Permission::Deny,
            rule: rule.into(),
            reason: Some(reason),
            user_note: None,
            follow_up: None,
            context: None,
        }
    }

    /// Whether this decision interrupts the agent (lands on the signal plane).
    pub(crate) fn interrupts(&self) -> bool {
        self.permission != Permission::Allow
    }
}

/// A decision's reason as a report shows it: its non-empty lines, without the `rule=` tail (a
/// report names the rule beside it) and the floor's boilerplate (the same sentences on every floor
/// denial, `policy::floor`). `tlc obs why` joins them into one line, the dashboard keeps them.
pub(crate) fn reason_lines(reason: &str) -> Vec<&str> {
    reason
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("rule=") && !l.starts_with("This is a floor rule"))
        .collect()
}
