//! The shape of the crate, checked by reading its source: which module may use which
//! ([`LAYERS`], [`SIDEWAYS`]), and which repository type writes each table ([`TABLE_OWNERS`]).
//! Both are tables on purpose: an engineer who adds an arrow or a table edits one here, in plain
//! sight, or the build fails. docs/ARCHITECTURE.md shows the same tables to a reader, and a test
//! keeps them equal. Test-only.
//!
//! The table owners extend `config::scaffold`'s "only the scaffold writes the project config" to
//! every table: each table has exactly one writer, the repository type named here, and no SQL
//! runs in `src/cli/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, top to bottom: `main → cli → hook → domains → store/config/render → fsread/fswrite`. A
/// module may use any module of a layer below its own, and nothing above it.
const LAYERS: &[(&str, &[&str])] = &[
    ("entry", &["main"]),
    // `error` decides exit codes from every domain's error type, so it sits beside `cli`.
    ("command line", &["cli", "error"]),
    // The dashboard draws the domains' reports as pages; only `cli` starts it, and no layer
    // below may reach it.
    ("server", &["serve"]),
    ("hook", &["hook"]),
    ("domains", &["agent", "cost", "gate", "lesson", "obs", "policy", "ship", "update"]),
    (
        "foundation",
        &[
            "clock", "config", "decision", "hashing", "paths", "project", "render", "store", "sys",
        ],
    ),
    // The one reader of files tlc did not write (configs, git files, transcripts), the git files
    // read on it, its writing counterpart, paths and patterns as text, and the hook's faults:
    // every layer above uses them, and they use nothing of the crate but `gitfiles → fsread`.
    (
        "system",
        &["confine", "fault", "fsread", "fswrite", "gitfiles", "pathtext", "revision"],
    ),
];

/// The arrows allowed between two modules of the same layer; every other pair in a layer is
/// independent. Keep it short: a new entry is a design decision.
const SIDEWAYS: &[(&str, &str, &str)] = &[
    ("cli", "error", "commands return the domains' errors and their own exit kinds"),
    (
        "obs",
        "cost",
        "the spool and the JSONL import store responses through cost's UsageWriter",
    ),
    (
        "ship",
        "obs",
        "what leaves the machine passes the redaction the hook applies before storage (obs::redact)",
    ),
    (
        "project",
        "config",
        "where a project's state lives depends on the machine tier's [guest] list; adoption runs the scaffold",
    ),
    (
        "gate",
        "obs",
        "gate output is redacted with obs's redactor; ship-ledger rows go through the event store, their one writer; imported gate outcomes arrive through obs's `GateSink`, which the gate store implements",
    ),
    (
        "gate",
        "lesson",
        "a stagnating stop captures a lesson, and session starts and blocked stops carry the ranked lessons",
    ),
    (
        "gate",
        "policy",
        "a stop is let through unchecked while the operator state says paused; the operator's stop rules are read at a stop, and a gate that passes is a rule proof",
    ),
    ("project", "paths", "a project is located from the paths"),
    (
        "gitfiles",
        "fsread",
        "a repository's `.git` files are foreign files, read within fsread's limits",
    ),
    ("config", "paths", "the tiers' files are found from the paths"),
    (
        "config",
        "store",
        "the config editor creates its folder with the store's private modes",
    ),
    ("config", "clock", "the scaffold stamps the time it wrote the config"),
    ("store", "clock", "migration history records when it ran"),
    ("paths", "hashing", "a guest's state folder is named by the hash of its path"),
    (
        "render",
        "sys",
        "the terminal's width is an OS call the standard library does not wrap",
    ),
];

/// Every top-level module (a file or folder under `src/`), mapped to its layer's index.
fn layer_of() -> BTreeMap<&'static str, usize> {
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, (_, mods))| mods.iter().map(move |m| (*m, i)))
        .collect()
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/`, with its top-level module (`main` for main.rs; lib.rs, which
/// only declares the modules, and this test-only module are left out).
fn source_files() -> Vec<(String, PathBuf)> {
    let root = src();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = p.strip_prefix(&root).unwrap();
            let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
            let module = first.trim_end_matches(".rs").to_string();
            if module != "lib" && module != "architecture" {
                out.push((module, p));
            }
        }
    }
    out.sort();
    out
}

/// The source with comments, string literals and character literals blanked out, so that only
/// code is read.
fn code_only(text: &str) -> String {
    scan(text, |_| "\"\"".to_string())
}

/// [`code_only`], with each string literal's text handed to `string`, whose answer takes the
/// literal's place.
fn scan(text: &str, mut string: impl FnMut(String) -> String) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
            continue;
        }
        // Raw strings: r"…", r#"…"#, br#"…"#.
        if c == 'r' && (next == Some('"') || next == Some('#')) && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_')) {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&'"') {
                j += 1;
                let start = j;
                let mut end = b.len();
                loop {
                    if j >= b.len() {
                        break;
                    }
                    if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                        end = j;
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str(&string(b[start..end].iter().collect()));
                i = j;
                continue;
            }
        }
        if c == '"' {
            i += 1;
            let start = i;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            let literal = b[start..i.min(b.len())].iter().collect();
            i += 1;
            out.push_str(&string(literal));
            continue;
        }
        if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'); anything else is a lifetime.
            if next == Some('\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
                continue;
            }
            if b.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The top-level modules `code` names through `crate::` (or `tlc::`, in main.rs), including
/// each name of a `crate::{a, b::c}` group.
fn used_modules(code: &str, crate_name: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let prefix = format!("{crate_name}::");
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut rest = code;
    while let Some(at) = rest.find(&prefix) {
        let before = rest[..at].chars().last();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: split at depth-0 commas.
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(ident(item.trim()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.insert(ident(item.trim()));
        } else {
            out.insert(ident(rest));
        }
    }
    out.remove("");
    out
}

/// Every arrow `from → to` between two different top-level modules, with the files that make it.
fn arrows() -> BTreeMap<(String, String), Vec<String>> {
    let mut out: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let root = src();
    for (module, path) in source_files() {
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        let name = if module == "main" { "tlc" } else { "crate" };
        for used in used_modules(&code, name) {
            if used != module {
                let rel = path.strip_prefix(&root).unwrap().display().to_string();
                out.entry((module.clone(), used)).or_default().push(rel);
            }
        }
    }
    out
}

/// The arrows of `found` that run back up (or sideways without a [`SIDEWAYS`] entry), or name a
/// module no layer lists.
fn violations(found: &BTreeMap<(String, String), Vec<String>>) -> Vec<String> {
    let layers = layer_of();
    let mut bad = Vec::new();
    for ((from, to), files) in found {
        let (Some(lf), Some(lt)) = (layers.get(from.as_str()), layers.get(to.as_str())) else {
            bad.push(format!(
                "{from} → {to}: a module no layer lists (add it to LAYERS) [{}]",
                files.join(", ")
            ));
            continue;
        };
        let sideways_ok = SIDEWAYS.iter().any(|(a, b, _)| a == from && b == to);
        if lt < lf || (lt == lf && !sideways_ok) {
            bad.push(format!(
                "{from} ({}) → {to} ({}) runs {} [{}]",
                LAYERS[*lf].0,
                LAYERS[*lt].0,
                if lt < lf { "back up" } else { "sideways without a SIDEWAYS entry" },
                files.join(", ")
            ));
        }
    }
    bad
}

#[test]
fn every_use_runs_down_the_layers() {
    let found = arrows();
    assert!(found.len() > 20, "the scan found too few arrows to be reading the code: {found:?}");
    let bad = violations(&found);
    assert!(
        bad.is_empty(),
        "arrows against the layering (src/architecture.rs):\n  {}",
        bad.join("\n  ")
    );
}

#[test]
fn every_top_level_module_has_a_layer_and_the_sideways_arrows_are_used() {
    let layers = layer_of();
    let modules: BTreeSet<String> = source_files().into_iter().map(|(m, _)| m).collect();
    for m in &modules {
        assert!(
            layers.contains_key(m.as_str()),
            "src/{m}: no layer lists it (src/architecture.rs LAYERS)"
        );
    }
    let found = arrows();
    for (a, b, why) in SIDEWAYS {
        assert!(
            found.contains_key(&(a.to_string(), b.to_string())),
            "SIDEWAYS allows {a} → {b} ({why}) but no code uses it: remove the entry"
        );
    }
}

#[test]
fn the_layering_check_reads_grouped_uses_and_ignores_comments_and_strings() {
    let code = code_only(
        "use crate::{obs::Kind, store::{self, DbKind}};\n// crate::cli in a comment\nlet s = \"crate::hook\"; let c = '\"'; fn f<'a>(x: &'a str) { crate::paths::home_dir(); }\n/* crate::error */",
    );
    let used = used_modules(&code, "crate");
    assert_eq!(used, BTreeSet::from(["obs".to_string(), "paths".to_string(), "store".to_string()]));
    // An arrow back up is reported, naming the file.
    let mut found = BTreeMap::new();
    found.insert(("store".to_string(), "obs".to_string()), vec!["store/mod.rs".to_string()]);
    found.insert(("obs".to_string(), "store".to_string()), vec!["obs/spool.rs".to_string()]);
    let bad = violations(&found);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("store (foundation) → obs (domains) runs back up") && bad[0].contains("store/mod.rs"));
}

/// Each table of each database and the one repository type that writes it (`None`: nothing
/// writes it yet). A table a trigger maintains is listed with the owner of the table the trigger
/// is on, which also rebuilds it.
/// (database, table, the owner's file under `src/` and its type, or `None` for no writer).
type TableOwner = (&'static str, &'static str, Option<(&'static str, &'static str)>);

const TABLE_OWNERS: &[TableOwner] = &[
    // The spool cursor (`spool.through`) and the hooks' revision; the migrations write the rest.
    ("project", "tlc_meta", Some(("obs/recorder.rs", "EventStore"))),
    ("project", "sessions", Some(("obs/recorder.rs", "EventStore"))),
    ("project", "events", Some(("obs/recorder.rs", "EventStore"))),
    ("project", "decisions", Some(("obs/recorder.rs", "EventStore"))),
    ("project", "open_spans", Some(("obs/recorder.rs", "EventStore"))),
    ("project", "transcripts", Some(("obs/recorder.rs", "EventStore"))),
    ("project", "ship_ledger", Some(("obs/recorder.rs", "EventStore"))),
    ("project", "ship_cursor", Some(("ship/store.rs", "ShipStore"))),
    ("project", "state", Some(("policy/state.rs", "OperatorState"))),
    ("project", "policy_baselines", Some(("policy/integrity.rs", "IntegrityStore"))),
    ("project", "policy_divergences", Some(("policy/integrity.rs", "IntegrityStore"))),
    ("project", "file_claims", Some(("policy/claims.rs", "ClaimStore"))),
    ("project", "rule_proofs", Some(("policy/rules/proof.rs", "ProofStore"))),
    ("project", "gate_runs", Some(("gate/mod.rs", "GateStore"))),
    ("project", "gate_lock", Some(("gate/mod.rs", "GateStore"))),
    ("project", "gate_resolutions", Some(("gate/mod.rs", "GateStore"))),
    ("project", "turns", Some(("gate/turn.rs", "TurnStore"))),
    ("project", "stop_outcomes", Some(("gate/turn.rs", "TurnStore"))),
    ("project", "untrusted_content", Some(("policy/untrusted.rs", "UntrustedStore"))),
    ("project", "lessons", Some(("lesson/mod.rs", "LessonStore"))),
    ("project", "lesson_sightings", Some(("lesson/mod.rs", "LessonStore"))),
    ("project", "lesson_garden_log", Some(("lesson/mod.rs", "LessonStore"))),
    ("project", "lesson_injections", Some(("lesson/mod.rs", "LessonStore"))),
    ("project", "attestations", Some(("policy/attest.rs", "AttestStore"))),
    ("home", "tlc_meta", None),
    ("home", "prices", Some(("cost/catalog.rs", "PriceCatalog"))),
    ("home", "price_refreshes", Some(("cost/catalog.rs", "PriceCatalog"))),
    ("home", "usage", Some(("cost/usage.rs", "UsageWriter"))),
    ("home", "usage_rollup", Some(("cost/usage.rs", "UsageWriter"))),
    ("home", "usage_daily", Some(("cost/usage.rs", "UsageWriter"))),
    ("home", "usage_hourly", Some(("cost/usage.rs", "UsageWriter"))),
    ("home", "usage_names", Some(("cost/usage.rs", "UsageWriter"))),
    ("home", "usage_key", Some(("cost/usage.rs", "UsageWriter"))),
    // The transcript import's file offsets, written with its rows.
    ("home", "transcript_files", Some(("cost/import/files.rs", "TranscriptFiles"))),
    ("home", "spool", Some(("obs/spool.rs", "Spool"))),
    ("home", "spool_rollup", Some(("obs/spool.rs", "Spool"))),
    ("home", "lessons", Some(("lesson/mod.rs", "LessonStore"))),
    ("home", "lesson_garden_log", Some(("lesson/mod.rs", "LessonStore"))),
    ("home", "agent_stables", Some(("agent/records.rs", "AgentStore"))),
    ("home", "agent_pins", Some(("agent/records.rs", "AgentStore"))),
    ("home", "agent_pin_files", Some(("agent/records.rs", "AgentStore"))),
    ("home", "agent_installs", Some(("agent/records.rs", "AgentStore"))),
    ("home", "agent_resolutions", Some(("agent/records.rs", "AgentStore"))),
    ("home", "agent_references", Some(("agent/records.rs", "AgentStore"))),
    ("home", "client_wiring", Some(("policy/boundary/store.rs", "BoundaryStore"))),
    ("home", "anchors", Some(("policy/boundary/store.rs", "BoundaryStore"))),
    ("home", "machine_facts", Some(("policy/boundary/store.rs", "BoundaryStore"))),
];

/// A file's module path under the crate root (`src/hook/record.rs` is `hook::record`, a folder's
/// `mod.rs` is the folder), and whether it is a folder's root (which declares the files under it).
fn module_path(rel: &Path) -> (Vec<String>, bool) {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    let is_root = stem == "mod";
    if !is_root {
        parts.push(stem.to_string());
    }
    (parts, is_root)
}

/// The paths `code` names: every `use` (groups expanded, `self` in a group naming its module),
/// every `crate::…`, `super::…` and `self::…` path, every path through a name a `use` brought in,
/// and, in a folder's root, every path through one of its own files (`record::record(…)`).
fn named_paths(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    fn expand(prefix: &[String], item: &str, out: &mut Vec<Vec<String>>) {
        let item = item.trim();
        if let Some(open) = item.find('{') {
            let head: Vec<String> = item[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            let mut base = prefix.to_vec();
            base.extend(head);
            let inner = &item[open + 1..item.rfind('}').unwrap_or(item.len())];
            let (mut depth, mut part) = (0, String::new());
            for c in inner.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&base, &part, out);
                        part.clear();
                        continue;
                    }
                    _ => {}
                }
                part.push(c);
            }
            expand(&base, &part, out);
        } else if !item.is_empty() {
            let name = item.split(" as ").next().unwrap_or(item);
            let mut path = prefix.to_vec();
            path.extend(name.split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from));
            if path.last().is_some_and(|l| l == "self") {
                path.pop();
            }
            out.push(path);
        }
    }
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut uses = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        rest = &rest[at + 4..];
        if before.is_some_and(ident) {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        expand(&[], &rest[..end], &mut uses);
        rest = &rest[end..];
    }
    let aliases: BTreeMap<String, Vec<String>> = uses
        .iter()
        .filter(|p| p.len() > 1 && matches!(p[0].as_str(), "crate" | "super" | "self"))
        .map(|p| (p[p.len() - 1].clone(), p.clone()))
        .collect();
    let mut out = uses;
    // Every `a::b::c` in the code, read from its first name.
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !ident(chars[i]) || (i > 0 && (ident(chars[i - 1]) || chars[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < chars.len() && ident(chars[j]) {
                j += 1;
            }
            segs.push(chars[start..j].iter().collect::<String>());
            if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') && chars.get(j + 2).is_some_and(|c| ident(*c)) {
                j += 2;
            } else {
                break;
            }
        }
        i = j.max(i + 1);
        if segs.len() < 2 {
            continue;
        }
        match segs[0].as_str() {
            "crate" | "super" | "self" => out.push(segs),
            first => {
                if let Some(full) = aliases.get(first) {
                    let mut p = full.clone();
                    p.extend(segs[1..].iter().cloned());
                    out.push(p);
                } else if children.contains(first) {
                    let mut p = vec!["self".to_string()];
                    p.extend(segs);
                    out.push(p);
                }
            }
        }
    }
    out
}

/// Every arrow between two files of the crate: `from` names something `to` defines. A folder's
/// root naming the files under it is the module tree, not an arrow. Test code is left out
/// (`tests.rs` files and a file's `#[cfg(test)] mod tests` at its end).
fn file_arrows() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let root = src();
    let files: BTreeMap<Vec<String>, String> = source_files()
        .into_iter()
        .filter(|(m, p)| m != "main" && p.file_name().is_some_and(|f| f != "tests.rs"))
        .map(|(_, p)| {
            let rel = p.strip_prefix(&root).unwrap().to_path_buf();
            (module_path(&rel).0, rel.display().to_string())
        })
        .collect();
    let mut out: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, rel) in &files {
        let is_root = module_path(Path::new(rel)).1;
        let text = std::fs::read_to_string(root.join(rel)).unwrap();
        let text = match text.find("#[cfg(test)]\nmod tests") {
            Some(at) => &text[..at],
            None => &text[..],
        };
        let children: BTreeSet<String> = files
            .keys()
            .filter(|k| is_root && k.len() == module.len() + 1 && k.starts_with(module))
            .map(|k| k[module.len()].clone())
            .collect();
        for path in named_paths(&code_only(text), &children) {
            let mut abs: Vec<String> = match path[0].as_str() {
                "crate" => Vec::new(),
                "super" | "self" => module.clone(),
                _ => continue,
            };
            let mut rest = &path[..];
            if rest[0] == "self" {
                rest = &rest[1..];
            }
            while rest.first().is_some_and(|s| s == "super") {
                abs.pop();
                rest = &rest[1..];
            }
            if path[0] == "crate" {
                rest = &path[1..];
            }
            abs.extend(rest.iter().cloned());
            let target = (1..=abs.len()).rev().find_map(|n| files.get_key_value(&abs[..n]));
            let Some((target_module, target_rel)) = target else { continue };
            if target_rel == rel || (is_root && target_module.starts_with(module)) {
                continue;
            }
            out.entry(rel.clone())
                .or_default()
                .entry(target_rel.clone())
                .or_default()
                .insert(path.join("::"));
        }
    }
    out
}

/// The circles of `arrows`: each set of two or more files that reach one another (Tarjan's
/// strongly connected components).
fn circles(arrows: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        arrows: &'a BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let n = w.index.len();
        w.index.insert(v, n);
        w.low.insert(v, n);
        w.stack.push(v);
        for to in w.arrows.get(v).into_iter().flat_map(|m| m.keys()) {
            if !w.index.contains_key(to.as_str()) {
                visit(w, to);
                let l = w.low[to.as_str()].min(w.low[v]);
                w.low.insert(v, l);
            } else if w.stack.contains(&to.as_str()) {
                let l = w.index[to.as_str()].min(w.low[v]);
                w.low.insert(v, l);
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = Vec::new();
            while let Some(x) = w.stack.pop() {
                component.push(x.to_string());
                if x == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                w.found.push(component);
            }
        }
    }
    let mut w = Walk {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in arrows.keys() {
        if !w.index.contains_key(v.as_str()) {
            visit(&mut w, v);
        }
    }
    w.found
}

#[test]
fn no_two_files_use_each_other_in_a_circle() {
    let arrows = file_arrows();
    assert!(
        arrows.values().map(BTreeMap::len).sum::<usize>() > 300,
        "the scan found too few arrows between files to be reading the code"
    );
    let found = circles(&arrows);
    let shown: Vec<String> = found
        .iter()
        .map(|c| {
            let edges: Vec<String> = c
                .iter()
                .flat_map(|a| {
                    arrows[a]
                        .iter()
                        .filter(|(b, _)| c.contains(b))
                        .map(move |(b, why)| format!("{a} → {b} ({})", why.iter().take(3).cloned().collect::<Vec<_>>().join(", ")))
                })
                .collect();
            edges.join("; ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "files that use each other in a circle (move what both need into a file of its own):\n  {}",
        shown.join("\n  ")
    );
}

#[test]
fn the_circle_check_follows_aliases_children_and_super() {
    let children: BTreeSet<String> = ["record".to_string()].into();
    let code = code_only(
        "use super::rails;\nuse crate::{a::b, c::{self, d::E}};\nfn f() { rails::collision::check(); record::run(); b::x(); other::y(); }",
    );
    let paths: BTreeSet<String> = named_paths(&code, &children).into_iter().map(|p| p.join("::")).collect();
    for want in [
        "super::rails::collision::check",
        "self::record::run",
        "crate::a::b::x",
        "crate::c",
        "crate::c::d::E",
    ] {
        assert!(paths.contains(want), "{want} not in {paths:?}");
    }
    assert!(!paths.iter().any(|p| p.contains("other")), "{paths:?}");
    let arrows: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> =
        [("a.rs", "b.rs"), ("b.rs", "c.rs"), ("c.rs", "a.rs"), ("c.rs", "d.rs")]
            .iter()
            .fold(BTreeMap::new(), |mut m, (a, b)| {
                m.entry(a.to_string()).or_default().insert(b.to_string(), BTreeSet::new());
                m
            });
    assert_eq!(circles(&arrows), vec![vec!["a.rs".to_string(), "b.rs".into(), "c.rs".into()]]);
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sql_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "sql") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// SQL without its `--` comments.
fn sql_code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("--").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The tables a statement writes (INSERT, UPDATE, DELETE, REPLACE).
fn written_tables(sql: &str) -> BTreeSet<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|DELETE\s+FROM)\s+(\w+)|\bUPDATE\s+(\w+)\s+SET\b").unwrap()
    });
    re.captures_iter(sql)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .map(|m| m.as_str().to_string())
        .collect()
}

/// The tables each database's migrations leave (created and not dropped for good).
fn migrated_tables(db: &str) -> BTreeSet<String> {
    let create = regex::Regex::new(r"(?i)CREATE TABLE (\w+)").unwrap();
    let drop = regex::Regex::new(r"(?i)DROP TABLE (\w+)").unwrap();
    let mut tables = BTreeSet::new();
    for f in sql_files(&manifest_dir().join("migrations").join(db)) {
        let code = sql_code(&std::fs::read_to_string(f).unwrap());
        // In file order: a table dropped and created again (rebuilt by copy) stays.
        let mut events: Vec<(usize, bool, String)> = create
            .captures_iter(&code)
            .map(|c| (c.get(0).unwrap().start(), true, c[1].to_string()))
            .chain(
                drop.captures_iter(&code)
                    .map(|c| (c.get(0).unwrap().start(), false, c[1].to_string())),
            )
            .collect();
        events.sort();
        for (_, created, name) in events {
            if created {
                tables.insert(name);
            } else {
                tables.remove(&name);
            }
        }
    }
    tables
}

/// Which compiled-in statements (db, domain, CONST) each source file names, through
/// `crate::store::queries::<db>::<domain>` paths and the aliases `use … as q` gives them.
fn query_references() -> BTreeMap<String, BTreeSet<(String, String, String)>> {
    let path = regex::Regex::new(r"queries::(\w+)::(\w+)(?:\s+as\s+(\w+)|::([A-Z][A-Z0-9_]*))").unwrap();
    let group = regex::Regex::new(r"queries::\{([^}]*)\}").unwrap();
    let group_item = regex::Regex::new(r"(\w+)::(\w+)\s+as\s+(\w+)").unwrap();
    let root = src();
    let mut out: BTreeMap<String, BTreeSet<(String, String, String)>> = BTreeMap::new();
    for (_, file) in source_files() {
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        let mut aliases: Vec<(String, String, String)> = Vec::new();
        let mut found = BTreeSet::new();
        for c in path.captures_iter(&code) {
            match (c.get(3), c.get(4)) {
                (Some(alias), _) => aliases.push((alias.as_str().into(), c[1].into(), c[2].into())),
                (_, Some(name)) => {
                    found.insert((c[1].to_string(), c[2].to_string(), name.as_str().to_string()));
                }
                _ => {}
            }
        }
        for g in group.captures_iter(&code) {
            for i in group_item.captures_iter(&g[1]) {
                aliases.push((i[3].into(), i[1].into(), i[2].into()));
            }
        }
        for (alias, db, domain) in aliases {
            let uses = regex::Regex::new(&format!(r"\b{alias}::([A-Z][A-Z0-9_]*)\b")).unwrap();
            for u in uses.captures_iter(&code) {
                found.insert((db.clone(), domain.clone(), u[1].to_string()));
            }
        }
        if !found.is_empty() {
            out.insert(rel, found);
        }
    }
    out
}

/// A statement's constant name, as build.rs derives it from the file name.
fn const_name(stem: &str) -> String {
    stem.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' })
        .collect()
}

#[test]
fn every_table_has_exactly_one_writer_the_type_listed_in_table_owners() {
    let root = src();
    // Every table the migrations make is listed, and nothing else.
    for db in ["project", "home"] {
        let listed: BTreeSet<String> = TABLE_OWNERS
            .iter()
            .filter(|(d, _, _)| *d == db)
            .map(|(_, t, _)| t.to_string())
            .collect();
        assert_eq!(listed, migrated_tables(db), "TABLE_OWNERS lists the {db} database's tables");
    }
    // Each owner file defines its type.
    for (db, table, owner) in TABLE_OWNERS {
        if let Some((file, ty)) = owner {
            let code = std::fs::read_to_string(root.join(file)).unwrap();
            assert!(
                code.contains(&format!("struct {ty}")) || code.contains(&format!("fn {ty}")),
                "{db}.{table}: {file} does not define {ty}"
            );
        }
    }
    // Which files run each writing statement.
    let refs = query_references();
    let mut writers: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    let mut checked = 0;
    for db in ["project", "home"] {
        for f in sql_files(&manifest_dir().join("queries").join(db)) {
            let domain = f.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
            let name = const_name(&f.file_stem().unwrap().to_string_lossy());
            let tables = written_tables(&sql_code(&std::fs::read_to_string(&f).unwrap()));
            if tables.is_empty() {
                continue;
            }
            checked += 1;
            let users: Vec<&String> = refs
                .iter()
                .filter(|(_, r)| r.contains(&(db.to_string(), domain.clone(), name.clone())))
                .map(|(file, _)| file)
                .collect();
            for t in tables {
                writers
                    .entry((db.to_string(), t))
                    .or_default()
                    .extend(users.iter().map(|u| u.to_string()));
            }
        }
    }
    assert!(
        checked > 30,
        "too few writing statements found ({checked}): the scan is not reading queries/"
    );
    // Raw SQL in string literals that writes a table (outside the store and the test modules).
    let raw = regex::Regex::new(r#""[^"]*"#).unwrap();
    for (_, file) in source_files() {
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        if rel.starts_with("store/") || rel.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for lit in raw.find_iter(code) {
            for t in written_tables(lit.as_str()) {
                for db in ["project", "home"] {
                    if TABLE_OWNERS.iter().any(|(d, name, _)| *d == db && *name == t) {
                        writers.entry((db.to_string(), t.clone())).or_default().insert(rel.clone());
                    }
                }
            }
        }
    }
    let mut wrong = Vec::new();
    for (db, table, owner) in TABLE_OWNERS {
        let found = writers.remove(&(db.to_string(), table.to_string())).unwrap_or_default();
        let want: BTreeSet<String> = owner.iter().map(|(f, _)| f.to_string()).collect();
        if found != want {
            wrong.push(format!("{db}.{table}: written from {found:?}, but its one writer is {owner:?}"));
        }
    }
    for ((db, table), files) in writers {
        wrong.push(format!("{db}.{table}: written from {files:?}, but no migration makes it"));
    }
    assert!(
        wrong.is_empty(),
        "tables with another writer than TABLE_OWNERS says:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn the_command_line_runs_no_sql() {
    let root = src().join("cli");
    // SQL here is written in capitals; a word such as "rollback" in a message is not SQL.
    let sql =
        regex::Regex::new(r#""\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|PRAGMA|CREATE|DROP|ALTER|BEGIN|COMMIT|ROLLBACK|VACUUM|WITH)\s"#)
            .unwrap();
    let mut offenders = Vec::new();
    for (_, file) in source_files() {
        if !file.starts_with(&root) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let rel = file.strip_prefix(src()).unwrap().display().to_string();
        if let Some(m) = sql.find(code) {
            offenders.push(format!("{rel}: {}", m.as_str()));
        }
        // Spelled in two parts so that grepping `src/` for the open call finds only real opens.
        let opens = concat!("Connection", "::open");
        if code.contains("store::queries") || code.contains(opens) {
            offenders.push(format!("{rel}: names the compiled-in queries or opens a connection"));
        }
    }
    assert!(
        offenders.is_empty(),
        "SQL in src/cli/ (it belongs to a domain's repository type): {offenders:?}"
    );
}

/// The files outside `fsread` and `store` allowed to read a file's content directly, each with
/// its reason: a file tlc itself wrote, nothing an agent could have put there. Every other read
/// goes through `fsread` (or `gitfiles`, built on it). Keep it short.
const RAW_READERS: &[(&str, &str)] = &[
    (
        "cli/demo.rs",
        "`tlc demo` applies a scripted Edit to a file the demo itself wrote in the scratch repository it made",
    ),
    (
        "serve/http.rs",
        "`tlc serve` holds `/dev/null` open as a spare descriptor for when `accept` finds none free; nothing is read from it",
    ),
];

/// A direct read of a file's content: `std::fs::read`, `fs::read_to_string`, any
/// `read_to_string` (the `io::Read` method included) and `File::open`. Listing a folder
/// (`read_dir`) or a link (`read_link`) opens no file's content and cannot block on a FIFO, so
/// neither is one.
fn raw_reads(code: &str) -> Vec<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| regex::Regex::new(r"\bfs::read\s*\(|\bread_to_string\s*\(|\bFile::open\s*\(").unwrap());
    code.lines()
        .enumerate()
        .filter_map(|(i, l)| re.find(l).map(|m| format!("line {}: {}", i + 1, m.as_str())))
        .collect()
}

/// `code` (from [`code_only`]) without what `#[cfg(test)]` marks: the item that follows it, a
/// block in balanced braces or a declaration up to its `;`. Line breaks are kept, so line
/// numbers stay true.
fn without_test_items(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let mut end = item.len();
        let mut depth = 0usize;
        for (i, c) in item.char_indices().skip(MARK.len()) {
            match c {
                '{' => depth += 1,
                '}' if depth <= 1 => {
                    end = i + 1;
                    break;
                }
                '}' => depth -= 1,
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        out.extend(item[..end].chars().filter(|c| *c == '\n'));
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn foreign_files_are_read_only_through_fsread() {
    let root = src();
    let mut offenders = Vec::new();
    let mut excepted = BTreeSet::new();
    for (module, file) in source_files() {
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        if module == "fsread" || module == "store" || rel.ends_with("tests.rs") {
            continue;
        }
        let code = without_test_items(&code_only(&std::fs::read_to_string(&file).unwrap()));
        let found = raw_reads(&code);
        if found.is_empty() {
            continue;
        }
        if RAW_READERS.iter().any(|(f, _)| *f == rel) {
            excepted.insert(rel);
        } else {
            offenders.push(format!("{rel}: {}", found.join(", ")));
        }
    }
    assert!(
        offenders.is_empty(),
        "raw reads outside fsread and store (read through crate::fsread, or crate::gitfiles for .git; a file tlc \
         wrote itself goes in RAW_READERS with its reason):\n  {}",
        offenders.join("\n  ")
    );
    for (f, why) in RAW_READERS {
        assert!(
            excepted.contains(*f),
            "RAW_READERS excepts {f} ({why}) but it reads nothing directly: remove the entry"
        );
    }
}

#[test]
fn the_raw_read_check_finds_reads_and_skips_test_items() {
    let code = code_only(
        "use std::fs;\nfn a() { let _ = std::fs::read(p); }\n// fs::read_to_string(p) in a comment\nfn b() { let s = \"File::open(x)\"; f.read_to_string(&mut s); }\n\
         #[cfg(test)]\nfn helper() { fs::read_to_string(p).unwrap(); }\nfn c() { let d = std::fs::read_dir(p); File::open(p) }\n\
         #[cfg(test)]\nmod tests {\n    fn t() { if x { std::fs::read(p); } }\n}\nfn d() { fs::read (p) }\n",
    );
    assert_eq!(
        raw_reads(&without_test_items(&code)),
        vec![
            "line 2: fs::read(".to_string(),
            "line 4: read_to_string(".to_string(),
            "line 7: File::open(".to_string(),
            "line 12: fs::read (".to_string(),
        ]
    );
}

#[test]
fn the_writer_check_sees_inserts_updates_and_deletes_but_not_upserts_set_clauses() {
    let sql = "INSERT OR ROLLBACK INTO usage (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2; \
               UPDATE state SET v = 1; DELETE FROM spool WHERE 1; SELECT * FROM events";
    assert_eq!(
        written_tables(sql),
        BTreeSet::from(["spool".to_string(), "state".to_string(), "usage".to_string()])
    );
    assert_eq!(const_name("usage_insert-new"), "USAGE_INSERT_NEW");
}

/// docs/ARCHITECTURE.md, the contributor's map.
fn architecture_page() -> String {
    std::fs::read_to_string(manifest_dir().join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md")
}

/// The body rows of the markdown table whose header row is exactly `header`, each row's cells
/// trimmed and without their code backticks.
fn page_table(doc: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = doc.lines().skip_while(|l| l.trim() != header);
    assert!(lines.next().is_some(), "docs/ARCHITECTURE.md has no table headed {header:?}");
    assert!(
        lines.next().is_some_and(|l| l.trim_start().starts_with("|---")),
        "docs/ARCHITECTURE.md: the table headed {header:?} lacks its separator row"
    );
    lines
        .take_while(|l| l.trim_start().starts_with('|'))
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().trim_matches('`').to_string())
                .collect()
        })
        .collect()
}

/// What differs between the page's rows and the code's, both ways, for a message.
fn differences(page: &BTreeSet<Vec<String>>, code: &BTreeSet<Vec<String>>) -> Vec<String> {
    let mut out: Vec<String> = code
        .difference(page)
        .map(|r| format!("missing from the page: | {} |", r.join(" | ")))
        .collect();
    out.extend(
        page.difference(code)
            .map(|r| format!("on the page but not in the code: | {} |", r.join(" | "))),
    );
    out
}

/// The page's table-owner rows as `TABLE_OWNERS` says they must read: database, table, writer
/// type, file (`—` for both when nothing writes the table).
fn table_owner_rows(owners: &[TableOwner]) -> BTreeSet<Vec<String>> {
    owners
        .iter()
        .map(|(db, table, owner)| {
            let (ty, file) = match owner {
                Some((file, ty)) => (ty.to_string(), format!("src/{file}")),
                None => ("—".to_string(), "—".to_string()),
            };
            vec![db.to_string(), table.to_string(), ty, file]
        })
        .collect()
}

#[test]
fn the_architecture_page_lists_every_table_with_its_one_writer() {
    let rows = page_table(&architecture_page(), "| database | table | writer type | file |");
    let page: BTreeSet<Vec<String>> = rows.iter().cloned().collect();
    assert_eq!(page.len(), rows.len(), "docs/ARCHITECTURE.md lists a table twice");
    let wrong = differences(&page, &table_owner_rows(TABLE_OWNERS));
    assert!(
        wrong.is_empty(),
        "docs/ARCHITECTURE.md's table owners differ from TABLE_OWNERS (src/architecture.rs):\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn the_architecture_page_lists_the_layers_and_sideways_arrows_of_the_code() {
    let doc = architecture_page();
    let layers: Vec<(String, Vec<String>)> = page_table(&doc, "| layer | modules |")
        .into_iter()
        .map(|r| {
            let modules = r
                .get(1)
                .map(|m| m.split(',').map(|x| x.trim().trim_matches('`').to_string()).collect());
            (r[0].clone(), modules.unwrap_or_default())
        })
        .collect();
    let want: Vec<(String, Vec<String>)> = LAYERS
        .iter()
        .map(|(name, mods)| (name.to_string(), mods.iter().map(|m| m.to_string()).collect()))
        .collect();
    assert_eq!(layers, want, "docs/ARCHITECTURE.md's layers (top to bottom) differ from LAYERS");
    let page: BTreeSet<Vec<String>> = page_table(&doc, "| from | to | why |")
        .into_iter()
        .map(|r| r.into_iter().take(2).collect())
        .collect();
    let code: BTreeSet<Vec<String>> = SIDEWAYS.iter().map(|(a, b, _)| vec![a.to_string(), b.to_string()]).collect();
    let wrong = differences(&page, &code);
    assert!(
        wrong.is_empty(),
        "docs/ARCHITECTURE.md's sideways arrows differ from SIDEWAYS:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn the_page_check_reads_a_markdown_table_and_names_a_wrong_row() {
    let doc = "text\n\n| database | table | writer type | file |\n|---|---|---|---|\n| home | `spool` | `Spool` | `src/obs/spool.rs` |\n| home | `tlc_meta` | — | — |\n\nafter\n";
    let page: BTreeSet<Vec<String>> = page_table(doc, "| database | table | writer type | file |").into_iter().collect();
    let code = table_owner_rows(&[("home", "spool", Some(("obs/spool.rs", "Spool"))), ("home", "tlc_meta", None)]);
    assert!(differences(&page, &code).is_empty());
    let other = table_owner_rows(&[
        ("home", "spool", Some(("obs/recorder.rs", "EventStore"))),
        ("home", "tlc_meta", None),
    ]);
    let wrong = differences(&page, &other);
    assert_eq!(wrong.len(), 2, "{wrong:?}");
    assert!(
        wrong[0].contains("missing from the page: | home | spool | EventStore | src/obs/recorder.rs |"),
        "{wrong:?}"
    );
}

/// The support modules of the integration tests: the `mod` lines of `tests/suite/main.rs` before
/// its first blank line.
fn suite_support_modules(main_rs: &str) -> BTreeSet<String> {
    main_rs
        .lines()
        .skip_while(|l| !l.starts_with("mod "))
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';').map(str::to_string))
        .collect()
}

#[test]
fn the_architecture_page_lists_the_test_support_modules() {
    let main_rs = std::fs::read_to_string(manifest_dir().join("tests/suite/main.rs")).expect("tests/suite/main.rs");
    let code = suite_support_modules(&main_rs);
    assert!(
        code.contains("common"),
        "the support block of tests/suite/main.rs was not found: {code:?}"
    );
    // A file or folder named as support is declared in the support block.
    for entry in std::fs::read_dir(manifest_dir().join("tests/suite")).expect("tests/suite") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if name.ends_with("_support") {
            assert!(
                code.contains(&name),
                "tests/suite/{name} is not in main.rs's support block: {code:?}"
            );
        }
    }
    let rows = code.iter().map(|m| vec![m.clone()]).collect();
    assert_page_lists("| support module | what it holds |", 1, &rows, "support modules");
}

/// Asserts that the first `columns` cells of the rows of the page's table headed `header` are
/// exactly `code`'s rows, naming each difference; `what` says what the table lists.
fn assert_page_lists(header: &str, columns: usize, code: &BTreeSet<Vec<String>>, what: &str) {
    let page: BTreeSet<Vec<String>> = page_table(&architecture_page(), header)
        .into_iter()
        .map(|row| row[..columns.min(row.len())].to_vec())
        .collect();
    let diff = differences(&page, code);
    assert!(diff.is_empty(), "docs/ARCHITECTURE.md's {what}:\n{}", diff.join("\n"));
}

#[test]
fn the_support_block_is_read_up_to_the_first_blank_line() {
    let main_rs = "//! doc\n\nmod common;\nmod a_support;\n\nmod tests_a;\n";
    let found = suite_support_modules(main_rs);
    assert_eq!(found, ["a_support", "common"].iter().map(|s| s.to_string()).collect());
}

/// The signature of `Type::new` in `code` (`new(` up to the opening brace, whitespace folded):
/// `None` when the file defines no `new` in an `impl` of the type.
fn constructor_of(code: &str, ty: &str) -> Option<String> {
    let mut rest = code;
    while let Some(at) = rest.find("impl") {
        rest = &rest[at + 4..];
        let header = &rest[..rest.find('{')?];
        let names_type = header.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == ty);
        if !names_type || header.contains(" for ") {
            continue;
        }
        let body_end = rest.find("\nimpl").unwrap_or(rest.len());
        let body = &rest[..body_end];
        let Some(at_new) = body.find("fn new(") else { continue };
        let start = at_new + 3;
        let end = start + body[start..].find('{')?;
        return Some(body[start..end].split_whitespace().collect::<Vec<_>>().join(" "));
    }
    None
}

#[test]
fn every_repository_type_borrows_its_connection_as_the_page_says() {
    let owners: BTreeSet<(&str, &str)> = TABLE_OWNERS.iter().filter_map(|(_, _, o)| *o).collect();
    let mut differing = BTreeSet::new();
    for (file, ty) in owners {
        let code = code_only(&std::fs::read_to_string(src().join(file)).unwrap_or_else(|e| panic!("src/{file}: {e}")));
        let new = constructor_of(&code, ty).unwrap_or_else(|| panic!("src/{file} defines no {ty}::new"));
        let usual = format!("new(conn: &'c Connection) -> {ty}<'c>");
        if new != usual && new != "new(conn: &'c Connection) -> Self" {
            differing.insert(vec![ty.to_string(), new]);
        }
    }
    assert_page_lists(
        "| writer type | constructor | why |",
        2,
        &differing,
        "constructors that take more than the connection",
    );
}

#[test]
fn the_constructor_reader_finds_new_in_the_types_own_impl() {
    let code = "impl Display for A<'_> { fn new(x: u8) {} }\nimpl<'c> A<'c> {\n    pub(crate) fn new(conn: &'c Connection,\n kind: DbKind) -> A<'c> {\n    }\n}\n";
    assert_eq!(
        constructor_of(code, "A").as_deref(),
        Some("new(conn: &'c Connection, kind: DbKind) -> A<'c>")
    );
    assert_eq!(constructor_of(code, "B"), None);
}

/// The lines of `raw` (a source file) whose `format!` builds SQL: its first string literal starts
/// with a statement's first word. Only lines that are code outside test items count (`code` is
/// `raw` through [`code_only`] and [`without_test_items`], which keep line numbers).
fn sql_built(raw: &str, code: &str) -> Vec<usize> {
    const WORDS: &[&str] = &[
        "SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "PRAGMA", "WITH",
    ];
    let raw_lines: Vec<&str> = raw.lines().collect();
    let mut found = Vec::new();
    for (i, line) in code.lines().enumerate() {
        if !line.contains("format!(") {
            continue;
        }
        // The literal may start on the next line (`format!(` then the string).
        let text = raw_lines[i..raw_lines.len().min(i + 2)].join("\n");
        let after = &text[text.find("format!(").map_or(0, |a| a + 8)..];
        let literal = after
            .trim_start()
            .strip_prefix('"')
            .or_else(|| after.trim_start().strip_prefix("r#\""));
        if literal.is_some_and(|l| WORDS.iter().any(|w| l.trim_start().starts_with(w))) {
            found.push(i + 1);
        }
    }
    found
}

#[test]
fn the_architecture_page_lists_every_file_that_builds_sql_at_run_time() {
    let root = src();
    let mut code_files = BTreeSet::new();
    for (_, file) in source_files() {
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        if rel.ends_with("tests.rs") || rel == "architecture.rs" || rel == "store/typed_queries.rs" {
            continue;
        }
        let raw = std::fs::read_to_string(&file).unwrap();
        if !sql_built(&raw, &without_test_items(&code_only(&raw))).is_empty() {
            code_files.insert(vec![format!("src/{rel}")]);
        }
    }
    assert_page_lists(
        "| file | SQL it builds at run time | why it is safe |",
        1,
        &code_files,
        "files that build SQL with format! (SQL belongs in queries/; list a file that must build it, with why)",
    );
}

#[test]
fn the_sql_building_check_sees_format_of_a_statement_and_skips_tests_and_text() {
    let raw = "fn a() { let s = format!(\"SELECT * FROM {t}\"); }\nfn b() { let m = format!(\"selected {n}\"); }\nfn c() {\n    let s = format!(\n        \"DROP VIEW {v}\");\n}\n#[cfg(test)]\nfn d() { format!(\"DELETE FROM x\"); }\n";
    let code = without_test_items(&code_only(raw));
    assert_eq!(sql_built(raw, &code), [1, 4]);
}

/// The library's public modules, each with what outside the crate uses it: the binary
/// (`src/main.rs`), the integration tests (`tests/suite/`) or the benches. Everything else is
/// `pub(crate)`, so that the compiler reports what nothing uses, and what stays public carries a
/// doc (`#![warn(missing_docs)]`). Keep it short: an entry is a user outside the crate.
const PUBLIC_MODULES: &[(&str, &str)] = &[
    ("cli", "main parses and runs; the contract test reads the clap command tree"),
    ("config", "the docs and init-wizard tests read the key table and the opt-in catalog"),
    ("cost", "the cost tests run the transcript import through the library"),
    ("error", "main maps an error to its exit code"),
    ("paths", "the cost tests place a scratch home"),
    ("policy", "the hook bench times the floor, the shell parser and two rails"),
    ("render", "main escapes the error message it prints"),
    ("store", "the cost and hook tests and the hook bench open databases"),
];

#[test]
fn the_library_exports_only_what_the_binary_the_tests_and_the_benches_use() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    assert!(
        lib.lines().any(|l| l.trim() == "#![warn(missing_docs)]"),
        "src/lib.rs keeps #![warn(missing_docs)]"
    );
    let public: Vec<&str> = lib.lines().filter(|l| l.starts_with("pub ")).collect();
    let listed: Vec<String> = PUBLIC_MODULES.iter().map(|(m, _)| format!("pub mod {m};")).collect();
    assert_eq!(
        public, listed,
        "src/lib.rs makes public exactly the modules PUBLIC_MODULES lists (every other is pub(crate)); \
         a new one needs a user outside the crate, named there"
    );
}

/// String literals outside a provider's own module (`hook/<name>.rs`) that are its name or one of
/// its events, allowed where they are, each with its reason. Keep it short: everywhere else the
/// provider is asked (`hook::PROVIDERS`), or its payload type.
const PROVIDER_LITERALS: &[(&str, &str, &str)] = &[
    (
        "agent/schema.rs",
        "cursor",
        "an agent package's harness adapter (`BUILTIN_ADAPTERS`): the agents a package can run, with hooks or without, as packages name them (`claude-code`, `codex`)",
    ),
    (
        "policy/operator.rs",
        "claude",
        "Claude Code's program, among the agent binaries whose process makes a shell an agent's (`AGENT_BINARIES`)",
    ),
    (
        "cost/import/mod.rs",
        "claude",
        "the provider of the transcripts `tlc obs import transcripts` reads: `cost` may not use `hook`, so the test below holds it equal to the provider's name",
    ),
    (
        "ship/otlp.rs",
        "claude",
        "OTLP's `gen_ai.provider.name`: a model family's prefix, and the agent whose models are Anthropic's",
    ),
    ("cli/obs_ship.rs", "cursor", "the spool cursor's column: no provider"),
];

/// The string literals of `text` outside comments and test items (`#[cfg(test)]`).
fn string_literals(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let code = scan(text, |s| {
        found.push(s);
        format!("\"{}\"", found.len() - 1)
    });
    let kept = without_test_items(&code);
    let at = regex::Regex::new(r#""(\d+)""#).unwrap();
    at.captures_iter(&kept)
        .map(|c| found[c[1].parse::<usize>().unwrap()].clone())
        .collect()
}

#[test]
fn a_provider_is_named_only_in_its_own_module() {
    let root = src();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for p in crate::hook::PROVIDERS {
        let module = format!("hook/{}.rs", p.name());
        assert!(root.join(&module).is_file(), "provider {} lives in src/{module}", p.name());
        names.insert(p.name().to_string(), module.clone());
        // A one-word lowercase event (Cursor's `stop`) is also tlc's own word (the `stop` kind,
        // config keys): only the provider's payload type reads it as an event.
        for e in p.events().iter().filter(|e| !e.chars().all(|c| c.is_ascii_lowercase())) {
            names.insert(e.to_string(), module.clone());
        }
    }
    let mut offenders = Vec::new();
    let mut excepted = BTreeSet::new();
    // Spelled in two parts so that grepping `src/` for it finds only the payload types.
    let event_key = concat!("\"hook_event", "_name\"");
    for (_, file) in source_files() {
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let provider_module = names.values().any(|m| *m == rel);
        if !provider_module && text.contains(event_key) {
            offenders.push(format!("{rel}: {event_key} (ask the provider, or its payload type)"));
        }
        if rel.ends_with("tests.rs") {
            continue;
        }
        for literal in string_literals(&text) {
            let Some(home) = names.get(&literal) else { continue };
            if *home == rel {
                continue;
            }
            if PROVIDER_LITERALS.iter().any(|(f, l, _)| *f == rel && *l == literal) {
                excepted.insert((rel.clone(), literal));
            } else {
                offenders.push(format!("{rel}: \"{literal}\" (src/{home}'s)"));
            }
        }
    }
    offenders.sort();
    offenders.dedup();
    assert!(
        offenders.is_empty(),
        "a provider's name or event written outside its module (ask `hook::PROVIDERS` or the provider's payload \
         type; a deliberate exception goes in PROVIDER_LITERALS with its reason):\n  {}",
        offenders.join("\n  ")
    );
    for (f, l, why) in PROVIDER_LITERALS {
        assert!(
            excepted.contains(&(f.to_string(), l.to_string())),
            "PROVIDER_LITERALS excepts \"{l}\" in {f} ({why}) but it is not there: remove the entry"
        );
    }
    assert_eq!(
        Some(crate::cost::import::PROVIDER),
        crate::hook::PROVIDERS
            .iter()
            .map(|p| p.name())
            .find(|n| *n == crate::cost::import::PROVIDER),
        "the transcripts' provider is one of the hook's"
    );
}

#[test]
fn the_literal_check_reads_strings_outside_comments_and_test_items() {
    let text = "fn a() { f(\"claude\", r#\"x\"#); }\n// \"cursor\" in a comment\nconst C: char = '\"';\n#[cfg(test)]\nmod tests {\n    fn t() { g(\"cursor\"); }\n}\nfn b() { h(\"esc\\\"aped\"); }\n";
    assert_eq!(string_literals(text), vec!["claude", "x", "esc\\\"aped"]);
}
