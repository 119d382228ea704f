//! The pages: each draws the value `data` gathered for it (the same value its `/api/…` address
//! answers), as cards, SVG charts and tables. Every text from that value passes `html::esc`
//! (through [`Cell`] and the `html` helpers).

use super::api;
use super::data::{self, PageError};
use super::guard::Req;
use super::html::{self, card, esc, esc_lines, h2, int, p, same_as, table, usd, when, Cell, Frame};
use super::respond::Answer;
use super::svg::{self, Series};
use super::State;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Seconds between the live refreshes of the overview and a session page.
const REFRESH_SECONDS: u32 = 10;
/// The live sessions the overview lists (the rest are counted).
const LIVE_SHOWN: usize = 25;

pub(crate) fn route(state: &State, req: &Req) -> Answer {
    if req.token_in_query {
        // The token moves into a cookie and out of the address bar (and history).
        let q = if req.query_without_token.is_empty() {
            String::new()
        } else {
            format!("?{}", req.query_without_token)
        };
        let cookie = format!("{}={}; Path=/; HttpOnly; SameSite=Strict", req.cookie_name, state.opts.token);
        return Answer::redirect(format!("{}{q}", req.path), vec![("Set-Cookie", cookie)]);
    }
    let project = state.opts.project.as_ref().map(|p| p.name.as_str());
    let made = match req.path.as_str() {
        "/" => overview(state, req, project),
        "/cost" => cost(state, req, project),
        "/projects" => projects(state, req, project),
        "/sessions" => sessions(state, req, project),
        "/gates" => gates(state, req, project),
        "/policy" => policy(state, req, project),
        "/prices" => prices(state, req, project),
        path => match path.strip_prefix("/sessions/") {
            Some(id) => session(state, req, project, id),
            None => Err(PageError::NotFound(format!(
                "no page at {:?}",
                path.chars().take(80).collect::<String>()
            ))),
        },
    };
    match made {
        Ok(page) => Answer::html(200, page),
        Err(e) => Answer::html(e.status(), super::respond::error_page(e.status(), &e.to_string())),
    }
}

fn f(v: &Value, k: &str) -> Option<f64> {
    v.get(k).and_then(Value::as_f64)
}

fn i(v: &Value, k: &str) -> i64 {
    v.get(k).and_then(Value::as_i64).unwrap_or(0)
}

fn s(v: &Value, k: &str) -> String {
    match v.get(k) {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn rows(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or_default()
}

/// A cost row's figure: its USD, `*` when part was unpriced.
fn cost_of(row: &Value) -> String {
    usd(
        f(row, "cost_usd"),
        row.get("cost_complete").and_then(Value::as_bool).unwrap_or(true),
    )
}

fn db_missing(db: &Value, how: &str) -> String {
    if db.get("exists").and_then(Value::as_bool).unwrap_or(false) {
        return String::new();
    }
    format!(
        "<p class=\"notice\">No {} database yet at <code>{}</code>. {}</p>",
        esc(&s(db, "database")),
        esc(&s(db, "path")),
        esc(how)
    )
}

const FILL_HOME: &str =
    "It fills from `tlc obs import transcripts` (Claude Code's transcripts) and, with obs.globalSpool on, from every repository's hooks.";
const FILL_PROJECT: &str = "It fills as an agent works in this repository with tlc's hooks installed (`tlc install`).";
const NO_PROJECT: &str =
    "tlc serve was started outside a git repository: start it inside one to see that repository's sessions, gates and policy.";

fn project_notice(db: &Value) -> String {
    if db.is_null() {
        return format!("<p class=\"notice\">{}</p>", esc(NO_PROJECT));
    }
    db_missing(db, FILL_PROJECT)
}

/// A cost report's rows as bars stacked by model (from each row's breakdown).
fn cost_chart(id: &str, title: &str, report: &Value) -> String {
    let rows = rows(&report["rows"]);
    if rows.is_empty() {
        return p("No responses in this window.");
    }
    let labels: Vec<String> = rows.iter().map(|r| s(r, "key")).collect();
    let models: BTreeSet<String> = rows
        .iter()
        .flat_map(|r| super::pages::rows(&r["breakdown"]).iter().map(|b| s(b, "key")))
        .collect();
    let series: Vec<Series> = models
        .iter()
        .map(|m| Series {
            name: m.clone(),
            values: rows
                .iter()
                .map(|r| {
                    super::pages::rows(&r["breakdown"])
                        .iter()
                        .find(|b| s(b, "key") == *m)
                        .and_then(|b| f(b, "cost_usd"))
                        .unwrap_or(0.0)
                })
                .collect(),
        })
        .collect();
    svg::stacked_bars(id, title, "USD", &labels, &series, &html::amount)
}

fn cost_table(id: &str, by: &str, report: &Value) -> String {
    let mut body: Vec<Vec<Cell>> = rows(&report["rows"])
        .iter()
        .map(|r| {
            let models: Vec<String> = rows(&r["models"]).iter().filter_map(|m| m.as_str().map(str::to_string)).collect();
            vec![
                Cell::Text(s(r, "key")),
                Cell::Text(models.join(", ")),
                Cell::Num(int(i(r, "responses"))),
                Cell::Num(int(i(r, "input_tokens"))),
                Cell::Num(int(i(r, "output_tokens"))),
                Cell::Num(int(i(r, "cache_write_tokens"))),
                Cell::Num(int(i(r, "cache_read_tokens"))),
                Cell::Num(int(i(r, "total_tokens"))),
                Cell::Num(cost_of(r)),
            ]
        })
        .collect();
    if !body.is_empty() {
        let t = &report["totals"];
        body.push(vec![
            Cell::Text("total".into()),
            Cell::Text(String::new()),
            Cell::Num(int(i(t, "responses"))),
            Cell::Num(int(i(t, "input_tokens"))),
            Cell::Num(int(i(t, "output_tokens"))),
            Cell::Num(int(i(t, "cache_write_tokens"))),
            Cell::Num(int(i(t, "cache_read_tokens"))),
            Cell::Num(int(i(t, "total_tokens"))),
            Cell::Num(cost_of(t)),
        ]);
    }
    table(
        id,
        &[
            by,
            "models",
            "responses",
            "input",
            "output",
            "cache write",
            "cache read",
            "total tokens",
            "cost (USD)",
        ],
        &body,
        "No responses in this window.",
    ) + "<p class=\"hint\">* part of the row's responses had no price: the cost shown is a lower bound.</p>"
}

fn overview(state: &State, req: &Req, project: Option<&str>) -> Result<String, PageError> {
    req.only(&["timezone"])?;
    let v = data::overview(state, req.zone("timezone")?)?;
    let tz = s(&v, "timezone");
    let mut body = db_missing(&v["databases"]["home"], FILL_HOME);
    body.push_str("<div class=\"cards\">");
    for (id, label, key) in [
        ("today", "Today", "today"),
        ("week", "This week", "week"),
        ("month", "This month", "month"),
    ] {
        let t = &v[key]["totals"];
        body.push_str(&card(
            id,
            label,
            &cost_of(t),
            f(t, "cost_usd"),
            &format!("{} responses · {} total tokens", int(i(t, "responses")), int(i(t, "total_tokens"))),
        ));
    }
    let active = rows(&v["block"]["rows"])
        .iter()
        .rev()
        .find(|r| r["block"]["active"].as_bool().unwrap_or(false));
    match active {
        Some(b) => {
            let burn = f(&b["block"]["burn_rate"], "cost_per_hour");
            let proj = &b["block"]["projection"];
            let left = i(proj, "remaining_minutes");
            let note = match burn {
                Some(rate) => format!(
                    "burn {}/h · projected {} · {}h{:02}m left",
                    html::amount(rate),
                    html::amount(f(proj, "total_cost").unwrap_or(0.0)),
                    left / 60,
                    left % 60
                ),
                None => format!("started {} · one response so far", when(&s(&b["block"], "start"))),
            };
            body.push_str(&card("block", "Active 5-hour block", &cost_of(b), f(b, "cost_usd"), &note));
        }
        None => body.push_str(&card(
            "block",
            "Active 5-hour block",
            "none",
            None,
            "no response in the last 5 hours",
        )),
    }
    body.push_str("</div>");
    body.push_str(&h2(&format!("Cost per day, last 30 days ({tz})")));
    body.push_str(&format!(
        "<div class=\"chartbox\">{}</div>",
        cost_chart("chart-days", "Cost per day by model", &v["last_30_days"])
    ));
    body.push_str(&h2("Live sessions"));
    body.push_str(&project_notice(&v["databases"]["project"]));
    let all_live = rows(&v["live_sessions"]);
    let live: Vec<Vec<Cell>> = all_live
        .iter()
        .take(LIVE_SHOWN)
        .map(|l| {
            let id = s(l, "session_id");
            vec![
                Cell::Link(html::session_href(&id), id),
                Cell::Text(s(l, "provider")),
                Cell::Text(s(l, "model")),
                Cell::Text(when(&s(l, "first_seen"))),
                Cell::Text(when(&s(l, "last_seen"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "live",
        &["session", "provider", "model", "first seen", "last seen"],
        &live,
        "No live session (none started and not ended).",
    ));
    if all_live.len() > LIVE_SHOWN {
        body.push_str(&p(&format!(
            "and {} more not ended (the most recently active are shown; all are in this page's JSON)",
            all_live.len() - LIVE_SHOWN
        )));
    }
    body.push_str(&h2("The same numbers on the command line"));
    body.push_str("<ul class=\"commands\">");
    for (name, cmd) in v["commands"].as_object().into_iter().flatten() {
        body.push_str(&format!("<li>{}: <code>{}</code></li>", esc(name), esc(cmd.as_str().unwrap_or(""))));
    }
    body.push_str("</ul>");
    let api = format!(
        "/api/overview{}",
        html::query(&opt_pair("timezone", req.zone("timezone")?.as_deref()))
    );
    Ok(html::document(
        &Frame {
            title: "Overview",
            nav: "/",
            project,
            api: &api,
            refresh: Some(REFRESH_SECONDS),
        },
        &body,
    ))
}

fn opt_pair<'a>(k: &'a str, v: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    v.map(|v| vec![(k, v)]).unwrap_or_default()
}

fn cost(state: &State, req: &Req, project: Option<&str>) -> Result<String, PageError> {
    let q = api::cost_params(state, req)?;
    let v = data::cost(state, &q)?;
    let by = s(&v, "by");
    let mut body = db_missing(&v["database"], FILL_HOME);
    let (since, until, tz) = (
        q.since.clone().unwrap_or_default(),
        q.until.clone().unwrap_or_default(),
        q.timezone.clone().unwrap_or_default(),
    );
    body.push_str(&format!(
        "<form method=\"get\" action=\"/cost\" class=\"filters\"><label>per <select name=\"by\"><option value=\"day\"{}>day</option><option value=\"week\"{}>week</option></select></label><label>from <input name=\"since\" value=\"{}\" placeholder=\"YYYY-MM-DD\" size=\"10\"></label><label>to <input name=\"until\" value=\"{}\" placeholder=\"YYYY-MM-DD\" size=\"10\"></label><label>time zone <input name=\"timezone\" value=\"{}\" placeholder=\"UTC\" size=\"16\"></label><button>Show</button></form>",
        if by == "day" { " selected" } else { "" },
        if by == "week" { " selected" } else { "" },
        esc(&since),
        esc(&until),
        esc(&tz)
    ));
    let t = &v["totals"];
    body.push_str("<div class=\"cards\">");
    body.push_str(&card(
        "total",
        "In this window",
        &cost_of(t),
        f(t, "cost_usd"),
        &format!("{} responses · {} total tokens", int(i(t, "responses")), int(i(t, "total_tokens"))),
    ));
    body.push_str("</div>");
    body.push_str(&h2(&format!("Cost per {by}, stacked by model ({})", s(&v, "timezone"))));
    body.push_str(&format!(
        "<div class=\"chartbox\">{}</div>",
        cost_chart("chart-cost", &format!("Cost per {by} by model"), &v)
    ));
    body.push_str(&cost_table("cost", &by, &v));
    body.push_str(&same_as(&q.command()));
    let mut pairs = vec![("by", by.as_str())];
    for (k, val) in [
        ("since", &q.since),
        ("until", &q.until),
        ("timezone", &q.timezone),
        ("project", &q.project),
    ] {
        if let Some(val) = val {
            pairs.push((k, val.as_str()));
        }
    }
    let api = format!("/api/cost{}", html::query(&pairs));
    Ok(html::document(
        &Frame {
            title: "Cost over time",
            nav: "/cost",
            project,
            api: &api,
            refresh: None,
        },
        &body,
    ))
}

fn projects(state: &State, req: &Req, project: Option<&str>) -> Result<String, PageError> {
    req.only(&["since", "until"])?;
    let (since, until) = (req.day("since")?, req.day("until")?);
    let v = data::projects(state, since.clone(), until.clone())?;
    let mut body = db_missing(&v["database"], FILL_HOME);
    let cost = &v["cost"];
    let bars: Vec<(String, f64)> = rows(&cost["rows"])
        .iter()
        .map(|r| (s(r, "key"), f(r, "cost_usd").unwrap_or(0.0)))
        .collect();
    body.push_str(&h2("Cost by project"));
    if !bars.is_empty() {
        body.push_str(&format!(
            "<div class=\"chartbox\">{}</div>",
            svg::hbars("chart-projects", "Cost by project", &bars, &html::amount)
        ));
    }
    body.push_str(&cost_table("projects", "project", cost));
    body.push_str(&same_as(&s(&v["commands"], "cost")));
    body.push_str(&h2("Repositories in the spool"));
    let repos: Vec<Vec<Cell>> = rows(&v["repositories"])
        .iter()
        .map(|r| {
            vec![
                Cell::Code(s(r, "repo_path")),
                Cell::Text(s(r, "project")),
                Cell::Num(int(i(r, "sessions"))),
                Cell::Num(int(i(r, "events"))),
                Cell::Num(int(i(r, "prompts"))),
                Cell::Num(int(i(r, "tool_fails"))),
                Cell::Num(int(i(r, "denials"))),
                Cell::Num(usd(f(r, "cost_usd"), true)),
                Cell::Text(when(&s(r, "last_at"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "repositories",
        &[
            "repository",
            "project",
            "sessions",
            "events",
            "prompts",
            "tool fails",
            "denials",
            "cost",
            "last seen",
        ],
        &repos,
        "Nothing spooled: turn on obs.globalSpool to mirror every repository's record here.",
    ));
    body.push_str(&same_as(&s(&v["commands"], "repositories")));
    let mut pairs = Vec::new();
    pairs.extend(opt_pair("since", since.as_deref()));
    pairs.extend(opt_pair("until", until.as_deref()));
    let api = format!("/api/projects{}", html::query(&pairs));
    Ok(html::document(
        &Frame {
            title: "Projects",
            nav: "/projects",
            project,
            api: &api,
            refresh: None,
        },
        &body,
    ))
}

/// A session's estimated cost: "none" when it has no usage, "unknown" when nothing was priced.
fn session_cost(r: &Value) -> String {
    let incomplete = r["cost_incomplete"].as_bool().unwrap_or(false);
    match f(r, "estimated_cost_usd") {
        None if !incomplete => "none".into(),
        v => usd(v, !incomplete),
    }
}

fn sessions(state: &State, req: &Req, project: Option<&str>) -> Result<String, PageError> {
    let (limit, offset) = api::page_params(req)?;
    let v = data::sessions(state, limit, offset)?;
    let mut body = project_notice(&v["database"]);
    let list = rows(&v["sessions"]);
    // Each bar says what the table's cost column says (a session with no usage: "none").
    let bars: Vec<(String, f64, String)> = list
        .iter()
        .map(|r| (s(r, "session_id"), f(r, "estimated_cost_usd").unwrap_or(0.0), session_cost(r)))
        .collect();
    if bars.iter().any(|b| b.1 > 0.0) {
        body.push_str(&format!(
            "<div class=\"chartbox\">{}</div>",
            svg::hbars_text("chart-sessions", "Estimated cost per session", &bars)
        ));
    }
    let table_rows: Vec<Vec<Cell>> = list
        .iter()
        .map(|r| {
            let id = s(r, "session_id");
            vec![
                Cell::Link(html::session_href(&id), id),
                Cell::Text(s(r, "provider")),
                Cell::Text(when(&s(r, "started_at"))),
                Cell::Text(when(&s(r, "updated_at"))),
                Cell::Text(if r["ended_at"].is_null() { "live".into() } else { "ended".into() }),
                Cell::Text(s(r, "session_model")),
                Cell::Num(int(i(r, "prompts"))),
                Cell::Num(int(i(r, "generations"))),
                Cell::Num(int(i(r, "denials"))),
                Cell::Num(int(total_tokens(r))),
                Cell::Num(session_cost(r)),
            ]
        })
        .collect();
    body.push_str(&table(
        "sessions",
        &[
            "session",
            "provider",
            "started",
            "last active",
            "state",
            "model",
            "prompts",
            "generations",
            "denials",
            "total tokens",
            "estimated cost",
        ],
        &table_rows,
        "No session recorded.",
    ));
    body.push_str("<p class=\"pager\">");
    if offset > 0 {
        let prev = (offset - limit).max(0).to_string();
        let l = limit.to_string();
        body.push_str(&format!(
            "<a href=\"/sessions{}\">← more recent</a> ",
            esc(&html::query(&[("limit", &l), ("offset", &prev)]))
        ));
    }
    if list.len() as i64 == limit {
        let next = (offset + limit).to_string();
        let l = limit.to_string();
        body.push_str(&format!(
            "<a href=\"/sessions{}\">older →</a>",
            esc(&html::query(&[("limit", &l), ("offset", &next)]))
        ));
    }
    body.push_str("</p>");
    body.push_str(&same_as(&s(&v["commands"], "sessions")));
    let (l, o) = (limit.to_string(), offset.to_string());
    let api = format!("/api/sessions{}", html::query(&[("limit", &l), ("offset", &o)]));
    Ok(html::document(
        &Frame {
            title: "Sessions",
            nav: "/sessions",
            project,
            api: &api,
            refresh: None,
        },
        &body,
    ))
}

fn event_table(id: &str, events: &Value) -> String {
    let body: Vec<Vec<Cell>> = rows(events)
        .iter()
        .map(|e| {
            vec![
                Cell::Num(i(e, "id").to_string()),
                Cell::Text(when(&s(e, "ts"))),
                Cell::Text(s(e, "kind")),
                Cell::Text(s(e, "tool")),
                Cell::Text(s(e, "model")),
                Cell::Num(e.get("duration_ms").and_then(Value::as_i64).map(int).unwrap_or_default()),
                Cell::Num(f(e, "cost_usd").map(html::amount).unwrap_or_default()),
                Cell::Fields(e["attrs"].clone()),
            ]
        })
        .collect();
    table(
        id,
        &["id", "time", "kind", "tool", "model", "ms", "cost", "attributes"],
        &body,
        "No event on this plane.",
    )
}

/// A session's tokens as `obs cost` counts them in its "total tokens": input, output, cache write
/// and cache read (the one total every page shows under that name).
fn total_tokens(r: &Value) -> i64 {
    ["input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens"]
        .iter()
        .map(|k| i(r, k))
        .fold(0i64, i64::saturating_add)
}

/// What an event of the timeline is, in words.
fn kind_label(kind: &str) -> &str {
    match kind {
        "prompt.submit" => "Prompt",
        "tool.start" | "shell.start" | "mcp.start" => "Tool call",
        "tool.end" | "shell.end" | "mcp.end" => "Tool done",
        "tool.fail" => "Tool failed",
        "tool.batch" => "Tool batch",
        "file.read" => "File read",
        "file.edit" => "File edit",
        // Not the hook's own name (tlc's words, the same for every provider).
        "stop" => "Turn end",
        "stop.failure" => "Turn end after an API error",
        "stop.outcome" => "Stop outcome",
        "gate.run" => "Gate run",
        "decision" => "Decision",
        "session.start" => "Session start",
        "session.end" => "Session end",
        "agent.response" => "Response",
        "agent.thought" => "Thought",
        "compact" => "Compaction",
        "subagent.start" => "Subagent start",
        "subagent.end" => "Subagent end",
        "permission.request" => "Permission dialog",
        "permission.denied" => "Permission denied",
        "notification" => "Notice",
        "observe.reading" => "Observation",
        "hook.fault" => "Hook fault",
        other => other,
    }
}

/// The attribute an event is about, shown on its first line (and not again among its fields).
const HEADLINE_ATTRS: &[&str] = &["prompt", "command", "file_path", "text", "message", "error_message"];

/// A hook's decision in words: a denied call reads "denied".
fn permission_words(p: &str) -> &str {
    match p {
        "deny" => "denied",
        "ask" => "asked the operator",
        "allow" => "allowed",
        other => other,
    }
}

/// A stop's outcome in words.
fn outcome_words(o: &str) -> &str {
    match o {
        "block" => "blocked",
        "allow" => "let through",
        "advisory" => "let through with advice",
        "capped" => "let through: the turn's loop cap was reached",
        "paused" => "let through: stop checks are paused",
        "deferred" => "let through: deferred (another session held the gate lock)",
        other => other,
    }
}

/// A class name from a closed set of words (the record's own words never become markup).
fn tone(word: &str) -> &'static str {
    match word {
        "deny" | "block" | "fail" | "config" => "bad",
        "ask" | "advisory" | "capped" | "deferred" | "paused" | "skipped" => "warn",
        _ => "ok",
    }
}

/// One entry of the timeline (an item of `data::TimelineEntry`'s JSON).
fn timeline_entry(e: &Value) -> String {
    let kind = s(e, "kind");
    let (time, _) = html::moment(&s(e, "ts"));
    let attrs = &e["attrs"];
    let decisions = rows(&e["decisions"]);
    let outcomes = rows(&e["outcomes"]);
    let runs = rows(&e["gate_runs"]);
    let mut head = format!("<span class=\"tag\">{}</span>", esc(kind_label(&kind)));
    let tool = s(e, "tool");
    if !tool.is_empty() {
        head.push_str(&format!(" <code class=\"tool\">{}</code>", esc(&tool)));
    }
    // The strongest decision on the call is its headline: a denied call reads as denied.
    let verdict = ["deny", "ask", "allow"]
        .into_iter()
        .find(|p| decisions.iter().any(|d| s(d, "permission") == *p));
    if let Some(p) = verdict {
        head.push_str(&format!(" <span class=\"verdict {}\">{}</span>", tone(p), esc(permission_words(p))));
    }
    if let Some(o) = outcomes.first() {
        let word = s(o, "outcome");
        head.push_str(&format!(
            " <span class=\"verdict {}\">{}</span>",
            tone(&word),
            esc(outcome_words(&word))
        ));
    }
    if let Some(ms) = e.get("duration_ms").and_then(Value::as_i64) {
        head.push_str(&format!(" <span class=\"muted\">{} ms</span>", int(ms)));
    }
    let mut body = String::new();
    for key in HEADLINE_ATTRS {
        if let Some(Value::String(t)) = attrs.get(*key) {
            let class = if *key == "command" || *key == "file_path" {
                "about code"
            } else {
                "about"
            };
            body.push_str(&format!("<div class=\"{class}\">{}</div>", esc_lines(&html::clip(t, 2000))));
            break;
        }
    }
    for d in decisions {
        let p = s(d, "permission");
        let rule = s(d, "rule");
        // A call let through by no rule says no more than its "allowed" beside the tool.
        if p == "allow" && (rule.is_empty() || rule == "none") && s(d, "reason").is_empty() {
            continue;
        }
        let mut line = format!(
            "<div class=\"decision {}\"><strong>{}</strong>",
            tone(&p),
            esc(&capitalised(permission_words(&p)))
        );
        if rule != "none" && !rule.is_empty() {
            line.push_str(&format!(" by rule <code>{}</code>", esc(&rule)));
        }
        line.push_str(&format!(" · posture {}", esc(&s(d, "posture"))));
        let detail = s(d, "detail");
        if !detail.is_empty()
            && detail != tool
            && !HEADLINE_ATTRS
                .iter()
                .any(|k| attrs.get(*k).and_then(Value::as_str) == Some(detail.as_str()))
        {
            line.push_str(&format!(" · about <code>{}</code>", esc(&html::clip(&detail, 500))));
        }
        let reason = readable(&s(d, "reason"));
        if !reason.is_empty() {
            line.push_str(&format!("<div class=\"reason\">{}</div>", esc_lines(&html::clip(&reason, 2000))));
        }
        body.push_str(&line);
        body.push_str("</div>");
    }
    for o in outcomes {
        let word = s(o, "outcome");
        let mut line = format!(
            "<div class=\"outcome {}\"><strong>Stop {}</strong> · rule <code>{}</code>",
            tone(&word),
            esc(outcome_words(&word)),
            esc(&s(o, "rule"))
        );
        if i(o, "attempt") > 0 {
            line.push_str(&format!(" · attempt {}", i(o, "attempt")));
        }
        if let Some(t) = o.get("turn").and_then(Value::as_i64) {
            line.push_str(&format!(" · turn {t}"));
        }
        let detail = s(o, "detail");
        if !detail.is_empty() {
            line.push_str(&format!("<div class=\"reason\">{}</div>", esc_lines(&html::clip(&detail, 2000))));
        }
        let sent = s(o, "follow_up");
        if !sent.is_empty() {
            line.push_str(&format!(
                "<div class=\"sent\"><div class=\"label\">Sent to the agent</div><pre class=\"follow-up\">{}</pre></div>",
                esc_lines(&html::clip(&sent, 8000))
            ));
        }
        body.push_str(&line);
        body.push_str("</div>");
    }
    for r in runs {
        let verdict = s(r, "verdict");
        let command: Vec<String> = rows(&r["command"]).iter().filter_map(|c| c.as_str().map(str::to_string)).collect();
        let mut line = format!(
            "<div class=\"gate-run {}\"><strong>Gate {}</strong>: {}",
            tone(&verdict),
            esc(&s(r, "gate")),
            esc(&s(r, "classification"))
        );
        if let Some(code) = r.get("exit_code").and_then(Value::as_i64) {
            line.push_str(&format!(" · exit {code}"));
        }
        if r["reused"].as_bool().unwrap_or(false) {
            line.push_str(" · verdict reused");
        }
        line.push_str(&format!(" · {} ms", int(i(r, "duration_ms"))));
        if !command.is_empty() {
            line.push_str(&format!(" · <code>{}</code>", esc(&command.join(" "))));
        }
        let tail = s(r, "output_tail");
        if !tail.trim().is_empty() {
            line.push_str(&format!(
                "<div class=\"sent\"><div class=\"label\">Output (its tail)</div><pre class=\"output-tail\">{}</pre></div>",
                esc_lines(&html::clip(&tail, 8000))
            ));
        }
        body.push_str(&line);
        body.push_str("</div>");
    }
    let mut rest = attrs.clone();
    if let Some(m) = rest.as_object_mut() {
        // The hook's own name says what the kind says; the headline attribute is shown above, and
        // so are the decision and the outcome the hook copied into its attributes.
        m.remove("event");
        if !decisions.is_empty() {
            m.remove("decision");
            m.remove("rule");
        }
        if !outcomes.is_empty() {
            m.remove("outcome");
            m.remove("rule");
        }
        for key in HEADLINE_ATTRS {
            if m.get(*key).is_some_and(Value::is_string) {
                m.remove(*key);
                break;
            }
        }
    }
    body.push_str(&html::fields(&rest));
    let denied = if verdict == Some("deny") { " denied" } else { "" };
    let id = e
        .get("event_id")
        .and_then(Value::as_i64)
        .map(|n| format!(" id=\"event-{n}\""))
        .unwrap_or_default();
    format!(
        "<li class=\"entry{denied}\"{id}><div class=\"when\">{}</div><div class=\"what\"><div class=\"head\">{head}</div>{body}</div></li>",
        esc(&time)
    )
}

/// A decision's reason as the timeline shows it: its lines, without the floor's boilerplate (the
/// same two sentences on every floor denial) and its `rule=` tail (the rule is named beside it),
/// as `tlc obs why` prints it.
fn readable(reason: &str) -> String {
    crate::decision::reason_lines(reason).join("\n")
}

fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The session's story, oldest first, a line for each day it crosses.
fn timeline(entries: &Value) -> String {
    let list = rows(entries);
    if list.is_empty() {
        return "<p class=\"empty\" id=\"timeline\">Nothing recorded in this session yet.</p>".into();
    }
    let mut out = String::from("<ol class=\"timeline\" id=\"timeline\">");
    let mut day = String::new();
    for e in list {
        let (_, d) = html::moment(&s(e, "ts"));
        if d != day {
            out.push_str(&format!("<li class=\"day\">{} (UTC)</li>", esc(&d)));
            day = d;
        }
        out.push_str(&timeline_entry(e));
    }
    out + "</ol>"
}

fn session(state: &State, req: &Req, project: Option<&str>, id: &str) -> Result<String, PageError> {
    let events = api::session_params(req)?;
    let id = api::session_id(id)?;
    let v = data::session(state, &id, events)?;
    let r = &v["report"];
    let sid = s(r, "session_id");
    let mut body = format!(
        "<p class=\"meta\"><code id=\"session-id\">{}</code> · {} · {} → {} · {}</p>",
        esc(&sid),
        esc(&s(r, "provider")),
        esc(&when(&s(r, "started_at"))),
        esc(&when(&s(r, "updated_at"))),
        esc(&rows(&r["models"]).iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "))
    );
    body.push_str("<div class=\"cards\">");
    body.push_str(&card(
        "session-cost",
        "Estimated cost",
        &session_cost(r),
        f(r, "estimated_cost_usd"),
        &format!("{} generations", int(i(r, "generations"))),
    ));
    body.push_str(&card(
        "tokens",
        "Total tokens",
        &int(total_tokens(r)),
        Some(total_tokens(r) as f64),
        &format!(
            "input {} · output {} · cache write {} · cache read {}",
            int(i(r, "input_tokens")),
            int(i(r, "output_tokens")),
            int(i(r, "cache_write_tokens")),
            int(i(r, "cache_read_tokens"))
        ),
    ));
    body.push_str(&card(
        "prompts",
        "Prompts / responses",
        &format!("{} / {}", int(i(r, "prompts")), int(i(r, "responses"))),
        None,
        &format!("{} thoughts · {} compactions", int(i(r, "thoughts")), int(i(r, "compactions"))),
    ));
    body.push_str(&card(
        "gates",
        "Gates pass / fail",
        &format!("{} / {}", i(&r["gates"], "pass"), i(&r["gates"], "fail")),
        None,
        &format!(
            "{} runs · {} reused · worst {} ms",
            i(&r["gate_time"], "runs"),
            i(&r["gate_time"], "reused"),
            int(i(&r["gate_time"], "worst_ms"))
        ),
    ));
    body.push_str(&card(
        "denials",
        "Denials",
        &int(i(r, "denials")),
        None,
        &format!(
            "shell allow {} · ask {} · deny {}",
            i(&r["shell"], "allow"),
            i(&r["shell"], "ask"),
            i(&r["shell"], "deny")
        ),
    ));
    body.push_str("</div>");
    body.push_str(&h2(&format!(
        "Timeline (the last {} events, the model's API calls left to the totals)",
        data::TIMELINE_EVENTS
    )));
    body.push_str(&timeline(&v["timeline"]));
    body.push_str(&h2("Tools"));
    let tools = rows(&r["tools"]);
    if !tools.is_empty() {
        let bars: Vec<(String, f64)> = tools.iter().map(|t| (s(t, "tool"), i(t, "calls") as f64)).collect();
        body.push_str(&format!(
            "<div class=\"chartbox\">{}</div>",
            svg::hbars("chart-tools", "Calls per tool", &bars, &|v| format!("{v:.0}"))
        ));
    }
    let tool_rows: Vec<Vec<Cell>> = tools
        .iter()
        .map(|t| {
            vec![
                Cell::Text(s(t, "tool")),
                Cell::Num(int(i(t, "calls"))),
                Cell::Num(int(i(t, "ok"))),
                Cell::Num(int(i(t, "fail"))),
                Cell::Num(int(i(t, "denied"))),
                Cell::Num(int(i(t, "asked"))),
                Cell::Num(int(i(t, "total_ms"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "tools",
        &["tool", "calls", "ok", "fail", "denied", "asked", "total ms"],
        &tool_rows,
        "No tool call.",
    ));
    body.push_str(&h2("Subagents"));
    let subs: Vec<Vec<Cell>> = rows(&r["subagents"])
        .iter()
        .map(|a| {
            vec![
                Cell::Text(s(a, "type")),
                Cell::Num(int(i(a, "started"))),
                Cell::Num(int(i(a, "ended"))),
                Cell::Num(int(i(a, "toolCalls"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "subagents",
        &["type", "started", "ended", "tool calls"],
        &subs,
        "No subagent.",
    ));
    body.push_str(&h2(INTERRUPTIONS_TITLE));
    let ints: Vec<Vec<Cell>> = rows(&r["interruptions"])
        .iter()
        .map(|x| {
            vec![
                Cell::Text(s(x, "rule")),
                Cell::Text(s(x, "subject")),
                Cell::Num(int(i(x, "asks"))),
                Cell::Num(int(i(x, "denials"))),
                Cell::Num(int(i(x, "total"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "interruptions",
        &["rule", "subject", "asks", "denials", "total"],
        &ints,
        "No interruption.",
    ));
    body.push_str(&h2(FLOOR_TITLE));
    let floor: Vec<Vec<Cell>> = rows(&r["floor"])
        .iter()
        .map(|x| vec![Cell::Text(s(x, "rule")), Cell::Num(int(i(x, "denials")))])
        .collect();
    body.push_str(&table("floor", &["floor rule", "denials"], &floor, "No floor denial."));
    body.push_str(&h2("Rails that fired (the hooks' decisions and the stops' outcomes)"));
    let rails: Vec<Vec<Cell>> = rows(&r["rails"])
        .iter()
        .map(|x| {
            vec![
                Cell::Text(s(x, "rule")),
                Cell::Text(s(x, "permission")),
                Cell::Num(int(i(x, "count"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "rails",
        &["rail", "decision or outcome", "times"],
        &rails,
        "No rail decided anything: no call was denied or asked about by a rule, no stop was held or let through by one.",
    ));
    for plane in ["signal", "debug", "audit"] {
        body.push_str(&h2(&format!("Events: {plane} plane (the last {events})")));
        body.push_str(&event_table(&format!("events-{plane}"), &v["events"][plane]));
    }
    body.push_str(&same_as(&s(&v["commands"], "report")));
    let e = events.to_string();
    let api = format!("/api/sessions/{}{}", html::segment(&sid), html::query(&[("events", &e)]));
    Ok(html::document(
        &Frame {
            title: &format!("Session {}", sid.chars().take(12).collect::<String>()),
            nav: "/sessions",
            project,
            api: &api,
            refresh: Some(REFRESH_SECONDS),
        },
        &body,
    ))
}

/// The interruption rate's table, as `tlc obs report` titles it.
const INTERRUPTIONS_TITLE: &str = "Interruptions by rule (the rails a posture calibrates)";
/// The floor's denials, apart from the interruption rate, as `tlc obs report` titles them.
const FLOOR_TITLE: &str = "Floor denials (kept out of the interruption rate: no posture chooses them)";

fn gates(state: &State, req: &Req, project: Option<&str>) -> Result<String, PageError> {
    req.only(&[])?;
    let v = data::gates(state)?;
    let mut body = project_notice(&v["database"]);
    // Per day over every gate: passed and failed stacked, the pass rate as a line.
    let mut by_day: BTreeMap<String, (i64, i64, i64)> = BTreeMap::new();
    let mut by_gate: BTreeMap<String, (i64, i64, i64, i64, i64, i64)> = BTreeMap::new();
    for r in rows(&v["gate_runs_by_day"]) {
        let d = by_day.entry(s(r, "day")).or_default();
        d.0 += i(r, "passed");
        d.1 += i(r, "failed");
        d.2 += i(r, "runs");
        let g = by_gate.entry(s(r, "gate")).or_default();
        g.0 += i(r, "runs");
        g.1 += i(r, "passed");
        g.2 += i(r, "failed");
        g.3 += i(r, "reused");
        g.4 += i(r, "total_ms");
        g.5 = g.5.max(i(r, "worst_ms"));
    }
    body.push_str(&h2("Pass rate over time"));
    if by_day.is_empty() {
        body.push_str(&p("No gate has run yet."));
    } else {
        let labels: Vec<String> = by_day.keys().cloned().collect();
        let series = vec![
            Series {
                name: "passed".into(),
                values: by_day.values().map(|d| d.0 as f64).collect(),
            },
            Series {
                name: "failed".into(),
                values: by_day.values().map(|d| d.1 as f64).collect(),
            },
        ];
        let rate: Vec<Option<f64>> = by_day
            .values()
            .map(|d| (d.0 + d.1 > 0).then(|| d.0 as f64 / (d.0 + d.1) as f64))
            .collect();
        body.push_str(&format!(
            "<div class=\"chartbox\">{}</div>",
            svg::bars_with_rate("chart-gates", "Gate runs per day", "runs", &labels, &series, &rate, "pass rate")
        ));
    }
    let gate_rows: Vec<Vec<Cell>> = by_gate
        .iter()
        .map(|(g, (runs, passed, failed, reused, total, worst))| {
            let rate = if passed + failed > 0 {
                format!("{:.0}%", *passed as f64 * 100.0 / (passed + failed) as f64)
            } else {
                "-".into()
            };
            let reuse = if *runs > 0 {
                format!("{} ({:.0}%)", int(*reused), *reused as f64 * 100.0 / *runs as f64)
            } else {
                "0".into()
            };
            vec![
                Cell::Text(g.clone()),
                Cell::Num(int(*runs)),
                Cell::Num(int(*passed)),
                Cell::Num(int(*failed)),
                Cell::Num(rate),
                Cell::Num(reuse),
                Cell::Num(int(*total)),
                Cell::Num(int(*worst)),
            ]
        })
        .collect();
    body.push_str(&table(
        "gates",
        &[
            "gate",
            "runs",
            "passed",
            "failed",
            "pass rate",
            "reused verdicts",
            "total ms",
            "worst ms",
        ],
        &gate_rows,
        "No gate run.",
    ));
    body.push_str(&h2("Slowest gates"));
    let mut slow: Vec<&Value> = rows(&v["gate_time"]).iter().collect();
    slow.sort_by_key(|r| std::cmp::Reverse(i(r, "worst_ms")));
    let slow_rows: Vec<Vec<Cell>> = slow
        .iter()
        .take(20)
        .map(|r| {
            let sid = s(r, "session_id");
            let session = if sid.is_empty() {
                Cell::Text("(tlc gate run)".into())
            } else {
                Cell::Link(html::session_href(&sid), sid)
            };
            vec![
                Cell::Text(s(r, "gate")),
                session,
                Cell::Num(int(i(r, "worst_ms"))),
                Cell::Num(int(i(r, "runs"))),
                Cell::Num(int(i(r, "reused"))),
                Cell::Num(int(i(r, "total_ms"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "slowest",
        &["gate", "session", "worst ms", "runs", "reused", "total ms"],
        &slow_rows,
        "No gate run.",
    ));
    body.push_str(&h2("Stagnations"));
    let stag: Vec<Vec<Cell>> = rows(&v["gate_stagnations"])
        .iter()
        .rev()
        .take(50)
        .map(|r| {
            let sid = s(r, "session_id");
            vec![
                Cell::Text(when(&s(r, "ts"))),
                Cell::Link(html::session_href(&sid), sid),
                Cell::Text(s(r, "rule")),
                Cell::Num(i(r, "attempt").to_string()),
                Cell::Num(i(r, "repeats_attempt").to_string()),
                Cell::Code(s(r, "fingerprint").chars().take(12).collect()),
            ]
        })
        .collect();
    body.push_str(&table(
        "stagnations",
        &["time", "session", "rule", "attempt", "repeats attempt", "fingerprint"],
        &stag,
        "No stagnation: no blocked stop repeated the failure before it.",
    ));
    body.push_str(&h2("Stops by rule"));
    let stops: Vec<Vec<Cell>> = rows(&v["stop_outcomes_by_rule"])
        .iter()
        .map(|r| {
            vec![
                Cell::Text(s(r, "rule")),
                Cell::Text(s(r, "outcome")),
                Cell::Num(int(i(r, "stops"))),
                Cell::Num(int(i(r, "sessions"))),
                Cell::Text(when(&s(r, "last_at"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "stops",
        &["rule", "outcome", "stops", "sessions", "last"],
        &stops,
        "No stop recorded.",
    ));
    body.push_str(&commands(&v));
    Ok(html::document(
        &Frame {
            title: "Gates",
            nav: "/gates",
            project,
            api: "/api/gates",
            refresh: None,
        },
        &body,
    ))
}

fn commands(v: &Value) -> String {
    let mut out = String::from("<ul class=\"commands\">");
    for (name, cmd) in v["commands"].as_object().into_iter().flatten() {
        out.push_str(&format!("<li>{}: <code>{}</code></li>", esc(name), esc(cmd.as_str().unwrap_or(""))));
    }
    out + "</ul>"
}

fn policy(state: &State, req: &Req, project: Option<&str>) -> Result<String, PageError> {
    req.only(&[])?;
    let v = data::policy(state)?;
    let mut body = project_notice(&v["database"]);
    body.push_str(&h2(FLOOR_TITLE));
    let mut by_rule: BTreeMap<String, i64> = BTreeMap::new();
    for r in rows(&v["floor_denials_by_rule"]) {
        *by_rule.entry(s(r, "rule")).or_default() += i(r, "denials");
    }
    if !by_rule.is_empty() {
        let bars: Vec<(String, f64)> = by_rule.iter().map(|(k, n)| (k.clone(), *n as f64)).collect();
        body.push_str(&format!(
            "<div class=\"chartbox\">{}</div>",
            svg::hbars("chart-floor", "Floor denials by rule", &bars, &|v| format!("{v:.0}"))
        ));
    }
    let floor: Vec<Vec<Cell>> = rows(&v["floor_denials_by_rule"])
        .iter()
        .map(|r| {
            vec![
                Cell::Text(s(r, "rule")),
                Cell::Text(s(r, "subject")),
                Cell::Num(int(i(r, "denials"))),
                Cell::Num(int(i(r, "sessions"))),
                Cell::Text(when(&s(r, "last_at"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "floor",
        &["rule", "subject", "denials", "sessions", "last"],
        &floor,
        "No floor denial.",
    ));
    body.push_str(&h2("Interruptions by rule and posture (the rails a posture calibrates)"));
    let mut by_rule: BTreeMap<String, i64> = BTreeMap::new();
    for r in rows(&v["interruptions_by_posture"]) {
        *by_rule.entry(s(r, "rule")).or_default() += i(r, "interruptions");
    }
    if !by_rule.is_empty() {
        let bars: Vec<(String, f64)> = by_rule.iter().map(|(k, n)| (k.clone(), *n as f64)).collect();
        body.push_str(&format!(
            "<div class=\"chartbox\">{}</div>",
            svg::hbars("chart-interruptions", "Interruptions by rule", &bars, &|v| format!("{v:.0}"))
        ));
    }
    let ints: Vec<Vec<Cell>> = rows(&v["interruptions_by_posture"])
        .iter()
        .map(|r| {
            vec![
                Cell::Text(s(r, "rule")),
                Cell::Text(s(r, "subject")),
                Cell::Text(s(r, "posture")),
                Cell::Num(int(i(r, "asks"))),
                Cell::Num(int(i(r, "denials"))),
                Cell::Num(int(i(r, "sessions"))),
                Cell::Text(when(&s(r, "last_at"))),
            ]
        })
        .collect();
    body.push_str(&table(
        "interruptions",
        &["rule", "subject", "posture", "asks", "denials", "sessions", "last"],
        &ints,
        "No interruption.",
    ));
    body.push_str(&h2(&format!(
        "The last {} denials and questions, and what each was about",
        data::RECENT_INTERRUPTIONS
    )));
    let recent: Vec<Vec<Cell>> = rows(&v["recent_interruptions"])
        .iter()
        .map(|r| {
            let sid = s(r, "session_id");
            let session = if sid.is_empty() {
                Cell::Text(String::new())
            } else {
                Cell::Link(html::session_href(&sid), sid)
            };
            let floor = r["floor"].as_bool().unwrap_or(false);
            vec![
                Cell::Text(when(&s(r, "ts"))),
                session,
                Cell::Text(permission_words(&s(r, "permission")).to_string()),
                Cell::Text(s(r, "rule")),
                Cell::Text(s(r, "subject")),
                Cell::Code(html::clip(&s(r, "detail"), 300)),
                Cell::Text(if floor { "floor (not counted)".into() } else { s(r, "posture") }),
            ]
        })
        .collect();
    body.push_str(&table(
        "recent-denials",
        &["time", "session", "decision", "rule", "subject", "command or file", "posture"],
        &recent,
        "No call was denied or asked about.",
    ));
    body.push_str(&h2("Policy divergences"));
    let divs: Vec<Vec<Cell>> = rows(&v["divergences"])
        .iter()
        .map(|r| {
            let sid = s(r, "session_id");
            vec![
                Cell::Text(when(&s(r, "detected_at"))),
                Cell::Link(html::session_href(&sid), sid),
                Cell::Code(s(r, "source")),
                Cell::Text(if r["accepted_at"].is_null() {
                    "open".into()
                } else {
                    format!("accepted {}", when(&s(r, "accepted_at")))
                }),
            ]
        })
        .collect();
    body.push_str(&table(
        "divergences",
        &["detected", "session", "source", "state"],
        &divs,
        "No policy source changed during a live session.",
    ));
    body.push_str(&commands(&v));
    Ok(html::document(
        &Frame {
            title: "Policy",
            nav: "/policy",
            project,
            api: "/api/policy",
            refresh: None,
        },
        &body,
    ))
}

fn price(v: Option<f64>) -> String {
    v.map(|v| format!("${v}")).unwrap_or_else(|| "-".into())
}

fn prices(state: &State, req: &Req, project: Option<&str>) -> Result<String, PageError> {
    let (model, provider) = api::price_params(req)?;
    let v = data::prices(state, model.as_deref(), provider.as_deref())?;
    let mut body = format!(
        "<form method=\"get\" action=\"/prices\" class=\"filters\"><label>model <input name=\"model\" value=\"{}\" placeholder=\"claude-sonnet-4-5\" size=\"28\"></label><label>provider <input name=\"provider\" value=\"{}\" placeholder=\"claude\" size=\"10\"></label><button>Look up</button></form>",
        esc(model.as_deref().unwrap_or("")),
        esc(provider.as_deref().unwrap_or(""))
    );
    let l = &v["lookup"];
    if !l.is_null() {
        body.push_str(&h2(&format!("Price of {}", s(l, "model"))));
        if l["found"] == Value::Bool(false) {
            body.push_str(&format!(
                "<p class=\"notice\" id=\"lookup\">No price for {}.</p>",
                esc(&s(l, "model"))
            ));
        } else {
            let rows_: Vec<Vec<Cell>> = [
                ("found under", s(l, "key")),
                (
                    "plane",
                    format!(
                        "{}{}",
                        s(l, "plane"),
                        if l["builtin"].as_bool().unwrap_or(false) {
                            " (built in)"
                        } else {
                            ""
                        }
                    ),
                ),
                ("input", price(f(l, "input"))),
                ("output", price(f(l, "output"))),
                ("cache read", price(f(l, "cache_read"))),
                ("cache write (5-minute)", price(f(l, "cache_write"))),
                ("cache write (1-hour)", price(f(l, "cache_write_1h"))),
                ("input above 200k", price(f(l, "input_above_200k"))),
                ("output above 200k", price(f(l, "output_above_200k"))),
                (
                    "context window",
                    l.get("context_window")
                        .and_then(Value::as_i64)
                        .map(int)
                        .unwrap_or_else(|| "-".into()),
                ),
            ]
            .into_iter()
            .map(|(k, val)| vec![Cell::Text(k.into()), Cell::Num(val)])
            .collect();
            body.push_str(&table("lookup", &["", "USD per 1M tokens"], &rows_, ""));
            body.push_str(&same_as(&s(&v["commands"], "lookup")));
        }
    }
    body.push_str(&h2("The catalog's planes"));
    let planes = rows(&v["planes"]);
    let bars: Vec<(String, f64)> = planes.iter().map(|p| (s(p, "plane"), i(p, "entries") as f64)).collect();
    if bars.iter().any(|b| b.1 > 0.0) {
        body.push_str(&format!(
            "<div class=\"chartbox\">{}</div>",
            svg::hbars("chart-planes", "Entries per plane", &bars, &|v| int(v as i64))
        ));
    }
    let plane_rows: Vec<Vec<Cell>> = planes
        .iter()
        .map(|p| {
            vec![
                Cell::Text(s(p, "plane")),
                Cell::Code(s(p, "source")),
                Cell::Text(match p["refreshed_at"].as_str() {
                    Some(t) => when(t),
                    None => "never (built in / live)".into(),
                }),
                Cell::Num(int(i(p, "entries"))),
                Cell::Text(s(p, "last_failure")),
            ]
        })
        .collect();
    body.push_str(&table(
        "planes",
        &["plane", "source", "refreshed", "entries", "last failure"],
        &plane_rows,
        "No plane.",
    ));
    body.push_str(&same_as(&s(&v["commands"], "planes")));
    let mut pairs = Vec::new();
    pairs.extend(opt_pair("model", model.as_deref()));
    pairs.extend(opt_pair("provider", provider.as_deref()));
    let api = format!("/api/prices{}", html::query(&pairs));
    Ok(html::document(
        &Frame {
            title: "Prices",
            nav: "/prices",
            project,
            api: &api,
            refresh: None,
        },
        &body,
    ))
}
