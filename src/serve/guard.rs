//! Whether a request is let in, and its parameters read within bounds.
//!
//! In order: GET only, with no body; a URL of bounded length in origin form; a `Host` header
//! naming the bound address (a page from another site that rebinds its name to 127.0.0.1 carries
//! its own name and is refused, 421); the token made at this start, from the cookie set on the
//! first visit, the `Authorization: Bearer` header or `?token=` (403 without it: another local
//! user, or a page in the operator's browser that is not the dashboard's, has no token); then each
//! route reads only the parameters it names, each bounded, and answers 400 naming the parameter
//! otherwise.

use super::http::Request;
use super::State;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// The longest URL (path and query) accepted.
pub(crate) const MAX_URL: usize = 2048;
/// The most rows a `limit` may ask for.
pub(crate) const MAX_LIMIT: i64 = 500;

/// A request that was let in: its decoded path and its parameters.
#[derive(Debug)]
pub(crate) struct Req {
    pub path: String,
    params: BTreeMap<String, String>,
    /// The token came in the query: a page answers with a redirect that sets the cookie instead.
    pub token_in_query: bool,
    /// The raw query without the token, for that redirect.
    pub query_without_token: String,
    pub cookie_name: String,
}

/// Why a request was refused: its status, a sentence naming what was wrong, extra headers.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub status: u16,
    pub message: String,
    pub headers: Vec<(&'static str, String)>,
    pub json: bool,
}

impl Refusal {
    fn new(status: u16, message: impl Into<String>, json: bool) -> Refusal {
        Refusal {
            status,
            message: message.into(),
            headers: Vec::new(),
            json,
        }
    }
}

/// A parameter outside its bounds: answered 400, naming it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BadParam {
    pub name: String,
    pub why: String,
}

impl std::error::Error for BadParam {}

impl std::fmt::Display for BadParam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "parameter {}: {}", self.name, self.why)
    }
}

fn bad(name: &str, why: impl Into<String>) -> BadParam {
    BadParam {
        name: name.to_string(),
        why: why.into(),
    }
}

/// Equal in time whatever the position of the first difference (a token's length is not kept
/// secret: every generated one has 32 characters).
fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // black_box: so that the optimiser cannot turn the fold into a loop that stops early.
    a.len() == b.len() && std::hint::black_box(a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y))) == 0
}

/// Lets `rq` in, or says why not.
pub(crate) fn check(state: &State, rq: &Request) -> Result<Req, Refusal> {
    let url = rq.target.as_str();
    let json = url.starts_with("/api/");
    if rq.method != "GET" {
        let shown: String = rq.method.chars().take(20).collect();
        let mut r = Refusal::new(405, format!("method {shown}: this server is read-only and answers GET only"), json);
        r.headers.push(("Allow", "GET".into()));
        return Err(r);
    }
    if rq.has_body() {
        // No body is read: what follows the head would be taken for the next request.
        return Err(Refusal::new(400, "a GET request carries no body here", json));
    }
    if url.len() > MAX_URL {
        return Err(Refusal::new(
            414,
            format!("the URL is {} bytes long; at most {MAX_URL} are read", url.len()),
            json,
        ));
    }
    if !url.starts_with('/') {
        return Err(Refusal::new(400, "the request target must be a path (origin form)", json));
    }
    let host = rq.header("Host").unwrap_or("").trim().to_ascii_lowercase();
    if !state.hosts.contains(&host) {
        let shown: String = host.chars().take(80).filter(|c| !c.is_control()).collect();
        return Err(Refusal::new(
            421,
            format!(
                "Host {shown:?} is not this server's name ({}): refused, so that no other site's page can read it",
                state.hosts.join(" or ")
            ),
            json,
        ));
    }
    let (raw_path, query) = url.split_once('?').unwrap_or((url, ""));
    let path = percent_encoding::percent_decode_str(raw_path)
        .decode_utf8()
        .map_err(|_| Refusal::new(400, "the path is not UTF-8 once decoded", json))?
        .into_owned();
    if path.chars().any(char::is_control) {
        return Err(Refusal::new(400, "the path holds a control character", json));
    }
    let mut params = BTreeMap::new();
    let mut kept = form_urlencoded::Serializer::new(String::new());
    let mut query_token = None;
    let mut query_open = None;
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if k == "token" {
            query_token = Some(v.into_owned());
            continue;
        }
        if k == "open" {
            query_open = Some(v.into_owned());
            continue;
        }
        kept.append_pair(&k, &v);
        if params.insert(k.clone().into_owned(), v.into_owned()).is_some() {
            return Err(Refusal::new(400, format!("parameter {k}: given more than once"), json));
        }
    }
    let port = state.hosts[0].rsplit(':').next().unwrap_or("");
    let cookie_name = format!("tlc_token_{port}");
    let token = state.opts.token.as_str();
    let bearer = rq.header("Authorization").and_then(|v| v.strip_prefix("Bearer ")).map(str::trim);
    let cookie = rq.header("Cookie").and_then(|c| {
        c.split(';')
            .filter_map(|kv| kv.trim().split_once('='))
            .find(|(k, _)| *k == cookie_name)
            .map(|(_, v)| v)
    });
    let good = |t: Option<&str>| t.is_some_and(|t| same_secret(t, token));
    // `--open`'s code lets in once, as the token in the URL would (its redirect sets the cookie).
    let token_in_query = good(query_token.as_deref()) || query_open.is_some_and(|c| state.use_open_code(&c));
    if !token_in_query && !good(bearer) && !good(cookie) {
        return Err(Refusal::new(
            403,
            "this dashboard needs the token of its current start: open the URL `tlc serve` printed (it sets a cookie), or send `Authorization: Bearer <token>`",
            json,
        ));
    }
    Ok(Req {
        path,
        params,
        token_in_query,
        query_without_token: kept.finish(),
        cookie_name,
    })
}

impl State {
    /// Whether `code` is `--open`'s one-time code, not used yet; it is used up by this.
    fn use_open_code(&self, code: &str) -> bool {
        let mut slot = self.open_code.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_deref().is_some_and(|c| same_secret(c, code)) {
            *slot = None;
            return true;
        }
        false
    }
}

impl Req {
    /// Whether the answer is JSON (an API route).
    pub(crate) fn wants_json(&self) -> bool {
        self.path.starts_with("/api/")
    }

    /// Refuses any parameter besides `allowed`.
    pub(crate) fn only(&self, allowed: &[&str]) -> Result<(), BadParam> {
        for k in self.params.keys() {
            if !allowed.contains(&k.as_str()) {
                let takes = if allowed.is_empty() {
                    "this address takes none".to_string()
                } else {
                    format!("this address takes {}", allowed.join(", "))
                };
                return Err(bad(k, format!("unknown; {takes}")));
            }
        }
        Ok(())
    }

    fn raw(&self, name: &str) -> Option<&str> {
        self.params.get(name).map(String::as_str).filter(|v| !v.is_empty())
    }

    /// A day, `YYYY-MM-DD`, between 1970 and 9999.
    pub(crate) fn day(&self, name: &str) -> Result<Option<String>, BadParam> {
        let Some(v) = self.raw(name) else { return Ok(None) };
        let ok = v.len() == 10 && chrono::NaiveDate::parse_from_str(v, "%Y-%m-%d").is_ok_and(|d| chrono::Datelike::year(&d) >= 1970);
        if !ok {
            return Err(bad(name, format!("{:?} is not a day (YYYY-MM-DD, 1970 or later)", shorten(v))));
        }
        Ok(Some(v.to_string()))
    }

    /// A time as `obs export --since/--until` takes it: RFC 3339 or `YYYY-MM-DD`.
    pub(crate) fn time(&self, name: &str) -> Result<Option<String>, BadParam> {
        let Some(v) = self.raw(name) else { return Ok(None) };
        if v.len() > 40 || crate::clock::parse(v).is_err() {
            return Err(bad(name, format!("{:?} is not a time (RFC 3339 or YYYY-MM-DD)", shorten(v))));
        }
        Ok(Some(v.to_string()))
    }

    /// A whole number in `min..=max`, `default` when absent.
    pub(crate) fn number(&self, name: &str, default: i64, min: i64, max: i64) -> Result<i64, BadParam> {
        let Some(v) = self.raw(name) else { return Ok(default) };
        match v.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(bad(name, format!("{:?} is not a whole number from {min} to {max}", shorten(v)))),
        }
    }

    /// One of `choices`, the first when absent.
    pub(crate) fn choice(&self, name: &str, choices: &[&'static str]) -> Result<&'static str, BadParam> {
        let Some(v) = self.raw(name) else { return Ok(choices[0]) };
        choices
            .iter()
            .find(|c| **c == v)
            .copied()
            .ok_or_else(|| bad(name, format!("{:?} is not one of {}", shorten(v), choices.join(", "))))
    }

    /// Free text of at most `max` characters, no control characters.
    pub(crate) fn text(&self, name: &str, max: usize) -> Result<Option<String>, BadParam> {
        let Some(v) = self.raw(name) else { return Ok(None) };
        if v.chars().count() > max || v.chars().any(char::is_control) {
            return Err(bad(name, format!("at most {max} characters, none of them a control character")));
        }
        Ok(Some(v.to_string()))
    }

    /// `db`: `project` or `home` (`None` when absent).
    pub(crate) fn params_db(&self) -> Result<Option<crate::store::DbKind>, BadParam> {
        match self.raw("db") {
            None => Ok(None),
            Some("project") => Ok(Some(crate::store::DbKind::Project)),
            Some("home") => Ok(Some(crate::store::DbKind::Home)),
            Some(v) => Err(bad("db", format!("{:?} is not project or home", shorten(v)))),
        }
    }

    /// An IANA time zone name this build knows (`None`: the server's default).
    pub(crate) fn zone(&self, name: &str) -> Result<Option<String>, BadParam> {
        let Some(v) = self.text(name, 64)? else { return Ok(None) };
        zone(Some(&v)).map_err(|_| bad(name, format!("{:?} is not a time zone this build knows", shorten(&v))))?;
        Ok(Some(v))
    }
}

/// `--timezone`'s rule (`obs cost`): UTC by any of its names is `None`.
pub(crate) fn zone(name: Option<&str>) -> Result<Option<jiff::tz::TimeZone>, jiff::Error> {
    match name.map(str::trim) {
        None | Some("UTC" | "utc" | "Etc/UTC" | "Z") => Ok(None),
        Some(n) => jiff::tz::TimeZone::get(n).map(Some),
    }
}

/// `v` cut for an error message.
fn shorten(v: &str) -> Cow<'_, str> {
    if v.chars().count() > 40 {
        Cow::Owned(v.chars().take(40).collect::<String>() + "…")
    } else {
        Cow::Borrowed(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(pairs: &[(&str, &str)]) -> Req {
        Req {
            path: "/".into(),
            params: pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            token_in_query: false,
            query_without_token: String::new(),
            cookie_name: "tlc_token_1".into(),
        }
    }

    #[test]
    fn parameters_are_bounded_and_an_error_names_the_parameter() {
        let r = req(&[
            ("since", "2026-13-01"),
            ("limit", "100000"),
            ("by", "hour"),
            ("until", "2026-11-30"),
        ]);
        assert_eq!(r.day("since").unwrap_err().name, "since");
        assert_eq!(r.day("until").unwrap(), Some("2026-11-30".into()));
        let e = r.number("limit", 20, 1, MAX_LIMIT).unwrap_err();
        assert!(e.to_string().starts_with("parameter limit: "), "{e}");
        assert_eq!(r.choice("by", &["day", "week"]).unwrap_err().name, "by");
        assert_eq!(r.only(&["since", "until"]).unwrap_err().name, "by");
        assert!(r.only(&["since", "until", "limit", "by"]).is_ok());
        let r = req(&[("timezone", "Mars/Olympus"), ("model", "a\u{7}b")]);
        assert_eq!(r.zone("timezone").unwrap_err().name, "timezone");
        assert_eq!(r.text("model", 100).unwrap_err().name, "model");
        assert_eq!(
            req(&[("timezone", "Europe/Berlin")]).zone("timezone").unwrap(),
            Some("Europe/Berlin".into())
        );
        assert_eq!(req(&[]).number("limit", 20, 1, 500).unwrap(), 20);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
    }
}
