//! The gate commands a repository suggests, from the files at its root: what `tlc init`'s wizard
//! offers for `grind.testCommand` and `grind.lintCommand` (docs/init.md). Suggestions only: the
//! operator picks one or none, and nothing here runs a command. Files are read through `fsread`
//! (a repository's files are not tlc's), each capped.

use super::Gate;
use std::path::Path;

/// A manifest or recipe file read for its script or target names.
const MANIFEST_CAP: u64 = 1024 * 1024;

/// One suggested command and the file that suggested it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Suggestion {
    pub argv: Vec<String>,
    /// The file it was read from (`Cargo.toml`, `package.json`, `Makefile`…).
    pub because: &'static str,
}

fn s(because: &'static str, argv: &[&str]) -> Suggestion {
    Suggestion {
        argv: argv.iter().map(|a| (*a).to_string()).collect(),
        because,
    }
}

/// The commands `root` suggests for `gate`, most specific first, keeping only those whose program
/// resolves on `PATH` (a gate that cannot start is a config fault). The docs gate has none: its
/// tool is the project's own.
pub(crate) fn suggestions(root: &Path, gate: Gate) -> Vec<Suggestion> {
    let mut out = found(root, gate);
    out.retain(|sug| sug.argv.first().is_some_and(|p| super::resolve_on_path(p).is_some()));
    out.dedup();
    out
}

/// [`suggestions`] before the `PATH` filter.
pub(crate) fn found(root: &Path, gate: Gate) -> Vec<Suggestion> {
    let file = |name: &str| std::fs::symlink_metadata(root.join(name)).is_ok_and(|m| m.is_file() || m.is_symlink());
    let text = |name: &str| crate::fsread::read_text_or_none(&root.join(name), MANIFEST_CAP);
    let mut out = Vec::new();
    let npm = text("package.json").and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let npm_script = |name: &str| {
        npm.as_ref()
            .and_then(|v| v["scripts"][name].as_str())
            // npm init's placeholder fails on purpose: it is no test command.
            .is_some_and(|body| !body.contains("no test specified"))
    };
    let python_says = |what: &str| {
        ["pyproject.toml", "setup.cfg", "tox.ini"]
            .iter()
            .any(|f| text(f).is_some_and(|t| t.contains(what)))
    };
    let make_target = |target: &str| {
        ["GNUmakefile", "makefile", "Makefile"]
            .iter()
            .find_map(|f| text(f))
            .is_some_and(|t| {
                t.lines().any(|l| {
                    l.strip_prefix(target)
                        .is_some_and(|rest| rest.starts_with(':') && !rest.starts_with(":="))
                })
            })
    };
    match gate {
        Gate::Test => {
            if file("Cargo.toml") {
                out.push(s("Cargo.toml", &["cargo", "test"]));
            }
            if file("go.mod") {
                out.push(s("go.mod", &["go", "test", "./..."]));
            }
            if npm_script("test") {
                out.push(s("package.json", &["npm", "test"]));
            }
            if file("pytest.ini") || file("conftest.py") || python_says("pytest") {
                out.push(s("pytest configuration", &["pytest"]));
            }
            if make_target("test") {
                out.push(s("Makefile", &["make", "test"]));
            }
        }
        Gate::Lint => {
            if file("Cargo.toml") {
                out.push(s("Cargo.toml", &["cargo", "clippy", "--all-targets", "--", "-D", "warnings"]));
            }
            if file("go.mod") {
                out.push(s("go.mod", &["go", "vet", "./..."]));
            }
            if npm_script("lint") {
                out.push(s("package.json", &["npm", "run", "lint"]));
            }
            if file("ruff.toml") || file(".ruff.toml") || python_says("[tool.ruff") {
                out.push(s("ruff configuration", &["ruff", "check"]));
            }
            if make_target("lint") {
                out.push(s("Makefile", &["make", "lint"]));
            }
        }
        Gate::Docs => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(root: &Path, gate: Gate) -> Vec<String> {
        found(root, gate).iter().map(|s| s.argv.join(" ")).collect()
    }

    #[test]
    fn each_ecosystem_suggests_its_own_commands() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        assert!(found(r, Gate::Test).is_empty() && found(r, Gate::Lint).is_empty());
        std::fs::write(r.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        assert_eq!(argvs(r, Gate::Test), ["cargo test"]);
        assert_eq!(argvs(r, Gate::Lint), ["cargo clippy --all-targets -- -D warnings"]);
        std::fs::write(r.join("go.mod"), "module x\n").unwrap();
        std::fs::write(
            r.join("package.json"),
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1", "lint": "eslint ."}}"#,
        )
        .unwrap();
        std::fs::write(r.join("pyproject.toml"), "[tool.pytest.ini_options]\n[tool.ruff]\n").unwrap();
        std::fs::write(r.join("Makefile"), "X := 1\ntest: build\n\tgo test\nlint := no\n").unwrap();
        assert_eq!(argvs(r, Gate::Test), ["cargo test", "go test ./...", "pytest", "make test"]);
        assert_eq!(
            argvs(r, Gate::Lint),
            [
                "cargo clippy --all-targets -- -D warnings",
                "go vet ./...",
                "npm run lint",
                "ruff check"
            ]
        );
        std::fs::write(r.join("package.json"), r#"{"scripts": {"test": "jest"}}"#).unwrap();
        assert!(argvs(r, Gate::Test).contains(&"npm test".to_string()));
        assert!(found(r, Gate::Docs).is_empty());
    }

    #[test]
    fn a_manifest_that_is_not_a_file_suggests_nothing_and_is_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        std::fs::create_dir(r.join("Cargo.toml")).unwrap();
        // A FIFO at package.json: fsread never opens it blocking.
        assert!(std::process::Command::new("mkfifo")
            .arg(r.join("package.json"))
            .status()
            .unwrap()
            .success());
        assert!(found(r, Gate::Test).is_empty());
    }
}
