//! The fourth way to open a database: a pool of read-only connections, for `tlc serve`, where
//! many requests read one database at the same time (docs/ARCHITECTURE.md, *Opening a database*).
//!
//! Every connection is opened `SQLITE_OPEN_READ_ONLY` (SQLite refuses any write on it, whatever
//! runs) and `query_only`, without following a link, on a regular file that already exists and
//! carries this binary's schema. Nothing here creates a database or a folder. A read-only
//! connection to a WAL database makes SQLite's `-shm` and `-wal` beside it when another process
//! left none: they hold no data, and every hook of that repository makes them anyway.

use super::{check_readable, in_place, refuse_irregular, DbKind, StoreError, BUSY_TIMEOUT};
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};

/// A connection borrowed from a [`ReadPool`]; it goes back to the pool when dropped. Derefs to
/// a `rusqlite::Connection` for the domains' repository types.
pub(crate) type PooledConnection = r2d2::PooledConnection<SqliteConnectionManager>;

/// A pool of read-only connections to one database file.
pub(crate) struct ReadPool {
    kind: DbKind,
    path: PathBuf,
    pool: r2d2::Pool<SqliteConnectionManager>,
}

impl std::fmt::Debug for ReadPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadPool")
            .field("kind", &self.kind)
            .field("path", &self.path)
            .finish()
    }
}

const FLAGS: OpenFlags = OpenFlags::SQLITE_OPEN_READ_ONLY
    .union(OpenFlags::SQLITE_OPEN_NO_MUTEX)
    .union(OpenFlags::SQLITE_OPEN_NOFOLLOW);

fn init(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    super::functions::register(conn)?;
    conn.execute_batch("PRAGMA query_only = ON;")
}

/// A pool of at most `size` read-only connections to the database at `path`; `None` when there
/// is no file. One connection is opened here to refuse what [`super::open_read`] refuses (a
/// link, a foreign or other-version schema); the rest open when a request first needs them and
/// close after ten idle minutes.
///
/// Size it for the threads that use it: a thread that holds at most one connection of the pool
/// at a time never waits for one when the pool has a connection per thread.
pub(crate) fn open_read_pool(kind: DbKind, path: &Path, size: u32) -> Result<Option<ReadPool>, StoreError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    refuse_irregular(path)?;
    let file = in_place(path);
    let mut first = Connection::open_with_flags(&file, FLAGS).map_err(|e| StoreError::sqlite(path, e))?;
    init(&mut first).map_err(|e| StoreError::sqlite(path, e))?;
    check_readable(kind, path, &first)?;
    drop(first);
    let manager = SqliteConnectionManager::file(file).with_flags(FLAGS).with_init(init);
    let pool = r2d2::Pool::builder()
        .max_size(size.max(1))
        .min_idle(Some(0))
        .test_on_check_out(false)
        .connection_timeout(BUSY_TIMEOUT)
        .build_unchecked(manager);
    Ok(Some(ReadPool {
        kind,
        path: path.to_path_buf(),
        pool,
    }))
}

impl ReadPool {
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The most connections the pool opens at once.
    #[cfg(test)]
    pub(crate) fn max_size(&self) -> u32 {
        self.pool.max_size()
    }

    /// A connection, waiting at most [`BUSY_TIMEOUT`] for one to come free. The file is checked
    /// again first: a database replaced by a link or a FIFO while serving is refused.
    pub(crate) fn get(&self) -> Result<PooledConnection, StoreError> {
        refuse_irregular(&self.path)?;
        self.pool.get().map_err(|e| StoreError::Pool {
            path: self.path.clone(),
            cause: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pooled_connection_is_read_only_and_a_missing_file_is_no_pool() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/tlc.db");
        assert!(open_read_pool(DbKind::Project, &path, 2).unwrap().is_none());
        assert!(!dir.path().join("state").exists(), "a missing database creates nothing");
        drop(crate::store::open_write(DbKind::Project, &path).unwrap());
        let pool = open_read_pool(DbKind::Project, &path, 2).unwrap().unwrap();
        assert_eq!(pool.max_size(), 2);
        let conn = pool.get().unwrap();
        let n: i64 = conn.query_row("SELECT count(*) FROM sessions", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 0);
        // Opened read-only: SQLite itself refuses the write, whatever pragma a query changed.
        conn.execute_batch("PRAGMA query_only = OFF").unwrap();
        let err = conn.execute("DELETE FROM sessions", []).unwrap_err();
        assert!(err.to_string().contains("readonly"), "{err}");
    }

    #[test]
    fn a_pool_refuses_a_link_and_another_schema() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.db");
        drop(crate::store::open_write(DbKind::Project, &real).unwrap());
        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(matches!(
            open_read_pool(DbKind::Project, &link, 2),
            Err(StoreError::NotRegular { .. })
        ));
        // A home database is not a project database.
        assert!(open_read_pool(DbKind::Home, &real, 2).is_err());
    }
}
