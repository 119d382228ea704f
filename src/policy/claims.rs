//! Edit collision (always on): a `file_claims` row per file edit; a second live session about to
//! edit a path another one edited within [`COLLISION_WINDOW_MINUTES`] is asked first. Reads claim
//! nothing. The same rows tell the stall rail whether a file was edited between two commands.

use crate::decision::{Decision, Permission};
use crate::store::queries::project::policy as q;
use crate::store::PruneCount;
use rusqlite::{params, Connection};

pub(crate) const EDIT_COLLISION: &str = "edit-collision";
pub(crate) const COLLISION_WINDOW_MINUTES: i64 = 10;

/// Another session's recent edit of the same path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Collision {
    pub provider: String,
    pub session_id: String,
    pub at: String,
}

/// The repository of file claims and the session's recent shell commands.
pub(crate) struct ClaimStore<'c> {
    conn: &'c Connection,
}

impl<'c> ClaimStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> ClaimStore<'c> {
        ClaimStore { conn }
    }

    pub(crate) fn claim(
        &self,
        event_id: Option<i64>,
        ts: &str,
        provider: &str,
        session: &str,
        path: &str,
        tool: Option<&str>,
    ) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::CLAIM_INSERT)?
            .execute(params![event_id, ts, provider, session, path, tool])?;
        Ok(())
    }

    /// Live sessions other than (`provider`, `session`) that edited `path` at or after `since`.
    pub(crate) fn collisions(&self, path: &str, provider: &str, session: &str, since: &str) -> rusqlite::Result<Vec<Collision>> {
        let mut st = self.conn.prepare_cached(q::CLAIM_COLLISIONS)?;
        let rows = st.query_map(params![path, provider, session, since], |r| {
            Ok(Collision {
                provider: r.get(0)?,
                session_id: r.get(1)?,
                at: r.get(2)?,
            })
        })?;
        rows.collect()
    }

    /// Whether the session edited any file after event `after`.
    pub(crate) fn edited_after(&self, provider: &str, session: &str, after: i64) -> rusqlite::Result<bool> {
        let n: i64 = self
            .conn
            .prepare_cached(q::CLAIM_EDITS_AFTER)?
            .query_row(params![provider, session, after], |r| r.get(0))?;
        Ok(n > 0)
    }

    /// How many claims [`ClaimStore::prune`] would drop at `cutoff` (a stamp).
    pub(crate) fn count_prunable(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::CLAIM_PRUNE_COUNT)?.query_row([cutoff], |r| r.get(0))?;
        Ok(PruneCount {
            table: "file_claims",
            rows,
        })
    }

    /// Drops the claims made before `cutoff` (the caller holds the transaction).
    pub(crate) fn prune(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::CLAIM_PRUNE)?.execute([cutoff])? as i64;
        Ok(PruneCount {
            table: "file_claims",
            rows,
        })
    }

    /// The session's last `n` shell commands (event id, command), newest first.
    pub(crate) fn recent_shell(&self, provider: &str, session: &str, n: i64) -> rusqlite::Result<Vec<(i64, String)>> {
        let mut st = self.conn.prepare_cached(q::SHELL_RECENT)?;
        let rows = st.query_map(params![provider, session, n], |r| {
            Ok((r.get(0)?, r.get::<_, Option<String>>(1)?.unwrap_or_default()))
        })?;
        rows.collect()
    }
}

/// The ask an edit collision produces.
pub(crate) fn collision_decision(path: &str, others: &[Collision]) -> Option<Decision> {
    let first = others.first()?;
    Some(Decision {
        permission: Permission::Ask,
        rule: EDIT_COLLISION.to_string(),
        reason: Some(format!(
            "Another live session ({} {}) edited {path} at {} — within the last {COLLISION_WINDOW_MINUTES} minutes. Two agents editing one file overwrite each other's work; confirm this edit.\nrule={EDIT_COLLISION}",
            first.provider, first.session_id, first.at
        )),
        user_note: Some(format!("tlc edit-collision: {path} was edited by another live session")),
        follow_up: None,
        context: None,
    })
}
