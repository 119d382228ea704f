//! Proofs: only what tlc observed, each stamped with the HEAD read when it was observed
//! ([`ProofStore`], the one writer of `rule_proofs`) — a subagent of a declared type finishing, a
//! shell command that ran and did not fail, one of tlc's gates passing, a file a write tool wrote.
//! The agent cannot write one: the table is under the project's state folder, which the floor
//! refuses it.
//!
//! A requirement holds when a matching proof falls in its window: `since HEAD`, stamped with the
//! HEAD read now (never in a project with no git checkout); `since session`, observed in the same
//! session. When none does, [`Why`] says whether nothing of that kind and value was ever observed
//! here, or it was, outside the window.

use super::parse::{ProofKind, Requirement, Since, Spec};
use crate::store::queries::project::policy as q;
use crate::store::PruneCount;
use rusqlite::{params, Connection};
use std::fmt;
use std::path::Path;

/// Rows read per look-up (newest first): the store filters by kind and a text every match
/// contains; the exact match is made here.
const CANDIDATES: i64 = 500;

/// The one writer of `rule_proofs`.
pub(crate) struct ProofStore<'c> {
    conn: &'c Connection,
}

/// One proof as stored: its value and where and when it was observed.
#[derive(Debug, Clone)]
struct Observed {
    value: String,
}

impl<'c> ProofStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> ProofStore<'c> {
        ProofStore { conn }
    }

    /// Records one observation. `head` is the stored form of HEAD (`gate::changes::Head::stored`),
    /// `None` outside a git checkout.
    pub(crate) fn stamp(
        &self,
        at: &str,
        provider: &str,
        session: Option<&str>,
        kind: ProofKind,
        value: &str,
        head: Option<&str>,
    ) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(q::RULE_PROOF_INSERT)?
            .execute(params![at, provider, session, kind.as_str(), value, head])?;
        Ok(())
    }

    fn read(&self, sql: &str, p: &[&dyn rusqlite::ToSql]) -> rusqlite::Result<Vec<Observed>> {
        let mut st = self.conn.prepare_cached(sql)?;
        let rows = st.query_map(p, |r| Ok(Observed { value: r.get(0)? }))?;
        rows.collect()
    }

    fn in_session(&self, r: &Requirement, provider: &str, session: &str) -> rusqlite::Result<bool> {
        let rows = self.read(
            q::RULE_PROOFS_IN_SESSION,
            params![r.kind.as_str(), r.needle(), provider, session, CANDIDATES],
        )?;
        Ok(rows.iter().any(|o| r.matches(&o.value)))
    }

    fn at_head(&self, r: &Requirement, head: &str) -> rusqlite::Result<bool> {
        let rows = self.read(q::RULE_PROOFS_AT_HEAD, params![r.kind.as_str(), r.needle(), head, CANDIDATES])?;
        Ok(rows.iter().any(|o| r.matches(&o.value)))
    }

    fn anywhere(&self, r: &Requirement) -> rusqlite::Result<bool> {
        let rows = self.read(q::RULE_PROOFS_ANY, params![r.kind.as_str(), r.needle(), CANDIDATES])?;
        Ok(rows.iter().any(|o| r.matches(&o.value)))
    }

    /// Why `r` does not hold in `scope`, or `None` when it does.
    pub(crate) fn check(&self, r: &Requirement, scope: &Scope<'_>) -> rusqlite::Result<Option<Why>> {
        match r.since {
            Since::Session => {
                let Some(session) = scope.session else {
                    return Ok(Some(Why::NoSession));
                };
                if self.in_session(r, scope.provider, session)? {
                    return Ok(None);
                }
                Ok(Some(if self.anywhere(r)? { Why::DifferentSession } else { Why::Never }))
            }
            Since::Head => {
                if !scope.in_git {
                    return Ok(Some(Why::NotGit { ran: self.anywhere(r)? }));
                }
                let Some(head) = scope.head else {
                    return Ok(Some(Why::NoHead { ran: self.anywhere(r)? }));
                };
                if self.at_head(r, head)? {
                    return Ok(None);
                }
                Ok(Some(if self.anywhere(r)? { Why::DifferentCommit } else { Why::Never }))
            }
        }
    }

    /// Every requirement of `spec` that does not hold in `scope`, in the rule's order.
    pub(crate) fn missing(&self, spec: &Spec, scope: &Scope<'_>) -> rusqlite::Result<Vec<Miss>> {
        let mut out = Vec::new();
        for r in &spec.require {
            if let Some(why) = self.check(r, scope)? {
                out.push(Miss {
                    requirement: r.clone(),
                    why,
                });
            }
        }
        Ok(out)
    }

    pub(crate) fn count_prunable(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self
            .conn
            .prepare_cached(q::RULE_PROOF_PRUNE_COUNT)?
            .query_row([cutoff], |r| r.get(0))?;
        Ok(PruneCount {
            table: "rule_proofs",
            rows,
        })
    }

    /// Drops the proofs observed before `cutoff` (the caller holds the transaction).
    pub(crate) fn prune(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::RULE_PROOF_PRUNE)?.execute([cutoff])? as i64;
        Ok(PruneCount {
            table: "rule_proofs",
            rows,
        })
    }
}

/// Where a rule is checked: the project, the session asking, and HEAD as read now.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub root: &'a Path,
    pub provider: &'a str,
    pub session: Option<&'a str>,
    /// The stored form of HEAD (a commit, or `unborn`); `None` when it could not be read.
    pub head: Option<&'a str>,
    pub in_git: bool,
}

impl Scope<'_> {
    /// `— checked <root> at <sha or "no HEAD">`: where the proofs were looked for, so that a
    /// wrong resolution (a worktree instead of the checkout) shows before the proof logic does.
    pub(crate) fn checked(&self) -> String {
        let at = match self.head {
            Some(h) if h != "unborn" => h,
            _ => "no HEAD",
        };
        format!("— checked {} at {at}", self.root.display())
    }
}

/// Why a requirement does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// Nothing of that kind and value was ever observed here.
    Never,
    DifferentCommit,
    DifferentSession,
    /// `since HEAD` in a project with no git checkout; `ran`: the proof was observed all the same.
    NotGit {
        ran: bool,
    },
    /// `since HEAD` where HEAD could not be read from the repository's files.
    NoHead {
        ran: bool,
    },
    /// `since session` on an event that names no session.
    NoSession,
}

/// One requirement a fired rule is missing.
#[derive(Debug, Clone)]
pub(crate) struct Miss {
    pub requirement: Requirement,
    pub why: Why,
}

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "missing {}", self.requirement)?;
        let note = match self.why {
            Why::Never => return Ok(()),
            Why::DifferentCommit => "ran, but at a different commit",
            Why::DifferentSession => "ran, but in a different session",
            Why::NotGit { ran: true } => "ran, but this project is not a git checkout, so since HEAD can never be satisfied",
            Why::NotGit { ran: false } => "this project is not a git checkout, so since HEAD can never be satisfied",
            Why::NoHead { ran: true } => "ran, but HEAD could not be read from the repository's files, so since HEAD cannot be checked",
            Why::NoHead { ran: false } => "HEAD could not be read from the repository's files, so since HEAD cannot be checked",
            Why::NoSession => "this event names no session",
        };
        write!(f, " ({note})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::rules::parse::parse;

    fn db() -> (tempfile::TempDir, crate::store::Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(crate::store::DbKind::Project, &dir.path().join("t.db")).unwrap();
        (dir, store)
    }

    fn spec(require: &str) -> Spec {
        parse(&format!("---\non: commit\nrequire:\n  - {require}\notherwise: deny\n---\n"))
            .unwrap()
            .spec
            .unwrap()
    }

    #[test]
    fn a_proof_holds_only_inside_its_window_and_says_why_not() {
        let (_dir, db) = db();
        let st = ProofStore::new(db.conn());
        let root = Path::new("/repo");
        let scope = |session: &'static str, head: &'static str| Scope {
            root,
            provider: "claude",
            session: Some(session),
            head: Some(head),
            in_git: true,
        };
        let tests = spec("command(cargo test) since session");
        let miss = st.missing(&tests, &scope("s1", "aaa")).unwrap();
        assert_eq!(miss.len(), 1);
        assert_eq!(miss[0].to_string(), "missing command(cargo test) since session");
        st.stamp(
            "t",
            "claude",
            Some("s1"),
            ProofKind::Command,
            r#"[["?cd","x"],["cargo","test","--release"]]"#,
            Some("aaa"),
        )
        .unwrap();
        assert!(st.missing(&tests, &scope("s1", "bbb")).unwrap().is_empty());
        assert_eq!(
            st.missing(&tests, &scope("s2", "aaa")).unwrap()[0].to_string(),
            "missing command(cargo test) since session (ran, but in a different session)"
        );
        let head = spec("command(cargo test) since HEAD");
        assert!(st.missing(&head, &scope("s2", "aaa")).unwrap().is_empty());
        assert_eq!(st.missing(&head, &scope("s1", "bbb")).unwrap()[0].why, Why::DifferentCommit);
        let no_git = Scope {
            in_git: false,
            head: None,
            ..scope("s1", "aaa")
        };
        assert_eq!(st.missing(&head, &no_git).unwrap()[0].why, Why::NotGit { ran: true });
        assert_eq!(no_git.checked(), "— checked /repo at no HEAD");
        // A different command that merely contains the words is no proof.
        st.stamp(
            "t",
            "claude",
            Some("s3"),
            ProofKind::Command,
            r#"[["echo","cargo test"]]"#,
            Some("ccc"),
        )
        .unwrap();
        assert_eq!(st.missing(&tests, &scope("s3", "ccc")).unwrap()[0].why, Why::DifferentSession);
    }

    #[test]
    fn gates_subagents_and_files_match_exactly() {
        let (_dir, db) = db();
        let st = ProofStore::new(db.conn());
        let scope = Scope {
            root: Path::new("/r"),
            provider: "cursor",
            session: Some("s"),
            head: Some("h"),
            in_git: true,
        };
        st.stamp("t", "cursor", Some("s"), ProofKind::Gate, "test", Some("h")).unwrap();
        st.stamp("t", "cursor", Some("s"), ProofKind::Subagent, "the-jury-2", Some("h"))
            .unwrap();
        st.stamp("t", "cursor", Some("s"), ProofKind::File, "docs/policy.md", Some("h"))
            .unwrap();
        assert!(st.missing(&spec("gate(test) since HEAD"), &scope).unwrap().is_empty());
        assert_eq!(st.missing(&spec("gate(lint) since HEAD"), &scope).unwrap().len(), 1);
        assert_eq!(
            st.missing(&spec("subagent(the-jury) since HEAD"), &scope).unwrap()[0].why,
            Why::Never
        );
        assert!(st.missing(&spec("file(docs/) since session"), &scope).unwrap().is_empty());
        assert!(st.missing(&spec("file(*.md) since session"), &scope).unwrap().is_empty());
        assert_eq!(st.missing(&spec("file(src/) since session"), &scope).unwrap().len(), 1);
    }
}
