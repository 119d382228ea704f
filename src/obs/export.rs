//! Exporting any view as CSV (RFC 4180, header row, numbers unformatted, timestamps as stored:
//! ISO 8601 UTC) or JSON, streamed row by row, with an optional time window.

use crate::clock::TimeError;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::io::Write;

/// The columns a window can filter on, in order of preference.
const TIME_COLUMNS: &[&str] = &["ts", "day", "started_at", "first_at", "updated_at", "last_at"];

/// Why an export could not be made. All of it is unusable input or output the caller named.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ExportError {
    #[error("{flag}: {cause}")]
    Window { flag: &'static str, cause: TimeError },
    #[error("view {view} has no time column to filter on (looked for {looked})")]
    NoTimeColumn { view: String, looked: String },
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Csv(#[from] csv::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The views of one database (either), borrowing its connection: their columns, and any of them
/// streamed as CSV or JSON.
pub(crate) struct Views<'c> {
    conn: &'c Connection,
}

impl<'c> Views<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Views<'c> {
        Views { conn }
    }

    /// The columns of `view` (a name from the compiled-in list).
    pub(crate) fn columns(&self, view: &str) -> rusqlite::Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{}')", view.replace('\'', "''")))?;
        let rows = st.query_map([], |r| r.get(0))?;
        rows.collect()
    }

    /// Streams `view` through `window` into `out`; returns the number of rows written.
    pub(crate) fn export(&self, view: &str, window: &Window, format: ExportFormat, out: &mut dyn Write) -> Result<u64, ExportError> {
        export(self.conn, &self.columns(view)?, view, window, format, out)
    }
}

/// A time window: `since` inclusive, `until` inclusive of its day when given as a date.
#[derive(Debug, Default, Clone)]
pub(crate) struct Window {
    pub since: Option<String>,
    pub until: Option<String>,
}

impl Window {
    /// Parses `--since` / `--until` (RFC 3339 or YYYY-MM-DD).
    pub(crate) fn parse(since: Option<&str>, until: Option<&str>) -> Result<Window, ExportError> {
        let since = since
            .map(|s| {
                crate::clock::parse(s)
                    .map(crate::clock::stamp)
                    .map_err(|cause| ExportError::Window { flag: "--since", cause })
            })
            .transpose()?;
        let until = until
            .map(|s| {
                let t = crate::clock::parse(s).map_err(|cause| ExportError::Window { flag: "--until", cause })?;
                // A bare date means the whole day.
                let t = if s.trim().len() == 10 {
                    t + chrono::Duration::days(1) - chrono::Duration::milliseconds(1)
                } else {
                    t
                };
                Ok::<_, ExportError>(crate::clock::stamp(t))
            })
            .transpose()?;
        Ok(Window { since, until })
    }
}

/// Output format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExportFormat {
    /// A text cell a spreadsheet would read as a formula gets a leading `'` (`render::csv_text`).
    Csv,
    /// Every cell as stored (controls still made visible): `obs export --raw`.
    CsvRaw,
    /// One JSON array of objects.
    Json,
    /// One JSON object per line.
    Jsonl,
}

/// Columns whose text is JSON (an event's attributes): objects in JSON exports, text in CSV.
const JSON_COLUMNS: &[&str] = &["attrs"];

fn cell_text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Blob(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
    }
}

fn cell_json(v: ValueRef<'_>, holds_json: bool) -> serde_json::Value {
    match v {
        // Text that does not parse stays text rather than failing the export.
        ValueRef::Text(t) if holds_json => serde_json::from_slice(t).unwrap_or_else(|_| String::from_utf8_lossy(t).into_owned().into()),
        ValueRef::Null => serde_json::Value::Null,
        ValueRef::Integer(i) => i.into(),
        ValueRef::Real(f) => serde_json::Number::from_f64(f)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
        ValueRef::Blob(b) => b.iter().map(|x| format!("{x:02x}")).collect::<String>().into(),
    }
}

fn export(
    conn: &Connection,
    cols: &[String],
    view: &str,
    window: &Window,
    format: ExportFormat,
    out: &mut dyn Write,
) -> Result<u64, ExportError> {
    let time_col = TIME_COLUMNS.iter().find(|c| cols.iter().any(|x| x == *c)).copied();
    if (window.since.is_some() || window.until.is_some()) && time_col.is_none() {
        return Err(ExportError::NoTimeColumn {
            view: view.to_string(),
            looked: TIME_COLUMNS.join(", "),
        });
    }
    let mut sql = format!("SELECT * FROM \"{view}\"");
    let mut args: Vec<String> = Vec::new();
    if let Some(col) = time_col {
        // Dates compare by their day; timestamps by the stamp.
        let cut = |s: &str| {
            if col == "day" {
                s[..10.min(s.len())].to_string()
            } else {
                s.to_string()
            }
        };
        let mut conds = Vec::new();
        if let Some(s) = &window.since {
            args.push(cut(s));
            conds.push(format!("\"{col}\" >= ?{}", args.len()));
        }
        if let Some(u) = &window.until {
            args.push(cut(u));
            conds.push(format!("\"{col}\" <= ?{}", args.len()));
        }
        if !conds.is_empty() {
            sql.push_str(&format!(" WHERE {}", conds.join(" AND ")));
        }
    }
    let mut st = conn.prepare(&sql)?;
    let mut rows = st.query(rusqlite::params_from_iter(args.iter()))?;
    let mut n = 0u64;
    match format {
        ExportFormat::Csv | ExportFormat::CsvRaw => {
            let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(out);
            w.write_record(cols)?;
            let mut record = csv::StringRecord::new();
            while let Some(row) = rows.next()? {
                record.clear();
                for i in 0..cols.len() {
                    // One record per line, nothing a terminal obeys, no formula a spreadsheet
                    // runs (as `render::Table::to_csv`).
                    let v = row.get_ref(i)?;
                    let text = cell_text(v);
                    let field = match v {
                        ValueRef::Text(_) if format == ExportFormat::Csv => crate::render::csv_text(&text),
                        _ => crate::render::escape_controls(&text),
                    };
                    record.push_field(&field);
                }
                w.write_record(&record)?;
                n += 1;
            }
            w.flush()?;
        }
        ExportFormat::Json | ExportFormat::Jsonl => {
            let lines = format == ExportFormat::Jsonl;
            let holds_json: Vec<bool> = cols.iter().map(|c| JSON_COLUMNS.contains(&c.as_str())).collect();
            if !lines {
                out.write_all(b"[")?;
            }
            while let Some(row) = rows.next()? {
                let mut obj = serde_json::Map::new();
                for (i, c) in cols.iter().enumerate() {
                    obj.insert(c.clone(), cell_json(row.get_ref(i)?, holds_json[i]));
                }
                if lines {
                    serde_json::to_writer(&mut *out, &serde_json::Value::Object(obj))?;
                    out.write_all(b"\n")?;
                } else {
                    if n > 0 {
                        out.write_all(b",")?;
                    }
                    out.write_all(b"\n  ")?;
                    serde_json::to_writer(&mut *out, &serde_json::Value::Object(obj))?;
                }
                n += 1;
            }
            if !lines {
                out.write_all(if n > 0 { b"\n]\n" } else { b"]\n" })?;
            }
        }
    }
    Ok(n)
}
