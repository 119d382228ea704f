//! `/api/…`: each page's numbers as JSON (the value `data` gathers for it), and any view's rows
//! at `/api/<view>`, streamed as `tlc obs export <view> --format json` prints them.

use super::data::{self, PageError};
use super::guard::{Req, MAX_LIMIT};
use super::respond::Answer;
use super::State;
use crate::cost::report::CostBy;
use crate::obs::export::{ExportFormat, Views, Window};
use crate::store::DbKind;
use std::io::Write;

pub(crate) fn route(state: &State, req: &Req, rest: &str) -> Answer {
    match answer(state, req, rest) {
        Ok(a) => a,
        Err(e) => Answer::error(e.status(), &e.to_string(), true),
    }
}

fn answer(state: &State, req: &Req, rest: &str) -> Result<Answer, PageError> {
    let json = |v: serde_json::Value| Ok(Answer::json(&v));
    match rest {
        "overview" => {
            req.only(&["timezone"])?;
            json(data::overview(state, req.zone("timezone")?)?)
        }
        "cost" => {
            let q = cost_params(state, req)?;
            json(data::cost(state, &q)?)
        }
        "projects" => {
            req.only(&["since", "until"])?;
            json(data::projects(state, req.day("since")?, req.day("until")?)?)
        }
        "sessions" => {
            let (limit, offset) = page_params(req)?;
            json(data::sessions(state, limit, offset)?)
        }
        "gates" => {
            req.only(&[])?;
            json(data::gates(state)?)
        }
        "policy" => {
            req.only(&[])?;
            json(data::policy(state)?)
        }
        "prices" => {
            let (model, provider) = price_params(req)?;
            json(data::prices(state, model.as_deref(), provider.as_deref())?)
        }
        _ => {
            if let Some(id) = rest.strip_prefix("sessions/") {
                let events = session_params(req)?;
                return json(data::session(state, &session_id(id)?, events)?);
            }
            export(state, req, rest)
        }
    }
}

/// The parameters of the cost page and its JSON.
pub(crate) fn cost_params(state: &State, req: &Req) -> Result<data::CostQuery, PageError> {
    req.only(&["by", "since", "until", "timezone", "project"])?;
    let by = match req.choice("by", &["day", "week"])? {
        "week" => CostBy::Week,
        _ => CostBy::Day,
    };
    Ok(data::cost_query(
        state,
        by,
        req.day("since")?,
        req.day("until")?,
        req.zone("timezone")?,
        req.text("project", 200)?,
    ))
}

/// `limit` (1 to 500, default 25) and `offset` of the session list.
pub(crate) fn page_params(req: &Req) -> Result<(i64, i64), PageError> {
    req.only(&["limit", "offset"])?;
    Ok((req.number("limit", 25, 1, MAX_LIMIT)?, req.number("offset", 0, 0, 10_000_000)?))
}

/// `events`: how many of the last events of each plane a session page shows (default 50).
pub(crate) fn session_params(req: &Req) -> Result<i64, PageError> {
    req.only(&["events"])?;
    Ok(req.number("events", 50, 1, MAX_LIMIT)?)
}

pub(crate) fn price_params(req: &Req) -> Result<(Option<String>, Option<String>), PageError> {
    req.only(&["model", "provider"])?;
    Ok((req.text("model", 200)?, req.text("provider", 50)?))
}

/// A session id from the path: at most 200 characters.
pub(crate) fn session_id(id: &str) -> Result<String, PageError> {
    if id.is_empty() || id.chars().count() > 200 || id.contains('/') {
        return Err(PageError::NotFound(format!(
            "{:?} is not a session id",
            id.chars().take(60).collect::<String>()
        )));
    }
    Ok(id.to_string())
}

/// Signals the first byte of an export, so that an export refused before it wrote anything can
/// still be answered 400 instead of a broken 200.
struct FirstWrite<W: Write> {
    inner: W,
    started: Option<std::sync::mpsc::SyncSender<Result<(), String>>>,
}

impl<W: Write> Write for FirstWrite<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(tx) = self.started.take() {
            let _ = tx.send(Ok(()));
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// `/api/<view>?db=&since=&until=`: the view's rows as `tlc obs export <view> [--db] [--since]
/// [--until] --format json` prints them, streamed from a connection of the pool.
fn export(state: &State, req: &Req, view: &str) -> Result<Answer, PageError> {
    let has = |k: DbKind| k.views().iter().any(|(name, _)| *name == view);
    if !has(DbKind::Project) && !has(DbKind::Home) {
        return Err(PageError::NotFound(format!(
            "no page or view named {:?} (pages: overview, cost, projects, sessions, gates, policy, prices; views: `tlc obs views`)",
            view.chars().take(60).collect::<String>()
        )));
    }
    req.only(&["db", "since", "until"])?;
    // `obs export`'s rule: the database named, else the one holding the view, else (the cost views
    // are in both) the project database inside a repository.
    let kind = match req.params_db()? {
        Some(k) if has(k) => k,
        Some(k) => {
            return Err(PageError::Bad(super::guard::BadParam {
                name: "db".into(),
                why: format!("the {} database has no view named {view}", k.name()),
            }))
        }
        None if has(DbKind::Project) && has(DbKind::Home) => {
            if state.opts.project.is_some() {
                DbKind::Project
            } else {
                DbKind::Home
            }
        }
        None if has(DbKind::Project) => DbKind::Project,
        None => DbKind::Home,
    };
    let (since, until) = (req.time("since")?, req.time("until")?);
    let window = Window::parse(since.as_deref(), until.as_deref()).map_err(|e| match e {
        crate::obs::export::ExportError::Window { flag, cause } => PageError::Bad(super::guard::BadParam {
            name: flag.trim_start_matches('-').into(),
            why: cause.to_string(),
        }),
        other => PageError::Read {
            path: view.into(),
            cause: other.to_string(),
        },
    })?;
    let pool = match kind {
        DbKind::Project => state.project.get()?,
        DbKind::Home => state.home.get()?,
    };
    let Some(pool) = pool else {
        // Nothing recorded: the export of an empty database.
        return Ok(Answer::json_stream(Box::new(std::io::Cursor::new(b"[]\n".to_vec()))));
    };
    let (reader, writer) = std::io::pipe().map_err(|e| PageError::Read {
        path: pool.path().display().to_string(),
        cause: format!("cannot make a pipe: {e}"),
    })?;
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let view = view.to_string();
    std::thread::spawn(move || {
        let fail = tx.clone();
        let mut out = FirstWrite {
            inner: std::io::BufWriter::with_capacity(64 * 1024, writer),
            started: Some(tx),
        };
        let result = pool
            .get()
            .map_err(|e| e.to_string())
            .and_then(|conn| {
                Views::new(&conn)
                    .export(&view, &window, ExportFormat::Json, &mut out)
                    .map_err(|e| format!("{}: view {view}: {e}", pool.path().display()))
            })
            .and_then(|_| out.flush().map_err(|e| e.to_string()));
        if let Err(e) = result {
            // Heard only when nothing was written yet; a client gone mid-stream is no error.
            let _ = fail.send(Err(e));
        }
    });
    match rx.recv() {
        Ok(Ok(())) => Ok(Answer::json_stream(Box::new(reader))),
        Ok(Err(e)) => Err(PageError::Read {
            path: String::from("export"),
            cause: e,
        }),
        Err(_) => Err(PageError::Read {
            path: String::from("export"),
            cause: "the export ended without an answer".into(),
        }),
    }
}
