//! `AgentStore`: the home database's agent tables (stables' fetch state, pins, install records,
//! the resolution history, the references prune re-checks). Its methods are the only place
//! their SQL runs.

use crate::store::queries::home::agent as q;
use crate::store::{self, DbKind, StoreError};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;

/// The repository of the agent tables, borrowing a home-database connection (like every
/// repository type).
pub(crate) struct AgentStore<'c> {
    conn: &'c Connection,
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct StableState {
    pub name: String,
    pub remote: String,
    pub added_at: String,
    pub last_fetch: Option<String>,
    pub head: Option<String>,
    pub fetch_error: Option<String>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct PinRow {
    pub stable: String,
    pub package: String,
    pub sha: String,
    pub installed_at: String,
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct PinFileRow {
    pub path: String,
    pub sha256: String,
    pub size: i64,
}

/// One install, upgrade or rollback.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub(crate) struct InstallRecord {
    pub id: i64,
    pub ts: String,
    pub action: String,
    pub stable: String,
    pub package: String,
    pub harness_name: String,
    pub config_file: String,
    pub version_asked: Option<String>,
    pub sha: String,
    pub previous_sha: Option<String>,
    pub scan_version: String,
    pub findings: serde_json::Value,
    pub forced: bool,
    pub confirmations: serde_json::Value,
    pub defaults_written: serde_json::Value,
    pub defaults_skipped: serde_json::Value,
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct ResolutionRow {
    pub id: i64,
    pub ts: String,
    pub config_file: String,
    pub table_name: String,
    pub source: String,
    pub outcome: String,
    pub detail: Option<String>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Reference {
    pub config_file: String,
    pub table_name: String,
    pub source: String,
}

fn json_col(s: String) -> serde_json::Value {
    serde_json::from_str(&s).unwrap_or(serde_json::Value::String(s))
}

impl<'c> AgentStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> AgentStore<'c> {
        AgentStore { conn }
    }

    pub(crate) fn upsert_stable(&self, s: &StableState) -> rusqlite::Result<()> {
        self.conn.execute(
            q::STABLE_UPSERT,
            params![s.name, s.remote, s.added_at, s.last_fetch, s.head, s.fetch_error],
        )?;
        Ok(())
    }

    pub(crate) fn stables(&self) -> rusqlite::Result<Vec<StableState>> {
        let c = self.conn;
        let mut st = c.prepare(q::STABLE_LIST)?;
        let rows = st.query_map([], |r| {
            Ok(StableState {
                name: r.get(0)?,
                remote: r.get(1)?,
                added_at: r.get(2)?,
                last_fetch: r.get(3)?,
                head: r.get(4)?,
                fetch_error: r.get(5)?,
            })
        })?;
        rows.collect()
    }

    pub(crate) fn delete_stable(&self, name: &str) -> rusqlite::Result<()> {
        self.conn.execute(q::STABLE_DELETE, [name])?;
        Ok(())
    }

    /// Records a pin and each file's digest, in one transaction (a pin already recorded stays).
    pub(crate) fn record_pin(
        &self,
        stable: &str,
        package: &str,
        sha: &str,
        manifest: &str,
        files: &[(String, String, i64)],
    ) -> rusqlite::Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(q::PIN_INSERT, params![stable, package, sha, manifest, crate::clock::now_stamp()])?;
        for (path, digest, size) in files {
            tx.execute(q::PIN_FILE_INSERT, params![stable, package, sha, path, digest, size])?;
        }
        tx.commit()?;
        Ok(())
    }

    pub(crate) fn pins(&self) -> rusqlite::Result<Vec<PinRow>> {
        let c = self.conn;
        let mut st = c.prepare(q::PIN_LIST)?;
        let rows = st.query_map([], |r| {
            Ok(PinRow {
                stable: r.get(0)?,
                package: r.get(1)?,
                sha: r.get(2)?,
                installed_at: r.get(3)?,
            })
        })?;
        rows.collect()
    }

    pub(crate) fn pin_files(&self, stable: &str, package: &str, sha: &str) -> rusqlite::Result<Vec<PinFileRow>> {
        let c = self.conn;
        let mut st = c.prepare(q::PIN_FILES)?;
        let rows = st.query_map(params![stable, package, sha], |r| {
            Ok(PinFileRow {
                path: r.get(0)?,
                sha256: r.get(1)?,
                size: r.get(2)?,
            })
        })?;
        rows.collect()
    }

    pub(crate) fn delete_pin(&self, stable: &str, package: &str, sha: &str) -> rusqlite::Result<()> {
        self.conn.execute(q::PIN_DELETE, params![stable, package, sha])?;
        Ok(())
    }

    pub(crate) fn record_install(&self, r: &InstallRecord) -> rusqlite::Result<i64> {
        let c = self.conn;
        c.execute(
            q::INSTALL_INSERT,
            params![
                r.ts,
                r.action,
                r.stable,
                r.package,
                r.harness_name,
                r.config_file,
                r.version_asked,
                r.sha,
                r.previous_sha,
                r.scan_version,
                r.findings.to_string(),
                r.forced,
                r.confirmations.to_string(),
                r.defaults_written.to_string(),
                r.defaults_skipped.to_string()
            ],
        )?;
        Ok(c.last_insert_rowid())
    }

    pub(crate) fn installs(&self, name: Option<&str>) -> rusqlite::Result<Vec<InstallRecord>> {
        let c = self.conn;
        let mut st = c.prepare(q::INSTALL_LIST)?;
        let rows = st.query_map([name], |r| {
            Ok(InstallRecord {
                id: r.get(0)?,
                ts: r.get(1)?,
                action: r.get(2)?,
                stable: r.get(3)?,
                package: r.get(4)?,
                harness_name: r.get(5)?,
                config_file: r.get(6)?,
                version_asked: r.get(7)?,
                sha: r.get(8)?,
                previous_sha: r.get(9)?,
                scan_version: r.get(10)?,
                findings: json_col(r.get(11)?),
                forced: r.get(12)?,
                confirmations: json_col(r.get(13)?),
                defaults_written: json_col(r.get(14)?),
                defaults_skipped: json_col(r.get(15)?),
            })
        })?;
        rows.collect()
    }

    /// The defaults skipped at the last install of `name` into `config_file` (key -> the
    /// package's value then), so an upgrade does not offer them again unless they changed.
    pub(crate) fn last_skipped_defaults(
        &self,
        name: &str,
        config_file: &str,
    ) -> rusqlite::Result<serde_json::Map<String, serde_json::Value>> {
        let c = self.conn;
        let s: Option<String> = c.query_row(q::INSTALL_LAST, params![name, config_file], |r| r.get(0)).optional()?;
        Ok(s.and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default())
    }

    pub(crate) fn resolutions(&self, name: Option<&str>) -> rusqlite::Result<Vec<ResolutionRow>> {
        let c = self.conn;
        let mut st = c.prepare(q::RESOLUTION_LIST)?;
        let rows = st.query_map([name], |r| {
            Ok(ResolutionRow {
                id: r.get(0)?,
                ts: r.get(1)?,
                config_file: r.get(2)?,
                table_name: r.get(3)?,
                source: r.get(4)?,
                outcome: r.get(5)?,
                detail: r.get(6)?,
            })
        })?;
        rows.collect()
    }

    pub(crate) fn upsert_reference(&self, config_file: &str, table: &str, source: &str) -> rusqlite::Result<()> {
        upsert_reference(self.conn, config_file, table, source)
    }

    pub(crate) fn references(&self) -> rusqlite::Result<Vec<Reference>> {
        let c = self.conn;
        let mut st = c.prepare(q::REFERENCE_LIST)?;
        let rows = st.query_map([], |r| {
            Ok(Reference {
                config_file: r.get(0)?,
                table_name: r.get(1)?,
                source: r.get(2)?,
            })
        })?;
        rows.collect()
    }

    pub(crate) fn delete_reference(&self, config_file: &str, table: &str) -> rusqlite::Result<()> {
        self.conn.execute(q::REFERENCE_DELETE, params![config_file, table])?;
        Ok(())
    }
}

fn upsert_reference(c: &Connection, config_file: &str, table: &str, source: &str) -> rusqlite::Result<()> {
    c.execute(q::REFERENCE_UPSERT, params![config_file, table, source, crate::clock::now_stamp()])?;
    Ok(())
}

/// One resolution to append to the history.
pub(crate) struct ResolutionEvent {
    pub config_file: String,
    pub table_name: String,
    pub source: String,
    pub outcome: &'static str,
    pub detail: Option<String>,
}

impl AgentStore<'_> {
    /// Appends resolution rows and refreshes the references prune re-checks, in one transaction.
    pub(crate) fn append_resolutions(&self, events: &[ResolutionEvent]) -> rusqlite::Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        let ts = crate::clock::now_stamp();
        for e in events {
            tx.execute(
                q::RESOLUTION_INSERT,
                params![ts, e.config_file, e.table_name, e.source, e.outcome, e.detail],
            )?;
            upsert_reference(&tx, &e.config_file, &e.table_name, &e.source)?;
        }
        tx.commit()
    }
}

/// Appends resolution rows (and refreshes the references prune re-checks) — only when the home
/// database already exists and is in step with this binary: resolving config never creates or
/// migrates one.
pub(crate) fn append_resolutions(home_db: &Path, events: &[ResolutionEvent]) -> Result<(), StoreError> {
    if events.is_empty() || store::open_read(DbKind::Home, home_db)?.is_none() {
        return Ok(());
    }
    let home = store::open_write(DbKind::Home, home_db)?;
    AgentStore::new(home.conn())
        .append_resolutions(events)
        .map_err(|e| StoreError::sqlite(home_db, e))
}
