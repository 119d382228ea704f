//! The typed view of the effective configuration.

use super::Value;

#[derive(Debug, Clone, serde::Serialize)]
pub struct Settings {
    /// The configured posture word, as written (validated by `policy::posture`).
    pub mode: String,
    pub grind: Grind,
    pub ship_gate: ShipGate,
    pub docs: Docs,
    pub comments: Comments,
    pub duplication: Duplication,
    pub supply_chain: SupplyChain,
    pub obs: Obs,
    pub secrets: Secrets,
    pub shell: Shell,
    pub subagents: Subagents,
    pub intelligence: Intelligence,
    pub project: ProjectMeta,
    pub guest: Guest,
    pub ship: Ship,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Grind {
    pub enabled: bool,
    pub lint_command: Vec<String>,
    pub test_command: Vec<String>,
    pub code_paths: Vec<String>,
    pub test_paths: Vec<String>,
    pub append_files: String,
    pub max_loops: i64,
    pub gate_timeout_seconds: i64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ShipGate {
    pub enabled: bool,
    pub claim_window_minutes: i64,
    pub runtime_path_prefixes: Vec<String>,
    pub runtime_path_excludes: Vec<String>,
    pub evidence_dir: String,
    pub empty_diff_anti_ship: bool,
    pub evidence_max_age_hours: i64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Docs {
    pub command: Vec<String>,
    pub severity: String,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Comments {
    pub enabled: bool,
    pub mode: String,
    pub on_violation: String,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Duplication {
    pub enabled: bool,
    pub min_run: i64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct SupplyChain {
    pub enabled: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Obs {
    pub global_spool: bool,
    pub include_payloads: bool,
    pub max_attr_chars: usize,
    /// `None` when the alert is off.
    pub session_cost_alert_usd: Option<f64>,
    pub retention_days: i64,
    pub debug: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Secrets {
    pub redact_output: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Shell {
    pub catastrophic_ask: bool,
    pub stall_detection: bool,
    pub stall_repeat_threshold: i64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Subagents {
    pub enforce_allowlist: bool,
    pub allowed_models: Vec<String>,
    pub block_parent_fast: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Intelligence {
    pub gap_feedback: bool,
    pub failure_classification: bool,
    pub progressive_handoff: bool,
    pub progressive_context: bool,
    pub autopilot: bool,
    pub budget_continue: bool,
    pub idle_turn_gate: bool,
    pub lessons: Lessons,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Lessons {
    pub enabled: bool,
    pub decay_lambda: f64,
    pub max_injected: i64,
    pub promote_after: i64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ProjectMeta {
    pub owner: String,
    pub repo: String,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Guest {
    pub paths: Vec<String>,
    pub remotes: Vec<String>,
}

/// `[ship]`: sending the record to an OpenTelemetry collector (machine tier only).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Ship {
    pub enabled: bool,
    pub endpoint: String,
    pub headers: Vec<String>,
    pub timeout_ms: i64,
    pub protocol: String,
    pub include_payloads: bool,
    pub include_local_paths: bool,
    pub user: String,
    pub resource_attributes: Vec<String>,
    pub max_batch_records: i64,
    pub max_batch_bytes: i64,
    pub retries: i64,
}

impl Settings {
    /// Builds the typed settings from effective values. Every key has a value (the defaults
    /// are always present), and each was type-checked when read, so a missing or mistyped value
    /// here falls back to the type's zero rather than failing.
    pub fn from_values<'a>(get: &dyn Fn(&str) -> Option<&'a Value>) -> Settings {
        let b = |k: &str| get(k).and_then(Value::as_bool).unwrap_or(false);
        let i = |k: &str| get(k).and_then(Value::as_i64).unwrap_or(0);
        let f = |k: &str| get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let s = |k: &str| get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let l = |k: &str| get(k).and_then(Value::as_strings).unwrap_or_default();
        Settings {
            mode: s("mode"),
            grind: Grind {
                enabled: b("grind.enabled"),
                lint_command: l("grind.lintCommand"),
                test_command: l("grind.testCommand"),
                code_paths: l("grind.codePaths"),
                test_paths: l("grind.testPaths"),
                append_files: s("grind.appendFiles"),
                max_loops: i("grind.maxLoops"),
                gate_timeout_seconds: i("grind.gateTimeoutSeconds"),
            },
            ship_gate: ShipGate {
                enabled: b("shipGate.enabled"),
                claim_window_minutes: i("shipGate.claimWindowMinutes"),
                runtime_path_prefixes: l("shipGate.runtimePathPrefixes"),
                runtime_path_excludes: l("shipGate.runtimePathExcludes"),
                evidence_dir: s("shipGate.evidenceDir"),
                empty_diff_anti_ship: b("shipGate.emptyDiffAntiShip"),
                evidence_max_age_hours: i("shipGate.evidenceMaxAgeHours"),
            },
            docs: Docs {
                command: l("docs.command"),
                severity: s("docs.severity"),
            },
            comments: Comments {
                enabled: b("comments.enabled"),
                mode: s("comments.mode"),
                on_violation: s("comments.onViolation"),
            },
            duplication: Duplication {
                enabled: b("duplication.enabled"),
                min_run: i("duplication.minRun"),
            },
            supply_chain: SupplyChain {
                enabled: b("supplyChain.enabled"),
            },
            obs: Obs {
                global_spool: b("obs.globalSpool"),
                include_payloads: b("obs.includePayloads"),
                max_attr_chars: usize::try_from(i("obs.maxAttrChars")).unwrap_or(2000),
                session_cost_alert_usd: get("obs.sessionCostAlertUsd").and_then(Value::as_f64),
                retention_days: i("obs.retentionDays"),
                debug: b("obs.debug"),
            },
            secrets: Secrets {
                redact_output: b("secrets.redactOutput"),
            },
            shell: Shell {
                catastrophic_ask: b("shell.catastrophicAsk"),
                stall_detection: b("shell.stallDetection"),
                stall_repeat_threshold: i("shell.stallRepeatThreshold"),
            },
            subagents: Subagents {
                enforce_allowlist: b("subagents.enforceAllowlist"),
                allowed_models: l("subagents.allowedModels"),
                block_parent_fast: b("subagents.blockParentFast"),
            },
            intelligence: Intelligence {
                gap_feedback: b("intelligence.gapFeedback"),
                failure_classification: b("intelligence.failureClassification"),
                progressive_handoff: b("intelligence.progressiveHandoff"),
                progressive_context: b("intelligence.progressiveContext"),
                autopilot: b("intelligence.autopilot"),
                budget_continue: b("intelligence.budgetContinue"),
                idle_turn_gate: b("intelligence.idleTurnGate"),
                lessons: Lessons {
                    enabled: b("intelligence.lessons.enabled"),
                    decay_lambda: f("intelligence.lessons.decayLambda"),
                    max_injected: i("intelligence.lessons.maxInjected"),
                    promote_after: i("intelligence.lessons.promoteAfter"),
                },
            },
            project: ProjectMeta {
                owner: s("project.owner"),
                repo: s("project.repo"),
            },
            guest: Guest {
                paths: l("guest.paths"),
                remotes: l("guest.remotes"),
            },
            ship: Ship {
                enabled: b("ship.enabled"),
                endpoint: s("ship.endpoint"),
                headers: l("ship.headers"),
                timeout_ms: i("ship.timeoutMs"),
                protocol: s("ship.protocol"),
                include_payloads: b("ship.includePayloads"),
                include_local_paths: b("ship.includeLocalPaths"),
                user: s("ship.user"),
                resource_attributes: l("ship.resourceAttributes"),
                max_batch_records: i("ship.maxBatchRecords"),
                max_batch_bytes: i("ship.maxBatchBytes"),
                retries: i("ship.retries"),
            },
        }
    }
}
