//! Deciding and recording one hook event. Deciding never depends on the database being
//! writable; recording never changes the decision.

use super::fault_log;
use super::mapped::{str_field, Mapped};
use super::provider::Provider;
use crate::config::Config;
use crate::decision::{Decision, Permission};
use crate::fault::{Fault, Faults};
use crate::obs::event::truncate_attrs;
use crate::obs::redact::{Detectors, Redactor};
use crate::obs::spool::Spool;
use crate::obs::{Event, EventStore, Kind, Plane};
use crate::paths::Paths;
use crate::policy::attest::{AttestStore, ClosedBy, Observer};
use crate::policy::claims::ClaimStore;
use crate::policy::{resolve_posture, OperatorState};
use crate::project::Project;
use crate::store::{self, DbKind};
use rusqlite::TransactionBehavior;
use serde_json::Value;
use std::time::Duration;

/// The audit record keeps the whole payload up to this size; a bigger one keeps its head.
const MAX_AUDIT_PAYLOAD: usize = 1024 * 1024;
/// How long it sleeps between two tries for the lock.
const HOOK_BUSY_RETRY: Duration = Duration::from_millis(1);

thread_local! {
    static WAIT_STARTED: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
}

/// The hook's busy handler: retries every millisecond until [`store::HOOK_BUSY_TIMEOUT`] has passed
/// since the first try. SQLite's own busy timeout backs off to sleeps of 100 ms: under 32
/// concurrent hooks a waiting one kept losing the lock to newer ones during its long sleeps, and
/// about once in 10,000 events it waited out the whole timeout. A hook holds the lock for well
/// under a millisecond, so polling that often costs little.
fn wait_for_writer(retries: i32) -> bool {
    let now = std::time::Instant::now();
    let started = WAIT_STARTED.with(|s| {
        if retries == 0 || s.get().is_none() {
            s.set(Some(now));
        }
        s.get().unwrap_or(now)
    });
    if now.duration_since(started) >= store::HOOK_BUSY_TIMEOUT {
        return false;
    }
    std::thread::sleep(HOOK_BUSY_RETRY);
    true
}

/// Payload fields tlc uses as given — the paths it reads or records, the ids it pairs and
/// deduplicates by, model names — go through the labelled detectors only: the entropy rule would
/// take a Claude Code project folder such as `-Users-JohnSmith-Documents-GitHub-MyApp2` for a key.
const VERBATIM_FIELDS: &[&str] = &[
    "/transcript_path",
    "/agent_transcript_path",
    "/cwd",
    "/workspace_roots",
    "/file_path",
    "/tool_input/file_path",
    "/tool_input/path",
    "/tool_input/notebook_path",
    "/tool_input/cwd",
    "/session_id",
    "/conversation_id",
    "/generation_id",
    "/prompt_id",
    "/tool_use_id",
    "/agent_id",
    "/model",
    "/subagent_model",
    "/tool_input/model",
];

/// Why a hook could not record (the database it names could not be opened or written). It
/// becomes one fault, where the hook records what it could not: the home's fault log.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HookError {
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// Another process held the database past the hook's wait: the event was kept for the next
    /// hook (`Ok(file)`), or could not be (`Err(why)`).
    #[error("locked by another process past {} ms ({cause}); {}", store::HOOK_BUSY_TIMEOUT.as_millis(), match kept {
        Ok(file) => format!("the event was kept in {} for the next hook to record", file.display()),
        Err(why) => format!("the event could not be kept: {why}"),
    })]
    Locked {
        cause: String,
        kept: Result<std::path::PathBuf, String>,
    },
}

impl HookError {
    /// The error as a fault text: an SQLite error on the database at `db` named for what it is
    /// (a full disk is "disk full", never a bare "disk I/O error").
    fn named(self, db: &std::path::Path) -> String {
        match self {
            HookError::Sqlite(e) => match crate::store::StoreError::sqlite(db, e) {
                crate::store::StoreError::Sqlite { cause, .. } => cause.to_string(),
                other => other.to_string(),
            },
            other => other.to_string(),
        }
    }

    fn is_busy(&self) -> bool {
        match self {
            HookError::Store(e) => e.is_busy(),
            HookError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            }
            _ => false,
        }
    }
}

pub(crate) struct Outcome {
    pub hook_event: String,
    pub decision: Decision,
    /// What the model gets instead of (or besides) a tool output that held a secret.
    pub mask: Option<super::provider::ModelMask>,
}

/// What was decided before the config was read, and what the rest of the decision needs.
struct Guard {
    /// The floor's denial, if any.
    floor: Option<Decision>,
    /// The file this tool call is about to edit (claimed unless the call is denied).
    edit_target: Option<String>,
    /// A file the provider reports edited (claimed, never asked about).
    edited_file: Option<String>,
    /// The provider can ask the operator on this event.
    can_ask: bool,
    /// The payload says nobody answers prompts.
    unattended: bool,
    /// The folder the command runs in, when the payload names one.
    cwd: Option<std::path::PathBuf>,
    /// Every command a shell line that may lose work runs, as the floor saw them.
    ran: Vec<crate::policy::floor::Ran>,
    /// The shell line the floor judged, as it parsed it: the rails read the same parse.
    parsed: Option<(String, crate::policy::shell::Script)>,
}

impl Guard {
    fn finish(&self, d: Decision) -> Decision {
        super::guard::escalate(d, self.can_ask, self.unattended)
    }
}

/// Handles a payload; `None` when it could not be used (the faults say why), in which case only
/// the faults are recorded.
pub(crate) fn process(provider: &dyn Provider, value: Option<Value>, now: chrono::DateTime<chrono::Utc>, mut faults: Faults) -> Outcome {
    let usable = value.is_some();
    let mut value = value.unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    // The redaction salt is the session, so one secret keeps one placeholder within it.
    let salt = ["session_id", "conversation_id"]
        .iter()
        .find_map(|k| value.get(*k).and_then(Value::as_str))
        .unwrap_or("");
    let redactor = Redactor::new(salt);
    let paths = match Paths::for_hook(provider.project_dir_var()) {
        Ok(p) => Some(p),
        Err(e) => {
            faults.push(Fault::Paths(e.to_string()));
            None
        }
    };
    // The floor first, from the payload as it arrived, before any config is read.
    let raw = usable.then_some(&value);
    // Read once: the floor judges them, and the edit claim takes its file from them.
    let acts = raw.map(|v| provider.acts(v)).unwrap_or_default();
    if !acts.is_empty() {
        super::boundary::settle(provider);
    }
    let super::guard::FloorVerdict { floor, ran, parsed } = raw
        .zip(paths.as_ref())
        .map(|(v, p)| super::guard::floor(provider, &acts, v, p))
        .unwrap_or_default();
    let guard = Guard {
        floor,
        ran,
        parsed,
        edit_target: raw
            .zip(paths.as_ref())
            .and_then(|(v, p)| super::guard::edit_target(provider, &acts, v, p)),
        edited_file: raw.zip(paths.as_ref()).and_then(|(v, p)| super::guard::edited_file(provider, v, p)),
        can_ask: raw.is_some_and(|v| provider.can_ask(v)),
        unattended: raw.is_some_and(|v| provider.unattended(v)),
        cwd: raw.and_then(|v| super::guard::work_dir(provider, v)),
    };
    drop(acts);
    let fallback = guard.finish(guard.floor.clone().unwrap_or_else(Decision::allow));
    let mut config_broken = false;
    let config = match paths.as_ref().map(Config::load) {
        Some(Ok(c)) => c,
        Some(Err(e)) => {
            config_broken = true;
            faults.push(Fault::Config(config_fault(&e, &redactor)));
            Config::defaults()
        }
        None => Config::defaults(),
    };
    let settings = &config.settings;
    // The transcript is read from the path as received; the event keeps it as redacted.
    let transcript_source = str_field(&value, "transcript_path");
    let subagent_source = str_field(&value, "agent_transcript_path");
    // The response a stop is about is looked for in the transcript as written, never stored.
    let awaited = provider.awaited_response(&value);
    let mut mask = None;
    let mut secrets = 0;
    if settings.secrets.redact_output {
        let redaction = redactor.redact_payload(&mut value, VERBATIM_FIELDS);
        mask = super::mask::plan(provider, &value, &redaction);
        secrets = redaction.total.secrets;
    }
    let mut mapped = super::turn::map(provider, &value, now);
    mapped.awaited_response = awaited;
    if settings.untrusted_content.enabled {
        // From the payload as redacted: what is kept of it is stored.
        mapped.read = super::untrusted::read(provider, &value, &mapped.hook_event);
    }
    if settings.rules.enabled {
        // From the payload as redacted: a command proof is kept the way the record keeps it.
        mapped.rules = Some(super::rules::facts(provider, &value, &mapped));
    }
    let hook_event = mapped.hook_event.clone();
    mapped.event.payload = Some(audit_payload(&value));
    if secrets > 0 {
        mapped.event.attrs.insert("secrets_redacted".into(), secrets.into());
    }
    if let Some(m) = &mask {
        mapped.event.attrs.insert("secret_output".into(), m.as_str().into());
    }
    if settings.obs.include_payloads {
        mapped.event.attrs.extend(std::mem::take(&mut mapped.tool_payload));
    }
    truncate_attrs(
        &mut mapped.event.attrs,
        usize::try_from(settings.obs.max_attr_chars).unwrap_or(usize::MAX),
    );
    let mapped = usable.then_some(mapped);
    // A stop that cannot be checked is held (issue 51, fail closed): what it says is kept here.
    let stop = mapped.as_ref().and_then(|m| m.turn.as_ref()).and_then(|t| match &t.event {
        crate::gate::stop::TurnEvent::Stop(s) => Some(s.clone()),
        _ => None,
    });
    // Without paths nothing can be located; and a config that does not load hides the machine
    // tier's guest list, so writing anywhere in the repository could write into a guest. Either
    // way the fault goes to the home's log instead.
    let Some(paths) = paths.filter(|_| !config_broken) else {
        fault_log::append_best_effort(provider.name(), &fault_line(&redactor, &faults));
        let decision = match &stop {
            // Which stop checks are on is in the config that did not load: held, naming it.
            Some(s) if config_broken && s.completed => held_config(guard.finish(fallback), &faults),
            _ => fallback,
        };
        return Outcome {
            hook_event,
            decision,
            mask,
        };
    };
    let project = Project::locate(&paths, &config);
    faults.extend(project.faults.iter().cloned());
    let sources = Sources {
        transcript: transcript_source.as_deref(),
        subagent: subagent_source.as_deref(),
    };
    let into = Recording {
        provider,
        project: &project,
        config: &config,
        redactor: &redactor,
    };
    let mut stop_verdict = None;
    let decision = match record(into, mapped, &guard, sources, &mut stop_verdict, &mut faults) {
        Ok(d) => d,
        Err(e) => {
            let why = format!("{}: not recorded: {}", project.db_path().display(), e.named(&project.db_path()));
            faults.push(Fault::NotRecorded(why.clone()));
            fault_log::append_best_effort(provider.name(), &fault_line(&redactor, &faults));
            // A stop whose checks ran answers their verdict though it was not recorded; one whose
            // state could not be read is held while stop checks are on (issue 51).
            match (stop_verdict, &stop) {
                (Some(verdict), _) => verdict,
                (None, Some(s)) => crate::gate::stop::held_without_state(&config, s, &why).unwrap_or(fallback),
                (None, None) => fallback,
            }
        }
    };
    Outcome {
        hook_event,
        decision,
        mask,
    }
}

/// A stop held because the config does not load: which stop checks are on cannot be known, and
/// a check that cannot run never lets the turn through (issue 51).
fn held_config(fallback: Decision, faults: &[Fault]) -> Decision {
    let why = faults
        .iter()
        .find(|f| matches!(f, Fault::Config(_)))
        .map_or_else(|| "tlc's config does not load".to_string(), ToString::to_string);
    Decision {
        permission: Permission::Deny,
        rule: crate::gate::stop::STOP_FAULT.into(),
        reason: Some(format!("BLOCKED: the stop checks could not run: {why}")),
        user_note: Some(format!("tlc: the stop checks cannot run until the config is fixed: {why}")),
        follow_up: Some(format!(
            "tlc cannot read its config, so the stop checks could not run ({why}). The operator fixes the file named; tell them, then stop again."
        )),
        ..fallback
    }
}

/// A config fault names the offending key, which may itself be a secret pasted in the wrong place:
/// the key and the message go through every detector; the file path is tlc's own.
fn config_fault(e: &crate::config::ConfigError, redactor: &Redactor) -> String {
    let mut e = e.clone();
    e.key = e.key.map(|k| redactor.redact_str(&k).unwrap_or(k));
    e.message = redactor.redact_str(&e.message).unwrap_or(e.message);
    format!("config not loaded: {e}")
}

/// Fault texts as stored, with their sources: they name paths tlc uses (kept as given), so the
/// labelled detectors only.
fn scrub_faults(redactor: &Redactor, faults: &[Fault]) -> Vec<(&'static str, String)> {
    faults
        .iter()
        .map(|f| {
            let text = f.to_string();
            (f.source(), redactor.redact_text(&text, Detectors::Labelled).0.unwrap_or(text))
        })
        .collect()
}

/// The faults as one line of the home's fault log.
fn fault_line(redactor: &Redactor, faults: &[Fault]) -> String {
    scrub_faults(redactor, faults)
        .into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A `hook.fault` event for one fault.
fn fault_event(
    provider: &dyn Provider,
    at: chrono::DateTime<chrono::Utc>,
    session: Option<String>,
    (source, text): (&str, String),
) -> Event {
    let mut f = Event::new(provider.name(), Kind::HookFault, at);
    f.session_id = session;
    f.attrs.insert("fault".into(), text.into());
    f.attrs.insert("source".into(), source.into());
    f
}

/// The payload as stored: serialised once, here, and replaced by its head when too big.
fn audit_payload(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= MAX_AUDIT_PAYLOAD {
        return text;
    }
    let mut cut = 64 * 1024;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    serde_json::json!({ "truncated": true, "bytes": text.len(), "head": &text[..cut] }).to_string()
}

/// Where and how one hook event is recorded: what is the same whatever the payload held.
#[derive(Clone, Copy)]
struct Recording<'a> {
    provider: &'a dyn Provider,
    project: &'a Project,
    config: &'a Config,
    /// Scrubs the faults before they are stored.
    redactor: &'a Redactor,
}

/// Opens the project database, decides, and records the event, its decision and any faults in
/// one transaction.
/// `stop_verdict` gets a stop's decision as soon as its checks have decided, so that an error in
/// recording it afterwards still answers it.
fn record(
    into: Recording<'_>,
    mapped: Option<Mapped>,
    guard: &Guard,
    sources: Sources<'_>,
    stop_verdict: &mut Option<Decision>,
    faults: &mut Faults,
) -> Result<Decision, HookError> {
    let Recording {
        provider,
        project,
        config,
        redactor,
    } = into;
    // Issue 6 (adoption): an unadopted repository gets its project config before the first write.
    let adopted = mapped
        .as_ref()
        .and_then(|m| super::adopt::adopt_on_hook(project, config, m.event.kind, faults));
    // Issue 51: a session's start puts its repository's `.tlc/` in the client's sandbox, where
    // tlc wired one and the repository is not in it yet.
    if mapped.as_ref().is_some_and(|m| m.event.kind == Kind::SessionStart) && !project.guest {
        if let Err(e) = super::boundary::wire_project(provider, &project.paths) {
            faults.push(Fault::Boundary(format!(
                "the repository was not added to the client's sandbox: {e}"
            )));
        }
    }
    let mut mapped = mapped;
    if let Some(m) = mapped.as_mut() {
        await_response(m, sources);
    }
    let db = project.db_path();
    let settings = &config.settings;
    let mut conn = match store::open_hook(DbKind::Project, &db) {
        Ok(c) => c,
        Err(e) if e.is_busy() => return Err(locked_out(provider, project, settings, (mapped, guard), redactor, faults, e.into())),
        Err(e) => return Err(e.into()),
    };
    conn.busy_handler(Some(wait_for_writer))?;
    // Transcripts are read before the write lock is taken; their generations are written below.
    let deltas = read_transcripts(provider, project, &conn, mapped.as_ref(), sources, faults)?;
    // Issue 51: every process the stop checks start runs in the project's jail, made only if one does.
    let jail = crate::confine::LazyJail::new(|| super::boundary::jail(&project.paths));
    // Issue 17: turn bases, the stop checks and the handoff run before the event's transaction,
    // so none is held while a gate command runs; their rows are written inside it.
    let turn = mapped.as_ref().and_then(|m| m.turn.as_ref()).map(|f| {
        // A stop runs on the policy its session was baselined with where a source changed
        // under it without a tlc command (issue 29): an unaccepted edit never switches a gate off.
        let policy = match (&f.event, f.session.as_deref()) {
            (crate::gate::stop::TurnEvent::Stop(_), Some(session)) => {
                // Issue 51: the session's baselines as anchored where the agent cannot write.
                let anchored = super::boundary::anchored_baselines(project, &f.provider, session).unwrap_or_else(|e| {
                    faults.push(Fault::Boundary(format!("the anchored baselines were not read: {e}")));
                    Vec::new()
                });
                crate::policy::integrity::session_policy(&conn, &project.paths, &f.provider, session, &anchored).unwrap_or_else(|e| {
                    faults.push(Fault::Baseline(format!("the session's baselined policy was not read: {e}")));
                    Default::default()
                })
            }
            _ => Default::default(),
        };
        faults.extend(policy.faults.iter().cloned());
        let config = policy.config.as_ref().unwrap_or(config);
        crate::gate::stop::on_hook(&mut conn, project, &jail, config, f, &policy, faults)
    });
    if let Some(t) = turn.as_ref().filter(|t| t.outcome().is_some()) {
        *stop_verdict = Some(guard.finish(t.decision.clone().unwrap_or_else(Decision::allow)));
    }
    // Issue 34 (operator rules): the rule files and HEAD are read before the transaction, and
    // only with the switch on: the files on an acting event, HEAD where a rule or a proof needs it.
    let rule_facts = mapped.as_ref().and_then(|m| m.rules.as_ref());
    let acting = mapped.as_ref().and_then(|m| m.action.as_ref()).is_some_and(|a| !a.dialog);
    let rule_set = rule_facts
        .filter(|_| acting)
        .map(|_| crate::policy::rules::load(&project.paths))
        .filter(crate::policy::rules::RuleSet::acts_on_actions);
    let proof = rule_facts.and_then(|f| f.proof.clone());
    let head = if (proof.is_some() || rule_set.is_some()) && project.paths.in_git {
        crate::gate::changes::read_head(project.root()).stored()
    } else {
        None
    };
    let rules = rule_set.map(|set| crate::policy::rules::Input {
        set,
        head: head.clone(),
        tool_input: rule_facts.and_then(|f| f.tool_input.clone()),
    });
    let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => {
            let e = HookError::from(e);
            if e.is_busy() {
                return Err(locked_out(provider, project, settings, (mapped, guard), redactor, faults, e));
            }
            return Err(e);
        }
    };
    let es = EventStore::new(&tx);
    // What hooks locked out before this one kept: written first, in this transaction.
    let drained = match super::pending::drain(&project.state_dir, &es) {
        Ok(d) => d,
        Err(e) => {
            faults.push(Fault::Pending(format!("kept events not recorded: {e}")));
            None
        }
    };
    let mode_state = OperatorState::new(&tx).mode()?;
    let posture = resolve_posture(mode_state.as_deref(), &settings.mode);
    // Issue 6 (policy integrity): baseline the session, or deny an acting call after an out-of-band policy edit.
    let facts = mapped.as_ref().map(|m| crate::policy::integrity::HookFacts {
        provider: provider.name(),
        session: m.event.session_id.as_deref(),
        starts_session: m.event.kind == Kind::SessionStart && !continues_session(&m.event),
        acting: m.action.as_ref().is_some_and(|a| !a.reads_only && !a.dialog),
    });
    let written_config = match &adopted {
        Some(crate::config::scaffold::ScaffoldOutcome::Written(p)) => Some(p.as_path()),
        _ => None,
    };
    if let Some(path) = written_config {
        let session = facts.and_then(|f| f.session);
        es.record_scaffolded(facts.map_or("tlc", |f| f.provider), session, path, "hook")?;
    }
    let anchored = |provider: &str, session: &str| super::boundary::anchored_baselines(project, provider, session).unwrap_or_default();
    let (integrity, baselined) = crate::policy::integrity::on_hook(&tx, &project.paths, written_config.is_some(), facts, &anchored)?;
    // Issue 34: untrusted content read by this event is kept and framed; a prompt clears the frame.
    let untrusted = match mapped.as_ref() {
        Some(m) => crate::policy::untrusted::on_hook(
            &tx,
            settings,
            provider.name(),
            m.event.session_id.as_deref(),
            m.event.kind == Kind::PromptSubmit,
            m.read.as_ref().map(|r| r.as_read()),
            &crate::clock::stamp(m.event.ts),
        )?,
        None => None,
    };
    let prior = crate::policy::Prior {
        floor: guard.floor.clone(),
        integrity: Some(integrity),
        stop: turn.as_ref().and_then(|t| t.decision.clone()),
        untrusted,
        rules,
    };
    let cwd = match (&guard.cwd, &mapped) {
        (Some(c), _) => c.clone(),
        (None, Some(m)) => config_root(m),
        (None, None) => project.root().to_path_buf(),
    };
    // The parent's model, for `subagents.blockParentFast`: asked of the record only for a spawn.
    let parent_model = match mapped
        .as_ref()
        .and_then(|m| m.spawn.as_ref().map(|s| (s, m.event.session_id.as_deref())))
    {
        Some((spawn, session)) if settings.subagents.block_parent_fast => match (&spawn.parent_model, session) {
            (Some(stated), _) => Some(stated.clone()),
            (None, Some(sess)) => es.session_model(provider.name(), sess)?,
            (None, None) => None,
        },
        _ => None,
    };
    let mut facts = act_facts(provider, project, posture.posture, mapped.as_ref(), guard, &cwd);
    facts.parent_model = parent_model.as_deref();
    let decision = crate::policy::decide(&crate::policy::facts::Context::new(
        &tx,
        facts,
        settings,
        &prior,
        guard.parsed.as_ref().map(|(text, script)| (text.as_str(), script)),
    ))?;
    let mut decision = guard.finish(decision);
    // Issue 33: a fresh session start carries the posture's contract, before any other context.
    let contract = mapped
        .as_ref()
        .filter(|m| m.event.kind == Kind::SessionStart && !continues_session(&m.event) && decision.permission == Permission::Allow)
        .map(|_| crate::policy::contract::contract(posture.posture));
    if let Some(c) = contract {
        decision.context = Some(match decision.context.take() {
            Some(rest) => format!("{c}\n\n{rest}"),
            None => c.to_string(),
        });
    }
    if let Some(t) = &turn {
        t.apply(&tx)?;
    }

    // The first event row this hook wrote: the spool sends it even behind a long backlog.
    let mut own_from: Option<i64> = None;
    let mut note = |id: Option<i64>| {
        if let Some(id) = id {
            own_from = Some(own_from.map_or(id, |o: i64| o.min(id)));
        }
    };
    let mut session = None;
    // Issue 35: a session's end appends its attestation record; a fresh start attests the earlier
    // sessions that never ended.
    let closing_kind = mapped.as_ref().map(|m| m.event.kind);
    let closes = mapped.as_ref().and_then(|m| match m.event.kind {
        Kind::SessionEnd => Some(ClosedBy::SessionEnd),
        Kind::SessionStart if !continues_session(&m.event) => Some(ClosedBy::NextSessionStart),
        _ => None,
    });
    if let Some(Mapped { mut event, action, .. }) = mapped {
        if event.kind == Kind::AgentResponse {
            mark_response_block(&es, &mut event)?;
        }
        if action.is_some() {
            event.attrs.insert("decision".into(), decision.permission.as_str().into());
            event.attrs.insert("rule".into(), decision.rule.clone().into());
        }
        if let Some(c) = contract {
            event.attrs.insert("posture_contract".into(), posture.posture.as_str().into());
            event.attrs.insert("posture_contract_chars".into(), c.chars().count().into());
        }
        if action.is_none() && decision.rule == crate::policy::untrusted::FRAME_RULE {
            event.attrs.insert("rule".into(), decision.rule.clone().into());
        }
        if let Some(o) = turn.as_ref().and_then(|t| t.outcome()) {
            event.attrs.insert("outcome".into(), o.outcome.as_str().into());
            event.attrs.insert("rule".into(), o.rule.clone().into());
        }
        let plane = plane_for(&event, action.is_some() && decision.interrupts(), settings.obs.debug);
        let id = es.record(&mut event, plane)?;
        note(id);
        if let Some(action) = &action {
            es.record_decision(
                id,
                &event,
                action.subject.as_str(),
                &decision,
                posture.posture.as_str(),
                Some(&action.detail),
            )?;
        }
        if let Some(sess) = event.session_id.as_deref() {
            let claimed = match (&guard.edit_target, &guard.edited_file) {
                // A permission dialog's act was claimed at its PreToolUse.
                (Some(p), _) if action.as_ref().is_some_and(|a| !a.dialog) && decision.permission != Permission::Deny => Some(p),
                (_, Some(p)) => Some(p),
                _ => None,
            };
            if let Some(path) = claimed {
                ClaimStore::new(&tx).claim(
                    id,
                    &crate::clock::stamp(event.ts),
                    provider.name(),
                    sess,
                    path,
                    event.tool.as_deref(),
                )?;
            }
        }
        let proved = proof.as_ref().and_then(|p| {
            let value = match p.kind {
                crate::policy::rules::ProofKind::File => Some(super::rules::proof_path(&p.value, project.root())),
                // Issue 53: what the line executed, not its words; a line that ran nothing a
                // pattern could name proves nothing.
                crate::policy::rules::ProofKind::Command => {
                    crate::policy::rules::ran::executed(&p.value, project.root(), std::env::var_os("PATH").as_deref())
                }
                _ => Some(p.value.clone()),
            };
            value.map(|v| (p.kind, v))
        });
        if let Some((kind, value)) = &proved {
            let (kind, value) = (*kind, value.as_str());
            crate::policy::rules::ProofStore::new(&tx).stamp(
                &crate::clock::stamp(event.ts),
                provider.name(),
                event.session_id.as_deref(),
                kind,
                value,
                head.as_deref(),
            )?;
        }
        session = event.session_id.clone();
    }
    let mut added = false;
    for delta in deltas {
        let mut next = delta.next;
        let mut inserted = 0;
        for mut generation in delta.generations {
            let id = es.record(&mut generation, Plane::Signal)?;
            if id.is_some() {
                inserted += 1;
                note(id);
            }
        }
        next.generations += inserted;
        es.set_transcript_offset(&delta.path, provider.name(), delta.session.as_deref(), &next)?;
        added |= inserted > 0 && delta.session == session;
    }
    if added {
        if let Some(mut alert) = cost_alert(&es, provider, session.as_deref(), settings.obs.session_cost_alert_usd)? {
            note(es.record(&mut alert, Plane::Signal)?);
        }
    }
    if let (Some(closes), Some(sess)) = (closes, session.as_deref()) {
        if let Err(e) = attest(&tx, provider, sess, closes, settings, posture.posture, &project.paths) {
            faults.push(Fault::Attest(format!("the attestation record was not appended: {e}")));
        }
    }
    for fault in scrub_faults(redactor, faults) {
        let mut f = fault_event(provider, crate::clock::now(), session.clone(), fault);
        note(es.record(&mut f, Plane::Signal)?);
    }
    tx.commit()?;
    if closes.is_some() {
        // Issue 51: the attestation chain's head, anchored where the agent cannot rewrite it.
        if let Err(e) = super::boundary::mirror_attest_head(project, &conn) {
            fault_log::append_best_effort(
                provider.name(),
                &format!("the attestation head was not anchored in the home database: {e}"),
            );
        }
    }
    if !baselined.is_empty() {
        // Issue 51: the baselines just written, anchored where the agent cannot write them.
        if let Err(e) = super::boundary::mirror_baselines(project, &conn, &baselined) {
            fault_log::append_best_effort(provider.name(), &format!("baselines not anchored in the home database: {e}"));
        }
    }
    if let Some(drained) = drained {
        if let Err(e) = drained.finish() {
            // Harmless: every kept row has a dedup key, so the next drain adds nothing twice.
            fault_log::append_best_effort(provider.name(), &format!("kept events recorded but not cleared: {e}"));
        }
    }
    store::checkpoint_if_large(&conn);

    // Issue 52: a turn's end puts the session's responses, exact as the hooks priced them, into the
    // home database's usage (the spool does it with every row when it is on): cost without an import.
    let ends_a_turn = matches!(closing_kind, Some(Kind::Stop | Kind::StopFailure | Kind::SessionEnd));
    if ends_a_turn && !settings.obs.global_spool {
        if let Err(e) = mirror_usage(project, &conn) {
            fault_log::append_best_effort(provider.name(), &format!("usage not written to the home database: {e}"));
        }
    }
    if settings.obs.global_spool {
        if let Err(e) = spool(project, &conn, own_from) {
            // Best effort: an unwritable home degrades to project-only recording; what was not
            // sent stays past the spool cursor for a later hook or `tlc obs spool catch-up`.
            fault_log::append_best_effort(provider.name(), &format!("spool not written: {e}"));
        }
    }
    store::leave_open_until_exit(conn);
    Ok(decision)
}

/// The event as the rails read it (`policy::decide`).
fn act_facts<'a>(
    provider: &dyn Provider,
    project: &'a Project,
    posture: crate::policy::Posture,
    mapped: Option<&'a Mapped>,
    guard: &'a Guard,
    cwd: &'a std::path::Path,
) -> crate::policy::ActFacts<'a> {
    crate::policy::ActFacts {
        provider: provider.name(),
        session: mapped.and_then(|m| m.event.session_id.as_deref()),
        at: mapped.map_or_else(crate::clock::now, |m| m.event.ts),
        acting: mapped
            .and_then(|m| m.action.as_ref())
            .filter(|a| !a.dialog)
            .map(|a| crate::policy::Acting {
                subject: a.subject,
                detail: &a.detail,
                reads_only: a.reads_only,
            }),
        edit_target: guard.edit_target.as_deref(),
        cwd,
        root: project.root(),
        in_git: project.paths.in_git,
        posture,
        ran: &guard.ran,
        spawn: mapped.and_then(|m| m.spawn.as_ref()).map(|s| crate::policy::Spawn {
            model: s.model.as_deref(),
            effort: s.effort.as_deref(),
        }),
        agent_type: mapped.and_then(|m| m.agent_type.as_deref()),
        parent_model: None,
        tool: mapped.and_then(|m| m.event.tool.as_deref()),
    }
}

fn config_root(m: &Mapped) -> std::path::PathBuf {
    m.event
        .cwd
        .as_deref()
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

/// When another process held the project database past the hook's wait: keeps the event and
/// the faults met so far in the pending file beside the database (see `hook::pending`), for the
/// next hook to record, and says so in the error the fault log gets.
fn locked_out(
    provider: &dyn Provider,
    project: &Project,
    settings: &crate::config::Settings,
    (mapped, guard): (Option<Mapped>, &Guard),
    redactor: &Redactor,
    faults: &[Fault],
    cause: HookError,
) -> HookError {
    // What the hook answers without its database: the floor's verdict, else allow.
    let answered = guard.finish(guard.floor.clone().unwrap_or_else(Decision::allow));
    let now = crate::clock::now();
    let mut events: Vec<(Event, Plane)> = Vec::new();
    let mut session = None;
    if let Some(Mapped { event, action, .. }) = mapped {
        let plane = plane_for(&event, false, settings.obs.debug);
        session = event.session_id.clone();
        let mut event = event;
        if action.is_some() {
            event.attrs.insert("decision".into(), answered.permission.as_str().into());
            event.attrs.insert("rule".into(), answered.rule.clone().into());
        }
        events.push((event, plane));
    }
    let mut notes = scrub_faults(redactor, faults);
    notes.push((
        Fault::NotRecorded(String::new()).source(),
        format!(
            "{}: locked by another process past {} ms; this event was kept and recorded by a later hook",
            project.db_path().display(),
            store::HOOK_BUSY_TIMEOUT.as_millis()
        ),
    ));
    for fault in notes {
        events.push((fault_event(provider, now, session.clone(), fault), Plane::Signal));
    }
    let refs: Vec<(&Event, Plane)> = events.iter().map(|(e, p)| (e, *p)).collect();
    HookError::Locked {
        cause: cause.to_string(),
        kept: super::pending::keep(&project.state_dir, &refs),
    }
}

/// A stop about a response waits (bounded) until the transcript holds it, so that the stop's
/// record — and the rails that read it — count that response; the wait is kept on the event
/// (`attrs.transcript_wait_ms`, and `attrs.transcript_behind = true` when it gave up).
fn await_response(m: &mut Mapped, sources: Sources<'_>) {
    let Some(text) = m.awaited_response.take() else { return };
    let subagent = m.subagent_transcript.as_deref().map(|p| sources.subagent.unwrap_or(p));
    let main = m.event.transcript_path.as_deref().map(|p| sources.transcript.unwrap_or(p));
    let Some(path) = subagent.or(main) else { return };
    if !path.ends_with(".jsonl") || !std::path::Path::new(path).is_file() {
        return;
    }
    let (waited, found) = super::usage::await_response(path, &text, super::usage::RESPONSE_WAIT);
    m.event
        .attrs
        .insert("transcript_wait_ms".into(), (waited.as_millis() as u64).into());
    if !found {
        m.event.attrs.insert("transcript_behind".into(), true.into());
    }
}

/// Live transcripts of other sessions read on each hook, at most.
const LIVE_TRANSCRIPTS_PER_HOOK: i64 = 8;
/// Only sessions seen this recently are watched; an older one's responses reach the home database
/// through `obs import transcripts`.
const LIVE_TRANSCRIPT_WINDOW: chrono::Duration = chrono::Duration::hours(24);

/// The transcript paths as the payload gave them, before redaction: read from there, while the
/// offsets and events keep them as stored (redacted, which for paths leaves them as given unless a
/// labelled detector matched).
#[derive(Clone, Copy)]
struct Sources<'a> {
    transcript: Option<&'a str>,
    subagent: Option<&'a str>,
}

/// One transcript's new responses, ready to write, and the session they belong to.
struct Delta {
    path: String,
    session: Option<String>,
    generations: Vec<Event>,
    next: crate::obs::recorder::TranscriptOffset,
}

/// Reads, before the write lock: the session's transcript; the subagent's own transcript a
/// SubagentStop names; and what the transcripts of other live sessions gained since their last
/// read (a session that ends without SessionEnd still gets its last responses, once: the
/// generations' dedup keys keep a response read twice from counting twice).
fn read_transcripts(
    provider: &dyn Provider,
    project: &Project,
    conn: &rusqlite::Connection,
    mapped: Option<&Mapped>,
    sources: Sources<'_>,
    faults: &mut Faults,
) -> Result<Vec<Delta>, HookError> {
    let Some(m) = mapped else { return Ok(Vec::new()) };
    let es = EventStore::new(conn);
    let ev = &m.event;
    let session = ev.session_id.as_deref();
    // (the path as stored, the path to read, the subagent, a missing file is expected)
    let mut own: Vec<(&str, &str, Option<&str>, bool)> = Vec::new();
    if let Some(path) = ev.transcript_path.as_deref() {
        let read_before = es.transcript_offset(path)?.is_some();
        let missing_ok = super::usage::Owner::missing_ok_at(ev.kind, read_before);
        own.push((path, sources.transcript.unwrap_or(path), None, missing_ok));
    }
    if let Some(path) = m.subagent_transcript.as_deref() {
        let agent = ev.span_id.as_deref().or_else(|| super::usage::subagent_of_path(path));
        // The /compact agent's transcript is named but never written (measured with 2.1.197).
        own.push((path, sources.subagent.unwrap_or(path), agent, true));
    }
    let mut deltas = Vec::new();
    let mut read = |key: &str,
                    source: &str,
                    stored: Option<crate::obs::recorder::TranscriptOffset>,
                    owner: super::usage::Owner<'_>,
                    faults: &mut Faults| {
        match super::usage::read_delta(&project.paths, source, stored.as_ref(), &owner) {
            Ok(Some(mut d)) => {
                faults.append(&mut d.faults);
                deltas.push(Delta {
                    path: key.to_string(),
                    session: owner.session.map(str::to_string),
                    generations: d.generations,
                    next: d.next,
                });
            }
            Ok(None) => {}
            Err(e) => faults.push(Fault::Transcript(format!("transcript not read: {e}"))),
        }
    };
    for (key, source, agent, missing_ok) in &own {
        let stored = es.transcript_offset(key)?;
        let owner = super::usage::Owner {
            provider: provider.name(),
            session,
            trace: ev.trace_id.as_deref(),
            agent: *agent,
            missing_ok: *missing_ok,
            ts: ev.ts,
        };
        read(key, source, stored, owner, faults);
    }
    let except = own.first().map_or("", |(p, ..)| *p);
    let since = crate::clock::stamp(ev.ts - LIVE_TRANSCRIPT_WINDOW);
    for (path, other, stored) in es.live_transcripts(except, provider.name(), LIVE_TRANSCRIPTS_PER_HOOK, &since)? {
        if own.iter().any(|(p, ..)| *p == path) {
            continue;
        }
        let grown = std::fs::metadata(&path).is_ok_and(|meta| meta.len() > stored.offset as u64);
        if grown {
            let owner = super::usage::Owner::of_path(provider.name(), other.as_deref(), &path, ev.ts);
            read(&path, &path, Some(stored), owner, faults);
        }
    }
    Ok(deltas)
}

/// Claude Code's MessageDisplay fires once per text block of a response: a block that directly
/// follows another of the same turn (no other hook event between them) continues that response
/// and is marked so (`attrs.continues_response`), so that responses are counted, not blocks.
fn mark_response_block(es: &EventStore<'_>, event: &mut Event) -> rusqlite::Result<()> {
    let (Some(session), Some(turn)) = (event.session_id.as_deref(), event.attrs.get("turn_id").and_then(Value::as_str)) else {
        return Ok(());
    };
    if let Some((kind, previous_turn)) = es.latest_hook_event(&event.provider, session, event.parent_span_id.as_deref())? {
        if kind == Kind::AgentResponse.as_str() && previous_turn.as_deref() == Some(turn) {
            event.attrs.insert("continues_response".into(), true.into());
        }
    }
    Ok(())
}

/// A session start that goes on with a session already under way keeps its policy baseline:
/// Claude Code's SessionStart with `source` `compact` fires mid-session after a compaction (which a
/// long context brings about on its own), and one with `resume` starts the client again on the
/// same session — which the agent can do itself (`claude -p --resume <id>` in its shell). Were
/// either to re-baseline, an out-of-band policy edit would be laundered.
/// Appends the attestation records a session's end or a fresh start closes (issue 35), and at a
/// start notes the tlc revision this project's hooks run (`tlc version`).
fn attest(
    tx: &rusqlite::Transaction<'_>,
    provider: &dyn Provider,
    session: &str,
    closes: ClosedBy,
    settings: &crate::config::Settings,
    posture: crate::policy::Posture,
    paths: &Paths,
) -> rusqlite::Result<()> {
    let now = crate::clock::now();
    let revision = crate::revision::recorded();
    let observer = Observer {
        rails_active: crate::policy::catalog::rails(settings, posture)
            .into_iter()
            .filter(|r| r.acts)
            .map(|r| r.rail)
            .collect(),
        posture: posture.as_str(),
        revision: &revision,
        now,
        folders: attest_folders(paths),
    };
    let store = AttestStore::new(tx);
    match closes {
        ClosedBy::SessionEnd => store.on_session_end(provider.name(), session, &observer).map(drop),
        ClosedBy::NextSessionStart => {
            EventStore::new(tx).note_hooks_revision(&revision, &crate::clock::stamp(now))?;
            store.on_session_start(provider.name(), session, &observer).map(drop)
        }
    }
}

/// The folders an attestation record names by label, most specific first: the project, the
/// runtime home, the user's home.
fn attest_folders(paths: &Paths) -> Vec<(String, &'static str)> {
    let mut folders = vec![
        (paths.root.display().to_string(), "<project>"),
        (paths.home.display().to_string(), "$TLC_HOME"),
    ];
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        folders.push((std::path::PathBuf::from(home).display().to_string(), "~"));
    }
    folders.sort_by_key(|(dir, _)| std::cmp::Reverse(dir.len()));
    folders
}

fn continues_session(event: &Event) -> bool {
    matches!(event.attrs.get("source").and_then(Value::as_str), Some("resume" | "compact"))
}

/// One `cost.session_alert` when the session's estimated cost has crossed the threshold and no
/// alert was recorded for it yet.
fn cost_alert(
    es: &EventStore<'_>,
    provider: &dyn Provider,
    session: Option<&str>,
    threshold: Option<f64>,
) -> rusqlite::Result<Option<Event>> {
    let (Some(session), Some(threshold)) = (session, threshold) else {
        return Ok(None);
    };
    let (cost, alerts) = es.session_cost(provider.name(), session)?;
    if alerts > 0 || cost < threshold {
        return Ok(None);
    }
    let mut alert = Event::new(provider.name(), Kind::CostSessionAlert, crate::clock::now());
    alert.session_id = Some(session.to_string());
    alert.attrs.insert("estimated_cost_usd".into(), cost.into());
    alert.attrs.insert("threshold_usd".into(), threshold.into());
    alert.dedup_key = Some(format!("alert:{}:{session}", provider.name()));
    Ok(Some(alert))
}

/// The plane an event lands on: an interrupting decision is signal; otherwise the kind decides,
/// and a debug-kind event with the debug plane off is kept on the audit plane only.
fn plane_for(event: &Event, interrupts: bool, debug_on: bool) -> Plane {
    if interrupts {
        return Plane::Signal;
    }
    match event.kind.plane() {
        Plane::Debug if !debug_on => Plane::Audit,
        p => p,
    }
}

/// Rows a hook sends to the spool at most besides its own: a long backlog (the spool just turned
/// on, the home database locked for a while) is sent a batch per hook, or at once by
/// `tlc obs spool catch-up`.
const SPOOL_BATCH: i64 = 256;

/// Sends the home spool what it lacks of this project database — this hook's rows, and any a
/// killed or locked-out hook left behind — then moves the spool cursor. The cursor moves only
/// after the home database committed, so a hook killed in between leaves the rows past it.
/// Generation rows given to the home `usage` table per hook (a project's history the first time
/// goes over several turns).
const USAGE_BATCH: i64 = 5000;

/// The generations recorded since the usage cursor, into the home database's `usage` table
/// (through the spool's one writer of it, keyed as a transcript import would key them); the
/// cursor moves once the home database committed them.
fn mirror_usage(project: &Project, conn: &rusqlite::Connection) -> Result<(), String> {
    let db = project.db_path();
    let es = EventStore::new(conn);
    let named = |e: rusqlite::Error| HookError::from(e).named(&db);
    let from = es.usage_cursor().map_err(named)?;
    let rows = es.generations_after(from, USAGE_BATCH).map_err(named)?;
    let Some(through) = rows.last().map(|r| r.id) else {
        return Ok(());
    };
    let home_db = project.paths.home_db();
    let sent = (|| -> Result<(), HookError> {
        let mut home = store::open_hook(DbKind::Home, &home_db)?;
        home.busy_handler(Some(wait_for_writer))?;
        let tx = home.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let spool = Spool::new(&tx);
        let (repo, name) = (project.root().display().to_string(), project.name());
        for ev in &rows {
            spool.usage(&repo, &name, ev)?;
        }
        tx.commit()?;
        store::leave_open_until_exit(home);
        Ok(())
    })();
    sent.map_err(|e| format!("{}: {}", home_db.display(), e.named(&home_db)))?;
    conn.busy_handler(Some(wait_for_writer))
        .map_err(|e| format!("{}: usage cursor not moved: {e}", db.display()))?;
    es.advance_usage_cursor(through)
        .map_err(|e| format!("{}: usage cursor not moved: {}", db.display(), named(e)))
}

fn spool(project: &Project, conn: &rusqlite::Connection, own_from: Option<i64>) -> Result<(), String> {
    let db = project.db_path();
    let backlog = crate::obs::spool::backlog(conn, SPOOL_BATCH, own_from).map_err(|e| HookError::from(e).named(&db))?;
    if backlog.rows.is_empty() {
        return Ok(());
    }
    let home_db = project.paths.home_db();
    let sent = (|| -> Result<(), HookError> {
        let mut home = store::open_hook(DbKind::Home, &home_db)?;
        home.busy_handler(Some(wait_for_writer))?;
        let tx = home.transaction_with_behavior(TransactionBehavior::Immediate)?;
        Spool::new(&tx).send(&project.root().display().to_string(), &project.name(), &backlog)?;
        tx.commit()?;
        store::checkpoint_if_large(&home);
        store::leave_open_until_exit(home);
        Ok(())
    })();
    sent.map_err(|e| format!("{}: {}", home_db.display(), e.named(&home_db)))?;
    if backlog.through > backlog.from {
        // `checkpoint_if_large` may have left the connection without a wait.
        conn.busy_handler(Some(wait_for_writer))
            .map_err(|e| format!("{}: spool cursor not moved: {e}", db.display()))?;
        EventStore::new(conn)
            .advance_spool_cursor(backlog.through)
            .map_err(|e| format!("{}: spool cursor not moved: {}", db.display(), HookError::from(e).named(&db)))?;
    }
    Ok(())
}
