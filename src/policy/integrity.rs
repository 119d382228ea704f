//! Policy integrity: every source the policy is read from (the project config, the machine
//! config, the mode and pause states) is kept — its hash and its bytes — in a per-session
//! baseline when the session starts (or is first seen). If one changes during the session without
//! a tlc command behind it, the next acting tool call is denied naming the changed path; reads
//! still pass; and the session's stop checks run on the baselined bytes, so an edit nobody
//! accepted never switches a gate off in that session. A mutating tlc command re-records, for
//! live sessions, only the sources it changed itself (and only where the session had not already
//! diverged); `tlc policy accept <path>` records the current state of exactly the named sources.
//! There is no switch: a detector the detected change can disable is not a detector.

use super::OperatorState;
use crate::clock;
use crate::decision::Decision;
use crate::fault::Fault;
use crate::paths::Paths;
use crate::store::queries::project::policy as q;
use crate::store::PruneCount;
use rusqlite::{params, Connection};
use std::path::{Path, PathBuf};

/// The rule of a denial after a policy source changed under a session.
pub(crate) const RULE: &str = "policy-integrity";
/// The source name of the mode state set by `tlc mode` (it lives in the project database).
pub(crate) const MODE_STATE: &str = "mode-state";
/// The source name of the pause state set by `tlc pause` / `tlc resume`.
pub(crate) const PAUSE_STATE: &str = "pause-state";
/// The hash recorded for a source that does not exist.
pub(crate) const ABSENT: &str = "absent";
/// The source name of the checkout's `origin` URL (issue 53): the remote a rule scoped to "this
/// repository" means is the one baselined with the session's policy, and a changed origin is a
/// divergence like an edited config.
pub(crate) const ORIGIN_STATE: &str = "git-origin";

/// One policy source: its hash now, and its bytes (`None` when it is absent or unreadable).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Source {
    /// The file's path, or [`MODE_STATE`] / [`PAUSE_STATE`].
    pub name: String,
    pub hash: String,
    #[serde(skip)]
    pub content: Option<Vec<u8>>,
}

impl Source {
    fn of_state(name: &str, value: Option<&str>) -> Source {
        Source {
            name: name.to_string(),
            hash: value.map_or_else(|| ABSENT.to_string(), |m| crate::hashing::sha256_hex(m.as_bytes())),
            content: value.map(|v| v.as_bytes().to_vec()),
        }
    }
}

/// The operator state a session's policy includes: the mode and whether the stop checks are paused.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct States<'a> {
    pub mode: Option<&'a str>,
    pub paused: bool,
}

/// The policy sources of `paths` as they are now. The project config is left out when the
/// project root holds the runtime home (it is then the machine tier itself).
pub(crate) fn sources(paths: &Paths, states: States<'_>) -> Vec<Source> {
    let mut out = vec![file_source(&paths.machine_config())];
    if !paths.root_overlaps_home() {
        out.push(file_source(&paths.project_config()));
    }
    out.push(Source::of_state(MODE_STATE, states.mode));
    out.push(Source::of_state(PAUSE_STATE, states.paused.then_some("true")));
    if paths.in_git && !paths.root_overlaps_home() {
        let origin = crate::project::origin_url(&paths.root).ok().flatten();
        out.push(Source::of_state(ORIGIN_STATE, origin.as_deref()));
    }
    // Issue 51: the operator's rules are policy like the config: an edit made during a session is
    // not obeyed until accepted.
    out.push(folder_source(&super::rules::global_dir(paths)));
    if !paths.root_overlaps_home() {
        out.push(folder_source(&super::rules::project_dir(paths)));
    }
    out
}

/// A rule folder as a source: its rule files' names and text (`absent` when there is no folder).
fn folder_source(dir: &Path) -> Source {
    let (hash, content) = match super::rules::folder_text(dir) {
        None => (ABSENT.to_string(), None),
        Some(texts) => {
            let bytes = serde_json::to_vec(&texts).unwrap_or_default();
            (crate::hashing::sha256_hex(&bytes), Some(bytes))
        }
    };
    Source {
        name: dir.display().to_string(),
        hash,
        content,
    }
}

/// Whether a source is one of `paths`' rule folders.
fn is_rule_folder(paths: &Paths, name: &str) -> bool {
    [super::rules::global_dir(paths), super::rules::project_dir(paths)]
        .iter()
        .any(|d| d.display().to_string() == name)
}

/// A file read as the config loader reads it (`fsread`: a FIFO or a device is never read, so it
/// hashes as unreadable instead of hanging the hook).
fn file_source(path: &Path) -> Source {
    use crate::fsread::{read_capped, Links, ReadError, CONFIG_CAP};
    let (hash, content) = match read_capped(path, CONFIG_CAP, Links::Follow) {
        Ok(Some(bytes)) => (crate::hashing::sha256_hex(&bytes), Some(bytes)),
        Ok(None) => (ABSENT.to_string(), None),
        Err(ReadError::Io { cause, .. }) => (format!("unreadable: {:?}", cause.kind()), None),
        Err(ReadError::NotRegular { what, .. }) => (format!("unreadable: {what}"), None),
        Err(ReadError::TooLarge { size, .. }) => (format!("unreadable: {size} bytes"), None),
    };
    Source {
        name: path.display().to_string(),
        hash,
        content,
    }
}

/// One stored baseline: source, hash, bytes.
type BaselineRow = (String, String, Option<Vec<u8>>);

/// A baseline written: (provider, session, source).
pub(crate) type Touched = (String, String, String);

/// A source a session diverged from: what its baseline held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Baselined {
    pub name: String,
    /// The bytes at the baseline (`None`: absent then, or not kept by a baseline older than V7).
    pub content: Option<Vec<u8>>,
    /// Whether the baseline's bytes are known (its hash is `absent`, or they were kept).
    pub known: bool,
}

/// What the hook knows about the event it is handling.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HookFacts<'a> {
    pub provider: &'a str,
    pub session: Option<&'a str>,
    /// The event starts a session (re-baselines it).
    pub starts_session: bool,
    /// An acting tool call (not a read): the one a divergence denies.
    pub acting: bool,
}

/// A session's baseline and a source that moved away from it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Divergence {
    pub provider: String,
    pub session_id: String,
    pub source: String,
    pub baseline_hash: String,
    pub current_hash: String,
}

/// A recorded divergence row.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct DivergenceRecord {
    pub id: i64,
    pub provider: String,
    pub session_id: String,
    pub source: String,
    pub baseline_hash: String,
    pub current_hash: String,
    pub detected_at: String,
    pub accepted_at: Option<String>,
}

/// A live session.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct LiveSession {
    pub provider: String,
    pub session_id: String,
    pub first_seen: String,
    pub last_seen: String,
    pub model: Option<String>,
}

/// The repository of baselines and divergences (`policy_baselines`, `policy_divergences`): the
/// only place their SQL runs. It borrows a project-database connection.
pub(crate) struct IntegrityStore<'c> {
    conn: &'c Connection,
    /// The baselines this store wrote — (provider, session, source) — whose anchors are written
    /// after the caller's transaction commits ([`mirror`]).
    touched: std::cell::RefCell<Vec<Touched>>,
}

impl<'c> IntegrityStore<'c> {
    pub(crate) fn new(conn: &'c Connection) -> IntegrityStore<'c> {
        IntegrityStore {
            conn,
            touched: Default::default(),
        }
    }

    /// The baselines this store wrote, each once.
    pub(crate) fn touched(&self) -> Vec<Touched> {
        let mut t = self.touched.borrow().clone();
        t.sort();
        t.dedup();
        t
    }

    fn baselines(&self, provider: &str, session: &str) -> rusqlite::Result<Vec<(String, String)>> {
        Ok(self
            .baselines_with_content(provider, session)?
            .into_iter()
            .map(|(n, h, _)| (n, h))
            .collect())
    }

    /// The `origin` URL baselined with the session's policy: `None` when the session has no such
    /// baseline (then the checkout's current one stands), `Some(None)` when it had no origin.
    pub(crate) fn baselined_origin(&self, provider: &str, session: &str) -> rusqlite::Result<Option<Option<String>>> {
        Ok(self
            .baselines_with_content(provider, session)?
            .into_iter()
            .find(|(name, _, _)| name == ORIGIN_STATE)
            .map(|(_, _, content)| content.map(|c| String::from_utf8_lossy(&c).into_owned())))
    }

    fn baselines_with_content(&self, provider: &str, session: &str) -> rusqlite::Result<Vec<BaselineRow>> {
        let mut st = self.conn.prepare_cached(q::BASELINES_FOR_SESSION)?;
        let rows = st.query_map(params![provider, session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect()
    }

    fn set_baseline(&self, provider: &str, session: &str, source: &Source, reason: &str) -> rusqlite::Result<()> {
        self.touched
            .borrow_mut()
            .push((provider.to_string(), session.to_string(), source.name.clone()));
        self.conn.prepare_cached(q::BASELINE_UPSERT)?.execute(params![
            provider,
            session,
            source.name,
            source.hash,
            clock::now_stamp(),
            reason,
            source.content
        ])?;
        Ok(())
    }

    /// The sources of `session` whose state now (`now`) differs from its baseline, with what the
    /// baseline held: what the session's stop checks run on instead of the files as they are.
    pub(crate) fn diverged(&self, provider: &str, session: &str, now: &[Source]) -> rusqlite::Result<Vec<Baselined>> {
        let mut out = Vec::new();
        for (name, hash, content) in self.baselines_with_content(provider, session)? {
            let Some(cur) = now.iter().find(|s| s.name == name) else { continue };
            if cur.hash == hash {
                continue;
            }
            let known = hash == ABSENT || content.is_some();
            out.push(Baselined { name, content, known });
        }
        Ok(out)
    }

    fn has_open_divergence(&self, provider: &str, session: &str, source: &str) -> rusqlite::Result<bool> {
        let n: i64 = self
            .conn
            .prepare_cached(q::DIVERGENCE_OPEN)?
            .query_row(params![provider, session, source], |r| r.get(0))?;
        Ok(n > 0)
    }

    pub(crate) fn live_sessions(&self) -> rusqlite::Result<Vec<LiveSession>> {
        let mut st = self.conn.prepare_cached(q::LIVE_SESSIONS)?;
        let rows = st.query_map([], |r| {
            Ok(LiveSession {
                provider: r.get(0)?,
                session_id: r.get(1)?,
                first_seen: r.get(2)?,
                last_seen: r.get(3)?,
                model: r.get(4)?,
            })
        })?;
        rows.collect()
    }

    /// Whether any session's policy has been baselined yet.
    pub(crate) fn any_baseline(&self) -> rusqlite::Result<bool> {
        self.conn.prepare_cached(q::BASELINES_ANY)?.query_row([], |r| r.get(0))
    }

    /// Every source of every live session whose current hash differs from its baseline.
    pub(crate) fn current_divergences(&self, now: &[Source]) -> rusqlite::Result<Vec<Divergence>> {
        let mut st = self.conn.prepare_cached(q::BASELINES_LIVE)?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (provider, session_id, source, baseline_hash) = row?;
            if let Some(cur) = now.iter().find(|s| s.name == source) {
                if cur.hash != baseline_hash {
                    out.push(Divergence {
                        provider,
                        session_id,
                        source,
                        baseline_hash,
                        current_hash: cur.hash.clone(),
                    });
                }
            }
        }
        Ok(out)
    }

    pub(crate) fn divergence_records(&self) -> rusqlite::Result<Vec<DivergenceRecord>> {
        let mut st = self.conn.prepare_cached(q::DIVERGENCES_LIST)?;
        let rows = st.query_map([], |r| {
            Ok(DivergenceRecord {
                id: r.get(0)?,
                provider: r.get(1)?,
                session_id: r.get(2)?,
                source: r.get(3)?,
                baseline_hash: r.get(4)?,
                current_hash: r.get(5)?,
                detected_at: r.get(6)?,
                accepted_at: r.get(7)?,
            })
        })?;
        rows.collect()
    }

    /// A tlc command changed policy: for every live session, re-records the sources the command
    /// changed itself (those whose state differs between `before`, taken as it began, and `now`).
    /// A source that changed before the command — by anything else, seen by a hook or not — is
    /// left at its baseline, and so is one the session had already diverged from: only
    /// `tlc policy accept` names those clear, so a tlc command never launders an edit.
    pub(crate) fn rerecord_changed(&self, before: &[Source], now: &[Source], reason: &str) -> rusqlite::Result<usize> {
        let mut n = 0;
        let changed: Vec<(&Source, &Source)> = now
            .iter()
            .filter_map(|cur| {
                let was = before.iter().find(|b| b.name == cur.name)?;
                (was.hash != cur.hash).then_some((was, cur))
            })
            .collect();
        if changed.is_empty() {
            return Ok(0);
        }
        for s in self.live_sessions()? {
            let baselines = self.baselines(&s.provider, &s.session_id)?;
            for (was, cur) in &changed {
                let unseen_divergence = baselines.iter().any(|(name, hash)| *name == cur.name && *hash != was.hash);
                if unseen_divergence || self.has_open_divergence(&s.provider, &s.session_id, &cur.name)? {
                    continue;
                }
                self.set_baseline(&s.provider, &s.session_id, cur, reason)?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// How many baselines [`IntegrityStore::prune`] would drop at `cutoff` (a stamp).
    pub(crate) fn count_prunable(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE_COUNT)?.query_row([cutoff], |r| r.get(0))?;
        Ok(PruneCount {
            table: "policy_baselines",
            rows,
        })
    }

    /// Drops the baselines recorded before `cutoff` (the caller holds the transaction).
    pub(crate) fn prune(&self, cutoff: &str) -> rusqlite::Result<PruneCount> {
        let rows = self.conn.prepare_cached(q::PRUNE_BASELINES)?.execute([cutoff])? as i64;
        Ok(PruneCount {
            table: "policy_baselines",
            rows,
        })
    }

    /// Accepts the current hash of `source` for every live session and marks its open
    /// divergences accepted (recorded, never erased). Returns the sessions re-baselined.
    pub(crate) fn accept(&self, source: &Source) -> rusqlite::Result<usize> {
        let sessions = self.live_sessions()?;
        for s in &sessions {
            self.set_baseline(&s.provider, &s.session_id, source, "accepted")?;
        }
        self.conn
            .prepare_cached(q::DIVERGENCE_ACCEPT)?
            .execute(params![source.name, clock::now_stamp()])?;
        Ok(sessions.len())
    }

    /// The hook's part: baseline a session at its start or first sight; on an acting call,
    /// compare with the baseline and deny naming what changed. `now` is only asked for when a
    /// hash is needed, so most events read no policy file.
    ///
    /// A session with no baseline here but one anchored in the home database (`anchored`: its
    /// baselines were deleted from the project database) gets the anchored ones back, never the
    /// sources as they are now (issue 51).
    pub(crate) fn on_hook(
        &self,
        now: &mut dyn FnMut() -> rusqlite::Result<Vec<Source>>,
        anchored: &dyn Fn(&str, &str) -> Vec<Source>,
        facts: HookFacts<'_>,
    ) -> rusqlite::Result<Decision> {
        let Some(session) = facts.session else {
            return Ok(Decision::allow());
        };
        let mut baselines = self.baselines(facts.provider, session)?;
        if baselines.is_empty() && !facts.starts_session {
            let restored = anchored(facts.provider, session);
            for source in &restored {
                self.set_baseline(facts.provider, session, source, "restored-from-anchor")?;
            }
            baselines = restored.into_iter().map(|s| (s.name, s.hash)).collect();
        }
        if facts.starts_session || baselines.is_empty() {
            let reason = if facts.starts_session { "session-start" } else { "first-seen" };
            for source in &now()? {
                self.set_baseline(facts.provider, session, source, reason)?;
            }
            return Ok(Decision::allow());
        }
        if !facts.acting {
            return Ok(Decision::allow());
        }
        let mut changed = Vec::new();
        for source in &now()? {
            match baselines.iter().find(|(name, _)| *name == source.name) {
                Some((_, hash)) if *hash != source.hash => {
                    self.conn.prepare_cached(q::DIVERGENCE_INSERT)?.execute(params![
                        facts.provider,
                        session,
                        source.name,
                        hash,
                        source.hash,
                        clock::now_stamp()
                    ])?;
                    changed.push(source.name.clone());
                }
                Some(_) => {}
                // A source this session never had (the project root moved): baseline it now.
                None => self.set_baseline(facts.provider, session, source, "first-seen")?,
            }
        }
        if changed.is_empty() {
            return Ok(Decision::allow());
        }
        Ok(Decision::deny(RULE, deny_reason(&changed)))
    }
}

/// The reason a divergence denies with: the changed paths and the command that clears them.
pub(crate) fn deny_reason(changed: &[String]) -> String {
    format!(
        "{} changed during this session without a tlc command; run `tlc policy accept {}` from your terminal",
        changed.join(", "),
        changed.iter().map(|c| shell_word(c)).collect::<Vec<_>>().join(" ")
    )
}

fn shell_word(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// What a session's stop checks run on when a policy source changed under it without a tlc
/// command: the baselined config (`None` when no config file diverged), the baselined pause
/// state, and the sources that diverged (for the stop's follow-up).
#[derive(Debug, Default)]
pub(crate) struct SessionPolicy {
    pub config: Option<crate::config::Config>,
    pub paused: Option<bool>,
    /// The operator's rules as baselined, when a rule folder diverged.
    pub rules: Option<super::rules::RuleSet>,
    pub diverged: Vec<String>,
    /// What could not be restored (a baseline older than the bytes were kept, a baselined file
    /// that no longer parses): the current state is used for it.
    pub faults: crate::fault::Faults,
}

impl SessionPolicy {
    /// The follow-up line a stop adds when it ran on the baseline.
    pub(crate) fn note(&self) -> Option<String> {
        (!self.diverged.is_empty()).then(|| {
            format!(
                "Policy changed during this session without a tlc command ({}): this stop was checked against the policy the session was baselined with. The operator adopts the change with `tlc policy accept`.",
                self.diverged.join(", ")
            )
        })
    }
}

/// The baselined policy of `session`, where its sources diverged.
///
/// `anchored` is the session's baselines as mirrored in the home database (issue 51), where the
/// agent cannot write: when they differ from the project database's — rewritten, emptied,
/// deleted — the anchored ones are the baselines, the project's are not obeyed, and the
/// difference is recorded as a divergence and named in the stop's follow-up.
pub(crate) fn session_policy(
    conn: &Connection,
    paths: &Paths,
    provider: &str,
    session: &str,
    anchored: &[Source],
) -> rusqlite::Result<SessionPolicy> {
    let now = current_sources(conn, paths)?;
    let store = IntegrityStore::new(conn);
    let mut out = SessionPolicy::default();
    let project: Vec<BaselineRow> = store.baselines_with_content(provider, session)?;
    let differs = !anchored.is_empty() && {
        let mut a: Vec<(&str, &str, Option<&[u8]>)> = anchored
            .iter()
            .map(|s| (s.name.as_str(), s.hash.as_str(), s.content.as_deref()))
            .collect();
        let mut p: Vec<(&str, &str, Option<&[u8]>)> = project.iter().map(|(n, h, c)| (n.as_str(), h.as_str(), c.as_deref())).collect();
        a.sort();
        p.sort();
        a != p
    };
    let diverged = if differs {
        let digest = |rows: Vec<String>| crate::hashing::sha256_hex(rows.join("\n").as_bytes());
        let anchor_digest = digest(anchored.iter().map(|s| format!("{} {}", s.name, s.hash)).collect());
        let project_digest = digest(project.iter().map(|(n, h, _)| format!("{n} {h}")).collect());
        if !store.has_open_divergence(provider, session, BASELINES_SOURCE)? {
            conn.prepare_cached(q::DIVERGENCE_INSERT)?.execute(params![
                provider,
                session,
                BASELINES_SOURCE,
                anchor_digest,
                project_digest,
                clock::now_stamp()
            ])?;
        }
        out.diverged.push(BASELINES_SOURCE.to_string());
        anchored
            .iter()
            .filter_map(|a| {
                let cur = now.iter().find(|s| s.name == a.name)?;
                (cur.hash != a.hash).then(|| Baselined {
                    name: a.name.clone(),
                    content: a.content.clone(),
                    known: a.hash == ABSENT || a.content.is_some(),
                })
            })
            .collect()
    } else {
        store.diverged(provider, session, &now)?
    };
    if diverged.is_empty() {
        return Ok(out);
    }
    out.diverged.extend(diverged.iter().map(|d| d.name.clone()));
    for d in diverged.iter().filter(|d| !d.known) {
        out.faults.push(Fault::Baseline(format!(
            "{}: changed during the session, but its baseline predates kept bytes; the stop ran on it as it is now",
            d.name
        )));
    }
    if let Some(p) = diverged.iter().find(|d| d.name == PAUSE_STATE && d.known) {
        out.paused = Some(p.content.as_deref() == Some(b"true".as_slice()));
    }
    let folders: Vec<&Baselined> = diverged.iter().filter(|d| d.known && is_rule_folder(paths, &d.name)).collect();
    if !folders.is_empty() {
        let given = |dir: &Path| -> Option<super::rules::FolderText> {
            let b = folders.iter().find(|b| Path::new(&b.name) == dir)?;
            Some(match &b.content {
                Some(bytes) => serde_json::from_slice(bytes).unwrap_or_default(),
                None => Vec::new(),
            })
        };
        out.rules = Some(super::rules::load_given(
            &super::rules::global_dir(paths),
            &super::rules::project_dir(paths),
            &given,
        ));
    }
    let files: Vec<&Baselined> = diverged
        .iter()
        .filter(|d| d.known && d.name != MODE_STATE && d.name != PAUSE_STATE && d.name != ORIGIN_STATE && !is_rule_folder(paths, &d.name))
        .collect();
    if !files.is_empty() {
        let given = |p: &Path| files.iter().find(|b| Path::new(&b.name) == p).map(|b| b.content.clone());
        match crate::config::Config::load_with(paths, &given) {
            Ok(c) => out.config = Some(c),
            Err(e) => out.faults.push(Fault::Baseline(format!(
                "the baselined config does not load ({e}); the stop ran on the config as it is now"
            ))),
        }
    }
    Ok(out)
}

/// The policy sources of `paths` as they are now, with the operator state read from `conn`.
pub(crate) fn current_sources(conn: &Connection, paths: &Paths) -> rusqlite::Result<Vec<Source>> {
    let state = OperatorState::new(conn);
    let mode = state.mode()?;
    let paused = state.paused()?;
    Ok(sources(
        paths,
        States {
            mode: mode.as_deref(),
            paused,
        },
    ))
}

/// The source name of a divergence between a session's baselines in the project database and
/// their anchor in the home database.
pub(crate) const BASELINES_SOURCE: &str = "policy-baselines";

/// Writes the baselines `written` (as the project database `conn` holds them now) to their
/// anchors in the home database `home`, under the project's key (its state folder).
pub(crate) fn mirror(conn: &Connection, home: &Connection, project_key: &str, written: &[Touched]) -> rusqlite::Result<()> {
    use super::boundary::store::{baseline_key, Anchor, BoundaryStore, BASELINE};
    let store = IntegrityStore::new(conn);
    let anchors = BoundaryStore::new(home);
    let tx = home.unchecked_transaction()?;
    for (provider, session, source) in written {
        let row = store
            .baselines_with_content(provider, session)?
            .into_iter()
            .find(|(name, _, _)| name == source);
        if let Some((source, hash, content)) = row {
            anchors.put_anchor(
                project_key,
                BASELINE,
                &baseline_key(provider, session, &source),
                &Anchor { hash, content, seq: None },
            )?;
        }
    }
    tx.commit()
}

/// `tlc policy accept policy-baselines`: the operator takes the anchored baselines as the
/// baselines of every live session whose project rows differ from them (the project's rows are
/// replaced, the anchors stay), and the divergence is marked accepted.
pub(crate) fn restore_anchored(conn: &Connection, anchored: &dyn Fn(&str, &str) -> Vec<Source>) -> rusqlite::Result<usize> {
    let store = IntegrityStore::new(conn);
    let mut n = 0;
    for s in store.live_sessions()? {
        let restored = anchored(&s.provider, &s.session_id);
        if restored.is_empty() {
            continue;
        }
        for source in &restored {
            store.set_baseline(&s.provider, &s.session_id, source, "restored-from-anchor")?;
        }
        n += 1;
    }
    conn.prepare_cached(q::DIVERGENCE_ACCEPT)?
        .execute(params![BASELINES_SOURCE, clock::now_stamp()])?;
    Ok(n)
}

/// A session's baselines as anchored in the home database `home` (empty when none are).
pub(crate) fn anchored(home: &Connection, project_key: &str, provider: &str, session: &str) -> rusqlite::Result<Vec<Source>> {
    use super::boundary::store::{session_prefix, BoundaryStore, BASELINE};
    let prefix = session_prefix(provider, session);
    Ok(BoundaryStore::new(home)
        .anchors(project_key, BASELINE, &prefix)?
        .into_iter()
        .map(|(key, a)| Source {
            name: key[prefix.len()..].to_string(),
            hash: a.hash,
            content: a.content,
        })
        .collect())
}

/// The hook path's integrity step, inside its transaction: when this hook adopted the repository
/// (`adopted`), live sessions take the project config it wrote as their baseline where they had
/// none of it (adoption is a tlc change to that one source); then baselines or checks the
/// session.
pub(crate) fn on_hook(
    conn: &Connection,
    paths: &Paths,
    adopted: bool,
    facts: Option<HookFacts<'_>>,
    anchored: &dyn Fn(&str, &str) -> Vec<Source>,
) -> rusqlite::Result<(Decision, Vec<Touched>)> {
    let store = IntegrityStore::new(conn);
    let mut now = || current_sources(conn, paths);
    if adopted {
        let now = now()?;
        let project = paths.project_config().display().to_string();
        let before: Vec<Source> = now
            .iter()
            .map(|s| {
                if s.name == project {
                    Source {
                        hash: ABSENT.to_string(),
                        content: None,
                        ..s.clone()
                    }
                } else {
                    s.clone()
                }
            })
            .collect();
        store.rerecord_changed(&before, &now, "adoption")?;
    }
    let decision = match facts {
        Some(f) => store.on_hook(&mut now, anchored, f)?,
        None => Decision::allow(),
    };
    Ok((decision, store.touched()))
}

/// Resolves what an operator typed (`tlc policy accept <path>`) to a source name: the mode state
/// by its name, a file by its absolute path (relative to `cwd`), resolved through symlinks.
pub(crate) fn match_source<'s>(typed: &str, cwd: &Path, known: &'s [Source]) -> Option<&'s Source> {
    if let Some(s) = known.iter().find(|s| s.name == typed) {
        return Some(s);
    }
    let p = PathBuf::from(typed);
    let abs = if p.is_absolute() { p } else { cwd.join(p) };
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| crate::pathtext::normalize(p));
    let want = canon(&abs);
    known.iter().find(|s| s.name != MODE_STATE && canon(Path::new(&s.name)) == want)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{open_write, DbKind};

    fn src(name: &str, hash: &str) -> Source {
        Source {
            name: name.into(),
            hash: hash.into(),
            content: Some(hash.as_bytes().to_vec()),
        }
    }

    fn facts<'a>(session: &'a str, starts: bool, acting: bool) -> HookFacts<'a> {
        HookFacts {
            provider: "claude",
            session: Some(session),
            starts_session: starts,
            acting,
        }
    }

    #[test]
    fn a_mid_session_change_denies_acting_calls_until_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let store = open_write(DbKind::Project, &dir.path().join("t.db")).unwrap();
        let conn = store.conn();
        conn.execute(
            "INSERT INTO sessions (provider, session_id, first_seen, last_seen) VALUES ('claude','s1','x','x')",
            [],
        )
        .unwrap();
        let st = IntegrityStore::new(conn);
        let a = vec![src("/p/config.toml", "h1"), src(MODE_STATE, ABSENT)];
        assert!(!st
            .on_hook(&mut || Ok(a.clone()), &|_, _| Vec::new(), facts("s1", true, true))
            .unwrap()
            .interrupts());
        assert!(!st
            .on_hook(&mut || Ok(a.clone()), &|_, _| Vec::new(), facts("s1", false, true))
            .unwrap()
            .interrupts());
        let b = vec![src("/p/config.toml", "h2"), a[1].clone()];
        assert!(
            !st.on_hook(&mut || Ok(b.clone()), &|_, _| Vec::new(), facts("s1", false, false))
                .unwrap()
                .interrupts(),
            "reads pass"
        );
        let d = st
            .on_hook(&mut || Ok(b.clone()), &|_, _| Vec::new(), facts("s1", false, true))
            .unwrap();
        assert!(d.interrupts());
        assert!(d.reason.unwrap().contains("/p/config.toml changed during this session"));
        // A tlc command that changed something else does not launder it, nor one that changed
        // this source again.
        st.rerecord_changed(&b, &b, "tlc-command").unwrap();
        let b2 = vec![src("/p/config.toml", "h2b"), a[1].clone()];
        st.rerecord_changed(&b, &b2, "tlc-command").unwrap();
        assert!(st
            .on_hook(&mut || Ok(b.clone()), &|_, _| Vec::new(), facts("s1", false, true))
            .unwrap()
            .interrupts());
        assert!(st
            .on_hook(&mut || Ok(b.clone()), &|_, _| Vec::new(), facts("s1", false, true))
            .unwrap()
            .interrupts());
        assert_eq!(st.current_divergences(&b).unwrap().len(), 1);
        st.accept(&b[0]).unwrap();
        assert!(!st
            .on_hook(&mut || Ok(b.clone()), &|_, _| Vec::new(), facts("s1", false, true))
            .unwrap()
            .interrupts());
        let recs = st.divergence_records().unwrap();
        assert_eq!(recs.len(), 1);
        assert!(recs[0].accepted_at.is_some());
        // A new session baselines what is there now.
        let c = vec![src("/p/config.toml", "h3"), a[1].clone()];
        assert!(
            !st.on_hook(&mut || Ok(c.clone()), &|_, _| Vec::new(), facts("s2", false, true))
                .unwrap()
                .interrupts(),
            "first sight baselines"
        );
    }

    #[test]
    fn typed_paths_resolve_to_sources() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config.toml");
        std::fs::write(&f, "").unwrap();
        let known = vec![src(&f.display().to_string(), "x"), src(MODE_STATE, ABSENT)];
        assert!(match_source("config.toml", dir.path(), &known).is_some());
        assert!(match_source("./sub/../config.toml", dir.path(), &known).is_some());
        assert!(match_source(MODE_STATE, dir.path(), &known).is_some());
        assert!(match_source("other.toml", dir.path(), &known).is_none());
        assert_eq!(
            deny_reason(&["/a b".into()]),
            "/a b changed during this session without a tlc command; run `tlc policy accept '/a b'` from your terminal"
        );
    }
}
