//! What one simple command runs, seen through the wrappers that run another program: `env`,
//! `sudo`, `doas`, `nice`, `ionice`, `nohup`, `setsid`, `stdbuf`, `timeout`, `time`, `command`,
//! `builtin`, `exec` and `xargs`.

use super::parse::{Command, Word};

/// The program a command runs and its arguments.
#[derive(Debug, Clone, Default)]
pub(crate) struct Invocation<'a> {
    /// The program's file name (`/bin/rm` → `rm`); `None` when the program word is an expansion.
    pub program: Option<String>,
    /// The word naming the program (`None` for a command with no words).
    pub program_word: Option<&'a Word>,
    pub args: Vec<&'a Word>,
    /// The wrappers passed through, outermost first.
    pub via: Vec<&'static str>,
    /// `xargs`: more arguments arrive on stdin when it runs.
    pub args_from_stdin: bool,
    /// `env -S '…'`: a string the wrapper splits into the command to run.
    pub split_string: Option<&'a Word>,
    /// `command -v` and the like: the program is looked up, not run.
    pub lookup_only: bool,
    /// `env -C DIR`, `env --chdir=DIR`, `sudo -D DIR`: the folder the program runs in, as a word
    /// and the number of leading characters that are the option (`-C/tmp` → 2).
    pub chdir: Option<(&'a Word, usize)>,
    /// `flock … -c 'CMD'`: a command line the wrapper runs through `sh -c`.
    pub command_text: Option<&'a Word>,
    /// `xargs -I R`, `-i`, `--replace[=R]`, `-J R`: the text each input item replaces.
    pub stdin_token: Option<String>,
    /// `args` as text, made once: the floor's rules each read them (see [`Invocation::arg_texts`]).
    arg_texts: std::cell::OnceCell<Vec<String>>,
}

impl Invocation<'_> {
    /// Each argument's text ([`Word::text`]) as the program reads it (an abbreviated long option
    /// in full: [`super::options`]), computed on first use. `args` is only set while
    /// [`invocation`] builds the value, so the texts cannot go stale.
    pub(crate) fn arg_texts(&self) -> &[String] {
        self.arg_texts.get_or_init(|| {
            let texts: Vec<String> = self.args.iter().map(|w| w.text()).collect();
            match self.program.as_deref() {
                Some(program) => match super::options::full_long_options(program, &texts) {
                    std::borrow::Cow::Owned(full) => full,
                    std::borrow::Cow::Borrowed(_) => texts,
                },
                None => texts,
            }
        })
    }
}

/// The file name of a program word (`/usr/bin/env` → `env`).
pub(crate) fn program_name(w: &Word) -> Option<String> {
    file_name(&w.literal()?).map(str::to_string)
}

/// The file name in a program word's text (`/bin/rm` → `rm`); `None` when it ends in `/`.
/// Asked of every word of every command, so it scans bytes: `rsplit('/')` cost ten times as much.
pub(crate) fn file_name(text: &str) -> Option<&str> {
    let name = match text.bytes().rposition(|b| b == b'/') {
        Some(slash) => &text[slash + 1..],
        None => text,
    };
    (!name.is_empty()).then_some(name)
}

/// A wrapper's options: the short letters and long names that take a value.
struct Opts {
    short_value: &'static str,
    long_value: &'static [&'static str],
    /// Options after which no program follows (e.g. `ionice -p PID`).
    no_program: &'static [&'static str],
}

const WRAPPERS: &[(&str, Opts)] = &[
    (
        "env",
        Opts {
            short_value: "uCSP",
            long_value: &[
                "--unset",
                "--chdir",
                "--split-string",
                "--default-signal",
                "--ignore-signal",
                "--block-signal",
            ],
            no_program: &[],
        },
    ),
    (
        "sudo",
        Opts {
            short_value: "ughpCDrtTUR",
            long_value: &[
                "--user",
                "--group",
                "--host",
                "--prompt",
                "--close-from",
                "--chdir",
                "--role",
                "--type",
                "--command-timeout",
                "--other-user",
                "--chroot",
            ],
            no_program: &[
                "-l",
                "--list",
                "-v",
                "--validate",
                "-k",
                "-K",
                "--reset-timestamp",
                "--remove-timestamp",
                "-e",
                "--edit",
                "-V",
                "--version",
                "-h",
                "--help",
            ],
        },
    ),
    (
        "doas",
        Opts {
            short_value: "uC",
            long_value: &[],
            no_program: &[],
        },
    ),
    (
        "nice",
        Opts {
            short_value: "n",
            long_value: &["--adjustment"],
            no_program: &[],
        },
    ),
    (
        "ionice",
        Opts {
            short_value: "cnP",
            long_value: &["--class", "--classdata"],
            no_program: &["-p", "--pid", "-P", "--pgid", "-u", "--uid"],
        },
    ),
    (
        "nohup",
        Opts {
            short_value: "",
            long_value: &[],
            no_program: &[],
        },
    ),
    (
        "setsid",
        Opts {
            short_value: "",
            long_value: &[],
            no_program: &[],
        },
    ),
    (
        "stdbuf",
        Opts {
            short_value: "ioe",
            long_value: &["--input", "--output", "--error"],
            no_program: &[],
        },
    ),
    (
        "timeout",
        Opts {
            short_value: "sk",
            long_value: &["--signal", "--kill-after"],
            no_program: &[],
        },
    ),
    (
        "time",
        Opts {
            short_value: "fo",
            long_value: &["--format", "--output"],
            no_program: &[],
        },
    ),
    (
        "command",
        Opts {
            short_value: "",
            long_value: &[],
            no_program: &["-v", "-V"],
        },
    ),
    (
        "builtin",
        Opts {
            short_value: "",
            long_value: &[],
            no_program: &[],
        },
    ),
    (
        "exec",
        Opts {
            short_value: "a",
            long_value: &[],
            no_program: &[],
        },
    ),
    (
        "xargs",
        Opts {
            // GNU's `-i`, `-e` and `-l` (and `--replace`, `--eof`, `--max-lines`) take their value
            // only attached: the next word is the program.
            short_value: "adEILnPsJR",
            long_value: &[
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-chars",
                "--process-slot-var",
            ],
            no_program: &[],
        },
    ),
    // A multi-call binary: the next word is the applet (`busybox rm -rf /x` runs `rm`).
    (
        "busybox",
        Opts {
            short_value: "",
            long_value: &[],
            no_program: &["--list", "--help"],
        },
    ),
    (
        "toybox",
        Opts {
            short_value: "",
            long_value: &[],
            no_program: &["--help"],
        },
    ),
    (
        "chronic",
        Opts {
            short_value: "",
            long_value: &[],
            no_program: &[],
        },
    ),
    (
        "unbuffer",
        Opts {
            short_value: "",
            long_value: &[],
            no_program: &[],
        },
    ),
    (
        "strace",
        Opts {
            short_value: "abeEIoOpPsSuUX",
            long_value: &["--output", "--trace", "--signal", "--attach", "--user", "--string-limit"],
            no_program: &["-p", "--attach"],
        },
    ),
    (
        "ltrace",
        Opts {
            short_value: "aeEnoOpsSu",
            long_value: &["--output"],
            no_program: &["-p"],
        },
    ),
    (
        "pkexec",
        Opts {
            short_value: "",
            long_value: &["--user"],
            no_program: &[],
        },
    ),
    (
        "runuser",
        Opts {
            short_value: "ugGw",
            long_value: &["--user", "--group", "--supp-group", "--whitelist-environment"],
            no_program: &[],
        },
    ),
    (
        "systemd-run",
        Opts {
            short_value: "pMuHE",
            long_value: &[
                "--unit",
                "--property",
                "--description",
                "--slice",
                "--setenv",
                "--working-directory",
                "--on-active",
                "--on-boot",
                "--on-startup",
                "--on-unit-active",
                "--on-unit-inactive",
                "--on-calendar",
                "--timer-property",
                "--uid",
                "--gid",
                "--nice",
                "--machine",
                "--host",
                "--service-type",
            ],
            no_program: &[],
        },
    ),
    // `screen -dmS name cmd args`: a detached session running the command.
    (
        "screen",
        Opts {
            short_value: "SceEhpT",
            long_value: &[],
            no_program: &["-r", "-R", "-x", "-X", "-ls", "-list", "-wipe"],
        },
    ),
    // `flock [opts] FILE cmd args` (the `-c` text form is read as a command line).
    (
        "flock",
        Opts {
            short_value: "wEc",
            long_value: &["--timeout", "--conflict-exit-code", "--command"],
            no_program: &[],
        },
    ),
];

/// The program `cmd` runs, through any wrappers.
pub(crate) fn invocation(cmd: &Command) -> Invocation<'_> {
    let mut inv = Invocation::default();
    // What is left to read: always the command's words from some point on, so a slice of them
    // (no working copy: most commands have no wrapper, and this runs for each of them).
    let mut words: &[Word] = &cmd.words;
    loop {
        let Some(first) = words.first() else {
            return inv;
        };
        let name = program_name(first);
        let Some((wrapper, opts)) = name.as_deref().and_then(|n| WRAPPERS.iter().find(|(w, _)| *w == n)) else {
            inv.program = name;
            inv.program_word = Some(first);
            inv.args = words[1..].iter().collect();
            return inv;
        };
        inv.via.push(wrapper);
        if *wrapper == "xargs" {
            inv.args_from_stdin = true;
        }
        let mut i = 1;
        let mut positional_skip = usize::from(matches!(*wrapper, "timeout" | "flock"));
        while let Some(w) = words.get(i) {
            let Some(text) = w.literal() else { break };
            if text == "--" {
                i += 1;
                break;
            }
            if opts.no_program.contains(&&*text) {
                inv.lookup_only = true;
                inv.program = None;
                inv.args = words[i..].iter().collect();
                return inv;
            }
            // `env -` is `env -i`.
            if *wrapper == "env" && text == "-" {
                i += 1;
                continue;
            }
            if *wrapper == "env" && !text.starts_with('-') && text.contains('=') {
                i += 1;
                continue;
            }
            if *wrapper == "nice" && text.len() > 1 && text.starts_with('-') && text[1..].bytes().all(|b| b.is_ascii_digit()) {
                i += 1;
                continue;
            }
            if let Some(long) = text.strip_prefix("--") {
                let name = format!("--{}", long.split('=').next().unwrap_or(long));
                if *wrapper == "env" && name == "--split-string" {
                    inv.split_string = if long.contains('=') { Some(w) } else { words.get(i + 1) };
                }
                if *wrapper == "xargs" && name == "--replace" {
                    inv.stdin_token = Some(
                        long.split_once('=')
                            .map(|(_, v)| v)
                            .filter(|v| !v.is_empty())
                            .unwrap_or("{}")
                            .to_string(),
                    );
                }
                if *wrapper == "flock" && name == "--command" {
                    inv.command_text = if long.contains('=') { None } else { words.get(i + 1) };
                }
                if matches!(*wrapper, "env" | "sudo") && name == "--chdir" {
                    inv.chdir = if long.contains('=') {
                        Some((w, name.len() + 1))
                    } else {
                        words.get(i + 1).map(|v| (v, 0))
                    };
                }
                i += if opts.long_value.contains(&name.as_str()) && !long.contains('=') {
                    2
                } else {
                    1
                };
                continue;
            }
            if text.len() > 1 && text.starts_with('-') {
                let letters = &text[1..];
                let mut takes_next = false;
                for (k, c) in letters.char_indices() {
                    if *wrapper == "xargs" && c == 'i' {
                        let attached = &letters[k + 1..];
                        inv.stdin_token = Some(if attached.is_empty() { "{}" } else { attached }.to_string());
                        break;
                    }
                    if *wrapper == "xargs" && (c == 'I' || c == 'J') {
                        inv.stdin_token = if k + 1 < letters.len() {
                            Some(letters[k + 1..].to_string())
                        } else {
                            words.get(i + 1).and_then(|v| v.literal()).map(std::borrow::Cow::into_owned)
                        };
                    }
                    if opts.short_value.contains(c) {
                        if *wrapper == "flock" && c == 'c' {
                            inv.command_text = if k + 1 < letters.len() { None } else { words.get(i + 1) };
                        }
                        if (*wrapper == "env" && c == 'C') || (*wrapper == "sudo" && c == 'D') {
                            inv.chdir = if k + 1 < letters.len() {
                                Some((w, k + 2))
                            } else {
                                words.get(i + 1).map(|v| (v, 0))
                            };
                        }
                        if *wrapper == "env" && c == 'S' {
                            inv.split_string = if k + 1 < letters.len() { Some(w) } else { words.get(i + 1) };
                        }
                        takes_next = k + 1 == letters.len();
                        break;
                    }
                }
                i += if takes_next { 2 } else { 1 };
                continue;
            }
            if positional_skip > 0 {
                positional_skip -= 1;
                i += 1;
                continue;
            }
            break;
        }
        if inv.command_text.is_some() {
            inv.program = None;
            return inv;
        }
        if inv.split_string.is_some() {
            inv.program = None;
            inv.args = words.get(i..).unwrap_or_default().iter().collect();
            return inv;
        }
        words = words.get(i..).unwrap_or_default();
        if words.is_empty() {
            // `xargs` with no program runs `echo`; `sudo -s` and friends run a shell; a bare
            // `env` prints the environment.
            inv.program = Some(
                match *wrapper {
                    "xargs" => "echo",
                    "sudo" | "doas" => "sh",
                    _ => "env",
                }
                .to_string(),
            );
            return inv;
        }
    }
}
