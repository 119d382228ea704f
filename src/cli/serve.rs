//! `tlc serve`: the read-only dashboard (`crate::serve`) on 127.0.0.1, or on another address
//! with a token.

use super::Ctx;
use crate::serve::{self, Options, ProjectDb};
use clap::Args;
use std::net::IpAddr;

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The port to listen on; 0 picks a free one (the URL printed says which).
    #[arg(long, default_value_t = serve::DEFAULT_PORT)]
    pub port: u16,
    /// The address to listen on (an IP address). Anything but a loopback address needs a token on
    /// every request (`--token`, or one generated and printed in the URL).
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub bind: String,
    /// The token every request must carry (16 to 128 of A-Z a-z 0-9 - _ . ~); generated when
    /// `--bind` is not a loopback address and none is given.
    #[arg(long)]
    pub token: Option<String>,
    /// The time zone the cost pages group days by (an IANA name); UTC by default. A page's
    /// `?timezone=` wins.
    #[arg(long, value_name = "TZ")]
    pub timezone: Option<String>,
    /// Open the dashboard in the desktop's browser (xdg-open, or open on macOS).
    #[arg(long)]
    pub open: bool,
}

fn valid_token(t: &str) -> bool {
    (16..=128).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b))
}

fn generated_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| crate::error::refused(format!("cannot make a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

pub(crate) fn run(ctx: &Ctx, a: ServeArgs) -> anyhow::Result<()> {
    let bind: IpAddr = a.bind.trim().parse().map_err(|_| {
        crate::error::unusable(format!(
            "--bind {}: not an IP address (127.0.0.1, ::1, or this machine's address on a network)",
            a.bind
        ))
    })?;
    let token = match a.token {
        Some(t) if valid_token(&t) => Some(t),
        Some(_) => return Err(crate::error::unusable("--token: 16 to 128 characters of A-Z a-z 0-9 - _ . ~")),
        None if !bind.is_loopback() => Some(generated_token()?),
        None => None,
    };
    let paths = ctx.paths()?;
    let project = if paths.in_git {
        let p = ctx.project()?;
        Some(ProjectDb {
            db: p.db_path(),
            name: p.name(),
        })
    } else {
        None
    };
    let opts = Options {
        bind,
        port: a.port,
        token,
        timezone: a.timezone,
        home_db: paths.home_db(),
        project,
        override_file: crate::cost::catalog::override_file(paths),
        workers: serve::default_workers(),
    };
    let server = serve::bind(opts).map_err(|e| match e {
        serve::ServeError::Bind { .. } => crate::error::refused(e.to_string()),
        _ => crate::error::unusable(e.to_string()),
    })?;
    crate::render::out(&format!("{}\n", server.url()))?;
    eprintln!(
        "tlc serve: read-only dashboard at {} (Ctrl-C stops it){}",
        server.url(),
        if bind.is_loopback() {
            ""
        } else {
            "; every request needs the token in the URL above"
        }
    );
    if a.open {
        open_browser(server.url());
    }
    server.run();
    Ok(())
}

/// Starts the desktop's opener on `url`, without waiting for it; a failure is one line on stderr.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let started = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match started {
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => eprintln!("tlc serve: --open: cannot run {opener}: {e}; open the URL above yourself"),
    }
}
