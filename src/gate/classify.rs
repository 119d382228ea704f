//! What a finished gate command means: `pass`, a `verification` failure (the command ran and
//! found a problem), `config` (the command never ran, so the code is not at fault), or `timeout`.
//!
//! A command never ran when it exited 127 or 126, could not be started, or when its runner could
//! not resolve the target it was given. The runners' own words for the last case are kept in
//! [`UNRESOLVED_TARGET`], the one list of them.

/// Markers of a runner that could not resolve its target: every part of one entry must occur in
/// the output (compared in lower case).
pub(crate) const UNRESOLVED_TARGET: &[(&str, &[&str])] = &[
    ("npm", &["missing script:"]),
    ("pnpm", &["err_pnpm_no_script"]),
    ("pnpm", &["none of the selected packages has a", "script"]),
    ("yarn", &["error command \"", "\" not found"]),
    ("bun", &["error: script not found"]),
    ("make", &["no rule to make target"]),
    ("just", &["does not contain recipe"]),
    ("task", &["task: task \"", "\" does not exist"]),
    ("mise", &["mise", "no task named"]),
    ("rake", &["don't know how to build task"]),
    ("cargo", &["error: no such command:"]),
    ("go", &["go: unknown subcommand"]),
    ("shell", &["command not found"]),
];

/// Markers of a runner that ran but was given a command it cannot use (issue 52): its own usage
/// error, or a run that collected no test at all. Neither is a verdict on the code: the command is
/// broken. Every part of one entry must occur in the output (compared in lower case).
pub(crate) const BROKEN_COMMAND: &[(&str, &[&str])] = &[
    ("unittest", &["start directory is not importable"]),
    ("unittest", &["ran 0 tests"]),
    ("pytest", &["no tests ran"]),
    ("pytest", &["collected 0 items"]),
    ("pytest", &["error: file or directory not found"]),
    ("argparse", &["error: unrecognized arguments"]),
    ("argparse", &["error: unrecognised arguments"]),
    ("jest", &["no tests found, exiting with code"]),
    ("vitest", &["no test files found"]),
    ("mocha", &["error: no test files found"]),
    ("node --test", &["could not find"]),
    ("rspec", &["0 examples, 0 failures"]),
    ("phpunit", &["no tests executed"]),
    ("getopt", &["unrecognized option"]),
    ("getopt", &["unknown option"]),
];

/// The runner whose broken-command words occur in `output` — or, for pytest, whose exit code says
/// so (4: usage error, 5: no tests collected) — if any.
pub(crate) fn broken_command(output: &str, exit_code: Option<i32>, runner: Option<&str>) -> Option<&'static str> {
    if runner == Some("pytest") && matches!(exit_code, Some(4 | 5)) {
        return Some("pytest");
    }
    let lower = output.to_lowercase();
    if let Some((r, _)) = BROKEN_COMMAND.iter().find(|(_, parts)| parts.iter().all(|p| lower.contains(p))) {
        return Some(r);
    }
    // `python3 -m pytest` where pytest is not installed: the interpreter's own line, not a test's
    // `ModuleNotFoundError` (which names the module as a quoted string after the exception name).
    lower
        .lines()
        .any(|l| {
            l.split_once(": no module named ")
                .is_some_and(|(program, _)| program.rsplit('/').next().is_some_and(|p| p.starts_with("python")))
        })
        .then_some("python -m")
}

/// How a gate run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Category {
    Pass,
    Verification,
    Config,
    Timeout,
}

impl Category {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Category::Pass => "pass",
            Category::Verification => "verification",
            Category::Config => "config",
            Category::Timeout => "timeout",
        }
    }

    /// The `gate_runs.verdict` of this category.
    pub(crate) fn verdict(self) -> &'static str {
        match self {
            Category::Pass => "pass",
            Category::Config => "config",
            Category::Verification | Category::Timeout => "fail",
        }
    }
}

/// The runner whose unresolved-target words occur in `output`, if any.
pub(crate) fn unresolved_target(output: &str) -> Option<&'static str> {
    let lower = output.to_lowercase();
    UNRESOLVED_TARGET
        .iter()
        .find(|(_, parts)| parts.iter().all(|p| lower.contains(p)))
        .map(|(runner, _)| *runner)
}

/// Classifies a finished run: `started` is false when the command could not be spawned; `runner`
/// is the program the gate's argv starts (launchers seen through), where one is known.
pub(crate) fn classify(started: bool, timed_out: bool, exit_code: Option<i32>, output: &str, runner: Option<&str>) -> Category {
    if !started {
        return Category::Config;
    }
    if timed_out {
        return Category::Timeout;
    }
    match exit_code {
        Some(0) => Category::Pass,
        Some(126 | 127) => Category::Config,
        _ if unresolved_target(output).is_some() => Category::Config,
        _ if broken_command(output, exit_code, runner).is_some() => Category::Config,
        _ => Category::Verification,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_never_ran_is_config() {
        assert_eq!(classify(false, false, None, "", None), Category::Config);
        assert_eq!(classify(true, false, Some(127), "", None), Category::Config);
        assert_eq!(classify(true, false, Some(126), "", None), Category::Config);
        assert_eq!(classify(true, true, None, "error", None), Category::Timeout);
        assert_eq!(classify(true, false, Some(0), "missing script: x", None), Category::Pass);
        assert_eq!(classify(true, false, Some(1), "test result: FAILED", None), Category::Verification);
        assert_eq!(classify(true, false, None, "killed by a signal", None), Category::Verification);
    }

    #[test]
    fn each_runner_that_cannot_resolve_its_target_is_recognised() {
        let said = [
            ("npm error Missing script: \"tset\"", "npm"),
            ("npm ERR! missing script: test", "npm"),
            (" ERR_PNPM_NO_SCRIPT  Missing script: tset", "npm"),
            ("error Command \"tset\" not found.", "yarn"),
            ("error: Script not found \"tset\"", "bun"),
            ("make: *** No rule to make target 'tset'.  Stop.", "make"),
            ("error: Justfile does not contain recipe `tset`.", "just"),
            ("task: Task \"tset\" does not exist", "task"),
            ("mise ERROR no task named `tset` found", "mise"),
            ("rake aborted!\nDon't know how to build task 'tset'", "rake"),
            ("error: no such command: `tset`", "cargo"),
            ("go: unknown subcommand \"tset\"", "go"),
            ("sh: 1: tset: command not found", "shell"),
        ];
        for (output, runner) in said {
            assert_eq!(unresolved_target(output), Some(runner), "{output}");
            assert_eq!(classify(true, false, Some(1), output, None), Category::Config, "{output}");
        }
        for output in ["assertion failed: left == right", "1 test failed", "error[E0308]: mismatched types"] {
            assert_eq!(unresolved_target(output), None, "{output}");
        }
    }

    /// Issue 52, item 2: a runner's own usage error, or a run that collected no test, is a broken
    /// command (`config`), never a verdict on the code; a failing test stays `verification`.
    #[test]
    fn a_runners_usage_error_or_an_empty_run_is_config() {
        let broken: &[(&str, Option<i32>, Option<&str>)] = &[
            (
                "Traceback (most recent call last):\n  File \"/usr/lib/python3.11/unittest/loader.py\", line 322, in discover\nImportError: Start directory is not importable: 'tests/calc.py'",
                Some(1),
                Some("python3"),
            ),
            ("\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nNO TESTS RAN", Some(5), Some("python3")),
            ("ERROR: usage: pytest [options] [file_or_dir]\npytest: error: unrecognized arguments: --frob", Some(4), Some("pytest")),
            ("============ no tests ran in 0.01s ============", Some(5), Some("pytest")),
            ("collected 0 items", Some(5), None),
            ("usage: run.py [-h]\nrun.py: error: unrecognized arguments: src/calc.py", Some(2), Some("python3")),
            ("No tests found, exiting with code 1\nRun with `--passWithNoTests` to exit with code 0", Some(1), Some("jest")),
            ("No test files found, exiting with code 1", Some(1), Some("vitest")),
            ("/usr/bin/python3: No module named pytest", Some(1), Some("python3")),
            ("0 examples, 0 failures", Some(1), Some("rspec")),
        ];
        for (output, code, runner) in broken {
            assert_eq!(classify(true, false, *code, output, *runner), Category::Config, "{output}");
        }
        let failing: &[(&str, Option<i32>, Option<&str>)] = &[
            (
                "FAIL: test_add (test_calc.TestCalc.test_add)\nTraceback (most recent call last):\n  File \"tests/test_calc.py\", line 6, in test_add\n    self.assertEqual(add(2, 2), 4)\nAssertionError: 5 != 4\n\nRan 1 test in 0.000s\n\nFAILED (failures=1)",
                Some(1),
                Some("python3"),
            ),
            ("ModuleNotFoundError: No module named 'calc'", Some(1), Some("python3")),
            ("E       assert 5 == 4\n1 failed in 0.02s", Some(1), Some("pytest")),
            ("Tests: 1 failed, 1 total", Some(1), Some("jest")),
        ];
        for (output, code, runner) in failing {
            assert_eq!(classify(true, false, *code, output, *runner), Category::Verification, "{output}");
        }
    }
}
