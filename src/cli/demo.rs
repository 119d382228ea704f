//! `tlc demo`: replays a sample Claude Code session through the real hook path (`tlc hook
//! claude`, one process per payload) into a scratch directory, then prints what was recorded.

use super::Ctx;
use crate::obs::report::Reports;
use crate::render::{self, Table};
use crate::store::{self, DbKind};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The session's payloads in the order Claude Code sent them, and its transcript.
const SESSION: &[(&str, &str)] = &[
    ("01-sessionstart.json", include_str!("demo_session/01-sessionstart.json")),
    ("02-userpromptsubmit.json", include_str!("demo_session/02-userpromptsubmit.json")),
    ("03-pretooluse.json", include_str!("demo_session/03-pretooluse.json")),
    ("04-posttooluse.json", include_str!("demo_session/04-posttooluse.json")),
    ("05-pretooluse.json", include_str!("demo_session/05-pretooluse.json")),
    ("06-posttooluse.json", include_str!("demo_session/06-posttooluse.json")),
    ("07-pretooluse.json", include_str!("demo_session/07-pretooluse.json")),
    ("08-posttooluse.json", include_str!("demo_session/08-posttooluse.json")),
    ("09-pretooluse.json", include_str!("demo_session/09-pretooluse.json")),
    (
        "10-posttoolusefailure.json",
        include_str!("demo_session/10-posttoolusefailure.json"),
    ),
    ("11-notification.json", include_str!("demo_session/11-notification.json")),
    ("12-pretooluse.json", include_str!("demo_session/12-pretooluse.json")),
    ("13-subagentstart.json", include_str!("demo_session/13-subagentstart.json")),
    ("14-subagentstop.json", include_str!("demo_session/14-subagentstop.json")),
    ("15-posttooluse.json", include_str!("demo_session/15-posttooluse.json")),
    ("16-stop.json", include_str!("demo_session/16-stop.json")),
    ("17-precompact.json", include_str!("demo_session/17-precompact.json")),
    ("18-sessionend.json", include_str!("demo_session/18-sessionend.json")),
];
const TRANSCRIPT: &str = include_str!("demo_session/transcript.jsonl");

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Scratch directory to use (default: a new folder under the system temp dir). It must not
    /// hold a previous demo.
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

pub fn run(_ctx: &Ctx, args: DemoArgs) -> anyhow::Result<()> {
    let dir = match args.dir {
        Some(d) => d,
        None => std::env::temp_dir().join(format!(
            "tlc-demo-{}-{}",
            std::process::id(),
            crate::clock::now().timestamp_millis()
        )),
    };
    let repo = dir.join("repo");
    let home = dir.join("home");
    if repo.join(".tlc").exists() {
        return Err(crate::error::refused(format!(
            "{}: already holds a demo; pass another --dir",
            dir.display()
        )));
    }
    std::fs::create_dir_all(repo.join(".git")).map_err(|e| crate::error::refused(format!("{}: cannot create: {e}", repo.display())))?;
    std::fs::create_dir_all(&home)?;
    let transcript = dir.join("transcript.jsonl");
    std::fs::write(&transcript, TRANSCRIPT)?;
    let exe = std::env::current_exe()?;
    render::out(&format!(
        "replaying a Claude Code session ({} hook payloads) into {}\n",
        SESSION.len(),
        dir.display()
    ))?;
    for (name, text) in SESSION {
        let payload = text
            .replace("\"/repo", &format!("\"{}", repo.display()))
            .replace("TRANSCRIPT", &transcript.display().to_string());
        let response = replay(&exe, &repo, &home, payload.as_bytes())?;
        let shown = if response.trim().is_empty() {
            "(no output: no objection)".to_string()
        } else {
            response.trim().to_string()
        };
        render::out(&format!("  tlc hook claude < {name:<27} → {shown}\n"))?;
    }
    summarize(&repo.join(".tlc/harness/state/tlc.db"))?;
    render::out("\nthe session report (`tlc obs report`):\n")?;
    let report = Command::new(&exe)
        .args(["obs", "report"])
        .current_dir(&repo)
        .env("TLC_HOME", &home)
        .env_remove("TLC_PROJECT_DIR")
        .output()?;
    render::out(&String::from_utf8_lossy(&report.stdout))?;
    render::out(&format!(
        "\nscratch directory: {}\n  inspect it with: TLC_HOME={} tlc obs events --plane all   (run inside {})\n",
        dir.display(),
        home.display(),
        repo.display()
    ))
}

fn replay(exe: &Path, repo: &Path, home: &Path, payload: &[u8]) -> anyhow::Result<String> {
    let mut child = Command::new(exe)
        .args(["hook", "claude"])
        .current_dir(repo)
        .env("TLC_HOME", home)
        .env_remove("TLC_PROJECT_DIR")
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
            "tlc hook claude exited with {:?}",
            out.status.code()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn summarize(db: &Path) -> anyhow::Result<()> {
    let Some(store) = store::open_read(DbKind::Project, db)? else {
        return render::out("nothing was recorded\n");
    };
    render::out("\nrecorded events, by kind and plane:\n")?;
    let mut t = Table::new(["kind", "plane", "events", "total ms"]);
    for k in Reports::new(store.conn()).kind_summary()? {
        t.push(vec![k.kind.into(), k.plane.into(), k.events.into(), k.total_ms.into()]);
    }
    t.print(render::Format::Table)
}
