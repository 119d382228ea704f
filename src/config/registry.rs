//! Lookups over the key table ([`super::keys`]) and the operator-named tables.

pub use super::keys::*;

/// Tables whose entries are named by the operator (`[stable.<name>]`), with the tiers that may
/// declare them.
pub const NAMED_TABLES: &[(&str, Tiers)] = &[
    ("stable", Tiers::MachineOnly),
    ("adapter", Tiers::MachineOnly),
    ("channel", Tiers::MachineOnly),
    ("webhook", Tiers::MachineOnly),
    ("harness", Tiers::Both),
];

/// The spec of `key`, if tlc knows it.
pub(crate) fn spec(key: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|s| s.key == key)
}

/// The new name of a renamed key ([`RENAMED`]).
pub(crate) fn renamed(old: &str) -> Option<&'static str> {
    RENAMED.iter().find(|(o, _)| *o == old).map(|(_, new)| *new)
}

/// True when `prefix` is a table that holds known keys (`grind`, `intelligence.lessons`).
pub(crate) fn is_section(prefix: &str) -> bool {
    KEYS.iter()
        .any(|s| s.key.len() > prefix.len() && s.key.starts_with(prefix) && s.key.as_bytes()[prefix.len()] == b'.')
}
