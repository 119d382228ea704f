//! The typed-query check: every compiled-in statement and view must prepare against a freshly
//! migrated database. It does for rusqlite what sqlx's compile-time check does for sqlx: a query
//! that no longer fits the schema fails `cargo test`.

use super::{open_and_migrate, queries, DbKind};
use rusqlite::Connection;

/// A statement that did not prepare.
#[derive(Debug, PartialEq)]
pub struct QueryFault {
    pub database: String,
    pub name: String,
    pub error: String,
}

/// Prepares each `(database, name, sql)` against `conns` (one per database kind).
pub fn check_statements(project: &Connection, home: &Connection, statements: &[(&str, &str, &str)]) -> Vec<QueryFault> {
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
pub fn check_all(dir: &std::path::Path) -> Result<Vec<QueryFault>, String> {
    let (project, _) = open_and_migrate(DbKind::Project, &dir.join("project.db")).map_err(|e| e.to_string())?;
    let (home, _) = open_and_migrate(DbKind::Home, &dir.join("home.db")).map_err(|e| e.to_string())?;
    let mut faults = check_statements(&project, &home, queries::ALL);
    for (kind, conn) in [(DbKind::Project, &project), (DbKind::Home, &home)] {
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
