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
    let text = render::escape_controls(text);
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
pub(crate) fn usd(v: Option<f64>, complete: bool) -> String {
    match v {
        None => "unknown".into(),
        Some(v) => format!("{}{}", render::usd(v), if complete { "" } else { "*" }),
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

/// One cell of a table.
pub(crate) enum Cell {
    Text(String),
    /// Right-aligned.
    Num(String),
    /// A link inside the dashboard: (href, text); the href is built by this module's functions.
    Link(String, String),
    /// Monospaced text (ids, commands, attributes).
    Code(String),
}

impl Cell {
    fn html(&self) -> String {
        match self {
            Cell::Text(t) => format!("<td>{}</td>", esc(t)),
            Cell::Num(t) => format!("<td class=\"num\">{}</td>", esc(t)),
            Cell::Link(h, t) => format!("<td><a href=\"{}\">{}</a></td>", esc(h), esc(t)),
            Cell::Code(t) => format!("<td><code>{}</code></td>", esc(t)),
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
}
