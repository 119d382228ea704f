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

/// Classifies a finished run: `started` is false when the command could not be spawned.
pub(crate) fn classify(started: bool, timed_out: bool, exit_code: Option<i32>, output: &str) -> Category {
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
        _ => Category::Verification,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_never_ran_is_config() {
        assert_eq!(classify(false, false, None, ""), Category::Config);
        assert_eq!(classify(true, false, Some(127), ""), Category::Config);
        assert_eq!(classify(true, false, Some(126), ""), Category::Config);
        assert_eq!(classify(true, true, None, "error"), Category::Timeout);
        assert_eq!(classify(true, false, Some(0), "missing script: x"), Category::Pass);
        assert_eq!(classify(true, false, Some(1), "test result: FAILED"), Category::Verification);
        assert_eq!(classify(true, false, None, "killed by a signal"), Category::Verification);
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
            assert_eq!(classify(true, false, Some(1), output), Category::Config, "{output}");
        }
        for output in ["assertion failed: left == right", "1 test failed", "error[E0308]: mismatched types"] {
            assert_eq!(unresolved_target(output), None, "{output}");
        }
    }
}
