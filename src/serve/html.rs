//! HTML: every text from the record escaped on its way in, the pages' frame, tables and cards.
//!
//! Markup is written only from string literals of this module and of `pages`/`svg`; anything that
//! came from a database, a parameter or a file passes [`esc`] (or [`Cell`], which calls it). A
//! prompt holding `<script>` renders as those characters.

use crate::render;

/// The one inline script the Content-Security-Policy allows (by its hash): while the tab is
/// visible, every `data-refresh` seconds it fetches the page again and swaps in the new `<main>`.
/// Without JavaScript the page is the same, only not refreshed.
pub(crate) const REFRESH_SNIPPET: &str = "(()=>{const m=document.querySelector('main[data-refresh]');if(!m)return;const every=Number(m.dataset.refresh)*1000;setInterval(async()=>{if(document.hidden)return;try{const r=await fetch(location.href,{credentials:'same-origin'});if(!r.ok)return;const d=new DOMParser().parseFromString(await r.text(),'text/html');const n=d.querySelector('main');if(n)m.replaceChildren(...Array.from(n.childNodes,c=>document.adoptNode(c)));}catch(e){}},every);})();";

/// `text` made safe for HTML text and attribute values: `& < > " '` as entities, and the
/// controls and direction marks that could disguise it shown as escapes (as the terminal does).
pub(crate) fn esc(text: &str) -> String {
    entities(&render::escape_controls(text))
}

/// [`esc`] for text that is lines by design (a follow-up, a gate's output, a prompt): its line
/// breaks and tabs stay, every other control is shown escaped.
pub(crate) fn esc_lines(text: &str) -> String {
    entities(&render::escape(text, true))
}

fn entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A path segment percent-encoded (a session id in a link).
pub(crate) fn segment(text: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(text, KEEP).to_string()
}

/// A query string from pairs, encoded.
pub(crate) fn query(pairs: &[(&str, &str)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    let q = s.finish();
    if q.is_empty() {
        q
    } else {
        format!("?{q}")
    }
}

/// The link to one session's page.
pub(crate) fn session_href(id: &str) -> String {
    format!("/sessions/{}", segment(id))
}

/// USD as the terminal shows it; "unknown" when nothing was priced, a `*` when part was not.
/// A zero is `$0.00` when it is known and "unknown" when it is only the sum of what had no price
/// (six zeros after the point read as a measured figure).
pub(crate) fn usd(v: Option<f64>, complete: bool) -> String {
    match v {
        None => "unknown".into(),
        Some(v) if v == 0.0 && !complete => "unknown".into(),
        Some(v) => format!("{}{}", amount(v), if complete { "" } else { "*" }),
    }
}

/// A known amount of USD as the terminal writes it, but a zero as `$0.00`: the terminal's six
/// decimals for small sums make a zero read as a measured figure (every amount a page writes goes
/// through here).
pub(crate) fn amount(v: f64) -> String {
    if v == 0.0 {
        "$0.00".into()
    } else {
        render::usd(v)
    }
}

pub(crate) fn int(v: i64) -> String {
    render::thousands(v)
}

/// A stamp as `YYYY-MM-DD HH:MM` (UTC, as stored).
pub(crate) fn when(stamp: &str) -> String {
    match stamp.get(..16) {
        Some(s) => format!("{} UTC", s.replace('T', " ")),
        None => stamp.to_string(),
    }
}

/// A stamp's moment as the timeline shows it, `HH:MM:SS` (UTC, as stored), and its day.
pub(crate) fn moment(stamp: &str) -> (String, String) {
    match (stamp.get(..10), stamp.get(11..19)) {
        (Some(day), Some(time)) => (time.to_string(), day.to_string()),
        _ => (stamp.to_string(), String::new()),
    }
}

/// The characters of one attribute's text a page shows (the rest is counted).
const FIELD_CHARS: usize = 1200;
/// How deep nested attributes are drawn as nested fields (deeper ones are counted).
const FIELD_DEPTH: usize = 4;

/// `text` cut at `max` characters, saying how many more there were.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    format!("{}… ({} more characters)", text.chars().take(max).collect::<String>(), n - max)
}

/// Attributes (a JSON object) as fields: a definition list of name and value, a nested object as
/// a nested list, a list of plain values joined by commas, text of several lines kept in lines.
/// Every name and value is escaped; no JSON text reaches the page.
pub(crate) fn fields(v: &serde_json::Value) -> String {
    fields_at(v, 0)
}

fn fields_at(v: &serde_json::Value, depth: usize) -> String {
    use serde_json::Value;
    match v {
        Value::Object(m) if m.is_empty() => String::new(),
        Value::Object(m) if depth >= FIELD_DEPTH => format!("<span class=\"muted\">{} fields</span>", m.len()),
        Value::Object(m) => {
            let mut out = String::from("<dl class=\"fields\">");
            for (k, val) in m {
                out.push_str(&format!("<dt>{}</dt><dd>{}</dd>", esc(k), field_value(val, depth)));
            }
            out + "</dl>"
        }
        other => field_value(other, depth),
    }
}

fn field_value(v: &serde_json::Value, depth: usize) -> String {
    use serde_json::Value;
    let plain = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.to_string()),
        Value::Null => Some("none".to_string()),
        _ => None,
    };
    match v {
        Value::String(s) if s.contains('\n') => format!("<pre>{}</pre>", esc_lines(&clip(s, FIELD_CHARS))),
        Value::Array(a) if a.is_empty() => "<span class=\"muted\">none</span>".into(),
        Value::Array(a) if a.iter().all(|x| plain(x).is_some()) => {
            let joined: Vec<String> = a.iter().filter_map(plain).collect();
            esc(&clip(&joined.join(", "), FIELD_CHARS))
        }
        Value::Array(a) if depth >= FIELD_DEPTH => format!("<span class=\"muted\">{} items</span>", a.len()),
        Value::Array(a) => {
            let mut out = String::from("<ol class=\"items\">");
            for x in a {
                out.push_str(&format!("<li>{}</li>", fields_at(x, depth + 1)));
            }
            out + "</ol>"
        }
        Value::Object(m) if m.is_empty() => "<span class=\"muted\">none</span>".into(),
        Value::Object(_) => fields_at(v, depth + 1),
        other => esc(&clip(&plain(other).unwrap_or_default(), FIELD_CHARS)),
    }
}

/// One cell of a table.
pub(crate) enum Cell {
    Text(String),
    /// Right-aligned.
    Num(String),
    /// A link inside the dashboard: (href, text); the href is built by this module's functions.
    Link(String, String),
    /// Monospaced text (ids, commands).
    Code(String),
    /// Attributes drawn as fields ([`fields`]).
    Fields(serde_json::Value),
}

impl Cell {
    fn html(&self) -> String {
        match self {
            Cell::Text(t) => format!("<td>{}</td>", esc(t)),
            Cell::Num(t) => format!("<td class=\"num\">{}</td>", esc(t)),
            Cell::Link(h, t) => format!("<td><a href=\"{}\">{}</a></td>", esc(h), esc(t)),
            Cell::Code(t) => format!("<td><code>{}</code></td>", esc(t)),
            Cell::Fields(v) => format!("<td>{}</td>", fields(v)),
        }
    }
}

/// A table with a caption-like heading, scrolling sideways on a narrow screen. `id` names it for
/// tests and links.
pub(crate) fn table(id: &str, headers: &[&str], rows: &[Vec<Cell>], empty: &str) -> String {
    if rows.is_empty() {
        return format!("<p class=\"empty\" id=\"{}\">{}</p>", esc(id), esc(empty));
    }
    let mut out = format!("<div class=\"scroll\"><table id=\"{}\"><thead><tr>", esc(id));
    for h in headers {
        out.push_str(&format!("<th>{}</th>", esc(h)));
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for c in row {
            out.push_str(&c.html());
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    out
}

/// A figure card: a label, the figure (with `data-value` holding the raw number for scripts and
/// tests), and a line under it.
pub(crate) fn card(id: &str, label: &str, figure: &str, raw: Option<f64>, note: &str) -> String {
    let value = raw.map(|v| format!(" data-value=\"{v}\"")).unwrap_or_default();
    format!(
        "<div class=\"card\" id=\"{}\"><div class=\"label\">{}</div><div class=\"figure\"{value}>{}</div><div class=\"note\">{}</div></div>",
        esc(id),
        esc(label),
        esc(figure),
        esc(note)
    )
}

pub(crate) fn h2(text: &str) -> String {
    format!("<h2>{}</h2>", esc(text))
}

pub(crate) fn p(text: &str) -> String {
    format!("<p>{}</p>", esc(text))
}

/// A paragraph saying which command prints the same numbers.
pub(crate) fn same_as(command: &str) -> String {
    format!("<p class=\"source\">The same numbers: <code>{}</code></p>", esc(command))
}

/// The pages, in the navigation's order: (path, name).
pub(crate) const NAV: &[(&str, &str)] = &[
    ("/", "Overview"),
    ("/cost", "Cost"),
    ("/projects", "Projects"),
    ("/sessions", "Sessions"),
    ("/gates", "Gates"),
    ("/policy", "Policy"),
    ("/prices", "Prices"),
];

/// What a page puts in the frame.
pub(crate) struct Frame<'a> {
    pub title: &'a str,
    /// The navigation entry to mark (a path of [`NAV`]).
    pub nav: &'a str,
    /// The repository the server reads, if any.
    pub project: Option<&'a str>,
    /// This page's numbers as JSON.
    pub api: &'a str,
    /// Seconds between live refreshes (`None`: the page does not refresh).
    pub refresh: Option<u32>,
}

/// The whole document around `body` (HTML built by the pages from escaped parts).
pub(crate) fn document(f: &Frame<'_>, body: &str) -> String {
    let mut nav = String::new();
    for (href, name) in NAV {
        let current = if *href == f.nav { " aria-current=\"page\"" } else { "" };
        nav.push_str(&format!("<a href=\"{href}\"{current}>{name}</a>"));
    }
    let refresh = f.refresh.map(|s| format!(" data-refresh=\"{s}\"")).unwrap_or_default();
    let project = f
        .project
        .map(|p| format!("<span class=\"project\">{}</span>", esc(p)))
        .unwrap_or_default();
    let script = if f.refresh.is_some() {
        format!("<script>{REFRESH_SNIPPET}</script>")
    } else {
        String::new()
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title} · tlc</title><link rel=\"stylesheet\" href=\"/assets/style.css\"><link rel=\"icon\" href=\"/assets/icon.svg\" type=\"image/svg+xml\"></head><body><header><span class=\"brand\">tlc</span>{project}<nav>{nav}</nav></header><main{refresh}><h1>{title}</h1>{body}</main><footer>Read-only. This page's numbers as JSON: <a href=\"{api}\">{api}</a></footer>{script}</body></html>\n",
        title = esc(f.title),
        api = esc(f.api),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_the_record_is_escaped() {
        assert_eq!(esc("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(esc("a\"b'c&d"), "a&quot;b&#39;c&amp;d");
        assert!(!esc("x\u{202e}y").contains('\u{202e}'));
        let t = table(
            "t",
            &["h<"],
            &[vec![Cell::Text("<b>".into()), Cell::Link("/a?b=\"".into(), "<i>".into())]],
            "",
        );
        assert!(
            !t.contains("<b>") && !t.contains("<i>") && t.contains("&lt;b&gt;") && t.contains("h&lt;"),
            "{t}"
        );
        assert_eq!(session_href("a/b c<"), "/sessions/a%2Fb%20c%3C");
    }

    #[test]
    fn a_known_zero_is_dollars_an_unknown_one_is_unknown() {
        assert_eq!(usd(Some(0.0), true), "$0.00");
        assert_eq!(usd(Some(0.0), false), "unknown");
        assert_eq!(usd(None, true), "unknown");
        assert_eq!(usd(Some(0.0511), true), "$0.0511");
        assert_eq!(usd(Some(0.0511), false), "$0.0511*");
        assert_eq!(amount(0.0), "$0.00");
        assert_eq!(amount(0.000002), "$0.000002");
    }

    #[test]
    fn attributes_are_fields_escaped_never_json_text() {
        let v = serde_json::json!({
            "command": "rm -rf / <x>",
            "stop_hook_active": false,
            "files": ["a.rs", "b.rs"],
            "tool_response": {"status": "ok", "lines": 3},
            "output": "line one\nline two",
            "empty": {},
        });
        let out = fields(&v);
        assert!(out.starts_with("<dl class=\"fields\">"), "{out}");
        assert!(out.contains("<dt>command</dt><dd>rm -rf / &lt;x&gt;</dd>"), "{out}");
        assert!(out.contains("<dt>stop_hook_active</dt><dd>no</dd>"), "{out}");
        assert!(out.contains("<dt>files</dt><dd>a.rs, b.rs</dd>"), "{out}");
        assert!(
            out.contains("<dt>tool_response</dt><dd><dl class=\"fields\"><dt>status</dt><dd>ok</dd><dt>lines</dt><dd>3</dd></dl>"),
            "{out}"
        );
        assert!(out.contains("<pre>line one\nline two</pre>"), "{out}");
        assert_eq!(esc_lines("a\n<b>\x1b"), "a\n&lt;b&gt;\\x1b");
        assert!(!out.contains('{') && !out.contains("\"status\""), "{out}");
        assert_eq!(fields(&serde_json::json!({})), "");
        assert!(clip(&"x".repeat(10), 4).ends_with("… (6 more characters)"));
    }
}
