//! The writers every command shares: terminal tables (fitted to the terminal width), CSV
//! (RFC 4180), JSON (exactly one value on stdout) and markdown; and the progress line.

mod progress;
pub use progress::Progress;

use comfy_table::{presets, ContentArrangement};
use std::io::{IsTerminal, Write};

/// How a tabular answer is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Format {
    #[default]
    Table,
    Csv,
    Json,
    Markdown,
}

/// One cell of a table.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl Cell {
    /// The cell as plain text: numbers unformatted, null empty.
    pub fn plain(&self) -> String {
        match self {
            Cell::Null => String::new(),
            Cell::Bool(b) => b.to_string(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => f.to_string(),
            Cell::Text(s) => s.clone(),
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Cell::Null => serde_json::Value::Null,
            Cell::Bool(b) => (*b).into(),
            Cell::Int(i) => (*i).into(),
            Cell::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Cell::Text(s) => s.clone().into(),
        }
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.to_string())
    }
}
impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}
impl From<i64> for Cell {
    fn from(i: i64) -> Cell {
        Cell::Int(i)
    }
}
impl From<bool> for Cell {
    fn from(b: bool) -> Cell {
        Cell::Bool(b)
    }
}
impl From<Option<String>> for Cell {
    fn from(s: Option<String>) -> Cell {
        s.map_or(Cell::Null, Cell::Text)
    }
}
impl From<Option<i64>> for Cell {
    fn from(i: Option<i64>) -> Cell {
        i.map_or(Cell::Null, Cell::Int)
    }
}
impl From<Option<f64>> for Cell {
    fn from(f: Option<f64>) -> Cell {
        f.map_or(Cell::Null, Cell::Float)
    }
}

/// A table: headers and rows of cells.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Table {
        Table {
            headers: headers.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        self.rows.push(row);
    }

    /// The rows as a JSON array of objects keyed by header.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(
            self.rows
                .iter()
                .map(|r| serde_json::Value::Object(self.headers.iter().cloned().zip(r.iter().map(Cell::to_json)).collect()))
                .collect(),
        )
    }

    /// The table for a terminal, with display text per cell.
    pub fn to_terminal(&self, display: &dyn Fn(usize, &Cell) -> String) -> String {
        let mut t = comfy_table::Table::new();
        t.load_preset(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic);
        if let Some(w) = terminal_width() {
            t.set_width(w);
        }
        t.set_header(self.headers.iter().map(|h| escape_controls(h).into_owned()).collect::<Vec<_>>());
        for row in &self.rows {
            t.add_row(
                row.iter()
                    .enumerate()
                    .map(|(i, c)| escape_controls(&display(i, c)).into_owned())
                    .collect::<Vec<_>>(),
            );
        }
        t.to_string()
    }

    /// RFC 4180 CSV with a header row.
    pub fn to_csv(&self) -> anyhow::Result<String> {
        let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new());
        w.write_record(&self.headers)?;
        for row in &self.rows {
            w.write_record(row.iter().map(Cell::plain))?;
        }
        Ok(String::from_utf8(w.into_inner()?)?)
    }

    /// A GitHub-flavoured markdown table.
    pub fn to_markdown(&self, display: &dyn Fn(usize, &Cell) -> String) -> String {
        let esc = |s: String| escape_controls(&s).replace('|', "\\|");
        let mut out = format!(
            "| {} |\n",
            self.headers.iter().map(|h| esc(h.clone())).collect::<Vec<_>>().join(" | ")
        );
        out.push_str(&format!("|{}\n", self.headers.iter().map(|_| "---|").collect::<String>()));
        for row in &self.rows {
            out.push_str(&format!(
                "| {} |\n",
                row.iter()
                    .enumerate()
                    .map(|(i, c)| esc(display(i, c)))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ));
        }
        out
    }

    /// Prints the table in `format` with plain cell text.
    pub fn print(&self, format: Format) -> anyhow::Result<()> {
        self.print_with(format, &|_, c| c.plain())
    }

    /// Prints the table in `format`; `display` renders cells for the table and markdown forms
    /// (CSV and JSON always carry the plain values).
    pub fn print_with(&self, format: Format, display: &dyn Fn(usize, &Cell) -> String) -> anyhow::Result<()> {
        let text = match format {
            Format::Table => self.to_terminal(display) + "\n",
            Format::Csv => self.to_csv()?,
            Format::Json => json_escaped(serde_json::to_string_pretty(&self.to_json())?) + "\n",
            Format::Markdown => self.to_markdown(display),
        };
        out(&text)
    }
}

/// Whether `c` may act on a terminal if printed as it is: the C0 controls (line breaks and tabs
/// included), DEL, the C1 controls (U+0080–U+009F, which some terminals obey as escape
/// sequences), and the invisible direction marks and overrides that reorder what is shown
/// (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// THE escaping of text that came from outside tlc (a package's files and names, a finding's
/// excerpt, payload text, a file name) before it is printed: every control character becomes
/// visible text (`\n`, `\t`, `\r`, `\x1b`, `\u{202e}`), so nothing printed can move the
/// cursor, erase a line, forge one, or turn text around. With `keep_lines`, line breaks and
/// tabs stay (and a carriage return that ends a line, CRLF): for text that is lines by design
/// (a manifest shown verbatim, CSV, a message of several lines) whose fields were escaped whole.
pub fn escape(text: &str, keep_lines: bool) -> std::borrow::Cow<'_, str> {
    let kept = |c: char, next: Option<char>| keep_lines && (c == '\n' || c == '\t' || (c == '\r' && next == Some('\n')));
    let mut chars = text.chars().peekable();
    let mut first = None;
    let mut at = 0;
    while let Some(c) = chars.next() {
        if is_control(c) && !kept(c, chars.peek().copied()) {
            first = Some(at);
            break;
        }
        at += c.len_utf8();
    }
    let Some(first) = first else {
        return std::borrow::Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    let mut chars = text[first..].chars().peekable();
    while let Some(c) = chars.next() {
        if !is_control(c) || kept(c, chars.peek().copied()) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// [`escape`] of a single-line field: everything, line breaks included.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    escape(text, false)
}

/// JSON text with DEL, the C1 controls and the direction marks written as `\u` escapes
/// (serde_json already escapes the C0 controls): the same string, and nothing a terminal obeys.
fn json_escaped(text: String) -> String {
    let escaped = |c: char| (c as u32) >= 0x7f && is_control(c);
    if !text.chars().any(escaped) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if escaped(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A writer that escapes what passes through it, line by line: as [`out`] does for text (or
/// CSV), as [`json`] does for JSON. For a stream printed as it is made (`obs export`).
pub struct Escaped<W: Write> {
    inner: W,
    json: bool,
    line: Vec<u8>,
}

impl<W: Write> Escaped<W> {
    pub fn new(inner: W, json: bool) -> Escaped<W> {
        Escaped {
            inner,
            json,
            line: Vec::new(),
        }
    }

    fn emit(&mut self) -> std::io::Result<()> {
        let text = String::from_utf8_lossy(&self.line).into_owned();
        let text = if self.json {
            json_escaped(text)
        } else {
            escape(&text, true).into_owned()
        };
        self.line.clear();
        self.inner.write_all(text.as_bytes())
    }
}

impl<W: Write> Write for Escaped<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.line.extend_from_slice(&rest[..=i]);
            self.emit()?;
            rest = &rest[i + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.line.is_empty() {
            self.emit()?;
        }
        self.inner.flush()
    }
}

/// Writes to stdout; a closed pipe (`| head`) is not an error. Every control character but line
/// breaks and tabs is escaped on the way ([`escape`]): callers escape single-line fields whole,
/// this is the net under all of it.
pub fn out(text: &str) -> anyhow::Result<()> {
    let text = escape(text, true);
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Prints exactly one JSON value (pretty) on stdout.
pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    out(&(json_escaped(serde_json::to_string_pretty(value)?) + "\n"))
}

/// Prints one JSON value on one line (a stream of them: `obs live --json`), escaped as [`json`].
pub fn json_line<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    out(&(json_escaped(serde_json::to_string(value)?) + "\n"))
}

/// Whether stdout is a terminal.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// The terminal's width when stdout is one (`COLUMNS` wins when set).
pub fn terminal_width() -> Option<u16> {
    if let Some(c) = std::env::var("COLUMNS").ok().and_then(|c| c.parse::<u16>().ok()) {
        return Some(c);
    }
    if !stdout_is_terminal() {
        return None;
    }
    crate::sys::stdout_columns()
}

/// A USD amount for people: cents for big sums, more digits for small ones.
pub fn usd(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("${v:.2}")
    } else if v.abs() >= 0.01 {
        format!("${v:.4}")
    } else {
        format!("${v:.6}")
    }
}

/// An integer with thousands separators.
pub fn thousands(v: i64) -> String {
    let s = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_is_rfc4180_with_plain_numbers() {
        let mut t = Table::new(["key", "n", "cost", "note"]);
        t.push(vec![
            "a,b".into(),
            Cell::Int(1234567),
            Cell::Float(0.1),
            Cell::Text("say \"hi\"".into()),
        ]);
        t.push(vec!["c".into(), Cell::Null, Cell::Null, Cell::Text("two\nlines".into())]);
        assert_eq!(
            t.to_csv().unwrap(),
            "key,n,cost,note\r\n\"a,b\",1234567,0.1,\"say \"\"hi\"\"\"\r\nc,,,\"two\nlines\"\r\n"
        );
    }

    #[test]
    fn control_characters_from_outside_are_escaped() {
        let hostile = "ok.md\x1b[2K\x1b[1A\r  no findings\n\u{202e}txt.exe\u{9b}";
        assert_eq!(
            escape_controls(hostile),
            "ok.md\\x1b[2K\\x1b[1A\\r  no findings\\n\\u{202e}txt.exe\\u{009b}"
        );
        assert_eq!(escape("a\tb\r\nc\rd\x07", true), "a\tb\r\nc\\rd\\x07");
        assert!(matches!(escape_controls("plain text, ünïcödé"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(json_escaped("\"a\u{7f}b\u{202e}\"".into()), "\"a\\u007fb\\u202e\"");
        let mut t = Table::new(["file"]);
        t.push(vec![Cell::Text("x\ny\x1b[31m".into())]);
        let shown = t.to_terminal(&|_, c| c.plain());
        assert!(shown.contains("x\\ny\\x1b[31m") && !shown.contains('\x1b'), "{shown}");
    }

    #[test]
    fn numbers_for_people() {
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(-1000), "-1,000");
        assert_eq!(thousands(12), "12");
        assert_eq!(usd(0.0510705), "$0.0511");
        assert_eq!(usd(1234.5), "$1234.50");
    }
}
