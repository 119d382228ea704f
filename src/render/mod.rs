//! The writers every command shares: terminal tables (fitted to the terminal width), CSV
//! (RFC 4180), JSON (exactly one value on stdout) and markdown; and the progress line.

mod fit;
mod progress;
pub(crate) use fit::{wrap, Role};
pub(crate) use progress::Progress;

use comfy_table::{presets, CellAlignment, ContentArrangement};
use std::io::{IsTerminal, Write};

/// How an answer is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub(crate) enum Format {
    /// A table fitted to the terminal's width.
    #[default]
    Table,
    /// RFC 4180 with a header row; plain numbers, whole ids.
    Csv,
    /// Exactly one JSON value.
    Json,
    /// One JSON object per line (a row each).
    Jsonl,
    /// A GitHub-flavoured markdown table.
    Markdown,
}

/// How a command prints: the format, and whether tables keep their full width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Output {
    pub format: Format,
    pub wide: bool,
}

impl From<Format> for Output {
    fn from(format: Format) -> Output {
        Output { format, wide: false }
    }
}

impl Output {
    pub(crate) fn is_json(self) -> bool {
        matches!(self.format, Format::Json | Format::Jsonl)
    }
}

/// A format's name as typed on the command line.
pub(crate) fn format_name(f: Format) -> &'static str {
    match f {
        Format::Table => "table",
        Format::Csv => "csv",
        Format::Json => "json",
        Format::Jsonl => "jsonl",
        Format::Markdown => "markdown",
    }
}

/// One cell of a table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    /// A JSON value (attributes, payloads): an object in JSON, its compact text elsewhere.
    Json(serde_json::Value),
}

impl Cell {
    /// The cell as plain text: numbers unformatted, null empty.
    pub(crate) fn plain(&self) -> String {
        match self {
            Cell::Null => String::new(),
            Cell::Bool(b) => b.to_string(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => f.to_string(),
            Cell::Text(s) => s.clone(),
            Cell::Json(v) => v.to_string(),
        }
    }

    pub(crate) fn to_json(&self) -> serde_json::Value {
        match self {
            Cell::Null => serde_json::Value::Null,
            Cell::Bool(b) => (*b).into(),
            Cell::Int(i) => (*i).into(),
            Cell::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Cell::Text(s) => s.clone().into(),
            Cell::Json(v) => v.clone(),
        }
    }

    /// A cell holding a JSON value: scalars as themselves, arrays and objects as JSON.
    pub(crate) fn from_json(v: &serde_json::Value) -> Cell {
        match v {
            serde_json::Value::Null => Cell::Null,
            serde_json::Value::Bool(b) => Cell::Bool(*b),
            serde_json::Value::Number(n) => n.as_i64().map_or_else(|| n.as_f64().map_or(Cell::Null, Cell::Float), Cell::Int),
            serde_json::Value::String(s) => Cell::Text(s.clone()),
            other => Cell::Json(other.clone()),
        }
    }

    fn is_number(&self) -> bool {
        match self {
            Cell::Int(_) | Cell::Float(_) => true,
            Cell::Text(s) => looks_numeric(s),
            _ => false,
        }
    }
}

/// Text a person reads as a number: `10,045,583`, `$6.3464*`, `-12`, `3.5%`.
fn looks_numeric(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty()
        && s.chars().any(|c| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_digit() || ",.$*%-+".contains(c))
        && !looks_like_date(s)
}

fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 7 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[5..7].iter().all(u8::is_ascii_digit)
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
impl From<f64> for Cell {
    fn from(f: f64) -> Cell {
        Cell::Float(f)
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

/// A table: headers, rows of cells, and each column's role on a terminal.
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    roles: Vec<Option<Role>>,
    droppable: Vec<usize>,
    /// Cells (row, column) drawn in a colour on a terminal that takes colour.
    tones: Vec<(usize, usize, Tone)>,
}

/// What a coloured cell or line says: good, worth a look, or wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    Good,
    Warn,
    Bad,
}

/// Whether stdout takes colour: a terminal, `NO_COLOR` unset or empty, and not `TERM=dumb`.
pub(crate) fn colour() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    !no_color && !dumb && stdout_is_terminal()
}

fn style(tone: Tone) -> anstyle::Style {
    let colour = match tone {
        Tone::Good => anstyle::AnsiColor::Green,
        Tone::Warn => anstyle::AnsiColor::Yellow,
        Tone::Bad => anstyle::AnsiColor::Red,
    };
    let s = anstyle::Style::new().fg_color(Some(colour.into()));
    if tone == Tone::Good {
        s
    } else {
        s.bold()
    }
}

/// `text`, escaped ([`escape_controls`]), in `tone`'s colour when stdout takes colour (see
/// [`colour`]); print it with [`out_escaped`].
pub(crate) fn paint(text: &str, tone: Tone) -> String {
    let text = escape_controls(text);
    if colour() {
        let s = style(tone);
        format!("{}{text}{}", s.render(), s.render_reset())
    } else {
        text.into_owned()
    }
}

impl Table {
    pub(crate) fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Table {
        let headers: Vec<String> = headers.into_iter().map(Into::into).collect();
        Table {
            roles: vec![None; headers.len()],
            headers,
            rows: Vec::new(),
            droppable: Vec::new(),
            tones: Vec::new(),
        }
    }

    /// Sets every column's role, in header order.
    pub(crate) fn roles(mut self, roles: impl IntoIterator<Item = Role>) -> Table {
        for (i, r) in roles.into_iter().enumerate() {
            if let Some(slot) = self.roles.get_mut(i) {
                *slot = Some(r);
            }
        }
        self
    }

    /// Names the columns that may be left out on a narrow terminal, the first to go first.
    pub(crate) fn droppable(mut self, headers: &[&str]) -> Table {
        self.droppable = headers.iter().filter_map(|h| self.headers.iter().position(|x| x == h)).collect();
        self
    }

    /// A one-row table of a JSON object's fields (nested values stay JSON): the CSV, jsonl and
    /// markdown form of a command whose answer is one record.
    pub(crate) fn record(value: &serde_json::Value) -> Table {
        let empty = serde_json::Map::new();
        let obj = value.as_object().unwrap_or(&empty);
        let mut t = Table::new(obj.keys().cloned());
        if !obj.is_empty() {
            t.push(obj.values().map(Cell::from_json).collect());
        }
        t
    }

    /// The table without the columns named (the narrow form a command may ask for).
    pub(crate) fn without(self, headers: &[&str]) -> Table {
        let keep: Vec<usize> = (0..self.headers.len())
            .filter(|&c| !headers.contains(&self.headers[c].as_str()))
            .collect();
        let pick = |v: &[Option<Role>]| keep.iter().map(|&c| v[c]).collect::<Vec<_>>();
        let droppable = self.droppable.iter().filter_map(|d| keep.iter().position(|k| k == d)).collect();
        Table {
            headers: keep.iter().map(|&c| self.headers[c].clone()).collect(),
            rows: self
                .rows
                .iter()
                .map(|r| keep.iter().map(|&c| r.get(c).cloned().unwrap_or(Cell::Null)).collect())
                .collect(),
            roles: pick(&self.roles),
            droppable,
            tones: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, row: Vec<Cell>) {
        self.rows.push(row);
    }

    /// Draws the last row's cell in column `col` in `tone`'s colour (terminal tables only).
    pub(crate) fn tone_last(&mut self, col: usize, tone: Tone) {
        if let Some(row) = self.rows.len().checked_sub(1) {
            self.tones.push((row, col, tone));
        }
    }

    /// A column's role: the one set, else read from its header and cells (ids by name; numbers,
    /// dates and one-word keys by content; anything else is text).
    pub(crate) fn role(&self, c: usize) -> Role {
        if let Some(Some(r)) = self.roles.get(c) {
            return *r;
        }
        let header = self.headers[c].to_ascii_lowercase();
        if header == "session" || header.ends_with("session_id") || header.ends_with(" session") {
            return Role::Id;
        }
        let cells: Vec<&Cell> = self.rows.iter().filter_map(|r| r.get(c)).filter(|x| **x != Cell::Null).collect();
        if cells.is_empty() {
            return Role::Key;
        }
        if cells.iter().all(|x| x.is_number()) {
            return Role::Number;
        }
        let texts: Vec<String> = cells.iter().map(|x| x.plain()).collect();
        if texts.iter().all(|t| looks_like_date(t)) {
            return Role::Date;
        }
        if texts.iter().all(|t| !t.contains(' ') && fit::width(t) <= 24) {
            return Role::Key;
        }
        Role::Text
    }

    /// The rows as a JSON array of objects keyed by header.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(self.rows.iter().map(|r| self.row_json(r)).collect())
    }

    fn row_json(&self, r: &[Cell]) -> serde_json::Value {
        serde_json::Value::Object(self.headers.iter().cloned().zip(r.iter().map(Cell::to_json)).collect())
    }

    /// One JSON object per row, a line each.
    pub(crate) fn to_jsonl(&self) -> String {
        self.rows.iter().map(|r| self.row_json(r).to_string() + "\n").collect()
    }

    /// The table for a terminal, fitted to its width (see [`Role`]).
    pub(crate) fn to_terminal(&self, display: &dyn Fn(usize, &Cell) -> String) -> String {
        self.to_terminal_in(terminal_width().map(usize::from), false, display)
    }

    /// The table fitted to `limit` columns (None: not fitted); `wide` keeps it whole.
    pub(crate) fn to_terminal_in(&self, limit: Option<usize>, wide: bool, display: &dyn Fn(usize, &Cell) -> String) -> String {
        let roles: Vec<Role> = (0..self.headers.len()).map(|c| self.role(c)).collect();
        // Text from outside tlc is escaped before it is laid out: no control reaches the terminal,
        // and the widths measured are the widths shown.
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .map(|(i, c)| escape_controls(&display(i, c)).into_owned())
                    .collect()
            })
            .collect();
        let headers: Vec<String> = self.headers.iter().map(|h| escape_controls(h).into_owned()).collect();
        // One row too wide to fit side by side reads better as field/value pairs.
        if let (Some(w), [row], false) = (limit, cells.as_slice(), wide) {
            let least: usize = fit::frame(roles.len())
                + (0..roles.len())
                    .map(|c| {
                        let word = self.headers[c].split_whitespace().map(fit::width).max().unwrap_or(0);
                        fit::width(&row[c])
                            .min(if matches!(roles[c], Role::Text | Role::Prose) {
                                12
                            } else {
                                usize::MAX
                            })
                            .max(word)
                    })
                    .sum::<usize>();
            if least > w && self.droppable.is_empty() {
                return self.transposed(row, &roles, limit);
            }
        }
        let fitted = fit::fit(&headers, &roles, &self.droppable, cells, limit, wide);
        let tones: Vec<(usize, usize, Tone)> = self
            .tones
            .iter()
            .filter_map(|&(r, c, t)| fitted.columns.iter().position(|k| *k == c).map(|kc| (r, kc, t)))
            .collect();
        draw(&fitted, &tones)
    }

    fn transposed(&self, row: &[String], roles: &[Role], limit: Option<usize>) -> String {
        let cells: Vec<Vec<String>> = self
            .headers
            .iter()
            .map(|h| escape_controls(h).into_owned())
            .zip(row.iter().cloned())
            .map(|(h, v)| vec![h, v])
            .collect();
        let all_numbers = roles.iter().all(|r| *r == Role::Number);
        let value_role = if all_numbers { Role::Number } else { Role::Prose };
        let fitted = fit::fit(
            &["field".to_string(), "value".to_string()],
            &[Role::Key, value_role],
            &[],
            cells,
            limit,
            false,
        );
        draw(&fitted, &[])
    }

    /// RFC 4180 CSV with a header row. Every control character in a cell, line breaks included,
    /// is written as visible text ([`escape_controls`]: `\n`, `\x1b`, `\u{2028}`), so each record
    /// is one line and no cell can act on a terminal; a text cell a spreadsheet would read as a
    /// formula is neutralised ([`csv_text`]).
    pub(crate) fn to_csv(&self) -> anyhow::Result<String> {
        let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new());
        w.write_record(self.headers.iter().map(|h| escape_controls(h).into_owned()))?;
        for row in &self.rows {
            w.write_record(row.iter().map(|c| match c {
                Cell::Text(t) => csv_text(t).into_owned(),
                other => escape_controls(&other.plain()).into_owned(),
            }))?;
        }
        Ok(String::from_utf8(w.into_inner()?)?)
    }

    /// A GitHub-flavoured markdown table.
    pub(crate) fn to_markdown(&self, display: &dyn Fn(usize, &Cell) -> String) -> String {
        let esc = |s: String| escape_controls(&s).replace('|', "\\|");
        let mut out = format!(
            "| {} |\n",
            self.headers.iter().map(|h| esc(h.clone())).collect::<Vec<_>>().join(" | ")
        );
        out.push_str(&format!(
            "|{}\n",
            (0..self.headers.len())
                .map(|c| if self.role(c) == Role::Number { "---:|" } else { "---|" })
                .collect::<String>()
        ));
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

    /// The table as text in `output` with plain cell text.
    pub(crate) fn render(&self, output: impl Into<Output>) -> anyhow::Result<String> {
        self.render_with(output, &|_, c| c.plain())
    }

    /// The table as text in `output`; `display` renders cells for the table and markdown forms
    /// (CSV and JSON always carry the plain values).
    pub(crate) fn render_with(&self, output: impl Into<Output>, display: &dyn Fn(usize, &Cell) -> String) -> anyhow::Result<String> {
        let output = output.into();
        Ok(match output.format {
            Format::Table => self.to_terminal_in(terminal_width().map(usize::from), output.wide, display) + "\n",
            Format::Csv => self.to_csv()?,
            Format::Json => json_escaped(serde_json::to_string_pretty(&self.to_json())?) + "\n",
            Format::Jsonl => json_escaped(self.to_jsonl()),
            Format::Markdown => self.to_markdown(display),
        })
    }

    /// Prints the table in `output` with plain cell text.
    pub(crate) fn print(&self, output: impl Into<Output>) -> anyhow::Result<()> {
        self.print_with(output, &|_, c| c.plain())
    }

    /// Prints the table in `output`; see [`Table::render_with`].
    pub(crate) fn print_with(&self, output: impl Into<Output>, display: &dyn Fn(usize, &Cell) -> String) -> anyhow::Result<()> {
        let output = output.into();
        let text = self.render_with(output, display)?;
        match output.format {
            // Drawn from escaped cells; written as it is so that its colours reach the terminal.
            Format::Table => out_escaped(&text),
            _ => out(&text),
        }
    }
}

fn draw(fitted: &fit::Fitted, tones: &[(usize, usize, Tone)]) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    let coloured = !tones.is_empty() && colour();
    if coloured {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    t.set_header(fitted.headers.clone());
    for (r, row) in fitted.rows.iter().enumerate() {
        let cells = row.iter().enumerate().map(|(c, text)| {
            let cell = comfy_table::Cell::new(text);
            match tones.iter().find(|(tr, tc, _)| *tr == r && *tc == c).filter(|_| coloured) {
                Some((_, _, Tone::Good)) => cell.fg(comfy_table::Color::Green),
                Some((_, _, Tone::Warn)) => cell.fg(comfy_table::Color::Yellow).add_attribute(comfy_table::Attribute::Bold),
                Some((_, _, Tone::Bad)) => cell.fg(comfy_table::Color::Red).add_attribute(comfy_table::Attribute::Bold),
                None => cell,
            }
        });
        t.add_row(cells.collect::<Vec<_>>());
    }
    for (i, right) in fitted.right_aligned.iter().enumerate() {
        if *right {
            if let Some(col) = t.column_mut(i) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
    t.to_string()
}

/// Whether `c` may act on a terminal if printed as it is: the C0 controls (line breaks and tabs
/// included), DEL, the C1 controls (U+0080–U+009F, which some terminals obey as escape
/// sequences), the line and paragraph separators (U+2028, U+2029, which some terminals and
/// editors break a line at), and the invisible direction marks and overrides that reorder what
/// is shown (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
pub(crate) fn is_control(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
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

/// A text cell of CSV as a spreadsheet may open it: a cell starting `=`, `+`, `-` or `@` (tab and
/// carriage return are already visible text after [`escape_controls`]) gets a leading `'`, as
/// OWASP's CSV-injection advice says, so an agent's command is never read as a formula
/// (`=HYPERLINK(…)`). Numbers are not text cells and keep their sign.
pub(crate) fn csv_text(text: &str) -> std::borrow::Cow<'_, str> {
    let escaped = escape_controls(text);
    if escaped.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        std::borrow::Cow::Owned(format!("'{escaped}"))
    } else {
        escaped
    }
}

/// [`escape`] of a single-line field: everything, line breaks included.
pub(crate) fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
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
pub(crate) struct Escaped<W: Write> {
    inner: W,
    json: bool,
    line: Vec<u8>,
}

impl<W: Write> Escaped<W> {
    pub(crate) fn new(inner: W, json: bool) -> Escaped<W> {
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
pub(crate) fn out(text: &str) -> anyhow::Result<()> {
    let text = escape(text, true);
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Writes `text` to stdout as it is: only for text whose outside parts were escaped already (a
/// drawn table, whose cells [`Table::to_terminal_in`] escapes; a line built from escaped parts
/// and [`paint`]ed), so that tlc's own colour reaches the terminal and nothing else does.
pub(crate) fn out_escaped(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Prints a sentence for people, wrapped at spaces to the terminal's width (as it is when stdout
/// is not a terminal).
pub(crate) fn note(text: &str) -> anyhow::Result<()> {
    let text = match terminal_width() {
        Some(w) => text
            .lines()
            .map(|l| wrap(l, usize::from(w)).join("\n"))
            .collect::<Vec<_>>()
            .join("\n"),
        None => text.trim_end_matches('\n').to_string(),
    };
    out(&(text + "\n"))
}

/// Prints exactly one JSON value (pretty) on stdout.
pub(crate) fn json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    json_text(serde_json::to_string_pretty(value)? + "\n")
}

/// Prints JSON text that serde_json made (one value, or JSON lines, with its line breaks),
/// escaped as [`json`] escapes it: DEL, the C1 controls and the direction marks as `\u` escapes.
/// Not through [`out`]'s [`escape`], whose `\x7f` and `\u{202e}` are not JSON escapes: text from
/// outside (a command in a payload, a tool's output, a recorded value) must leave the output valid
/// JSON, or its reader (the agent's client reading a hook's answer) reads nothing at all. No
/// control character is left for [`out`] to catch: serde_json escapes the C0 controls.
pub(crate) fn json_text(text: String) -> anyhow::Result<()> {
    out_escaped(&json_escaped(text))
}

/// Prints one JSON value on one line (a stream of them: `obs live --json`), escaped as [`json`].
pub(crate) fn json_line<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    json_text(serde_json::to_string(value)? + "\n")
}

/// Whether stdout is a terminal.
pub(crate) fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// The terminal's width when stdout is one (`COLUMNS` wins when set).
pub(crate) fn terminal_width() -> Option<u16> {
    if let Some(c) = std::env::var("COLUMNS").ok().and_then(|c| c.parse::<u16>().ok()) {
        return Some(c);
    }
    if !stdout_is_terminal() {
        return None;
    }
    crate::sys::stdout_columns()
}

/// A USD amount for people: cents for big sums, more digits for small ones.
pub(crate) fn usd(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("${v:.2}")
    } else if v.abs() >= 0.01 {
        format!("${v:.4}")
    } else {
        format!("${v:.6}")
    }
}

/// An integer with thousands separators.
pub(crate) fn thousands(v: i64) -> String {
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
        t.push(vec!["\u{1b}[31mred\u{2028}".into(), Cell::Null, Cell::Null, Cell::Null]);
        // Control characters, line breaks included, are written as visible text: one record a line.
        assert_eq!(
            t.to_csv().unwrap(),
            "key,n,cost,note\r\n\"a,b\",1234567,0.1,\"say \"\"hi\"\"\"\r\nc,,,two\\nlines\r\n\\x1b[31mred\\u{2028},,,\r\n"
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
        // The Arabic letter mark reorders text as the other direction marks do.
        assert_eq!(escape_controls("a\u{61c}b"), "a\\u{061c}b");
        assert_eq!(json_escaped("\"a\u{61c}b\"".into()), "\"a\\u061cb\"");
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
