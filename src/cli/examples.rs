//! Each command's examples, shown at the end of its `--help` (and in the man pages). Kept in one
//! list so a new command adds its line here; `tests/suite/cli_contract.rs` refuses a command without.

/// (command path, examples). The path is the words after `tlc`.
pub(crate) const EXAMPLES: &[(&str, &str)] = &[
    ("db migrate", "tlc db migrate"),
    ("db status", "tlc db status\ntlc db status --json"),
    ("db check", "tlc db check\ntlc db check --format csv"),
    ("config show", "tlc config show\ntlc config show --origin\ntlc config show --json | jq '.\"grind.testCommand\"'"),
    ("demo", "tlc demo\ntlc demo --dir /tmp/tlc-demo"),
    ("hook", "echo '{}' | tlc hook claude\ntlc hook cursor < payload.json"),
    ("install", "tlc install --dry-run\ntlc install --claude"),
    ("uninstall", "tlc uninstall --dry-run\ntlc uninstall"),
    (
        "obs report",
        "tlc obs report\ntlc obs report 0b7c3f2a --format markdown --out report.md\ntlc obs report --all-repos --json",
    ),
    (
        "obs events",
        "tlc obs events 50\ntlc obs events --kind shell --session 0b7c3f2a\ntlc obs events --plane all --format jsonl | jq .kind",
    ),
    ("obs why", "tlc obs why\ntlc obs why 30 --session 0b7c3f2a --wide"),
    ("obs live", "tlc obs live\ntlc obs live --json | jq -c '{kind, session_id}'"),
    (
        "obs export",
        "tlc obs export event_log --since 2026-11-01 > events.csv\ntlc obs export cost_by_day --db home --format csv\ntlc obs export decision_log --format jsonl --out decisions.jsonl",
    ),
    ("obs views", "tlc obs views\ntlc obs views --json | jq '.[].view'"),
    ("obs prune", "tlc obs prune --dry-run\ntlc obs prune --json"),
    ("obs spool catch-up", "tlc obs spool catch-up\ntlc obs spool catch-up --json"),
    ("ship ledger", "tlc ship ledger\ntlc ship ledger --session 0b7c3f2a --format csv"),
    ("handoff", "tlc handoff\ntlc handoff --session 0b7c3f2a --json"),
    ("obs import jsonl", "tlc obs import jsonl state/*.jsonl\ntlc obs import jsonl audit.jsonl --json"),
    ("obs import transcripts", "tlc obs import transcripts\ntlc obs import transcripts ~/.claude/projects --json"),
    (
        "obs cost",
        "tlc obs cost\ntlc obs cost --by week --since 2026-10-01 --compact\ntlc obs cost --by model --format csv > cost.csv",
    ),
    ("obs ship", "tlc obs ship --dry-run\ntlc obs ship --status\ntlc obs ship"),
    ("init", "tlc init\ntlc init --defaults\ntlc init --defaults --json"),
    ("doctor", "tlc doctor\ntlc doctor --json | jq '.checks[] | select(.status != \"ok\")'"),
    ("attest", "tlc attest\ntlc attest --verify\ntlc attest --session 0b7c3f2a --json"),
    ("version", "tlc version\ntlc version --json | jq .commit"),
    ("update", "tlc update --check\ntlc update\ntlc update --check --source ~/src/tlc --json"),
    ("status", "tlc status\ntlc status --json | jq .posture"),
    ("mode", "tlc mode\ntlc mode solo"),
    ("pause", "tlc pause\ntlc status"),
    ("resume", "tlc resume\ntlc status"),
    ("policy", "tlc policy\ntlc policy --json"),
    (
        "rules",
        "tlc rules\ntlc rules --json | jq '.rules[] | select(.state != \"active\") | {path, state, by, error}'",
    ),
    ("policy accept", "tlc policy accept .tlc/harness/config.toml\ntlc policy accept mode-state pause-state"),
    (
        "gate test-command",
        "tlc gate test-command python3 -m unittest discover -s tests\ntlc gate test-command --off npm test",
    ),
    ("gate lint-command", "tlc gate lint-command cargo clippy -- -D warnings\ntlc gate lint-command --off npm run lint"),
    ("config set", "tlc config set grind.maxLoops 3\ntlc config set grind.testCommand python3 -m pytest -q\ntlc config set --machine obs.globalSpool true"),
    ("config unset", "tlc config unset grind.maxLoops\ntlc config unset --machine obs.globalSpool"),
    ("gate run", "tlc gate run\ntlc gate run test"),
    ("gate show", "tlc gate show\ntlc gate show lint --json"),
    (
        "lessons add",
        "tlc lessons add \"run the migrations before the tests\" --gate test --prefer \"cargo test -q\"\ntlc lessons add \"keep parse_config total\" --ref src/config.rs:parse_config --pin\ntlc lessons add \"never edit landed migrations\" --global",
    ),
    ("lessons list", "tlc lessons list\ntlc lessons list --tier project --status candidate --json"),
    ("lessons show", "tlc lessons show test-3f9a0c1d2e4b\ntlc lessons show test-3f9a0c1d2e4b --json"),
    ("lessons promote", "tlc lessons promote 9f2c1a0b3d4e5f60"),
    ("lessons pin", "tlc lessons pin 9f2c1a0b3d4e5f60"),
    ("lessons unpin", "tlc lessons unpin 9f2c1a0b3d4e5f60"),
    ("lessons forget", "tlc lessons forget test-3f9a0c1d2e4b"),
    ("lessons garden", "tlc lessons garden --dry-run\ntlc lessons garden --json"),
    ("prices refresh", "tlc prices refresh\ntlc prices refresh override\ntlc prices refresh litellm --from prices.json"),
    ("prices lookup", "tlc prices lookup claude-sonnet-4-5-20250929\ntlc prices lookup gpt-5 cursor --json"),
    ("prices list", "tlc prices list --search sonnet\ntlc prices list --provider anthropic --format csv"),
    ("prices status", "tlc prices status\ntlc prices status --json"),
    (
        "serve",
        "tlc serve\ntlc serve --port 0 --timezone Europe/Berlin\ntlc serve --bind 192.168.1.20 --port 8080",
    ),
    ("stable add", "tlc stable add team https://git.example.com/team/agents.git\ntlc stable add mine git@example.com:me/agents.git --private"),
    ("stable update", "tlc stable update\ntlc stable update team"),
    ("stable remove", "tlc stable remove team"),
    ("stable list", "tlc stable list\ntlc stable list --format csv"),
    ("stable lint", "tlc stable lint\ntlc stable lint ./agents --json"),
    ("agent install", "tlc agent install team/reviewer\ntlc agent install team/reviewer@v1.2.0 --as review --project"),
    ("agent upgrade", "tlc agent upgrade reviewer\ntlc agent upgrade team/reviewer --yes"),
    ("agent uninstall", "tlc agent uninstall reviewer\ntlc agent uninstall reviewer --project --yes"),
    ("agent prune", "tlc agent prune --dry-run\ntlc agent prune"),
    ("agent describe", "tlc agent describe reviewer\ntlc agent describe reviewer --json"),
    ("agent list", "tlc agent list\ntlc agent list --json | jq '.[] | select(.newer_head)'"),
    ("agent history", "tlc agent history\ntlc agent history reviewer --format csv"),
    ("agent search", "tlc agent search\ntlc agent search review --json"),
    ("agent info", "tlc agent info team/reviewer\ntlc agent info team/reviewer@v1.2.0 --json"),
    ("agent stable add", "tlc agent stable add team https://git.example.com/team/agents.git"),
    ("agent stable update", "tlc agent stable update"),
    ("agent stable remove", "tlc agent stable remove team"),
    ("agent stable list", "tlc agent stable list"),
    ("agent stable lint", "tlc agent stable lint ./agents"),
    (
        "completions",
        "tlc completions bash > ~/.local/share/bash-completion/completions/tlc\ntlc completions zsh > \"${fpath[1]}/_tlc\"\ntlc completions fish > ~/.config/fish/completions/tlc.fish",
    ),
    ("statusline", "echo '{\"session_id\": \"0b7c3f2a\"}' | tlc statusline"),
    ("man", "tlc man | man -l -\ntlc man --out-dir ~/.local/share/man/man1"),
];

/// `cmd` with every command's examples at the end of its help.
pub(crate) fn with_examples(mut cmd: clap::Command) -> clap::Command {
    for (path, text) in EXAMPLES {
        let words: Vec<&str> = path.split(' ').collect();
        cmd = apply(cmd, &words, text);
    }
    cmd
}

fn apply(cmd: clap::Command, path: &[&str], text: &str) -> clap::Command {
    match path.split_first() {
        None => {
            let body: String = text.lines().map(|l| format!("  {l}\n")).collect();
            cmd.after_help(format!("Examples:\n{}", body.trim_end()))
        }
        Some((first, rest)) => {
            if cmd.find_subcommand(first).is_none() {
                return cmd;
            }
            cmd.mut_subcommand(*first, |s| apply(s, rest, text))
        }
    }
}
