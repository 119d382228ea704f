//! The operator state in the project database (`state` table): the posture `tlc mode` set and
//! whether `tlc pause` paused the stop checks. [`OperatorState`] is the table's only reader and
//! writer, with one typed accessor per key.

use crate::clock;
use crate::policy::Posture;
use crate::store::queries::project::policy as q;
use rusqlite::{params, Connection, OptionalExtension};

/// The `state` keys. Private: callers use the typed accessors.
const MODE: &str = "mode";
const PAUSED: &str = "paused";

/// The repository of the operator state, borrowing a project-database connection.
pub(crate) struct OperatorState<'c> {
    conn: &'c Connection,
}

impl<'c> OperatorState<'c> {
    pub(crate) fn new(conn: &'c Connection) -> OperatorState<'c> {
        OperatorState { conn }
    }

    fn get(&self, key: &str) -> rusqlite::Result<Option<String>> {
        self.conn.prepare_cached(q::STATE_GET)?.query_row([key], |r| r.get(0)).optional()
    }

    fn set(&self, key: &str, value: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::STATE_SET)?
            .execute(params![key, value, clock::now_stamp()])?;
        Ok(())
    }

    /// The word `tlc mode` stored, as stored: it may not be a posture (a hand edit), which
    /// [`super::resolve_posture`] refuses and reports.
    pub(crate) fn mode(&self) -> rusqlite::Result<Option<String>> {
        self.get(MODE)
    }

    pub(crate) fn set_mode(&self, posture: Posture) -> rusqlite::Result<()> {
        self.set(MODE, posture.as_str())
    }

    /// Whether the stop checks are paused.
    pub(crate) fn paused(&self) -> rusqlite::Result<bool> {
        Ok(self.get(PAUSED)?.is_some_and(|v| v == "true"))
    }

    pub(crate) fn set_paused(&self, paused: bool) -> rusqlite::Result<()> {
        if paused {
            self.set(PAUSED, "true")
        } else {
            self.conn.prepare_cached(q::STATE_DELETE)?.execute([PAUSED])?;
            Ok(())
        }
    }
}
