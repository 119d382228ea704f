//! `grind.appendFiles = "auto"` (issue 52): the changed files are appended to a gate's argv only
//! where tlc knows the runner takes file paths, and only the files that runner takes. Every other
//! command runs exactly as the operator wrote it.
//!
//! The seed's rule appended unless the command was a recipe runner, a package script or a glob.
//! Measured with the real client, that rule broke the commands a new user types first:
//! `python3 -m unittest discover -s tests src/calc.py` fails with "Start directory is not
//! importable", and `sh tests/run.sh src/calc.py` hands a script an argument it never expected.
//! So the table below is an allow-list: a runner is in it because appending paths narrows its run
//! to them, with the launchers that only start it (`npx`, `uv run`, `python -m`, …) seen through.

use std::path::Path;

/// What a runner does with the paths it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Takes {
    /// Test files: it runs the tests in them (a source file given to it collects nothing).
    TestFiles,
    /// Source files: it checks them.
    SourceFiles,
}

/// One runner that takes file paths.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Runner {
    /// How the table and the docs name it.
    pub name: &'static str,
    /// The program (its file name), and the word after it when the runner is a subcommand
    /// (`node --test`, `ruff check`, `bun test`).
    pub program: &'static str,
    pub sub: Option<&'static str>,
    pub takes: Takes,
    /// The file extensions it reads.
    pub extensions: &'static [&'static str],
}

const PY: &[&str] = &["py", "pyi"];
const JS: &[&str] = &["js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts", "vue", "svelte"];
const RB: &[&str] = &["rb"];
const PHP: &[&str] = &["php"];
const CSS: &[&str] = &["css", "scss", "sass", "less"];

/// The runners `auto` narrows, in the order docs/gate.md lists them.
pub(crate) const RUNNERS: &[Runner] = &[
    r("pytest", "pytest", None, Takes::TestFiles, PY),
    r("pytest", "py.test", None, Takes::TestFiles, PY),
    r("jest", "jest", None, Takes::TestFiles, JS),
    r("vitest", "vitest", None, Takes::TestFiles, JS),
    r("mocha", "mocha", None, Takes::TestFiles, JS),
    r("ava", "ava", None, Takes::TestFiles, JS),
    r("node --test", "node", Some("--test"), Takes::TestFiles, JS),
    r("bun test", "bun", Some("test"), Takes::TestFiles, JS),
    r("deno test", "deno", Some("test"), Takes::TestFiles, JS),
    r("rspec", "rspec", None, Takes::TestFiles, RB),
    r("phpunit", "phpunit", None, Takes::TestFiles, PHP),
    r("eslint", "eslint", None, Takes::SourceFiles, JS),
    r("prettier", "prettier", None, Takes::SourceFiles, JS),
    r("stylelint", "stylelint", None, Takes::SourceFiles, CSS),
    r("ruff", "ruff", None, Takes::SourceFiles, PY),
    r("mypy", "mypy", None, Takes::SourceFiles, PY),
    r("flake8", "flake8", None, Takes::SourceFiles, PY),
    r("pylint", "pylint", None, Takes::SourceFiles, PY),
    r("black", "black", None, Takes::SourceFiles, PY),
    r("pyright", "pyright", None, Takes::SourceFiles, PY),
    r("rubocop", "rubocop", None, Takes::SourceFiles, RB),
    r("deno lint", "deno", Some("lint"), Takes::SourceFiles, JS),
];

const fn r(
    name: &'static str,
    program: &'static str,
    sub: Option<&'static str>,
    takes: Takes,
    extensions: &'static [&'static str],
) -> Runner {
    Runner {
        name,
        program,
        sub,
        takes,
        extensions,
    }
}

/// Launchers that only start the program named after them: (program, the subcommand word that
/// makes it a launcher, or `None` when the program always is one).
const LAUNCHERS: &[(&str, Option<&str>)] = &[
    ("npx", None),
    ("bunx", None),
    ("pnpx", None),
    ("npm", Some("exec")),
    ("pnpm", Some("exec")),
    ("pnpm", Some("dlx")),
    ("yarn", Some("exec")),
    ("yarn", Some("dlx")),
    ("bun", Some("x")),
    ("uv", Some("run")),
    ("poetry", Some("run")),
    ("pipenv", Some("run")),
    ("pdm", Some("run")),
    ("hatch", Some("run")),
    ("rye", Some("run")),
    ("bundle", Some("exec")),
];

fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `argv` without the launchers in front of the program they start: `npx --yes jest` → `jest`,
/// `uv run --frozen pytest -q` → `pytest -q`, `python3 -m pytest` → `pytest`.
fn launched(argv: &[String]) -> &[String] {
    let mut rest = argv;
    loop {
        let Some(first) = rest.first().map(|a| base(a)) else { return rest };
        let second = rest.get(1).map(String::as_str);
        let skip = if let Some((_, sub)) = LAUNCHERS.iter().find(|(p, s)| *p == first && (s.is_none() || *s == second)) {
            if sub.is_some() {
                2
            } else {
                1
            }
        } else if (first.starts_with("python") || first == "py") && second == Some("-m") {
            // `python -m <module>` starts the module's runner; `-m unittest` is no runner of the table.
            2
        } else {
            return rest;
        };
        rest = &rest[skip.min(rest.len())..];
        while rest.first().is_some_and(|a| a.starts_with('-')) {
            let was_separator = rest[0] == "--";
            rest = &rest[1..];
            if was_separator {
                break;
            }
        }
    }
}

/// The program `argv` starts, launchers seen through (`npx jest` → `jest`, `python3 -m pytest` →
/// `pytest`), by its file name.
pub(crate) fn program(argv: &[String]) -> Option<String> {
    launched(argv).first().map(|a| base(a).to_string())
}

/// The runner of the table `argv` starts (launchers seen through), or `None`: then the command
/// runs as written.
pub(crate) fn runner(argv: &[String]) -> Option<&'static Runner> {
    let args = launched(argv);
    let program = base(args.first()?);
    let sub = args.get(1).map(String::as_str);
    let runner = RUNNERS
        .iter()
        .find(|r| r.program == program && r.sub.is_none_or(|s| Some(s) == sub))?;
    // A glob or a brace pattern among the operator's own arguments already chooses the files:
    // appending more widens the run instead of narrowing it.
    let globs = args
        .iter()
        .skip(1)
        .any(|a| a.contains('*') || a.contains('?') || (a.contains('{') && a.contains('}')));
    (!globs).then_some(runner)
}

/// Whether `path` is a test file by the naming conventions of the runner's language.
fn is_test_file(path: &str) -> bool {
    let p = Path::new(path);
    let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let stem = p.file_stem().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let in_test_folder = p
        .components()
        .any(|c| matches!(c.as_os_str().to_str(), Some("test" | "tests" | "__tests__" | "spec" | "specs")));
    name.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || stem.ends_with("Test")
        || name.contains(".test.")
        || name.contains(".spec.")
        || in_test_folder
}

/// The files of `changed` that `runner` takes: of its languages, and for a test runner only test
/// files.
pub(crate) fn files_for<'f>(runner: &Runner, changed: &'f [String]) -> Vec<&'f String> {
    changed
        .iter()
        .filter(|f| {
            let ext = Path::new(f.as_str()).extension().and_then(|e| e.to_str()).unwrap_or("");
            runner.extensions.contains(&ext) && (runner.takes == Takes::SourceFiles || is_test_file(f))
        })
        .collect()
}

/// The argv a gate runs: `argv` with changed files appended as `append_files` says — `always`:
/// every one; `never`: none; `auto`: those a runner of the table takes, and none (the command as
/// written) for any other command, or when the turn changed none of the files it takes.
pub(crate) fn final_argv(argv: &[String], append_files: &str, files: &[String]) -> Vec<String> {
    let chosen: Vec<&String> = match append_files {
        "always" => files.iter().collect(),
        "never" => Vec::new(),
        _ => runner(argv).map(|r| files_for(r, files)).unwrap_or_default(),
    };
    let mut out = argv.to_vec();
    // A file the agent named `-rf` or `--exec=…` must reach the command as a path, never as an
    // option of the operator's command.
    out.extend(
        chosen
            .into_iter()
            .map(|f| if f.starts_with('-') { format!("./{f}") } else { f.clone() }),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_runner_of_the_table_and_its_launchers_narrow() {
        let changed = v(&[
            "src/calc.py",
            "tests/test_calc.py",
            "web/app.ts",
            "web/app.test.ts",
            "lib/a_spec.rb",
            "lib/a.rb",
        ]);
        let cases: &[(&[&str], &[&str])] = &[
            (&["pytest"], &["tests/test_calc.py"]),
            (&["pytest", "-q"], &["tests/test_calc.py"]),
            (&["python3", "-m", "pytest"], &["tests/test_calc.py"]),
            (&["uv", "run", "pytest"], &["tests/test_calc.py"]),
            (&["poetry", "run", "pytest", "-x"], &["tests/test_calc.py"]),
            (&["npx", "jest"], &["web/app.test.ts"]),
            (&["npx", "--yes", "vitest", "run"], &["web/app.test.ts"]),
            (&["bunx", "mocha"], &["web/app.test.ts"]),
            (&["pnpm", "exec", "jest"], &["web/app.test.ts"]),
            (&["node", "--test"], &["web/app.test.ts"]),
            (&["bun", "test"], &["web/app.test.ts"]),
            (&["rspec"], &["lib/a_spec.rb"]),
            (&["bundle", "exec", "rspec"], &["lib/a_spec.rb"]),
            (&["eslint", "."], &["web/app.ts", "web/app.test.ts"]),
            (&["ruff", "check"], &["src/calc.py", "tests/test_calc.py"]),
            (&["mypy"], &["src/calc.py", "tests/test_calc.py"]),
            (&["uv", "run", "mypy", "--strict"], &["src/calc.py", "tests/test_calc.py"]),
            (&["rubocop"], &["lib/a_spec.rb", "lib/a.rb"]),
            (&["phpunit"], &[]),
        ];
        for (argv, appended) in cases {
            let argv = v(argv);
            assert!(runner(&argv).is_some(), "{argv:?} is a runner of the table");
            let mut want = argv.clone();
            want.extend(appended.iter().map(|s| s.to_string()));
            assert_eq!(final_argv(&argv, "auto", &changed), want, "{argv:?}");
        }
    }

    #[test]
    fn every_other_command_runs_exactly_as_written() {
        let changed = v(&["src/calc.py", "tests/test_calc.py", "src/lib.rs"]);
        for argv in [
            &["python3", "-m", "unittest", "discover", "-s", "tests"][..],
            &["python", "-m", "unittest"],
            &["sh", "tests/run.sh"],
            &["bash", "-c", "make test"],
            &["cargo", "test"],
            &["go", "test", "./..."],
            &["make", "test"],
            &["just", "test"],
            &["npm", "test"],
            &["npm", "run", "lint"],
            &["yarn", "test"],
            &["tox"],
            &["./run-tests"],
            &["eslint", "src/**/*.ts"],
            &["pytest", "tests/test_{a,b}.py"],
        ] {
            let argv = v(argv);
            assert_eq!(final_argv(&argv, "auto", &changed), argv, "{argv:?} runs as written");
        }
        // `always` appends whatever the command; `never` nothing.
        assert_eq!(final_argv(&v(&["sh", "t.sh"]), "always", &v(&["a.py"])), v(&["sh", "t.sh", "a.py"]));
        assert_eq!(final_argv(&v(&["pytest"]), "never", &changed), v(&["pytest"]));
    }

    #[test]
    fn a_source_change_alone_runs_a_test_runner_in_full_and_a_file_is_never_an_option() {
        assert_eq!(final_argv(&v(&["pytest"]), "auto", &v(&["src/calc.py"])), v(&["pytest"]));
        assert_eq!(
            final_argv(&v(&["eslint"]), "auto", &v(&["--exec=x.js", "-rf.ts"])),
            v(&["eslint", "./--exec=x.js", "./-rf.ts"])
        );
    }
}
