//! `tlc demo`: replays a Claude Code session through the real hook path (`tlc hook claude`, one
//! process per payload) in a scratch folder, and shows tlc governing it: the floor refusing a
//! removal outside the project, the catastrophic rail asking before a database is dropped, a Stop
//! sent back by a failing test gate and let through once the fix makes it pass. Then the session's
//! report, and what to run next.
//!
//! Everything it writes is inside the scratch folder: the repository (a real git repository with a
//! tiny shell project and its test), the runtime home, the user home the hooks see (`HOME`, with
//! the folder the agent tries to remove) and the transcript. Each hook runs at its moment of the
//! session (`TLC_NOW`), so the session spans the seconds it lasted.

use super::Ctx;
use crate::hook::claude::{self, Event};
use crate::render;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The session's payloads in the order Claude Code sent them (Claude Code 2.1.197's shape), each
/// with the second of the session it arrived at.
const SESSION: &[(&str, i64, &str)] = &[
    ("01-sessionstart.json", 0, include_str!("demo_session/01-sessionstart.json")),
    ("02-userpromptsubmit.json", 2, include_str!("demo_session/02-userpromptsubmit.json")),
    ("03-pretooluse-read.json", 6, include_str!("demo_session/03-pretooluse-read.json")),
    ("04-posttooluse-read.json", 7, include_str!("demo_session/04-posttooluse-read.json")),
    ("05-pretooluse-edit.json", 12, include_str!("demo_session/05-pretooluse-edit.json")),
    (
        "06-posttooluse-edit.json",
        13,
        include_str!("demo_session/06-posttooluse-edit.json"),
    ),
    (
        "07-pretooluse-write.json",
        18,
        include_str!("demo_session/07-pretooluse-write.json"),
    ),
    (
        "08-posttooluse-write.json",
        19,
        include_str!("demo_session/08-posttooluse-write.json"),
    ),
    ("09-pretooluse-bash.json", 23, include_str!("demo_session/09-pretooluse-bash.json")),
    ("10-pretooluse-bash.json", 27, include_str!("demo_session/10-pretooluse-bash.json")),
    ("11-messagedisplay.json", 31, include_str!("demo_session/11-messagedisplay.json")),
    ("12-stop.json", 32, include_str!("demo_session/12-stop.json")),
    ("13-pretooluse-edit.json", 37, include_str!("demo_session/13-pretooluse-edit.json")),
    (
        "14-posttooluse-edit.json",
        38,
        include_str!("demo_session/14-posttooluse-edit.json"),
    ),
    ("15-messagedisplay.json", 42, include_str!("demo_session/15-messagedisplay.json")),
    ("16-stop.json", 43, include_str!("demo_session/16-stop.json")),
    ("17-sessionend.json", 46, include_str!("demo_session/17-sessionend.json")),
];

/// How long the session lasted: its last payload's second.
const SESSION_SECONDS: i64 = 46;

/// One API response the transcript records. Claude Code writes each before the hook it led to.
struct Response {
    /// The second of the session it came at.
    at: i64,
    id: &'static str,
    text: &'static str,
    /// Input, cache write, cache read and output tokens.
    usage: [u64; 4],
}

const fn response(at: i64, id: &'static str, text: &'static str, usage: [u64; 4]) -> Response {
    Response { at, id, text, usage }
}

const RESPONSES: &[Response] = &[
    response(5, "msg_01Demo01", "I'll read src/calc.sh first.", [12, 4210, 15020, 96]),
    response(11, "msg_01Demo02", "Adding subtract() next to add().", [3, 412, 19230, 188]),
    response(17, "msg_01Demo03", "Now a test for subtract().", [3, 365, 19642, 241]),
    response(22, "msg_01Demo04", "Clearing the old build folder.", [3, 298, 20007, 83]),
    response(26, "msg_01Demo05", "Dropping the dev database.", [3, 251, 20305, 77]),
    response(
        30,
        "msg_01Demo06",
        "Added subtract() to src/calc.sh and tests/subtract_test.sh.",
        [3, 310, 20556, 64],
    ),
    response(
        36,
        "msg_01Demo07",
        "The test shows subtract() adds; fixing it.",
        [3, 1180, 20866, 152],
    ),
    response(
        41,
        "msg_01Demo08",
        "Fixed subtract(): it added instead of subtracting. The tests pass.",
        [3, 220, 22046, 58],
    ),
];

const SESSION_ID: &str = "5b1f6c2e-8d4a-4f0e-9a37-2c1d7e9b4a10";
const MODEL: &str = "claude-sonnet-4-5-20250929";

/// The scratch repository's first commit: a one-function shell project, its test runner and test,
/// and the project config that turns the test gate on.
const PROJECT: &[(&str, &str)] = &[
    ("README.md", "# calc\n\nA tiny calculator in shell: the scratch project of `tlc demo`.\n"),
    ("src/calc.sh", "add() { echo $(($1 + $2)); }\n"),
    (
        "tests/run.sh",
        "#!/bin/sh\n# Runs every tests/*_test.sh; exits 1 when one fails.\nstatus=0\nfor t in tests/*_test.sh; do\n  sh \"$t\" || status=1\ndone\nexit \"$status\"\n",
    ),
    (
        "tests/add_test.sh",
        ". ./src/calc.sh\ngot=$(add 2 3)\nif [ \"$got\" = 5 ]; then echo \"ok: add 2 3 = 5\"; else echo \"FAIL: add 2 3 = $got, expected 5\"; exit 1; fi\n",
    ),
    (
        ".tlc/harness/config.toml",
        "# The demo project's config: the test gate runs at every stop whose turn changed src/ or tests/.\n[grind]\nenabled = true\ntestCommand = [\"sh\", \"tests/run.sh\"]\nappendFiles = \"never\"\nmaxLoops = 3\n",
    ),
];

/// What the agent tries to remove: a folder of the scratch user home, outside the repository.
const OLD_BUILD: &str = "calc-old-build";

#[derive(Debug, clap::Args)]
pub(crate) struct DemoArgs {
    /// Scratch directory to use (default: a new folder under the system temp dir). It must not
    /// hold a previous demo.
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// The scratch folder's layout.
struct Scratch {
    dir: PathBuf,
    repo: PathBuf,
    home: PathBuf,
    user: PathBuf,
    transcript: PathBuf,
}

pub(crate) fn run(_ctx: &Ctx, args: DemoArgs) -> anyhow::Result<()> {
    let dir = args.dir.unwrap_or_else(default_dir);
    let s = Scratch {
        repo: dir.join("repo"),
        home: dir.join("home"),
        user: dir.join("user"),
        transcript: dir.join("transcript.jsonl"),
        dir,
    };
    if s.repo.join(".tlc").exists() {
        return Err(crate::error::refused(format!(
            "{}: already holds a demo; pass another --dir",
            s.dir.display()
        )));
    }
    let cannot = |p: &Path| {
        let p = p.display().to_string();
        move |e: std::io::Error| crate::error::refused(format!("{p}: cannot create: {e}"))
    };
    for d in [&s.repo, &s.home, &s.user.join(OLD_BUILD)] {
        std::fs::create_dir_all(d).map_err(cannot(d))?;
    }
    std::fs::write(s.user.join(OLD_BUILD).join("calc.tar"), "an old build\n").map_err(cannot(&s.user))?;
    for (rel, text) in PROJECT {
        let path = s.repo.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(cannot(parent))?;
        }
        std::fs::write(&path, text).map_err(cannot(&path))?;
    }
    git(&s, &["init", "-q", "-b", "main"])?;
    git(&s, &["add", "-A"])?;
    git(&s, &["commit", "-q", "-m", "calc: add()"])?;
    std::fs::write(&s.transcript, "").map_err(cannot(&s.transcript))?;

    let exe = std::env::current_exe()?;
    let end = crate::clock::now();
    let start = end - chrono::Duration::seconds(SESSION_SECONDS);
    let at = |second: i64| start + chrono::Duration::seconds(second);
    render::out(&format!(
        "tlc demo: a Claude Code session replayed through `tlc hook claude`, one process per event, in\n  {}\n\n",
        s.dir.display()
    ))?;
    let mut written = 0;
    for (name, second, text) in SESSION {
        // The transcript as Claude Code had written it when this hook ran.
        while let Some(r) = RESPONSES.get(written).filter(|r| r.at <= *second) {
            append_response(&s.transcript, at(r.at), r)?;
            written += 1;
        }
        let payload = text
            .replace("\"/repo", &format!("\"{}", s.repo.display()))
            .replace("TRANSCRIPT", &s.transcript.display().to_string());
        let v: serde_json::Value = serde_json::from_str(&payload)?;
        // Claude Code applies an edit between its PreToolUse and its PostToolUse.
        if claude::event_of(&v) == Event::PostToolUse {
            apply_tool(&v)?;
        }
        let answer = replay(&exe, &s, at(*second), payload.as_bytes())?;
        render::out(&step_text(name, &v, &answer))?;
    }

    render::out("\nthe session report (`tlc obs report`):\n")?;
    let report = tlc(&exe, &s).args(["obs", "report"]).output()?;
    render::out(&String::from_utf8_lossy(&report.stdout))?;
    render::out(&format!(
        "\nEverything above is in {}: its repository, the runtime home the hooks used, and the\n\
         transcript. Look further with `TLC_HOME={} tlc obs why` run inside {}.\n\n\
         Next, in your own projects:\n  \
         tlc install    wire tlc into Claude Code (`--claude`), Cursor (`--cursor`) and the statusline (`--statusline`)\n  \
         tlc status     the rails that are on in this repository, and what they do\n  \
         tlc obs cost   what your sessions cost, by day (from Claude Code's transcripts)\n",
        s.dir.display(),
        s.home.display(),
        s.repo.display()
    ))
}

/// `tlc-demo-<pid>-<ms>` under the system temp folder. The folder the agent tries to remove is
/// under the hooks' home (`HOME` is the scratch user's), which the floor never takes for temp
/// space, wherever that home is.
fn default_dir() -> PathBuf {
    std::env::temp_dir().join(format!(
        "tlc-demo-{}-{}",
        std::process::id(),
        crate::clock::now().timestamp_millis()
    ))
}

/// `tlc` as the session's processes run it: in the scratch repository, with the scratch runtime
/// home and user home, git without the operator's configuration, none of tlc's or Claude Code's
/// variables of the caller.
fn tlc(exe: &Path, s: &Scratch) -> Command {
    let mut c = Command::new(exe);
    c.current_dir(&s.repo);
    isolate(&mut c, s);
    c
}

fn isolate(c: &mut Command, s: &Scratch) {
    c.env("TLC_HOME", &s.home)
        .env("HOME", &s.user)
        .env("XDG_CONFIG_HOME", s.user.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    for var in [
        "TLC_PROJECT_DIR",
        "TLC_NOW",
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_CONFIG_DIR",
        "CURSOR_CONFIG_DIR",
    ] {
        c.env_remove(var);
    }
}

fn git(s: &Scratch, args: &[&str]) -> anyhow::Result<()> {
    let mut c = Command::new("git");
    c.args([
        "-c",
        "user.name=tlc demo",
        "-c",
        "user.email=demo@tlc.invalid",
        "-c",
        "commit.gpgsign=false",
        "-c",
        "core.hooksPath=/dev/null",
    ])
    .args(args)
    .current_dir(&s.repo)
    .stdin(Stdio::null());
    isolate(&mut c, s);
    let out = c
        .output()
        .map_err(|e| crate::error::refused(format!("git {}: cannot run: {e}", args.join(" "))))?;
    if !out.status.success() {
        return Err(crate::error::refused(format!(
            "git {} in {}: {}",
            args.join(" "),
            s.repo.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

fn append_response(transcript: &Path, ts: chrono::DateTime<chrono::Utc>, r: &Response) -> anyhow::Result<()> {
    let (id, text) = (r.id, r.text);
    let [input, write, read, output] = r.usage;
    let line = serde_json::json!({
        "parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/repo",
        "sessionId": SESSION_ID, "version": "2.1.197", "gitBranch": "main", "type": "assistant",
        "uuid": format!("{id}-0"), "requestId": format!("req_{id}"), "timestamp": crate::clock::stamp(ts),
        "message": {"id": id, "type": "message", "role": "assistant", "model": MODEL,
            "content": [{"type": "text", "text": text}], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
                "output_tokens": output, "service_tier": "standard"}}
    });
    let mut f = std::fs::OpenOptions::new().append(true).open(transcript)?;
    writeln!(f, "{line}")?;
    Ok(())
}

/// The file change an `Edit` or `Write` tool call made, applied as Claude Code applies it.
fn apply_tool(v: &serde_json::Value) -> anyhow::Result<()> {
    let input = &v["tool_input"];
    let Some(path) = input["file_path"].as_str() else { return Ok(()) };
    match v["tool_name"].as_str() {
        Some("Write") => std::fs::write(path, input["content"].as_str().unwrap_or_default())?,
        Some("Edit") => {
            let text = std::fs::read_to_string(path)?;
            let (old, new) = (
                input["old_string"].as_str().unwrap_or_default(),
                input["new_string"].as_str().unwrap_or_default(),
            );
            std::fs::write(path, text.replacen(old, new, 1))?;
        }
        _ => {}
    }
    Ok(())
}

fn replay(exe: &Path, s: &Scratch, at: chrono::DateTime<chrono::Utc>, payload: &[u8]) -> anyhow::Result<String> {
    let mut child = tlc(exe, s)
        .args(["hook", claude::PROVIDER.name()])
        .env("TLC_NOW", crate::clock::stamp(at))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(payload)?;
    }
    let out = child.wait_with_output()?;
    if !out.status.success() {
        return Err(crate::error::refused(format!(
            "tlc hook {} exited with {:?}",
            claude::PROVIDER.name(),
            out.status.code()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// One replayed event and tlc's answer, as a person reads them: the event, what it was about,
/// and the decision with its reason (a block's follow-up in full, up to its output).
fn step_text(name: &str, v: &serde_json::Value, answer: &str) -> String {
    let kind = claude::event_of(v);
    let event = claude::event_name(v).unwrap_or("?");
    let input = &v["tool_input"];
    let what = match (v["tool_name"].as_str(), kind) {
        (Some("Bash"), _) => input["command"].as_str().unwrap_or_default().to_string(),
        (Some(tool), _) => format!("{tool} {}", input["file_path"].as_str().map(short_path).unwrap_or_default()),
        (None, Event::UserPromptSubmit) => format!("\"{}\"", v["prompt"].as_str().unwrap_or_default()),
        (None, Event::MessageDisplay) => format!("\"{}\"", v["delta"].as_str().unwrap_or_default()),
        (None, Event::Stop) => "the agent says it is done".to_string(),
        _ => String::new(),
    };
    let mut out = format!("  {name:<26} {event:<17} {what}\n");
    let answer = answer.trim();
    let parsed: Option<serde_json::Value> = serde_json::from_str(answer).ok();
    let hso = parsed.as_ref().map(|p| &p["hookSpecificOutput"]);
    let decision = hso.and_then(|h| h["permissionDecision"].as_str());
    let line = |label: &str, text: &str| format!("      → {label}: {text}\n");
    match (decision, parsed.as_ref().and_then(|p| p["decision"].as_str())) {
        (Some(d), _) => {
            let reason = hso.and_then(|h| h["permissionDecisionReason"].as_str()).unwrap_or_default();
            let first = reason.lines().next().filter(|l| !l.is_empty()).unwrap_or("no objection");
            out += &line(&if d == "allow" { d.to_string() } else { d.to_uppercase() }, first);
        }
        (None, Some("block")) => {
            let reason = parsed.as_ref().and_then(|p| p["reason"].as_str()).unwrap_or_default();
            out += "      → BLOCK: the agent is sent back with this follow-up:\n";
            for l in reason.lines().take_while(|l| !l.starts_with("OUTPUT")) {
                out += &format!("          {l}\n");
            }
        }
        _ if answer.is_empty() => match kind {
            Event::PreToolUse => out += &line("allow", "no objection"),
            Event::Stop => out += &line("allow", "the stop is let through"),
            _ => out += "      → recorded\n",
        },
        _ => {
            let context = hso.and_then(|h| h["additionalContext"].as_str());
            match context {
                Some(c) => out += &line("context", &format!("{} characters for the agent", c.chars().count())),
                None => out += &line("answer", answer),
            }
        }
    }
    out
}

/// A path in the scratch repository, from the repository's root.
fn short_path(path: &str) -> String {
    path.rsplit_once("/repo/").map_or(path, |(_, rel)| rel).to_string()
}
