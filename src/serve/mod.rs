//! `tlc serve`: a local, read-only dashboard over the record — the same views and reports as
//! `tlc obs report|export|cost` and `tlc prices`, drawn as HTML pages with SVG charts, and each
//! page's numbers as JSON under `/api/`.
//!
//! The parts: [`http`] accepts connections and reads requests within deadlines and limits (its
//! own loop on httparse: docs/decisions/008 says why); [`guard`] decides whether a request is let
//! in (GET only, the bound `Host`, the token made at this start, bounded parameters); [`data`]
//! gathers what a page shows from the domains' repository types over pooled read-only connections
//! (`store::open_read_pool`), one value per page that is both the page's JSON and what [`pages`]
//! draws; [`html`] escapes every text from the record, [`svg`] draws the charts. At most as many
//! requests as there are workers are answered at once.
//!
//! Nothing here writes: the pools are read-only and a database that does not exist yet is not
//! created (its pages say how to fill it).

mod api;
mod data;
mod guard;
mod head;
mod html;
mod http;
mod pages;
mod respond;
mod svg;

use crate::store::{self, DbKind, ReadPool, StoreError};
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The port `tlc serve` listens on unless `--port` says otherwise.
pub(crate) const DEFAULT_PORT: u16 = 7433;

/// The project database the server reads, when it was started in a repository.
#[derive(Debug, Clone)]
pub(crate) struct ProjectDb {
    pub db: PathBuf,
    /// The repository's name, shown in the pages' header.
    pub name: String,
}

/// Everything the server needs; the command line works it out.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub bind: IpAddr,
    pub port: u16,
    /// Required on every request: made at each start unless `--token` names one.
    pub token: String,
    /// A code that lets one request in as the token would (`--open`): the opener's command line,
    /// which other local users can read (`ps`), carries it instead of the token.
    pub open_code: Option<String>,
    /// The time zone the cost pages group days by when a request names none (`None`: UTC).
    pub timezone: Option<String>,
    pub home_db: PathBuf,
    pub project: Option<ProjectDb>,
    /// The operator's price override file (`prices` page).
    pub override_file: PathBuf,
    /// Requests answered at once; each pool has as many connections.
    pub workers: usize,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ServeError {
    #[error("cannot listen on {addr}: {cause}")]
    Bind { addr: SocketAddr, cause: String },
    #[error("--bind {addr}: name the one address clients will use, not an unspecified one: every request must carry it as its Host")]
    Unspecified { addr: IpAddr },
    #[error("--timezone {name}: not a time zone this build knows")]
    TimeZone { name: String },
}

/// How many requests are answered at once: twice the cores, at least 4, at most 16. A page is a
/// few milliseconds of SQLite reads, so more at once than cores keeps the cores busy while one
/// request waits on the disk; more than 16 would only queue on two cores.
pub(crate) fn default_workers() -> usize {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    (cores * 2).clamp(4, 16)
}

/// One database's pool, opened when a request first finds the file (a database that appears
/// while serving is read from then on; one that is missing is never created).
struct LazyPool {
    kind: DbKind,
    path: Option<PathBuf>,
    size: u32,
    pool: Mutex<Option<Arc<ReadPool>>>,
}

impl LazyPool {
    /// The pool, or `None` when there is no database (yet, or at all: outside a repository).
    fn get(&self) -> Result<Option<Arc<ReadPool>>, StoreError> {
        let Some(path) = &self.path else { return Ok(None) };
        let mut slot = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = slot.as_ref() {
            return Ok(Some(p.clone()));
        }
        let opened = store::open_read_pool(self.kind, path, self.size)?.map(Arc::new);
        slot.clone_from(&opened);
        Ok(opened)
    }
}

/// What every request handler shares.
pub(crate) struct State {
    opts: Options,
    project: LazyPool,
    home: LazyPool,
    /// `Host` header values accepted, lower-case.
    hosts: Vec<String>,
    /// Turns to answer a request: at most `opts.workers` at once.
    workers: http::Workers,
    /// `opts.open_code` until it is used.
    open_code: Mutex<Option<String>>,
}

/// A bound server, ready to [`Server::run`].
pub(crate) struct Server {
    listener: TcpListener,
    state: Arc<State>,
    url: String,
}

/// Binds the listening socket. Refuses an unspecified `--bind` address (0.0.0.0, ::): the `Host`
/// check needs the one name clients use.
pub(crate) fn bind(opts: Options) -> Result<Server, ServeError> {
    if opts.bind.is_unspecified() {
        return Err(ServeError::Unspecified { addr: opts.bind });
    }
    if let Some(name) = &opts.timezone {
        if guard::zone(Some(name)).is_err() {
            return Err(ServeError::TimeZone { name: name.clone() });
        }
    }
    let addr = SocketAddr::new(opts.bind, opts.port);
    let listener = TcpListener::bind(addr).map_err(|e| ServeError::Bind {
        addr,
        cause: e.to_string(),
    })?;
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(opts.port);
    let host = match opts.bind {
        IpAddr::V4(a) => a.to_string(),
        IpAddr::V6(a) => format!("[{a}]"),
    };
    let mut hosts = vec![format!("{host}:{port}")];
    if opts.bind.is_loopback() {
        hosts.push(format!("localhost:{port}"));
    }
    let url = format!("http://{host}:{port}/?token={}", opts.token);
    let size = u32::try_from(opts.workers).unwrap_or(16);
    let state = State {
        project: LazyPool {
            kind: DbKind::Project,
            path: opts.project.as_ref().map(|p| p.db.clone()),
            size,
            pool: Mutex::new(None),
        },
        home: LazyPool {
            kind: DbKind::Home,
            path: Some(opts.home_db.clone()),
            size,
            pool: Mutex::new(None),
        },
        hosts,
        workers: http::Workers::new(opts.workers),
        open_code: Mutex::new(opts.open_code.clone()),
        opts,
    };
    Ok(Server {
        listener,
        state: Arc::new(state),
        url,
    })
}

impl Server {
    /// The address to open, with the token.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The address `--open` hands the desktop's opener: with the one-time code, not the token.
    pub(crate) fn open_url(&self) -> Option<String> {
        let code = self.state.opts.open_code.as_ref()?;
        let base = self.url.split_once('?').map_or(self.url.as_str(), |(b, _)| b);
        Some(format!("{base}?open={code}"))
    }

    /// Serves until the process is stopped.
    pub(crate) fn run(self) -> ! {
        http::serve(self.listener, self.state)
    }
}

impl http::Handler for State {
    /// Answers one request; a handler that panics answers 500 instead of taking its connection
    /// down. False when the connection is to close.
    fn answer(&self, conn: &mut http::Conn, rq: http::Request) -> bool {
        let started = rq.arrived;
        let mut keep = !rq.wants_close() && !rq.has_body();
        let (answer, turn) = match guard::check(self, &rq) {
            Err(refusal) => {
                // A client refused at the door gets no second request on this connection.
                keep = false;
                (respond::Answer::refused(refusal), None)
            }
            Ok(req) => {
                let turn = self.workers.take();
                let answer = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(self, &req))) {
                    Ok(a) => a,
                    Err(_) => respond::Answer::error(500, "the page failed while being drawn; the server goes on", req.wants_json()),
                };
                (answer, Some(turn))
            }
        };
        // An answer held in memory needs no worker to be written: a client that reads slowly, or
        // not at all, holds its own connection and no one else's turn. A stream keeps its turn
        // (and its pooled connection) until written, each write within the deadline.
        let turn = match answer.body {
            respond::Body::Bytes(_) => None,
            respond::Body::Stream(_) => turn,
        };
        let sent = respond::send(conn, answer, started, keep, rq.http11);
        drop(turn);
        sent.is_ok() && keep
    }
}

/// The page or API answer for a request the guard let in.
fn route(state: &State, req: &guard::Req) -> respond::Answer {
    let path = req.path.as_str();
    if let Some(asset) = path.strip_prefix("/assets/") {
        return respond::Answer::asset(asset);
    }
    if path == "/favicon.ico" {
        return respond::Answer::asset("icon.svg");
    }
    if let Some(rest) = path.strip_prefix("/api/") {
        return api::route(state, req, rest);
    }
    pages::route(state, req)
}
