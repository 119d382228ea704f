//! The store: opening the project and home databases, their pragmas, their migrations, the
//! schema-version check, the views kept in `reports/` and the compiled-in queries.
//!
//! Nothing here knows a domain: each domain's repository type runs its own statements from
//! [`queries`] over a connection this module opened. Every connection to a database file is
//! opened here, by one of [`open_write`], [`open_read`] and [`open_hook`].

mod fsutil;
mod functions;
mod pool;
mod schema;
#[cfg(test)]
mod typed_queries;

pub(crate) use fsutil::{create_private_dir, create_private_file};
pub(crate) use pool::{open_read_pool, PooledConnection, ReadPool};
pub(crate) use schema::{applied_migrations, in_memory, AppliedMigration, MigrationReport};

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The named statements under `queries/`, compiled in by build.rs.
pub(crate) mod queries {
    include!(concat!(env!("OUT_DIR"), "/queries.rs"));
}

/// The views under `reports/`, compiled in by build.rs.
pub(crate) mod reports {
    include!(concat!(env!("OUT_DIR"), "/reports.rs"));
}

mod versions {
    include!(concat!(env!("OUT_DIR"), "/schema_versions.rs"));
}

/// Rows a prune dropped (or would drop) from one table. Each domain's repository type prunes its
/// own tables and reports them in this form; `tlc obs prune` prints them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct PruneCount {
    pub table: &'static str,
    pub rows: i64,
}

/// How long a connection waits for another writer before giving up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_millis(5000);
/// How long a hook waits for another process holding the database: well inside a hook's budget.
/// What it could not write then is kept for the next hook (see `hook::pending`).
pub(crate) const HOOK_BUSY_TIMEOUT: Duration = Duration::from_millis(500);

/// Which of the two databases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbKind {
    /// `<repo>/.tlc/harness/state/tlc.db`
    Project,
    /// `$TLC_HOME/state/tlc.db`
    Home,
}

impl DbKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            DbKind::Project => "project",
            DbKind::Home => "home",
        }
    }

    /// The newest migration this binary carries.
    pub(crate) fn latest_version(self) -> u32 {
        match self {
            DbKind::Project => versions::PROJECT_LATEST,
            DbKind::Home => versions::HOME_LATEST,
        }
    }

    /// The views this binary keeps in the database: (name, CREATE VIEW statement).
    pub(crate) fn views(self) -> &'static [(&'static str, &'static str)] {
        match self {
            DbKind::Project => reports::PROJECT,
            DbKind::Home => reports::HOME,
        }
    }

    fn views_fingerprint(self) -> u64 {
        match self {
            DbKind::Project => reports::PROJECT_FINGERPRINT,
            DbKind::Home => reports::HOME_FINGERPRINT,
        }
    }

    /// The `user_version` a database fully in step with this binary carries: the schema version
    /// times a million plus six digits of the views' fingerprint. The hook path compares this one
    /// integer and runs the migrator only when it differs.
    pub(crate) fn expected_user_version(self) -> i64 {
        i64::from(self.latest_version()) * 1_000_000 + (self.views_fingerprint() % 1_000_000) as i64
    }
}

/// Everything that can go wrong opening a database; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file is not an SQLite database SQLite can read.
    #[error("{path}: not a usable SQLite database ({detail}); it was left as it is")]
    NotADatabase {
        /// The database file.
        path: PathBuf,
        /// SQLite's words.
        detail: String,
    },
    /// A schema newer than this binary's: written by a later tlc.
    #[error("{path}: schema version {found} is newer than this tlc knows (version {known}); upgrade tlc — the database was not written")]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: u32,
        /// The newest this binary knows.
        known: u32,
    },
    /// A schema older than this binary's, or views that are not its own: `tlc db migrate`.
    #[error("{path}: {}; run `tlc db migrate`", if found == known {
        format!("its views are not this tlc's (schema version {found})")
    } else {
        format!("schema version {found} is older than this tlc (version {known})")
    })]
    NeedsMigration {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: u32,
        /// This binary's.
        known: u32,
    },
    /// The database path (or its `-wal`, `-shm` or `-journal`) is a symlink, a FIFO, a folder, a
    /// device: never opened, so nothing is written through it.
    #[error("{path}: {what}, not a regular file: tlc opens its database only as a regular file in place (never through a link); it was left as it is")]
    NotRegular {
        /// The file refused.
        path: PathBuf,
        /// What it is instead ("a symlink").
        what: &'static str,
    },
    /// An SQLite file that tlc did not make: tables, but no tlc migration history.
    #[error("{path}: not a tlc database (it holds {tables} but no tlc migration history); it was left as it is")]
    Foreign {
        /// The database file.
        path: PathBuf,
        /// The tables it holds, named.
        tables: String,
    },
    /// No space left on the device (SQLite's "disk full", or an I/O error on a full disk).
    #[error("{path}: disk full: {cause}")]
    DiskFull {
        /// The database file.
        path: PathBuf,
        /// SQLite's words.
        cause: String,
    },
    /// The database or its folder could not be created, or the folder not locked for a migration.
    #[error("{path}: cannot create: {cause}")]
    Create {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// The migrations could not run: WAL mode refused, or a migration failed.
    #[error("{path}: migration failed: {detail}")]
    Migration {
        /// The database file.
        path: PathBuf,
        /// What went wrong.
        detail: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Any other SQLite error.
    #[error("{path}: {cause}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The error.
        cause: rusqlite::Error,
    },
    /// No pooled connection came free, or none could be opened ([`open_read_pool`]).
    #[error("{path}: no read connection: {cause}")]
    Pool {
        /// The database file.
        path: PathBuf,
        /// Why.
        cause: String,
    },
}

impl StoreError {
    /// An SQLite error on the database at `path`, named for what it is: not a database, a full
    /// disk (SQLite reports some of those as a plain "disk I/O error"), a refused symlink.
    pub(crate) fn sqlite(path: &Path, source: rusqlite::Error) -> StoreError {
        if is_not_a_database(&source) {
            return StoreError::NotADatabase {
                path: path.to_path_buf(),
                detail: source.to_string(),
            };
        }
        if let rusqlite::Error::SqliteFailure(f, _) = &source {
            if f.extended_code == rusqlite::ffi::SQLITE_CANTOPEN_SYMLINK {
                return StoreError::NotRegular {
                    path: path.to_path_buf(),
                    what: "reached through a symbolic link",
                };
            }
            let disk_full = match f.code {
                rusqlite::ErrorCode::DiskFull => true,
                rusqlite::ErrorCode::SystemIoFailure | rusqlite::ErrorCode::CannotOpen => fsutil::no_space_left(path),
                _ => false,
            };
            if disk_full {
                return StoreError::DiskFull {
                    path: path.to_path_buf(),
                    cause: source.to_string(),
                };
            }
        }
        StoreError::Sqlite {
            path: path.to_path_buf(),
            cause: source,
        }
    }

    /// True when another writer held the database past the busy timeout.
    pub(crate) fn is_busy(&self) -> bool {
        matches!(self, StoreError::Sqlite { cause: rusqlite::Error::SqliteFailure(e, _), .. }
            if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
    }
}

fn is_not_a_database(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase)
}

/// The pragmas every read-write connection runs.
///
/// Checkpoint-on-close stays on: every hook is its own process, so each is the last connection
/// to close. Without that checkpoint the next process would find the shared-memory index gone
/// and rebuild it by reading the whole WAL, which then never restarts and grows without bound.
fn init_write(conn: &mut Connection, busy: Duration) -> rusqlite::Result<()> {
    conn.busy_timeout(busy)?;
    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")
}

/// The pragmas of a connection that must never write.
fn init_read(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA query_only = ON;")
}

/// An open database: one connection that ran the store's pragmas, the file it is, and what the
/// migrator did on the way in.
///
/// There are three ways to get one, each named for its use: [`open_write`] (creates and migrates),
/// [`open_read`] (never creates, refuses a schema that is not this binary's) and, for the hook
/// alone, [`open_hook`] (a bare connection with the hook's close behaviour). A command that needs
/// two connections to one database at the same time opens the second the same way; only the
/// transcript import does (its checkpointing thread, see `cost::import`). No connection pool is
/// kept: no command shares connections between threads.
///
/// Repository types (`EventStore`, `UsageWriter`, `GateStore`, …) borrow [`Store::conn`]; they
/// never own a connection.
pub struct Store {
    kind: DbKind,
    path: PathBuf,
    conn: Connection,
    migration: MigrationReport,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("kind", &self.kind).field("path", &self.path).finish()
    }
}

impl Store {
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The connection, for the domains' repository types to borrow.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// The connection for a transaction of the caller's own.
    pub fn conn_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// What [`open_write`] applied on the way in (nothing for [`open_read`]).
    pub(crate) fn migration(&self) -> &MigrationReport {
        &self.migration
    }

    /// Reclaims the space of deleted rows (after a prune).
    pub(crate) fn vacuum(&self) -> Result<(), StoreError> {
        self.conn.execute_batch("VACUUM").map_err(|e| StoreError::sqlite(&self.path, e))
    }

    /// Copies what the WAL holds into the database file without waiting for readers or writers
    /// (a checkpoint that cannot finish now is left to a later one).
    pub(crate) fn checkpoint_passive(&self) -> Result<(), StoreError> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .map_err(|e| StoreError::sqlite(&self.path, e))
    }
}

/// Opens `path` for writing: creates the file (0600, in a 0700 folder) when missing, sets WAL,
/// and migrates it when its schema or views are behind this binary. Refuses a newer schema
/// without writing. For every command that writes.
pub fn open_write(kind: DbKind, path: &Path) -> Result<Store, StoreError> {
    let (conn, migration) = open_and_migrate(kind, path, BUSY_TIMEOUT)?;
    functions::register(&conn).map_err(|e| StoreError::sqlite(path, e))?;
    Ok(Store {
        kind,
        path: path.to_path_buf(),
        conn,
        migration,
    })
}

/// Opens an existing database for reading only; `None` when there is no file. Creates nothing,
/// writes nothing, and refuses a schema that is not this binary's ([`StoreError::TooNew`],
/// [`StoreError::NeedsMigration`]). For every command that only reads.
pub fn open_read(kind: DbKind, path: &Path) -> Result<Option<Store>, StoreError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    refuse_irregular(path)?;
    // A WAL that other processes left is left as it is: closing a reader must not
    // checkpoint and delete it. With no WAL yet, the default close removes what opening made.
    let wal_present = wal_path(path).exists();
    let conn = open_read_connection(path)?;
    if wal_present {
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(|e| StoreError::sqlite(path, e))?;
    }
    check_readable(kind, path, &conn)?;
    Ok(Some(Store {
        kind,
        path: path.to_path_buf(),
        conn,
        migration: MigrationReport::default(),
    }))
}

/// Opens one read-write connection to `path`, creating and migrating the database as needed:
/// one cheap `user_version` read when the schema is current.
fn open_and_migrate(kind: DbKind, path: &Path, busy: Duration) -> Result<(Connection, MigrationReport), StoreError> {
    let created = std::fs::symlink_metadata(path).is_err();
    if created {
        if let Some(dir) = path.parent() {
            create_private_dir(dir).map_err(|source| StoreError::Create {
                path: dir.to_path_buf(),
                cause: source,
            })?;
        }
        create_private_file(path).map_err(|source| StoreError::Create {
            path: path.to_path_buf(),
            cause: source,
        })?;
        if kind == DbKind::Project {
            if let Some(dir) = path.parent() {
                ignore_state_dir(dir);
            }
        }
    }
    refuse_irregular(path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let mut conn = Connection::open_with_flags(in_place(path), flags).map_err(|e| StoreError::sqlite(path, e))?;
    init_write(&mut conn, busy).map_err(|e| StoreError::sqlite(path, e))?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| StoreError::sqlite(path, e))?;
    if version == kind.expected_user_version() {
        return Ok((conn, MigrationReport::default()));
    }
    let found = (version / 1_000_000) as u32;
    if found > kind.latest_version() {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found,
            known: kind.latest_version(),
        });
    }
    let report = schema::migrate_locked(kind, path, &mut conn)?;
    Ok((conn, report))
}

/// Writes `.gitignore` (`*`) into the project state folder, so its databases and reports are
/// never untracked changes of the repository. Best effort: a folder that refuses it only makes
/// them visible to git, and the changed-files function leaves them out anyway.
fn ignore_state_dir(dir: &Path) {
    let file = dir.join(".gitignore");
    if file.symlink_metadata().is_err() {
        if let Ok(mut f) = crate::fswrite::create_new(&file, 0o644) {
            let _ = std::io::Write::write_all(&mut f, b"*\n");
        }
    }
}

/// WAL pages after the last commit on a hook connection (see [`open_hook`]).
static HOOK_WAL_PAGES: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// A hook connection truncates the WAL once it holds this many pages (frames).
///
/// Every hook process is the only connection open, so SQLite rebuilds the WAL index from the whole
/// log it finds: reading and checksumming every frame (about 2-3 µs a frame on the development
/// machines). A truncating checkpoint costs its two fsyncs (10-25 ms there) whatever the log's
/// length. A PostToolUse hook adds about 7 frames, so at 128 a typical hook rebuilds from ~64
/// frames (~0.15 ms) and one hook in ~18 checkpoints; at 64 the checkpoint came every ~9 hooks,
/// twice the fsyncs for 0.08 ms less rebuild (`cargo bench --bench hook`, docs/ARCHITECTURE.md).
pub const HOOK_WAL_LIMIT_PAGES: i32 = 128;

/// Opens the database for one short-lived hook process: like [`open_write`] (created and
/// migrated when needed, one `user_version` read when current), as a bare connection.
///
/// Every hook is its own process, so each would be the last connection to close, and the
/// default close checkpoints the WAL, fsyncs, and deletes the WAL and shared-memory files — file
/// creation and deletion on every tool call, which on some disks costs more than all the rest of
/// the hook. Here the close leaves the WAL in place; [`checkpoint_if_large`] truncates it once it
/// has grown past [`HOOK_WAL_LIMIT_PAGES`], so the next process rebuilds its index from a short log.
pub fn open_hook(kind: DbKind, path: &Path) -> Result<Connection, StoreError> {
    let (conn, _) = open_and_migrate(kind, path, HOOK_BUSY_TIMEOUT)?;
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
        .map_err(|e| StoreError::sqlite(path, e))?;
    conn.wal_hook(Some(|_, pages| {
        HOOK_WAL_PAGES.store(pages, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }));
    Ok(conn)
}

/// After a commit on a hook connection: checkpoints and truncates the WAL when it has grown past
/// its limit. Best effort: a checkpoint blocked by a reader is left for a later hook.
pub(crate) fn checkpoint_if_large(conn: &Connection) {
    if HOOK_WAL_PAGES.load(std::sync::atomic::Ordering::Relaxed) >= HOOK_WAL_LIMIT_PAGES {
        // Never wait here: a truncating checkpoint that waited for readers would hold the write
        // lock meanwhile and stall every other hook. Busy now means a later hook does it.
        let _ = conn.busy_timeout(std::time::Duration::ZERO);
        let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }
}

/// Ends a hook connection by leaving it to the process exit, which is only moments away.
///
/// Its transaction is committed and, with checkpoint-on-close off, closing would leave the WAL
/// and the shared-memory file exactly as the exit does: it would only free the parsed schema
/// and the cached statements and unmap the index, about 0.05 ms of a hook's budget. The exit
/// releases the file locks and the mappings; no data is held in memory. Crate-private: only
/// `tlc hook`'s own process may use it (`hook::run_in_exiting_process`).
pub(crate) fn leave_open_until_exit(conn: Connection) {
    std::mem::forget(conn);
}

fn wal_path(db: &Path) -> PathBuf {
    sibling(db, "-wal")
}

fn sibling(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// Refuses a database whose file, or whose `-wal`, `-shm` or `-journal`, exists as anything
/// but a regular file: a symlink would have SQLite migrate and write a foreign file (it resolves
/// links before it opens), a FIFO or a device would hang or feed it. Four `lstat`s.
fn refuse_irregular(db: &Path) -> Result<(), StoreError> {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let file = sibling(db, suffix);
        if let Ok(meta) = std::fs::symlink_metadata(&file) {
            if !meta.is_file() {
                return Err(StoreError::NotRegular {
                    what: crate::fsread::describe(meta.file_type()),
                    path: file,
                });
            }
        }
    }
    Ok(())
}

/// The path SQLite is given: the database's folder with its links resolved, and the file's own
/// name. With `SQLITE_OPEN_NOFOLLOW` SQLite refuses a link anywhere in the path it is given; the
/// folders above the database (a home reached through a symlink) may be links, the file may not.
/// (The containment of `.tlc` inside the repository is `paths::escape_from`'s.)
fn in_place(db: &Path) -> PathBuf {
    match (db.parent().and_then(resolved_dir), db.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => db.to_path_buf(),
    }
}

/// `dir` with its links resolved. On Linux, as the kernel names a descriptor of it opened with
/// `O_PATH | O_DIRECTORY` (`/proc/self/fd/<n>`: three system calls, and nothing but a folder is
/// opened, so a FIFO planted there cannot block); else, or when that fails, `canonicalize` (a
/// `readlink` and an `lstat` for every component: about a dozen calls for a project database, on
/// every hook).
fn resolved_dir(dir: &Path) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::OpenOptionsExt;
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
            .open(dir);
        if let Ok(f) = opened {
            let named = std::fs::read_link(format!("/proc/self/fd/{}", f.as_raw_fd())).ok();
            // A removed folder reads "<path> (deleted)": left to `canonicalize`, which fails.
            let deleted = |p: &PathBuf| p.as_os_str().as_encoded_bytes().ends_with(b" (deleted)");
            if let Some(p) = named.filter(|p| p.is_absolute() && !deleted(p)) {
                return Some(p);
            }
        }
    }
    std::fs::canonicalize(dir).ok()
}

/// Opens an existing file for reading without creating anything next to it (and without looking
/// at its schema: `db status` and `db check` read any version).
fn open_read_connection(path: &Path) -> Result<Connection, StoreError> {
    refuse_irregular(path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let mut conn = Connection::open_with_flags(in_place(path), flags).map_err(|e| StoreError::sqlite(path, e))?;
    init_read(&mut conn).map_err(|e| StoreError::sqlite(path, e))?;
    functions::register(&conn).map_err(|e| StoreError::sqlite(path, e))?;
    Ok(conn)
}

fn check_readable(kind: DbKind, path: &Path, conn: &Connection) -> Result<(), StoreError> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| StoreError::sqlite(path, e))?;
    if version == kind.expected_user_version() {
        return Ok(());
    }
    if let Some(tables) = schema::foreign_tables(conn).map_err(|e| StoreError::sqlite(path, e))? {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            tables,
        });
    }
    let recorded = schema::applied_version(conn).map_err(|e| StoreError::sqlite(path, e))?;
    // `user_version` alone may say newer (a newer tlc that failed half-way, an edit by hand).
    let found = recorded.max(u32::try_from(version / 1_000_000).unwrap_or(u32::MAX));
    if found > kind.latest_version() {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found,
            known: kind.latest_version(),
        });
    }
    Err(StoreError::NeedsMigration {
        path: path.to_path_buf(),
        found: recorded,
        known: kind.latest_version(),
    })
}

/// What `tlc db status` shows of one database, read without writing.
#[derive(Debug, serde::Serialize)]
pub(crate) struct DbStatus {
    pub database: &'static str,
    pub path: String,
    pub exists: bool,
    pub schema_version: Option<u32>,
    pub binary_schema_version: u32,
    pub applied_migrations: Vec<AppliedMigration>,
    pub size_bytes: Option<u64>,
    pub journal_mode: Option<String>,
    pub error: Option<String>,
    /// What is wrong with its schema (see `db check`): a foreign file, a newer history or
    /// `user_version`, a missing table.
    pub problems: Vec<String>,
}

/// Reads the status of the database at `path` without creating or writing anything.
pub(crate) fn status(kind: DbKind, path: &Path) -> DbStatus {
    let mut st = DbStatus {
        database: kind.name(),
        path: path.display().to_string(),
        exists: path.is_file(),
        schema_version: None,
        binary_schema_version: kind.latest_version(),
        applied_migrations: Vec::new(),
        size_bytes: None,
        journal_mode: None,
        error: None,
        problems: Vec::new(),
    };
    if std::fs::symlink_metadata(path).is_ok() && !st.exists {
        // A link, a FIFO, a folder: named, never opened.
        st.exists = true;
        st.error = refuse_irregular(path).err().map(|e| e.to_string());
        return st;
    }
    if !st.exists {
        return st;
    }
    st.size_bytes = std::fs::metadata(path).ok().map(|m| m.len());
    let read = || -> Result<(u32, Vec<AppliedMigration>, String, Vec<String>), StoreError> {
        let conn = open_read_connection(path)?;
        let applied = applied_migrations(&conn).map_err(|e| StoreError::sqlite(path, e))?;
        let version = applied.iter().map(|m| m.version).max().unwrap_or(0);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(|e| StoreError::sqlite(path, e))?;
        let problems = schema::problems(kind, &conn).map_err(|e| StoreError::sqlite(path, e))?;
        Ok((version, applied, mode, problems))
    };
    match read() {
        Ok((version, applied, mode, problems)) => {
            st.schema_version = Some(version);
            st.applied_migrations = applied;
            st.journal_mode = Some(mode);
            st.problems = problems;
        }
        Err(e) => st.error = Some(e.to_string()),
    }
    st
}

/// The outcome of `PRAGMA integrity_check` and `PRAGMA foreign_key_check` on one database.
#[derive(Debug, serde::Serialize)]
pub(crate) struct CheckReport {
    pub database: &'static str,
    pub path: String,
    pub exists: bool,
    pub integrity: Vec<String>,
    pub foreign_key_faults: Vec<String>,
    /// What is wrong with the schema (see [`DbStatus::problems`]).
    pub schema: Vec<String>,
    pub ok: bool,
}

/// Runs the integrity and foreign-key checks without writing.
pub(crate) fn check(kind: DbKind, path: &Path) -> Result<CheckReport, StoreError> {
    let mut report = CheckReport {
        database: kind.name(),
        path: path.display().to_string(),
        exists: path.is_file(),
        integrity: Vec::new(),
        foreign_key_faults: Vec::new(),
        schema: Vec::new(),
        ok: true,
    };
    if !report.exists {
        if std::fs::symlink_metadata(path).is_ok() {
            refuse_irregular(path)?;
        }
        return Ok(report);
    }
    let conn = open_read_connection(path)?;
    let sq = |e| StoreError::sqlite(path, e);
    let mut stmt = conn.prepare("PRAGMA integrity_check").map_err(sq)?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(sq)?;
    for r in rows {
        report.integrity.push(r.map_err(sq)?);
    }
    let mut stmt = conn.prepare("PRAGMA foreign_key_check").map_err(sq)?;
    let rows = stmt
        .query_map([], |r| {
            let table: String = r.get(0)?;
            let rowid: Option<i64> = r.get(1)?;
            let parent: String = r.get(2)?;
            Ok(format!(
                "{table} row {} references a missing {parent} row",
                rowid.map_or("?".into(), |v| v.to_string())
            ))
        })
        .map_err(sq)?;
    for r in rows {
        report.foreign_key_faults.push(r.map_err(sq)?);
    }
    report.schema = schema::problems(kind, &conn).map_err(sq)?;
    report.ok = report.integrity == ["ok"] && report.foreign_key_faults.is_empty() && report.schema.is_empty();
    Ok(report)
}

#[cfg(test)]
mod tests;
