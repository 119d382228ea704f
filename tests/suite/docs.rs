//! The operator documentation stays true to the code: every config key of the registry is in
//! docs/config.md's reference table with its type, default and tiers, and every operator-named
//! table with the tiers that may declare it.
//!
//! That docs/config-template.toml equals src/config/default-config.toml (and that the template
//! lists every key with its default) is tested in src/config/tests.rs, not repeated here.

use std::collections::BTreeMap;
use tlc::config::registry::{Tiers, KEYS, NAMED_TABLES};
use tlc::config::Value;

fn config_md() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/config.md")).expect("docs/config.md")
}

/// The cells of a markdown table row; a `|` inside a code span does not split.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut in_code = false;
    for ch in inner.chars() {
        match ch {
            '`' => {
                in_code = !in_code;
                cell.push(ch);
            }
            '|' if !in_code => out.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(ch),
        }
    }
    out.push(cell.trim().to_string());
    out
}

/// The body rows of the first table whose header row is exactly `header`.
fn table(doc: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = doc.lines().skip_while(|l| l.trim() != header);
    assert!(lines.next().is_some(), "docs/config.md has no table headed {header:?}");
    let separator = lines.next().unwrap_or_default();
    assert!(separator.starts_with("|---"), "the table headed {header:?} lacks its separator row");
    lines.take_while(|l| l.trim_start().starts_with('|')).map(cells).collect()
}

fn code(cell: &str) -> &str {
    cell.trim().trim_start_matches('`').trim_end_matches('`')
}

fn tiers_word(t: Tiers) -> &'static str {
    match t {
        Tiers::Both => "both",
        Tiers::MachineOnly => "machine only",
    }
}

#[test]
fn every_registry_key_is_documented_with_its_type_default_and_tiers() {
    let doc = config_md();
    let rows = table(&doc, "| key | type | default | tiers | what it does |");
    let mut documented: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in rows {
        assert_eq!(row.len(), 5, "a key row has five cells: {row:?}");
        let key = code(&row[0]).to_string();
        assert!(documented.insert(key.clone(), row).is_none(), "{key} is documented twice");
    }
    let mut problems = Vec::new();
    for spec in KEYS {
        let Some(row) = documented.get(spec.key) else {
            problems.push(format!("{}: missing from docs/config.md", spec.key));
            continue;
        };
        let default = Value::from_default(spec.default).to_toml_text();
        if code(&row[2]) != default {
            problems.push(format!(
                "{}: documented default {} but the registry's is {default}",
                spec.key, row[2]
            ));
        }
        if row[1] != spec.kind.describe() {
            problems.push(format!(
                "{}: documented type {:?} but the registry's is {:?}",
                spec.key,
                row[1],
                spec.kind.describe()
            ));
        }
        if row[3] != tiers_word(spec.tiers) {
            problems.push(format!(
                "{}: documented tiers {:?} but the registry's are {:?}",
                spec.key,
                row[3],
                tiers_word(spec.tiers)
            ));
        }
        if row[4].is_empty() {
            problems.push(format!("{}: says nothing about what it does", spec.key));
        }
    }
    for key in documented.keys() {
        if !KEYS.iter().any(|s| s.key == key) {
            problems.push(format!("{key}: documented but not a key tlc knows"));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/config.md disagrees with src/config/registry.rs:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_operator_named_table_is_documented_with_its_tiers() {
    let doc = config_md();
    let rows = table(&doc, "| table | tiers | what it declares |");
    for (kind, tiers) in NAMED_TABLES {
        let name = format!("[{kind}.<name>]");
        let row = rows
            .iter()
            .find(|r| code(&r[0]) == name)
            .unwrap_or_else(|| panic!("docs/config.md lacks the {name} row"));
        assert_eq!(row[1], tiers_word(*tiers), "tiers of {name}");
    }
    assert_eq!(
        rows.len(),
        NAMED_TABLES.len(),
        "docs/config.md lists a named table tlc does not know"
    );
}

#[test]
fn the_checker_notices_a_wrong_default_and_a_missing_key() {
    // The table parser must see each cell, so a drifted row cannot slip through unnoticed.
    let doc = "| key | type | default | tiers | what it does |\n|---|---|---|---|---|\n| `grind.maxLoops` | an integer >= 1 | `6` | both | x |\n\n";
    let rows = table(doc, "| key | type | default | tiers | what it does |");
    assert_eq!(rows.len(), 1);
    let spec = KEYS.iter().find(|s| s.key == "grind.maxLoops").expect("a known key");
    assert_ne!(code(&rows[0][2]), Value::from_default(spec.default).to_toml_text());
    assert_eq!(
        cells("| `a|b` | c |"),
        vec!["`a|b`".to_string(), "c".to_string()],
        "a pipe inside code does not split"
    );
}

/// docs/README.md's index names each database's migrations, `V1` to the latest this binary carries.
#[test]
fn the_docs_index_names_the_migrations_each_database_has() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/README.md")).unwrap();
    let latest = |db: &str| -> u32 {
        std::fs::read_dir(format!("{}/migrations/{db}", env!("CARGO_MANIFEST_DIR")))
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_prefix('V')?.split("__").next()?.parse().ok()
            })
            .max()
            .unwrap()
    };
    let range = |db: &str| match latest(db) {
        1 => format!("{db} V1"),
        n => format!("{db} V1–V{n}"),
    };
    let want = format!("({}; {})", range("project"), range("home"));
    assert!(readme.contains(&want), "docs/README.md should say {want} in its schema.md row");
}
