//! What the key table ([`super::keys::KEYS`]) generates: the typed `Settings` structs with their
//! serde mapping and defaults (Rust source, compiled in by `build.rs`), the shipped default config
//! (`TEMPLATE`, byte-identical to `docs/config-template.toml`), and the key table of
//! docs/config.md. Tests keep the committed files equal to this output
//! (`src/config/tests.rs`); `TLC_BLESS=1 cargo test --release --lib config::tests` rewrites them.
//!
//! Like `keys.rs`, this file uses nothing but `std`, because `build.rs` compiles it too.

use super::keys::{Default, KeySpec, Kind, Tiers};
use std::fmt::Write as _;

/// The lines above the first key of the shipped default config.
const TEMPLATE_HEAD: &str = "# tlc configuration: every key, with its shipped default and one line on what it does.
#
# Three tiers, nearest wins: these shipped defaults, then the machine tier ($TLC_HOME/config.toml),
# then the project tier (<repo>/.tlc/harness/config.toml). A project that names a key stops
# tracking the machine tier for it, so set a key in a project only when the project decides it.
# Reference: docs/config.md.
";

/// A section's struct name where the section's own name would read wrong in Rust.
const STRUCT_NAMES: &[(&str, &str)] = &[("project", "ProjectMeta")];

/// The section of a key (`intelligence.lessons` for `intelligence.lessons.decayLambda`; `""`
/// for a top-level key) and its own name.
fn split(key: &str) -> (&str, &str) {
    match key.rfind('.') {
        Some(i) => (&key[..i], &key[i + 1..]),
        None => ("", key),
    }
}

/// `maxAttrChars` -> `max_attr_chars`.
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else if c == '-' {
            out.push('_');
        } else {
            out.push(c);
        }
    }
    out
}

fn pascal(name: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in name.chars() {
        if c == '_' || c == '-' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The Rust struct that holds a section's keys.
pub(crate) fn struct_name(section: &str) -> String {
    if section.is_empty() {
        return "Settings".into();
    }
    let last = split(section).1;
    STRUCT_NAMES
        .iter()
        .find(|(s, _)| *s == section)
        .map(|(_, n)| n.to_string())
        .unwrap_or_else(|| pascal(last))
}

/// The path of the `Settings` field that holds a key (`grind.max_loops`).
pub(crate) fn field_path(key: &str) -> String {
    key.split('.').map(snake).collect::<Vec<_>>().join(".")
}

/// A string as a TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A default as TOML text (`5.0`, `"solo"`, `["src/"]`).
pub(crate) fn default_toml(d: Default) -> String {
    match d {
        Default::Bool(b) => b.to_string(),
        Default::Int(i) => i.to_string(),
        Default::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.1}"),
        Default::Float(f) => f.to_string(),
        Default::Off => "false".into(),
        Default::Str(s) => toml_string(s),
        Default::List(items) => format!("[{}]", items.iter().map(|s| toml_string(s)).collect::<Vec<_>>().join(", ")),
    }
}

/// The sections in the order their first key appears, each with its keys; the top level first.
fn sections(keys: &[KeySpec]) -> Vec<(&'static str, Vec<&KeySpec>)> {
    let mut out: Vec<(&'static str, Vec<&KeySpec>)> = vec![("", Vec::new())];
    for k in keys {
        let section = split(k.key).0;
        match out.iter_mut().find(|(s, _)| *s == section) {
            Some((_, list)) => list.push(k),
            None => out.push((section, vec![k])),
        }
    }
    out
}

/// The shipped default config: every key with its default under its template comment.
pub(crate) fn template(keys: &[KeySpec]) -> String {
    let mut out = String::from(TEMPLATE_HEAD);
    for (section, list) in sections(keys) {
        if list.is_empty() {
            continue;
        }
        out.push('\n');
        if !section.is_empty() {
            let _ = writeln!(out, "[{section}]");
        }
        for k in list {
            let _ = writeln!(out, "# {}", k.doc);
            let _ = writeln!(out, "{} = {}", split(k.key).1, default_toml(k.default));
        }
    }
    out
}

/// The marker lines around the generated key table in docs/config.md.
pub(crate) const DOCS_BEGIN: &str = "<!-- keys: generated from src/config/keys.rs; do not edit by hand -->";
pub(crate) const DOCS_END: &str = "<!-- end of keys -->";

/// The key table of docs/config.md (without its markers).
pub(crate) fn docs_table(keys: &[KeySpec]) -> String {
    let mut out = String::from("| key | type | default | tiers | what it does |\n|---|---|---|---|---|\n");
    for k in keys {
        let tiers = match k.tiers {
            Tiers::Both => "both",
            Tiers::MachineOnly => "machine only",
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | `{}` | {tiers} | {} |",
            k.key,
            k.kind.describe(),
            default_toml(k.default),
            reference_text(k)
        );
    }
    out
}

/// The text of a key's row in docs/config.md: its longer `docs` text, else its template comment.
fn reference_text(k: &KeySpec) -> &'static str {
    if k.docs.is_empty() {
        k.doc
    } else {
        k.docs
    }
}

/// docs/config.md with its key table replaced by the generated one; `None` when the markers are
/// missing.
pub(crate) fn docs_page(page: &str, keys: &[KeySpec]) -> Option<String> {
    let begin = page.find(DOCS_BEGIN)?;
    let end = page[begin..].find(DOCS_END)? + begin;
    Some(format!("{}{DOCS_BEGIN}\n{}{}", &page[..begin], docs_table(keys), &page[end..]))
}

fn rust_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Bool => "bool",
        Kind::Int { .. } => "i64",
        Kind::Float { .. } => "f64",
        Kind::FloatOrOff => "Option<f64>",
        Kind::Str | Kind::Enum(_) => "String",
        Kind::StrList => "Vec<String>",
    }
}

fn rust_default(kind: Kind, d: Default) -> String {
    match d {
        Default::Float(f) if kind == Kind::FloatOrOff => format!("Some({f:?})"),
        Default::Bool(b) => b.to_string(),
        Default::Int(i) => format!("{i}"),
        Default::Float(f) => format!("{f:?}"),
        Default::Off => "None".into(),
        Default::Str(s) => format!("{s:?}.to_string()"),
        Default::List(items) => format!(
            "vec![{}]",
            items.iter().map(|s| format!("{s:?}.to_string()")).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The `Settings` structs: one per section, each field a key (its template comment as its doc),
/// renamed to the key's own name for serde, and a `Default` that is the shipped defaults.
pub(crate) fn settings_rust(keys: &[KeySpec]) -> String {
    let all = sections(keys);
    // Each section's child sections, by the section that holds them.
    let children = |parent: &str| -> Vec<&'static str> {
        all.iter()
            .map(|(s, _)| *s)
            .filter(|s| !s.is_empty() && split(s).0 == parent)
            .collect()
    };
    let mut out = String::from("// Generated by build.rs from src/config/keys.rs (src/config/keygen.rs). Do not edit.\n\n");
    for (section, list) in &all {
        let name = struct_name(section);
        if section.is_empty() {
            out.push_str("/// The typed effective configuration: every key of `src/config/keys.rs`, nearest tier winning.\n");
        } else {
            let _ = writeln!(out, "/// `[{section}]`.");
        }
        out.push_str("#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]\n#[serde(deny_unknown_fields)]\n");
        let _ = writeln!(out, "pub struct {name} {{");
        let mut defaults = String::new();
        for k in list {
            let own = split(k.key).1;
            let field = snake(own);
            let _ = writeln!(out, "    /// {}", k.doc);
            let _ = writeln!(
                out,
                "    #[serde(rename = {own:?}{})]",
                match k.kind {
                    Kind::FloatOrOff => ", deserialize_with = \"super::settings::float_or_off\"",
                    _ => "",
                }
            );
            let _ = writeln!(out, "    pub {field}: {},", rust_type(k.kind));
            let _ = writeln!(defaults, "            {field}: {},", rust_default(k.kind, k.default));
        }
        for child in children(section) {
            let own = split(child).1;
            let field = snake(own);
            let _ = writeln!(out, "    /// `[{child}]`.");
            let _ = writeln!(out, "    #[serde(rename = {own:?})]");
            let _ = writeln!(out, "    pub {field}: {},", struct_name(child));
            let _ = writeln!(defaults, "            {field}: {}::default(),", struct_name(child));
        }
        out.push_str("}\n\n");
        let _ = writeln!(out, "impl Default for {name} {{");
        let _ = writeln!(out, "    /// The shipped defaults.");
        let _ = writeln!(out, "    fn default() -> {name} {{");
        let _ = writeln!(out, "        {name} {{");
        out.push_str(&defaults);
        out.push_str("        }\n    }\n}\n\n");
    }
    out
}
