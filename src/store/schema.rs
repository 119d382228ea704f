//! Migrations (refinery, embedded per database) and the views kept from `reports/`.

use super::{DbKind, StoreError};
use rusqlite::Connection;
use std::fs::File;
use std::path::Path;

mod project {
    refinery::embed_migrations!("migrations/project");
}

mod home {
    refinery::embed_migrations!("migrations/home");
}

const HISTORY_TABLE: &str = "refinery_schema_history";

/// One migration recorded in a database.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct AppliedMigration {
    pub version: u32,
    pub name: String,
    pub applied_on: String,
}

/// What one migration run changed.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub(crate) struct MigrationReport {
    /// Migrations applied by this run, oldest first.
    pub applied: Vec<AppliedMigration>,
    /// Whether the views were (re)created from `reports/`.
    pub views_recreated: bool,
}

pub(super) fn runner(kind: DbKind) -> refinery::Runner {
    match kind {
        DbKind::Project => project::migrations::runner(),
        DbKind::Home => home::migrations::runner(),
    }
    .set_grouped(true)
}

/// The highest migration version recorded in `conn` (0 for a database without history).
pub(crate) fn applied_version(conn: &Connection) -> rusqlite::Result<u32> {
    Ok(applied_migrations(conn)?.iter().map(|m| m.version).max().unwrap_or(0))
}

/// Every migration recorded in `conn`, oldest first.
pub(crate) fn applied_migrations(conn: &Connection) -> rusqlite::Result<Vec<AppliedMigration>> {
    let exists: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [HISTORY_TABLE],
        |r| r.get(0),
    )?;
    if !exists {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(&format!("SELECT version, name, applied_on FROM {HISTORY_TABLE} ORDER BY version"))?;
    let rows = stmt.query_map([], |r| {
        Ok(AppliedMigration {
            version: r.get(0)?,
            name: r.get(1)?,
            applied_on: r.get(2)?,
        })
    })?;
    rows.collect()
}

/// The tables of a database that has tables but no tlc migration history (a foreign SQLite
/// file), named for a message; `None` for a tlc database or an empty one.
pub(crate) fn foreign_tables(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let mut stmt =
        conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")?;
    let tables: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    if tables.is_empty() || tables.iter().any(|t| t == HISTORY_TABLE) {
        return Ok(None);
    }
    let mut named = tables.iter().take(4).map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ");
    if tables.len() > 4 {
        named.push_str(&format!(" and {} more", tables.len() - 4));
    }
    Ok(Some(format!("{} {named}", if tables.len() == 1 { "table" } else { "tables" })))
}

/// The tables of `conn` (SQLite's own left out) and each one's columns.
fn table_shapes(conn: &Connection) -> rusqlite::Result<Vec<(String, Vec<String>)>> {
    let mut stmt =
        conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")?;
    let names: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let mut cols = conn.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")?;
        let columns: Vec<String> = cols.query_map([&name], |r| r.get(0))?.collect::<Result<_, _>>()?;
        out.push((name, columns));
    }
    Ok(out)
}

/// What is wrong with the schema of a database that should be tlc's `kind`, read without
/// writing: a foreign SQLite file, a migration history or a `user_version` newer than this
/// binary, the two disagreeing, a table or column the recorded version has that is missing.
/// Empty for a sound database, and for an empty file (created, never migrated).
pub(crate) fn problems(kind: DbKind, conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut out = Vec::new();
    if let Some(tables) = foreign_tables(conn)? {
        out.push(format!("not a tlc database: it holds {tables} but no tlc migration history"));
        return Ok(out);
    }
    let shapes = table_shapes(conn)?;
    if shapes.is_empty() {
        return Ok(out);
    }
    let known = kind.latest_version();
    let applied = applied_migrations(conn)?;
    let recorded = applied.iter().map(|m| m.version).max().unwrap_or(0);
    for m in applied.iter().filter(|m| m.version > known) {
        out.push(format!(
            "the migration history names V{}__{}, newer than this tlc (schema version {known}): upgrade tlc",
            m.version, m.name
        ));
    }
    let user_version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let said = user_version / 1_000_000;
    if said > i64::from(known) {
        out.push(format!(
            "user_version {user_version} says schema version {said}, newer than this tlc (version {known}): upgrade tlc"
        ));
    } else if user_version != 0 && said != i64::from(recorded) {
        out.push(format!(
            "user_version {user_version} says schema version {said}, but the migration history says {recorded}"
        ));
    }
    if recorded == 0 || recorded > known {
        return Ok(out);
    }
    // The shape version `recorded` has: the migrations up to it, run on an empty database.
    let mut expected = Connection::open_in_memory()?;
    if runner(kind)
        .set_target(refinery::Target::Version(i32::try_from(recorded).unwrap_or(i32::MAX)))
        .run(&mut expected)
        .is_err()
    {
        return Ok(out);
    }
    let have: std::collections::BTreeMap<String, Vec<String>> = shapes.into_iter().collect();
    for (table, columns) in table_shapes(&expected)? {
        match have.get(&table) {
            None => out.push(format!("table `{table}` is missing (schema version {recorded} has it)")),
            Some(present) => {
                for c in columns.iter().filter(|c| !present.contains(c)) {
                    out.push(format!("column `{table}.{c}` is missing (schema version {recorded} has it)"));
                }
            }
        }
    }
    Ok(out)
}

/// Migrates `conn` while holding an exclusive lock on the database's folder, so that many hook
/// processes meeting a fresh database at once migrate it exactly once.
pub(super) fn migrate_locked(kind: DbKind, path: &Path, conn: &mut Connection) -> Result<MigrationReport, StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let lock = File::open(dir).map_err(|source| StoreError::Create {
        path: dir.to_path_buf(),
        cause: source,
    })?;
    lock.lock().map_err(|source| StoreError::Create {
        path: dir.to_path_buf(),
        cause: source,
    })?;
    let result = migrate(kind, path, conn);
    // The lock is released when `lock` is dropped, also on error.
    drop(lock);
    result
}

fn migrate(kind: DbKind, path: &Path, conn: &mut Connection) -> Result<MigrationReport, StoreError> {
    let sq = |e| StoreError::sqlite(path, e);
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(sq)?;
    if version == kind.expected_user_version() {
        return Ok(MigrationReport::default());
    }
    if let Some(tables) = foreign_tables(conn).map_err(sq)? {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            tables,
        });
    }
    let found = applied_version(conn).map_err(sq)?;
    if found > kind.latest_version() {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found,
            known: kind.latest_version(),
        });
    }
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(sq)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Migration {
            path: path.to_path_buf(),
            detail: format!("journal mode is {mode}, WAL could not be set").into(),
        });
    }
    let report = runner(kind).run(conn).map_err(|e| StoreError::Migration {
        path: path.to_path_buf(),
        detail: e.into(),
    })?;
    let applied = report
        .applied_migrations()
        .iter()
        .map(|m| AppliedMigration {
            version: m.version() as u32,
            name: m.name().to_string(),
            applied_on: crate::clock::now_stamp(),
        })
        .collect();
    sync_views(kind, conn).map_err(|e| StoreError::Migration {
        path: path.to_path_buf(),
        detail: e.into(),
    })?;
    conn.execute_batch(&format!("PRAGMA user_version = {}", kind.expected_user_version()))
        .map_err(sq)?;
    Ok(MigrationReport {
        applied,
        views_recreated: true,
    })
}

/// Why the views could not be created: the SQLite error, or the view that would not.
#[derive(Debug, thiserror::Error)]
enum ViewError {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error("view {name} (reports/{db}/{name}.sql): {cause}")]
    View {
        name: String,
        db: &'static str,
        cause: rusqlite::Error,
    },
}

/// Drops every view and creates this binary's from `reports/`, in one transaction. Views may
/// name each other, so creation repeats until no view is left or a pass makes no progress.
fn sync_views(kind: DbKind, conn: &mut Connection) -> Result<(), ViewError> {
    let tx = conn.transaction()?;
    let existing: Vec<String> = {
        let mut stmt = tx.prepare("SELECT name FROM sqlite_master WHERE type = 'view'")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for name in existing {
        tx.execute_batch(&format!("DROP VIEW IF EXISTS \"{}\"", name.replace('"', "\"\"")))?;
    }
    let mut pending: Vec<(&str, &str)> = kind.views().to_vec();
    while !pending.is_empty() {
        let mut failed = Vec::new();
        let mut last_error = None;
        for (name, sql) in &pending {
            if let Err(cause) = tx.execute_batch(sql) {
                last_error = Some(ViewError::View {
                    name: name.to_string(),
                    db: kind.name(),
                    cause,
                });
                failed.push((*name, *sql));
            }
        }
        if failed.len() == pending.len() {
            if let Some(e) = last_error {
                return Err(e);
            }
        }
        pending = failed;
    }
    Ok(tx.commit()?)
}

/// A fresh in-memory database at this binary's schema, views included: for describing views
/// without touching (or creating) any file.
pub(crate) fn in_memory(kind: DbKind) -> Result<Connection, StoreError> {
    let path = Path::new(":memory:");
    let mut conn = Connection::open_in_memory().map_err(|e| StoreError::sqlite(path, e))?;
    runner(kind).run(&mut conn).map_err(|e| StoreError::Migration {
        path: path.to_path_buf(),
        detail: e.into(),
    })?;
    sync_views(kind, &mut conn).map_err(|e| StoreError::Migration {
        path: path.to_path_buf(),
        detail: e.into(),
    })?;
    super::functions::register(&conn).map_err(|e| StoreError::sqlite(path, e))?;
    Ok(conn)
}
