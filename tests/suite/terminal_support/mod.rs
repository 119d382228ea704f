//! What tests/suite/terminal.rs needs besides the binary: a Python venv with DuckDB (installed here,
//! pinned by requirements.txt, kept under target/), the way ship_support builds its own.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const REQUIREMENTS: &str = include_str!("requirements.txt");

/// The cargo target folder (the binary is `<target>/<profile>/tlc`).
fn target_dir() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_tlc"));
    bin.parent().and_then(Path::parent).expect("target dir").to_path_buf()
}

/// The venv's python, creating the venv (once per requirements text) when needed. Several test
/// processes may ask at once: a lock file serialises them.
pub fn python() -> PathBuf {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| {
        let target = target_dir();
        std::fs::create_dir_all(&target).expect("target dir");
        let lock = std::fs::File::create(target.join("duckdb-py.lock")).expect("lock file");
        lock.lock().expect("lock the venv");
        let venv = target.join("duckdb-py");
        let stamp = venv.join("tlc-requirements.txt");
        let py = venv.join("bin/python");
        if std::fs::read_to_string(&stamp).ok().as_deref() != Some(REQUIREMENTS) || !py.exists() {
            let _ = std::fs::remove_dir_all(&venv);
            let st = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .expect("python3 -m venv (tests/suite/terminal.rs needs python3 with venv)");
            assert!(st.success(), "python3 -m venv {} failed", venv.display());
            let out = Command::new(&py)
                .args(["-m", "pip", "install", "--disable-pip-version-check", "-q", "-r"])
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite/terminal_support/requirements.txt"))
                .output()
                .expect("pip");
            assert!(
                out.status.success(),
                "pip install -r tests/suite/terminal_support/requirements.txt failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::fs::write(&stamp, REQUIREMENTS).expect("stamp");
        }
        py
    })
    .clone()
}
