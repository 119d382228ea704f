//! The typed-query check: every compiled-in statement and view must prepare against a freshly
//! migrated database. It does for rusqlite what sqlx's compile-time check does for sqlx: a query
//! that no longer fits the schema fails `cargo test`. Test-only: the checks run from
//! `store/tests.rs`.

use super::{open_write, queries, DbKind, StoreError};
use rusqlite::Connection;

/// A statement that did not prepare.
#[derive(Debug, PartialEq)]
pub(crate) struct QueryFault {
    pub database: String,
    pub name: String,
    pub error: String,
}

/// Prepares each `(database, name, sql)` against `conns` (one per database kind).
pub(crate) fn check_statements(project: &Connection, home: &Connection, statements: &[(&str, &str, &str)]) -> Vec<QueryFault> {
    let mut faults = Vec::new();
    for (db, name, sql) in statements {
        let conn = match *db {
            "project" => project,
            "home" => home,
            other => {
                faults.push(QueryFault {
                    database: other.to_string(),
                    name: name.to_string(),
                    error: "queries/<db>/ must be project or home".into(),
                });
                continue;
            }
        };
        if let Err(e) = conn.prepare(sql) {
            faults.push(QueryFault {
                database: db.to_string(),
                name: name.to_string(),
                error: e.to_string(),
            });
        }
    }
    faults
}

/// Migrates fresh databases in `dir` and prepares every compiled-in query and every view's
/// SELECT against them.
pub(crate) fn check_all(dir: &std::path::Path) -> Result<Vec<QueryFault>, StoreError> {
    let project = open_write(DbKind::Project, &dir.join("project.db"))?;
    let home = open_write(DbKind::Home, &dir.join("home.db"))?;
    let mut faults = check_statements(project.conn(), home.conn(), queries::ALL);
    for (kind, conn) in [(DbKind::Project, project.conn()), (DbKind::Home, home.conn())] {
        for (name, _) in kind.views() {
            let probe = format!("SELECT * FROM \"{name}\"");
            if let Err(e) = conn.prepare(&probe) {
                faults.push(QueryFault {
                    database: kind.name().into(),
                    name: format!("view {name}"),
                    error: e.to_string(),
                });
            }
        }
    }
    Ok(faults)
}
