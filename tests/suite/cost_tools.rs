//! Outside tools the cost tests compare against, installed by the tests themselves (from the npm
//! registry and PyPI, with their ordinary clients) into the target folder on first use, so that a
//! fresh machine and CI need nothing installed by hand:
//! - ccusage 20.0.24, the peer (`npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24`);
//! - DuckDB 1.4.4 for Python, to sum an exported CSV as a user would.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

pub const CCUSAGE_VERSION: &str = "20.0.24";
pub const DUCKDB_VERSION: &str = "1.4.4";

static INSTALL: Mutex<()> = Mutex::new(());

fn tools_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("test-tools")
}

/// Runs an install step once per folder; a failed step leaves no marker, so the next run tries again.
fn once(dir: &Path, what: &str, install: impl FnOnce(&Path) -> std::process::ExitStatus) {
    let _held = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let done = dir.join(".installed");
    if done.exists() {
        return;
    }
    std::fs::create_dir_all(dir).unwrap();
    let st = install(dir);
    assert!(st.success(), "installing {what} into {} failed ({st})", dir.display());
    std::fs::write(&done, what).unwrap();
}

/// The ccusage binary (the native build its npm package runs).
pub fn ccusage() -> PathBuf {
    let dir = tools_dir().join(format!("ccusage-{CCUSAGE_VERSION}"));
    once(&dir, "ccusage", |d| {
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
            .arg(d)
            .arg(format!("ccusage@{CCUSAGE_VERSION}"))
            .arg(format!("@ccusage/ccusage-linux-x64@{CCUSAGE_VERSION}"))
            .status()
            .expect("npm runs (Node.js is on this kind of machine)")
    });
    dir.join("node_modules/.bin/ccusage")
}

/// The PYTHONPATH under which `import duckdb` works.
pub fn duckdb_pythonpath() -> PathBuf {
    let dir = tools_dir().join(format!("duckdb-{DUCKDB_VERSION}"));
    once(&dir, "duckdb", |d| {
        Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target"])
            .arg(d)
            .arg(format!("duckdb=={DUCKDB_VERSION}"))
            .status()
            .expect("python3 -m pip runs")
    });
    dir
}

/// Runs `sql` in DuckDB (in memory) and returns its first row as JSON values.
pub fn duckdb_row(sql: &str) -> Vec<serde_json::Value> {
    let script = "import duckdb, json, sys\nrow = duckdb.sql(sys.argv[1]).fetchone()\nprint(json.dumps(list(row)))\n";
    let out = Command::new("python3")
        .args(["-c", script, sql])
        .env("PYTHONPATH", duckdb_pythonpath())
        .output()
        .unwrap();
    assert!(out.status.success(), "duckdb: {sql}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}
