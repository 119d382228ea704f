//! Lessons: durable instructions carried back to the next turn. Project lessons live in the
//! project database, global ones in the home database; the id is a hash of the instruction, so
//! writing the same lesson again updates it instead of adding a near-duplicate.

use crate::clock;
use crate::store::DbKind;
use rusqlite::{params, Connection};

/// A lesson as stored.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Lesson {
    pub id: String,
    pub instruction: String,
    pub gate: Option<String>,
    pub tokens: Vec<String>,
    pub avoid: Option<String>,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub until: Option<String>,
    pub source: String,
    pub category: Option<String>,
    pub status: String,
    pub weight: f64,
    pub hits: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// What `lessons add` records.
#[derive(Debug, Clone, Default)]
pub struct NewLesson {
    pub instruction: String,
    pub gate: Option<String>,
    pub tokens: Vec<String>,
    pub avoid: Option<String>,
    pub reference: Option<String>,
    pub until: Option<String>,
    /// `manual` (written by the operator); older rows may say `agent-session`.
    pub category: String,
}

/// The id of a lesson: the first 16 hex digits of the SHA-256 of its instruction, whitespace
/// folded, so a re-typed lesson keeps its id.
pub fn lesson_id(instruction: &str) -> String {
    let folded = instruction.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::hashing::sha256_hex(folded.as_bytes())[..16].to_string()
}

/// Splits `a,b, c` into tokens, dropping empties and duplicates.
pub fn parse_tokens(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in s.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_string());
        }
    }
    out
}

/// The repository of lessons in one database: the only place their SQL runs.
pub struct LessonStore<'c> {
    conn: &'c Connection,
    kind: DbKind,
}

impl<'c> LessonStore<'c> {
    pub fn new(conn: &'c Connection, kind: DbKind) -> LessonStore<'c> {
        LessonStore { conn, kind }
    }

    /// Adds or updates the lesson; returns its id.
    pub fn add(&self, l: &NewLesson) -> rusqlite::Result<String> {
        let id = lesson_id(&l.instruction);
        let sql = match self.kind {
            DbKind::Project => crate::store::queries::project::lesson::UPSERT,
            DbKind::Home => crate::store::queries::home::lesson::UPSERT,
        };
        self.conn.prepare_cached(sql)?.execute(params![
            id,
            l.instruction.trim(),
            l.gate,
            serde_json::to_string(&l.tokens).unwrap_or_else(|_| "[]".into()),
            l.avoid,
            l.reference,
            l.until,
            "manual",
            l.category,
            clock::now_stamp()
        ])?;
        Ok(id)
    }

    pub fn list(&self) -> rusqlite::Result<Vec<Lesson>> {
        let sql = match self.kind {
            DbKind::Project => crate::store::queries::project::lesson::LIST,
            DbKind::Home => crate::store::queries::home::lesson::LIST,
        };
        let mut st = self.conn.prepare_cached(sql)?;
        let rows = st.query_map([], |r| {
            Ok(Lesson {
                id: r.get(0)?,
                instruction: r.get(1)?,
                gate: r.get(2)?,
                tokens: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or_default(),
                avoid: r.get(4)?,
                reference: r.get(5)?,
                until: r.get(6)?,
                source: r.get(7)?,
                category: r.get(8)?,
                status: r.get(9)?,
                weight: r.get(10)?,
                hits: r.get(11)?,
                created_at: r.get(12)?,
                updated_at: r.get(13)?,
            })
        })?;
        rows.collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_the_instruction_and_rewriting_updates() {
        assert_eq!(lesson_id("Re-run  the suite"), lesson_id(" Re-run the suite "));
        assert_ne!(lesson_id("a"), lesson_id("b"));
        assert_eq!(parse_tokens("a, b,,a ,c"), vec!["a", "b", "c"]);
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(DbKind::Home, &dir.path().join("h.db")).unwrap();
        let conn = store.conn();
        let st = LessonStore::new(conn, DbKind::Home);
        let mut l = NewLesson {
            instruction: "Grep for a producer.".into(),
            category: "manual".into(),
            ..Default::default()
        };
        let id = st.add(&l).unwrap();
        l.tokens = vec!["producer".into()];
        assert_eq!(st.add(&l).unwrap(), id);
        let all = st.list().unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].tokens, vec!["producer"]);
    }
}
