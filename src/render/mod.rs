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
        t.set_header(self.headers.clone());
        for row in &self.rows {
            t.add_row(row.iter().enumerate().map(|(i, c)| display(i, c)).collect::<Vec<_>>());
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
        let esc = |s: String| s.replace('|', "\\|").replace('\n', " ");
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
            Format::Json => serde_json::to_string_pretty(&self.to_json())? + "\n",
            Format::Markdown => self.to_markdown(display),
        };
        out(&text)
    }
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
pub fn out(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Prints exactly one JSON value (pretty) on stdout.
pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    out(&(serde_json::to_string_pretty(value)? + "\n"))
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
    fn numbers_for_people() {
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(-1000), "-1,000");
        assert_eq!(thousands(12), "12");
        assert_eq!(usd(0.0510705), "$0.0511");
        assert_eq!(usd(1234.5), "$1234.50");
    }
}
