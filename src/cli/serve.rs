//! `tlc serve`: the read-only dashboard (`crate::serve`) on 127.0.0.1 (or another address), its
//! every request carrying the token made at this start.

use super::Ctx;
use crate::serve::{self, Options, ProjectDb};
use clap::Args;
use std::net::IpAddr;

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The port to listen on; 0 picks a free one (the URL printed says which).
    #[arg(long, default_value_t = serve::DEFAULT_PORT)]
    pub port: u16,
    /// The address to listen on (an IP address).
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub bind: String,
    /// The token every request must carry (16 to 128 of A-Z a-z 0-9 - _ . ~); by default a new
    /// random one at each start, printed in the URL.
    #[arg(long)]
    pub token: Option<String>,
    /// The time zone the cost pages group days by (an IANA name); UTC by default. A page's
    /// `?timezone=` wins.
    #[arg(long, value_name = "TZ")]
    pub timezone: Option<String>,
    /// Open the dashboard in the desktop's browser (xdg-open, or open on macOS), with a code that
    /// lets in once instead of the token (a command line is readable by other local users).
    #[arg(long)]
    pub open: bool,
}

fn valid_token(t: &str) -> bool {
    (16..=128).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b))
}

/// 128 random bits from the system's source, in hex.
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
    // Every bind needs it, loopback too: any local process, any user's, can connect to
    // 127.0.0.1, and a page in the operator's browser can send requests there.
    let token = match a.token {
        Some(t) if valid_token(&t) => t,
        Some(_) => return Err(crate::error::unusable("--token: 16 to 128 characters of A-Z a-z 0-9 - _ . ~")),
        None => generated_token()?,
    };
    let open_code = if a.open { Some(generated_token()?) } else { None };
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
        open_code,
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
        "tlc serve: read-only dashboard at {} (Ctrl-C stops it); open this URL: the token in it is new at each start and every request needs it",
        server.url()
    );
    if let Some(url) = server.open_url() {
        open_browser(&url);
    }
    server.run()
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
