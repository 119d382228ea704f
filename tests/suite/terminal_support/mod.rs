//! What tests/suite/terminal.rs needs besides the binary: a Python venv with DuckDB (installed here,
//! pinned by requirements.txt, kept under target/), the way ship_support builds its own.

use std::path::PathBuf;
use std::sync::OnceLock;

const REQUIREMENTS: &str = include_str!("requirements.txt");

/// The venv's python (`target/duckdb-py`), created once per requirements text.
pub fn python() -> PathBuf {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| crate::common::python_venv("duckdb-py", "tests/suite/terminal_support/requirements.txt", REQUIREMENTS))
        .clone()
}
