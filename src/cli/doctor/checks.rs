//! `tlc doctor`'s checks: one row each, `ok`, `info`, `warn` or `fail` (`info` says a fact an
//! operator may want, such as the features off by design; `warn` and `fail` only what is wrong). Every check reads only: a
//! database is opened only if it exists, nothing is created. The questions about a domain's
//! tables are answered by that domain (`obs` for hook faults, `cost` for the price catalog,
//! `policy` for divergences and the mode state, `agent` for stables and pins); this module
//! only turns the answers into rows.

use crate::config::{registry, Config, Tier};
use crate::cost::catalog::{override_file, PriceCatalog};
use crate::obs::report::Reports;
use crate::paths::Paths;
use crate::policy::integrity::{self, IntegrityStore};
use crate::policy::OperatorState;
use crate::project::Project;
use crate::store::{self, DbKind, Store, StoreError};
use std::path::Path;

/// One check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Ok,
    Info,
    Warn,
    Fail,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Info => "info",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }
}

/// One row of `doctor`.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Check {
    pub id: String,
    pub name: String,
    pub status: Status,
    pub detail: String,
}

fn check(id: &str, name: &str, status: Status, detail: impl Into<String>) -> Check {
    Check {
        id: id.into(),
        name: name.into(),
        status,
        detail: detail.into(),
    }
}

/// How far back hook faults count as recent.
const RECENT_FAULT_DAYS: i64 = 7;
/// A price catalog older than this is stale.
const PRICE_STALE_DAYS: i64 = 30;

/// The command that fixes a warning or a failure of check `id`, when its detail does not name one
/// already: every row that is not ok tells the operator what to run.
fn fix(id: &str) -> &'static str {
    match id {
        "adoption" => "`tlc status` shows where the records go; the machine tier's [guest] rule decides",
        "db-project" | "db-home" => "`tlc db check` lists the faults; `tlc db migrate` upgrades an older schema",
        "config-machine" | "config-project" => "fix the line named, then `tlc config show --origin` to confirm",
        "restated-keys" => "`tlc config show --origin` shows which tier each value comes from",
        "renamed-keys" => "rename the key in the file named (the old name still loads)",
        "posture" => "`tlc mode solo` (or paired, focus) records a valid posture",
        "gate-lint" => "`tlc gate lint-command <cmd>` sets a command that resolves",
        "gate-test" => "`tlc gate test-command <cmd>` sets a command that resolves",
        "policy-integrity" => "`tlc policy` lists the sources; `tlc policy accept <path>` accepts an edit you made",
        "hook-faults" => "`tlc obs events --kind hook --plane all` shows them",
        "prices" => "`tlc prices refresh` fetches the catalog",
        "stables-pins" => "`tlc stable update` fetches the stables; `tlc agent prune` removes unreferenced pins",
        "spool" => "`tlc config show --origin` shows obs.globalSpool",
        "observe" => "name only rails with a checker in observe.rails (`comments`), or switch the enforcing rail off to observe it (`tlc config show --origin` shows where each is set)",
        "rules" => "write a rule file (docs/policy.md, *Operator rules*) or fix the one named; `tlc rules` lists them",
        "subagent-allowlist" => "list the models in subagents.allowedModels (`tlc config show --origin` shows where it is set), or turn subagents.enforceAllowlist off",
        _ => "`tlc doctor --json` gives the check's id",
    }
}

/// [`fix`], where a provider's wiring check (`hooks-<name>`) names that provider's flag.
fn fix_for(id: &str) -> std::borrow::Cow<'static, str> {
    match id.strip_prefix("hooks-").and_then(crate::hook::provider::by_name) {
        Some(p) => format!("`tlc install --{}` wires tlc's entries", p.name()).into(),
        None => fix(id).into(),
    }
}

/// Runs every check for `paths`.
pub(crate) fn run_all(paths: &Paths) -> Vec<Check> {
    let mut out = run_checks(paths);
    let wrong = |c: &Check| matches!(c.status, Status::Warn | Status::Fail);
    for c in out.iter_mut().filter(|c| wrong(c) && !c.detail.contains("`tlc ")) {
        c.detail = format!("{}; fix: {}", c.detail, fix_for(&c.id));
    }
    out
}

fn run_checks(paths: &Paths) -> Vec<Check> {
    let mut out = Vec::new();
    let config = Config::load(paths);
    let project = Project::locate(paths, config.as_ref().unwrap_or(&Config::defaults()));
    out.push(adoption(&project));
    out.push(database("db-project", "project database", DbKind::Project, &project.db_path()));
    out.push(database("db-home", "home database", DbKind::Home, &paths.home_db()));
    out.extend(config_tiers(paths));
    let project_store = store::open_read(DbKind::Project, &project.db_path()).ok().flatten();
    let mode_state = project_store
        .as_ref()
        .and_then(|s| OperatorState::new(s.conn()).mode().ok().flatten());
    match &config {
        Ok(cfg) => {
            out.push(restated_keys(cfg, paths));
            out.push(renamed_keys(cfg));
            out.push(posture(cfg, mode_state.as_deref()));
            let rule_set = cfg.settings.rules.enabled.then(|| crate::policy::rules::load(paths));
            out.extend(rails(cfg, mode_state.as_deref(), rule_set.as_ref()));
            out.push(operator_rules(cfg, paths, rule_set));
            out.push(subagent_allowlist(cfg));
            out.push(observation(cfg));
            out.extend(opt_ins(cfg));
            out.extend(gate_commands(cfg));
            out.push(loop_budget(cfg));
            out.push(spool(cfg, &project, project_store.as_ref()));
        }
        Err(e) => out.push(check(
            "restated-keys",
            "restated project keys",
            Status::Warn,
            format!("skipped: the config does not load ({e})"),
        )),
    }
    out.push(policy_divergence(&project, project_store.as_ref(), mode_state.as_deref()));
    out.extend(hook_wiring());
    out.extend(boundary(paths));
    out.push(hook_faults(paths, project_store.as_ref()));
    out.push(price_catalog(paths));
    out.push(stables_and_pins(paths, config.as_ref().ok()));
    out
}

fn adoption(project: &Project) -> Check {
    let cfg = project.paths.project_config();
    if let Some(why) = crate::paths::escape_from(project.root()) {
        return check(
            "adoption",
            "adoption",
            Status::Warn,
            format!("{why}: tlc never writes through it; records go to {}", project.state_dir.display()),
        );
    }
    if project.outside {
        return check(
            "adoption",
            "adoption",
            Status::Ok,
            format!(
                "{} is not a git repository: nothing is written into it; records go to {}",
                project.root().display(),
                project.state_dir.display()
            ),
        );
    }
    if project.guest {
        return check(
            "adoption",
            "adoption",
            Status::Ok,
            format!(
                "guest repository: nothing is written into it; records go to {}",
                project.state_dir.display()
            ),
        );
    }
    if cfg.is_file() {
        check("adoption", "adoption", Status::Ok, format!("adopted: {}", cfg.display()))
    } else {
        check(
            "adoption",
            "adoption",
            Status::Ok,
            "not adopted yet: the first hook or mutating command (or `tlc init`) adopts it",
        )
    }
}

fn database(id: &str, name: &str, kind: DbKind, path: &Path) -> Check {
    if std::fs::symlink_metadata(path).is_err() {
        return check(
            id,
            name,
            Status::Ok,
            format!("{}: not created yet (nothing recorded)", path.display()),
        );
    }
    match store::open_read(kind, path) {
        Err(e @ StoreError::NeedsMigration { .. }) => return check(id, name, Status::Warn, e.to_string()),
        Err(e) => return check(id, name, Status::Fail, e.to_string()),
        Ok(_) => {}
    }
    match store::check(kind, path) {
        Ok(r) if r.ok => check(
            id,
            name,
            Status::Ok,
            format!("{}: schema {}, integrity ok", path.display(), kind.latest_version()),
        ),
        Ok(r) => {
            let faults: Vec<String> = r
                .integrity
                .iter()
                .filter(|l| *l != "ok")
                .chain(&r.foreign_key_faults)
                .chain(&r.schema)
                .take(3)
                .cloned()
                .collect();
            check(id, name, Status::Fail, format!("{}: {}", path.display(), faults.join("; ")))
        }
        Err(e) => check(id, name, Status::Fail, e.to_string()),
    }
}

fn config_tiers(paths: &Paths) -> Vec<Check> {
    let machine = paths.machine_config();
    let mut out = vec![match Config::load_files(&machine, None) {
        Ok(_) if machine.is_file() => check(
            "config-machine",
            "machine config",
            Status::Ok,
            format!("{}: valid", machine.display()),
        ),
        Ok(_) => check(
            "config-machine",
            "machine config",
            Status::Ok,
            format!("{}: no file (shipped defaults)", machine.display()),
        ),
        Err(e) => check("config-machine", "machine config", Status::Fail, e.to_string()),
    }];
    if !paths.root_overlaps_home() {
        let project = paths.project_config();
        // The project file alone (an empty path reads as a missing machine tier).
        out.push(match Config::load_files(Path::new(""), Some(&project)) {
            Ok(_) if project.is_file() => check(
                "config-project",
                "project config",
                Status::Ok,
                format!("{}: valid", project.display()),
            ),
            Ok(_) => check(
                "config-project",
                "project config",
                Status::Ok,
                format!("{}: no file (not adopted yet)", project.display()),
            ),
            Err(e) => check("config-project", "project config", Status::Fail, e.to_string()),
        });
    }
    out
}

/// The project keys that restate the value they would inherit, each with the file it stopped
/// tracking. Deleting them changes nothing: the value goes back to being inherited.
pub(crate) fn restated(cfg: &Config, paths: &Paths) -> Vec<String> {
    let mut out = Vec::new();
    for (tier, key, value, line) in &cfg.declared {
        if *tier != Tier::Project || !registry::spec(key).is_some_and(|s| s.policy) {
            continue;
        }
        if cfg.inherited(key).as_ref() != Some(value) {
            continue;
        }
        let from_machine = cfg.declared.iter().any(|(t, k, _, _)| *t == Tier::Machine && k == key);
        let tracking = if from_machine {
            paths.machine_config().display().to_string()
        } else {
            "the shipped default".to_string()
        };
        out.push(format!(
            "{key}{} restates {} and stopped tracking {tracking}",
            line.map(|l| format!(" (line {l})")).unwrap_or_default(),
            value.to_toml_text()
        ));
    }
    out
}

fn restated_keys(cfg: &Config, paths: &Paths) -> Check {
    let keys = restated(cfg, paths);
    if keys.is_empty() {
        return check(
            "restated-keys",
            "restated project keys",
            Status::Ok,
            "no project key restates the value it would inherit",
        );
    }
    check(
        "restated-keys",
        "restated project keys",
        Status::Warn,
        format!(
            "{} in {}: {} (deleting them is safe: the value is inherited)",
            keys.len(),
            paths.project_config().display(),
            bounded(&keys)
        ),
    )
}

/// Keys a tier file names by a name they no longer have, and `decayLambda`, whose unit changed
/// from per day to per hour (issue 32): each loads, and each is worth a look.
fn renamed_keys(cfg: &Config) -> Check {
    let at =
        |file: &std::path::Path, line: Option<usize>| format!("{}{}", file.display(), line.map(|l| format!(":{l}")).unwrap_or_default());
    let mut items: Vec<String> = cfg
        .renamed
        .iter()
        .map(|r| format!("{} ({}) is now {}", r.old, at(&r.file, r.line), r.new))
        .collect();
    for (tier, key, value, line) in &cfg.declared {
        if *key == "intelligence.lessons.decayLambda" {
            let file = cfg
                .files
                .iter()
                .find(|f| f.tier == *tier)
                .map(|f| at(&f.path, *line))
                .unwrap_or_default();
            items.push(format!(
                "intelligence.lessons.decayLambda ({file}) = {} is read per hour since issue 32 (it was per day: a per-day value decays 24 times faster now)",
                value.to_toml_text()
            ));
        }
    }
    if items.is_empty() {
        return check("renamed-keys", "renamed keys", Status::Ok, "no config names a renamed key");
    }
    check("renamed-keys", "renamed keys", Status::Warn, bounded(&items))
}

fn bounded(items: &[String]) -> String {
    let mut s = items.iter().take(3).cloned().collect::<Vec<_>>().join("; ");
    if items.len() > 3 {
        s.push_str(&format!("; and {} more", items.len() - 3));
    }
    s
}

fn posture(cfg: &Config, mode_state: Option<&str>) -> Check {
    let r = crate::policy::resolve_for(mode_state, cfg);
    match &r.rejected {
        Some((word, from)) => check(
            "posture",
            "operator posture",
            Status::Warn,
            format!(
                "{word:?} in {from} is not a posture (paired, solo, focus); running {} (from {}) in its place",
                r.posture.as_str(),
                r.source
            ),
        ),
        None => check(
            "posture",
            "operator posture",
            Status::Ok,
            format!("{} (from {})", r.posture.as_str(), r.source),
        ),
    }
}

fn gate_commands(cfg: &Config) -> Vec<Check> {
    let g = &cfg.settings.grind;
    let mut out = Vec::new();
    for (gate, argv) in [
        (crate::gate::Gate::Lint, &g.lint_command),
        (crate::gate::Gate::Test, &g.test_command),
        (crate::gate::Gate::Docs, &cfg.settings.docs.command),
    ] {
        let id = format!("gate-{}", gate.as_str());
        let name = format!("{} gate command", gate.as_str());
        let Some(first) = argv.first() else {
            out.push(check(&id, &name, Status::Ok, format!("{} not set", gate.key())));
            continue;
        };
        if crate::gate::resolve_on_path(first).is_none() {
            out.push(check(
                &id,
                &name,
                Status::Fail,
                format!(
                    "{} = {argv:?}: `{first}` does not resolve on PATH (the gate would report `config`)",
                    gate.key()
                ),
            ));
            continue;
        }
        let narrowed = gate != crate::gate::Gate::Docs && g.append_files == "auto";
        let how = match crate::gate::narrow::runner(argv) {
            Some(r) if narrowed => format!("; narrowed to the changed files {} takes (appendFiles = auto)", r.name),
            _ if g.append_files == "always" && gate != crate::gate::Gate::Docs => {
                "; the changed files appended (appendFiles = always)".to_string()
            }
            _ => "; runs exactly as written".to_string(),
        };
        out.push(check(&id, &name, Status::Ok, format!("{} = {argv:?}{how}", gate.key())));
    }
    out
}

/// Claude Code ends a turn after this many consecutive Stop blocks (its default
/// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`), whatever the hook answers next.
pub(crate) const CLAUDE_STOP_BLOCK_CAP: i64 = 8;

fn loop_budget(cfg: &Config) -> Check {
    let max = cfg.settings.grind.max_loops;
    if max >= CLAUDE_STOP_BLOCK_CAP {
        return check(
            "loop-budget",
            "stop loop budget",
            Status::Warn,
            format!(
                "grind.maxLoops = {max} is at or past Claude Code's cap of {CLAUDE_STOP_BLOCK_CAP} consecutive Stop blocks (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP): the client ends the turn itself before tlc's budget is spent, so the last attempts are never seen; keep it at {} or below",
                CLAUDE_STOP_BLOCK_CAP - 1
            ),
        );
    }
    check(
        "loop-budget",
        "stop loop budget",
        Status::Ok,
        format!("grind.maxLoops = {max}, under Claude Code's cap of {CLAUDE_STOP_BLOCK_CAP} consecutive Stop blocks"),
    )
}

/// The spool, when on: how many of this project's records the home spool is not known to hold
/// (past the spool cursor: a hook killed or locked out between its two writes, or records made
/// while the spool was off), against what each database holds.
fn spool(cfg: &Config, project: &Project, store: Option<&Store>) -> Check {
    let home_db = project.paths.home_db();
    if !cfg.settings.obs.global_spool {
        return check(
            "spool",
            "global spool",
            Status::Ok,
            "off (obs.globalSpool = false): records stay in the project database",
        );
    }
    let Some(store) = store else {
        return check(
            "spool",
            "global spool",
            Status::Ok,
            format!(
                "on: every record is also written to {} (nothing recorded here yet)",
                home_db.display()
            ),
        );
    };
    let (total, behind) = match crate::obs::EventStore::new(store.conn()).spool_backlog() {
        Ok(c) => c,
        Err(e) => return check("spool", "global spool", Status::Warn, format!("{}: {e}", store.path().display())),
    };
    let spooled = match store::open_read(DbKind::Home, &home_db) {
        Ok(Some(home)) => crate::obs::Spool::new(home.conn())
            .repo_count(&project.root().display().to_string())
            .map_err(|e| format!("{}: {e}", home_db.display())),
        Ok(None) => Ok(0),
        Err(e) => Err(e.to_string()),
    };
    let spooled = match spooled {
        Ok(n) => n,
        Err(e) => return check("spool", "global spool", Status::Warn, e),
    };
    let counts = format!(
        "{total} record(s) in the project database, {spooled} in the home spool for {}",
        project.root().display()
    );
    if behind > 0 {
        check(
            "spool",
            "global spool",
            Status::Warn,
            format!("on, {behind} record(s) not yet in the home spool ({counts}): run `tlc obs spool catch-up`"),
        )
    } else {
        check("spool", "global spool", Status::Ok, format!("on, nothing behind ({counts})"))
    }
}

/// The floor, the always-on checks and each configurable rail: what acts, and what is set but
/// not enforced by this tlc (a warning: a switch that reads as protection that is not there).
fn rails(cfg: &Config, mode_state: Option<&str>, rule_set: Option<&crate::policy::rules::RuleSet>) -> Vec<Check> {
    let posture = crate::policy::resolve_for(mode_state, cfg).posture;
    let mut all = crate::policy::catalog::rails(&cfg.settings, posture);
    if let Some(set) = rule_set {
        crate::policy::catalog::count_rules(&mut all, set.active().len());
    }
    let floor: Vec<&str> = all.iter().filter(|r| r.kind == "floor").map(|r| r.rail).collect();
    let mut out = vec![check(
        "floor",
        "floor",
        Status::Ok,
        format!(
            "{} rules, no config switch, evaluated first on every acting event: {}",
            floor.len(),
            floor.join(", ")
        ),
    )];
    let acting: Vec<String> = all.iter().filter(|r| r.kind != "floor" && r.acts).map(rail_and_switch).collect();
    out.push(check("rails", "rails that act", Status::Ok, acting.join(", ")));
    let inert: Vec<String> = all
        .iter()
        .filter(|r| r.on && !r.enforced)
        .map(|r| format!("{} ({})", r.rail, r.key))
        .collect();
    let wanting: Vec<String> = all
        .iter()
        .filter(|r| r.on && r.enforced && !crate::policy::catalog::waits_for_a_stop_rail(r))
        .filter_map(|r| r.needs.map(|n| format!("{} ({}) needs {n}", r.rail, r.key)))
        .collect();
    let dormant: Vec<String> = all
        .iter()
        .filter(|r| r.on && r.enforced && crate::policy::catalog::waits_for_a_stop_rail(r))
        .map(|r| format!("{} ({})", r.rail, r.key))
        .collect();
    let mut said = Vec::new();
    if !inert.is_empty() {
        said.push(format!("switched on, but this tlc does not enforce them yet: {}", inert.join(", ")));
    }
    if !wanting.is_empty() {
        said.push(format!("switched on, but cannot act yet: {}", wanting.join("; ")));
    }
    out.push(if said.is_empty() {
        // Dormant rails are said, not warned on: they act once a stop rail is switched on.
        let detail = if dormant.is_empty() {
            "none".to_string()
        } else {
            format!("none; waiting for a stop rail that can block: {}", dormant.join(", "))
        };
        check("rails-inert", "rails switched on but not acting", Status::Ok, detail)
    } else {
        check("rails-inert", "rails switched on but not acting", Status::Warn, said.join(". "))
    });
    out
}

/// A rail as doctor names it: with its switch, or as always on when no key turns it off.
fn rail_and_switch(r: &crate::policy::catalog::RailState) -> String {
    if r.key == crate::policy::catalog::NO_SWITCH {
        format!("{} (always on)", r.rail)
    } else {
        format!("{} ({})", r.rail, r.key)
    }
}

/// The opt-ins of the capability catalog (`config::catalog`): one `ok` row per opt-in that is on,
/// naming where; the ones off, which is how tlc ships them, together in one `info` row with the
/// two ways to turn one on (issue 52: fifteen warnings on a fresh install said nothing was wrong).
/// Nothing turns one on by itself.
fn opt_ins(cfg: &Config) -> Vec<Check> {
    let states = crate::config::catalog::states(cfg);
    let from = |s: &crate::config::catalog::OptInState| match &s.origin.file {
        Some(f) => format!("{} config {}", s.origin.tier.name(), f.display()),
        None => "the shipped default".to_string(),
    };
    let mut out: Vec<Check> = states
        .iter()
        .filter(|s| s.on)
        .map(|s| {
            check(
                &format!("opt-in-{}", s.opt.key),
                &format!("opt-in: {}", s.opt.feature),
                Status::Ok,
                format!("on: {} = {} ({})", s.opt.key, s.value.to_toml_text(), from(s)),
            )
        })
        .collect();
    let off: Vec<String> = states
        .iter()
        .filter(|s| !s.on)
        .map(|s| match &s.origin.file {
            Some(_) => format!("{} ({}, set off in {})", s.opt.feature, s.opt.key, from(s)),
            None => format!("{} ({})", s.opt.feature, s.opt.key),
        })
        .collect();
    if !off.is_empty() {
        out.push(check(
            "opt-ins-off",
            "opt-ins off by design",
            Status::Info,
            format!(
                "{}; each is off until the operator turns it on: `tlc init` at a terminal asks about each, `tlc config set <key> <value>` sets one",
                off.join(", ")
            ),
        ));
    }
    out
}

/// Operator rules: the active rules with their tier, trigger and verdict; with the switch on and
/// no rule file, a warning (an inert mechanism and a working one otherwise look alike); a broken
/// rule file, a failure (it enforces nothing while it reads as protection). `set` is the loaded
/// rules when the switch is on.
fn operator_rules(cfg: &Config, paths: &Paths, set: Option<crate::policy::rules::RuleSet>) -> Check {
    use crate::policy::rules;
    let (id, name) = ("rules", "operator rules");
    let dirs = format!("{} and {}", rules::global_dir(paths).display(), rules::project_dir(paths).display());
    let Some(set) = set.filter(|_| cfg.settings.rules.enabled) else {
        return check(
            id,
            name,
            Status::Ok,
            format!("off (rules.enabled); rule files are read from {dirs}"),
        );
    };
    let mut problems: Vec<String> = set.broken().filter_map(rules::RuleFile::error).collect();
    problems.extend(set.folder_problems());
    let active: Vec<String> = set
        .active()
        .iter()
        .map(|(f, s)| format!("{} ({}, on {}, otherwise {})", f.name, f.tier.as_str(), s.on, s.otherwise.as_str()))
        .collect();
    let listed = if active.is_empty() {
        "no active rule".to_string()
    } else {
        format!("{} active: {}", active.len(), active.join(", "))
    };
    if !problems.is_empty() {
        return check(
            id,
            name,
            Status::Fail,
            format!("{listed}; broken, enforcing nothing: {}", bounded(&problems)),
        );
    }
    if set.files.is_empty() {
        return check(
            id,
            name,
            Status::Warn,
            format!("rules.enabled is on but there is no rule file in {dirs}: nothing is enforced"),
        );
    }
    if active.is_empty() {
        return check(
            id,
            name,
            Status::Warn,
            "rules.enabled is on but every rule file is disabled, shadowed or switched off: nothing is enforced (`tlc rules` lists them)",
        );
    }
    check(id, name, Status::Ok, listed)
}

/// `subagents.enforceAllowlist` with an empty `allowedModels` enforces nothing: a fault, not a
/// warning, since the switch reads as a restriction that is not there.
fn subagent_allowlist(cfg: &Config) -> Check {
    let sub = &cfg.settings.subagents;
    let listed = sub.allowed_models.iter().filter(|m| !m.trim().is_empty()).count();
    match (sub.enforce_allowlist, listed) {
        (true, 0) => check(
            "subagent-allowlist",
            "subagent allowlist",
            Status::Fail,
            "subagents.enforceAllowlist is on but subagents.allowedModels is empty: it enforces nothing",
        ),
        (true, n) => check(
            "subagent-allowlist",
            "subagent allowlist",
            Status::Ok,
            format!("enforced: {n} models"),
        ),
        (false, _) => check("subagent-allowlist", "subagent allowlist", Status::Ok, "off"),
    }
}

/// Observation mode: which rails it records, and by name each it cannot (no checker, or
/// enforcing). Silence would read as "the property always holds".
fn observation(cfg: &Config) -> Check {
    use crate::gate::observe;
    let s = &cfg.settings;
    if !s.observe.enabled {
        return check("observe", "observation mode", Status::Ok, "off (observe.enabled)");
    }
    let recorded = observe::observed(s);
    let mut problems = Vec::new();
    for name in observe::without_checker(s) {
        problems.push(format!(
            "observe.rails names {name:?}, which has no checker: nothing is recorded for it (observable: {})",
            observe::OBSERVABLE.join(", ")
        ));
    }
    for rail in observe::OBSERVABLE {
        let named = s.observe.rails.iter().any(|n| n.trim().eq_ignore_ascii_case(rail));
        if named && observe::enforcing(s, rail) {
            problems.push(format!("{rail} is enforcing, so it is not observed (its own outcomes count it)"));
        }
    }
    let recording = if recorded.is_empty() {
        "records nothing".to_string()
    } else {
        format!("records {}", recorded.join(", "))
    };
    if problems.is_empty() {
        check("observe", "observation mode", Status::Ok, recording)
    } else {
        check(
            "observe",
            "observation mode",
            Status::Warn,
            format!("{recording}; {}", problems.join("; ")),
        )
    }
}

fn policy_divergence(project: &Project, store: Option<&Store>, mode_state: Option<&str>) -> Check {
    let Some(store) = store else {
        return check("policy-integrity", "policy integrity", Status::Ok, "no session baselined yet");
    };
    let _ = mode_state;
    let found = integrity::current_sources(store.conn(), &project.paths)
        .and_then(|now| IntegrityStore::new(store.conn()).current_divergences(&now));
    match found {
        Ok(d) if d.is_empty() => check(
            "policy-integrity",
            "policy integrity",
            Status::Ok,
            "every live session's baseline matches the policy on disk",
        ),
        Ok(d) => {
            let paths: std::collections::BTreeSet<&str> = d.iter().map(|x| x.source.as_str()).collect();
            let list = paths.into_iter().collect::<Vec<_>>().join(" ");
            check(
                "policy-integrity",
                "policy integrity",
                Status::Warn,
                format!("changed during a live session without a tlc command: {list}; acting tool calls are denied until you run `tlc policy accept {list}`"),
            )
        }
        Err(e) => check(
            "policy-integrity",
            "policy integrity",
            Status::Warn,
            format!("cannot read baselines: {e}"),
        ),
    }
}

fn hook_wiring() -> Vec<Check> {
    crate::hook::PROVIDERS.iter().copied().map(wiring).collect()
}

/// Issue 51: per wired provider, whether the kernel keeps tlc's state from the agent's commands
/// (ok) or only recognition does (warn: what is missing and which routes stay open); and whether
/// tlc's own children run in bubblewrap (fail when they cannot: a gate command could write the
/// state).
fn boundary(paths: &Paths) -> Vec<Check> {
    let report = crate::hook::boundary::report(paths);
    let mut out: Vec<Check> = report
        .providers
        .iter()
        .filter(|b| b.wired)
        .map(|b| {
            let id = format!("boundary-{}", b.provider);
            let name = format!("{} boundary", b.provider);
            if b.agent_commands == "kernel" {
                check(&id, &name, Status::Ok, format!("kernel: {}", b.by))
            } else {
                check(
                    &id,
                    &name,
                    Status::Warn,
                    format!(
                        "recognition only: {}. Open routes: {}; fix: `tlc install --{}` wires the sandbox",
                        b.by,
                        b.open_routes.join("; "),
                        b.provider
                    ),
                )
            }
        })
        .collect();
    out.push(if report.gates == "bubblewrap" {
        check("gate-sandbox", "gate sandbox", Status::Ok, report.gates_detail)
    } else {
        check("gate-sandbox", "gate sandbox", Status::Fail, report.gates_detail)
    });
    out
}

fn wiring(p: &dyn crate::hook::Provider) -> Check {
    let (id, name) = (format!("hooks-{}", p.name()), format!("{} wiring", p.name()));
    let dir = match p.config_dir() {
        Ok(dir) if dir.is_dir() => dir,
        Ok(_) => {
            return check(
                &id,
                &name,
                Status::Ok,
                format!("{} not detected (no {} folder)", p.name(), p.config_dir_default()),
            )
        }
        Err(e) => return check(&id, &name, Status::Ok, format!("{} not detected ({e})", p.name())),
    };
    let file = dir.join(p.settings_file());
    let text = match crate::fsread::read_capped_text(&file, crate::fsread::SETTINGS_CAP, crate::fsread::Links::Follow) {
        Ok(Some(t)) => t,
        Err(e) => return check(&id, &name, Status::Warn, e.to_string()),
        Ok(None) => {
            return check(
                &id,
                &name,
                Status::Warn,
                format!("detected but not wired: {} does not exist", file.display()),
            )
        }
    };
    let v: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return check(&id, &name, Status::Warn, format!("{}: not valid JSON ({e})", file.display())),
    };
    // Another tool's entries are never reported: only ours are judged.
    let ours: Vec<(String, String)> = crate::hook::wiring::wired_commands(&v)
        .into_iter()
        .filter(|(_, c)| crate::hook::wiring::is_tlc_command(c, p.name()))
        .collect();
    if ours.is_empty() {
        return check(
            &id,
            &name,
            Status::Warn,
            format!("detected but not wired: no `tlc hook {}` entry in {}", p.name(), file.display()),
        );
    }
    let mut problems = Vec::new();
    for event in p.events() {
        if !ours.iter().any(|(e, _)| e == event) {
            problems.push(format!("{event}: no tlc entry"));
        }
    }
    for (event, command) in &ours {
        let launcher = crate::hook::wiring::launcher(command, p.name());
        if crate::gate::resolve_on_path(launcher).is_none() {
            problems.push(format!("{event}: launcher `{launcher}` not found"));
        }
    }
    problems.dedup();
    if problems.is_empty() {
        check(
            &id,
            &name,
            Status::Ok,
            format!("{} events wired in {}", p.events().len(), file.display()),
        )
    } else {
        check(&id, &name, Status::Warn, format!("{} ({})", bounded(&problems), file.display()))
    }
}

fn hook_faults(paths: &Paths, store: Option<&Store>) -> Check {
    let since = crate::clock::stamp(crate::clock::now() - chrono::Duration::days(RECENT_FAULT_DAYS));
    let mut notes = Vec::new();
    if let Some(store) = store {
        match Reports::new(store.conn()).recent_faults(&since) {
            Ok(f) if f.count > 0 => notes.push(format!(
                "{} hook.fault event(s) in the project database, latest {}: {}",
                f.count,
                f.latest_at.unwrap_or_default(),
                f.latest.unwrap_or_default()
            )),
            Ok(_) => {}
            Err(e) => notes.push(format!("{}: cannot read hook faults: {e}", store.path().display())),
        }
    }
    let log: Vec<String> = crate::hook::read_fault_log(&paths.home)
        .into_iter()
        .filter(|l| l.as_str() >= since.as_str())
        .collect();
    if let Some(last) = log.last() {
        notes.push(format!(
            "{} line(s) in {}, latest: {last}",
            log.len(),
            paths.home_state_dir().join(crate::hook::FAULT_LOG_NAME).display()
        ));
    }
    if notes.is_empty() {
        check(
            "hook-faults",
            "recent hook faults",
            Status::Ok,
            format!("none in the last {RECENT_FAULT_DAYS} days"),
        )
    } else {
        check("hook-faults", "recent hook faults", Status::Warn, notes.join("; "))
    }
}

/// The price catalog's last refresh. A home database that cannot be read (not a database, a
/// newer or older schema) is said as such: the catalog is then not "never refreshed", it is
/// unknown, and the hook prices from the snapshot until the database is fixed.
fn price_catalog(paths: &Paths) -> Check {
    let read = || -> anyhow::Result<Option<String>> {
        let home = store::open_read(DbKind::Home, &paths.home_db())?;
        let catalog = PriceCatalog::new(home.as_ref().map(Store::conn), &override_file(paths))?;
        Ok(catalog.last_refresh()?)
    };
    let last = read();
    match last {
        Ok(Some(ts)) => match crate::clock::parse(&ts) {
            Ok(t) if (crate::clock::now() - t).num_days() > PRICE_STALE_DAYS => check(
                "prices",
                "price catalog",
                Status::Warn,
                format!("last refreshed {ts}, over {PRICE_STALE_DAYS} days ago: run `tlc prices refresh`"),
            ),
            _ => check("prices", "price catalog", Status::Ok, format!("last refreshed {ts}")),
        },
        // The snapshot is how tlc ships: nothing is wrong until the operator refreshes once.
        Ok(None) => check(
            "prices",
            "price catalog",
            Status::Info,
            "never refreshed: costs use the built-in snapshot; `tlc prices refresh` fetches the current catalog",
        ),
        Err(e) => check(
            "prices",
            "price catalog",
            Status::Warn,
            format!("cannot be read ({e:#}): costs use the built-in snapshot until it can"),
        ),
    }
}

fn stables_and_pins(paths: &Paths, cfg: Option<&Config>) -> Check {
    let Some(cfg) = cfg else {
        return check(
            "stables-pins",
            "stables and pins",
            Status::Warn,
            "skipped: the config does not load",
        );
    };
    match crate::agent::health::stables_and_pins(paths, cfg) {
        Ok(h) if h.problems.is_empty() => check(
            "stables-pins",
            "stables and pins",
            Status::Ok,
            format!(
                "{} stable(s) declared; {} pin(s) in the store, each from a declared stable and as installed",
                h.stables, h.pins
            ),
        ),
        Ok(h) => check(
            "stables-pins",
            "stables and pins",
            Status::Warn,
            format!(
                "{} stable(s) declared, {} pin(s) in the store: {}",
                h.stables,
                h.pins,
                bounded(&h.problems)
            ),
        ),
        Err(e) => check(
            "stables-pins",
            "stables and pins",
            Status::Warn,
            format!("cannot read the pins the home database recorded: {e}"),
        ),
    }
}
