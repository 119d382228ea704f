//! Compiles `queries/**/*.sql` and `reports/**/*.sql` into the binary.
//!
//! `queries/<db>/<domain>/<name>.sql` becomes the constant
//! `queries::<db>::<domain>::<NAME>`; every file is also listed in `queries::ALL` so the
//! typed-query test can prepare each one against a freshly migrated database.
//! `reports/<db>/<view>.sql` becomes an entry of `reports::<DB>` (name, sql), and the
//! fingerprint of each set lets the store notice a changed view without reading it.
//! `migrations/<db>/V<n>__*.sql` gives the latest schema version each binary knows.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

// The config key table and what it generates: std-only files shared with the crate.
#[allow(dead_code)]
#[path = "src/config/keygen.rs"]
mod keygen;
#[allow(dead_code)]
#[path = "src/config/keys.rs"]
mod keys;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    for dir in ["queries", "reports", "migrations"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
        for f in sql_files(&root.join(dir)) {
            println!("cargo:rerun-if-changed={}", f.display());
        }
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    fs::write(out.join("queries.rs"), queries_module(&root)).expect("write queries.rs");
    fs::write(out.join("reports.rs"), reports_module(&root)).expect("write reports.rs");
    fs::write(out.join("schema_versions.rs"), versions_module(&root)).expect("write schema_versions.rs");
    for f in ["keys.rs", "keygen.rs"] {
        println!("cargo:rerun-if-changed={}", root.join("src/config").join(f).display());
    }
    fs::write(out.join("settings.rs"), keygen::settings_rust(keys::KEYS)).expect("write settings.rs");
    fs::write(out.join("default-config.toml"), keygen::template(keys::KEYS)).expect("write default-config.toml");
    link_for_fast_start();
    println!("cargo:rustc-env=TLC_LONG_VERSION={}", long_version(&root));
}

/// What the binary says of where it came from (`tlc version`, `--version`, the attestation
/// records, `tlc update`): the commit it was built from, that commit's date, whether the files
/// that build it had uncommitted changes, and the checkout's folder. Returns `--version`'s line,
/// which `tlc version` prints first. No hand-kept number: the package version is cargo's alone.
fn long_version(root: &Path) -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    // A new commit moves the worktree's HEAD log, and an edit to a file the binary is built from
    // changes what "dirty" says: either reruns this script.
    if let Some(log) = git(&["rev-parse", "--git-path", "logs/HEAD"]).filter(|s| !s.is_empty()) {
        println!("cargo:rerun-if-changed={}", root.join(log).display());
    }
    for input in BUILD_INPUTS {
        println!("cargo:rerun-if-changed={}", root.join(input).display());
    }
    println!("cargo:rerun-if-env-changed=TLC_COMMIT");
    let from_env = std::env::var("TLC_COMMIT").ok().filter(|c| !c.is_empty());
    let head = git(&["log", "-1", "--format=%H %cs"]).filter(|s| !s.is_empty());
    let (commit, date) = match (&from_env, &head) {
        (Some(c), _) => (c.clone(), String::new()),
        (None, Some(h)) => {
            let (c, d) = h.split_once(' ').unwrap_or((h.as_str(), ""));
            (c.to_string(), d.to_string())
        }
        (None, None) => ("unknown".to_string(), String::new()),
    };
    let dirty = match (&from_env, &head) {
        (None, Some(_)) => {
            let mut args = vec!["status", "--porcelain", "--untracked-files=no", "--"];
            args.extend(BUILD_INPUTS);
            match git(&args) {
                Some(out) if out.is_empty() => "clean",
                Some(_) => "dirty",
                None => "unknown",
            }
        }
        _ => "unknown",
    };
    println!("cargo:rustc-env=TLC_COMMIT_FULL={commit}");
    println!("cargo:rustc-env=TLC_COMMIT_DATE={date}");
    println!("cargo:rustc-env=TLC_TREE_STATE={dirty}");
    println!("cargo:rustc-env=TLC_SOURCE_DIR={}", root.display());
    let short: String = commit.chars().take(12).collect();
    let when = if date.is_empty() { String::new() } else { format!("{date}, ") };
    format!(
        "{short} ({when}{dirty}; project schema {}, home schema {})",
        latest_version(root, "project"),
        latest_version(root, "home")
    )
}

/// The files and folders the binary is built from: a change to one of them makes the build
/// "dirty". Documentation and tests are not among them.
const BUILD_INPUTS: &[&str] = &[
    "src",
    "queries",
    "reports",
    "migrations",
    "build.rs",
    "Cargo.toml",
    "Cargo.lock",
    ".cargo",
];

fn latest_version(root: &Path, db: &str) -> u32 {
    sql_files(&root.join("migrations").join(db))
        .iter()
        .filter_map(|f| f.file_name()?.to_string_lossy().strip_prefix('V')?.split("__").next()?.parse().ok())
        .max()
        .unwrap_or(0)
}

/// Start-up cost of the binary: `tlc hook` runs as a whole process on every tool call.
///
/// The release build is a static PIE (`.cargo/config.toml`: `+crt-static` for the explicit
/// `x86_64-unknown-linux-gnu` target): the standard library then links the unwinder (libgcc_eh)
/// statically itself, and there is nothing to do here. A dynamically linked glibc build (another
/// target, or `RUSTFLAGS` without `+crt-static`) links the unwinder in statically all the same
/// instead of loading libgcc_s.so, whose load and CPU-feature probe cost about 0.1 ms per process
/// on the 2-core machines here. Unwinding, and so the hook's `catch_unwind`, works the same.
/// Listed before the standard library's `-lgcc_s`, it resolves the unwinder's symbols first and
/// `--as-needed` then drops libgcc_s.
///
/// Either way the binary stays a position-independent executable with full RELRO (the
/// toolchain's default: `-pie -z relro -z now`, `-static-pie` for the static one): it parses text
/// an agent controls with C code (SQLite) in the process, so it keeps the platform's exploit
/// mitigations. A test (`tests/suite/foundation.rs`) checks both.
fn link_for_fast_start() {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    if var("CARGO_CFG_TARGET_FEATURE").split(',').any(|f| f == "crt-static") {
        return;
    }
    println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
}

fn sql_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "sql") {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

/// FNV-1a, 64 bit: a stable fingerprint that needs no build dependency.
fn fnv1a(bytes: &[u8], mut h: u64) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

fn ident(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

fn queries_module(root: &Path) -> String {
    let base = root.join("queries");
    // db -> domain -> [(NAME, path)]
    let mut tree: BTreeMap<String, BTreeMap<String, Vec<(String, PathBuf)>>> = BTreeMap::new();
    let mut all = Vec::new();
    for f in sql_files(&base) {
        let rel = f.strip_prefix(&base).expect("under queries/");
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        assert!(
            parts.len() == 3,
            "queries must be laid out as queries/<db>/<domain>/<name>.sql: {}",
            rel.display()
        );
        let name = parts[2].trim_end_matches(".sql").to_string();
        tree.entry(parts[0].clone())
            .or_default()
            .entry(parts[1].clone())
            .or_default()
            .push((ident(&name).to_uppercase(), f.clone()));
        all.push((parts[0].clone(), format!("{}/{}/{}", parts[0], parts[1], name), f.clone()));
    }
    let mut s = String::from("// Generated by build.rs from queries/.\n");
    for (db, domains) in &tree {
        writeln!(s, "pub mod {} {{", ident(db)).unwrap();
        for (domain, names) in domains {
            writeln!(s, "    pub mod {} {{", ident(domain)).unwrap();
            for (name, path) in names {
                writeln!(
                    s,
                    "        pub const {name}: &str = include_str!({:?});",
                    path.display().to_string()
                )
                .unwrap();
            }
            writeln!(s, "    }}").unwrap();
        }
        writeln!(s, "}}").unwrap();
    }
    writeln!(
        s,
        "/// Every compiled-in statement: (database, name, sql), for the typed-query test."
    )
    .unwrap();
    writeln!(s, "#[cfg(test)]").unwrap();
    writeln!(s, "pub const ALL: &[(&str, &str, &str)] = &[").unwrap();
    for (db, name, path) in &all {
        writeln!(s, "    ({db:?}, {name:?}, include_str!({:?})),", path.display().to_string()).unwrap();
    }
    writeln!(s, "];").unwrap();
    s
}

fn reports_module(root: &Path) -> String {
    let base = root.join("reports");
    let mut s = String::from("// Generated by build.rs from reports/.\n");
    for db in ["project", "home"] {
        let files = sql_files(&base.join(db));
        let mut h = 0xcbf29ce484222325u64;
        writeln!(s, "pub const {}: &[(&str, &str)] = &[", db.to_uppercase()).unwrap();
        for f in &files {
            let name = f.file_stem().expect("stem").to_string_lossy().into_owned();
            let text = fs::read(f).expect("read view");
            h = fnv1a(name.as_bytes(), h);
            h = fnv1a(&text, h);
            writeln!(s, "    ({name:?}, include_str!({:?})),", f.display().to_string()).unwrap();
        }
        writeln!(s, "];").unwrap();
        writeln!(s, "pub const {}_FINGERPRINT: u64 = {h};", db.to_uppercase()).unwrap();
    }
    s
}

fn versions_module(root: &Path) -> String {
    let mut s = String::from("// Generated by build.rs from migrations/.\n");
    for db in ["project", "home"] {
        let mut latest = 0u32;
        for f in sql_files(&root.join("migrations").join(db)) {
            let name = f.file_name().expect("name").to_string_lossy().into_owned();
            let v: u32 = name
                .strip_prefix('V')
                .and_then(|r| r.split("__").next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("migration file {name} is not named V<n>__<what>.sql"));
            latest = latest.max(v);
        }
        writeln!(s, "pub const {}_LATEST: u32 = {latest};", db.to_uppercase()).unwrap();
    }
    s
}
