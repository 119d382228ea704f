//! Every config key tlc knows: its name (the seeds' names), its type, its shipped default, the
//! tiers that may set it, and one line on what it does. The compiled-in template is checked
//! against this table by a test, so the two cannot drift apart.

/// The type of a key's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Bool,
    /// An integer no smaller than `min`.
    Int {
        min: i64,
    },
    /// A number (integer or float) no smaller than `min`.
    Float {
        min: f64,
    },
    /// A number no smaller than 0, or `false` for "off".
    FloatOrOff,
    Str,
    /// A string from a closed list.
    Enum(&'static [&'static str]),
    /// An array of strings.
    StrList,
}

impl Kind {
    pub fn describe(self) -> String {
        match self {
            Kind::Bool => "a boolean".into(),
            Kind::Int { min } => format!("an integer >= {min}"),
            Kind::Float { min } => format!("a number >= {min}"),
            Kind::FloatOrOff => "a number >= 0, or false to turn it off".into(),
            Kind::Str => "a string".into(),
            Kind::Enum(values) => format!("one of {}", values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ")),
            Kind::StrList => "an array of strings".into(),
        }
    }
}

/// A shipped default.
#[derive(Debug, Clone, Copy)]
pub enum Default {
    Bool(bool),
    Int(i64),
    Float(f64),
    Off,
    Str(&'static str),
    List(&'static [&'static str]),
}

/// Which tiers may set a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tiers {
    Both,
    MachineOnly,
}

/// One key.
#[derive(Debug, Clone, Copy)]
pub struct KeySpec {
    pub key: &'static str,
    pub kind: Kind,
    pub default: Default,
    pub tiers: Tiers,
    /// Whether the key is policy (a project restating it stops tracking the machine tier);
    /// identity keys such as `project.owner` are not.
    pub policy: bool,
    pub doc: &'static str,
}

const fn k(key: &'static str, kind: Kind, default: Default, doc: &'static str) -> KeySpec {
    KeySpec {
        key,
        kind,
        default,
        tiers: Tiers::Both,
        policy: true,
        doc,
    }
}

pub const APPEND_FILES: &[&str] = &["auto", "always", "never"];
pub const DOCS_SEVERITY: &[&str] = &["warn", "deny"];
pub const COMMENT_MODES: &[&str] = &["declared", "resolvable", "strict"];
pub const COMMENT_VIOLATION: &[&str] = &["followup", "stop"];

/// The OTLP encodings `tlc obs ship` speaks (OTLP/HTTP; gRPC is not offered).
pub const SHIP_PROTOCOLS: &[&str] = &["http/protobuf", "http/json"];

/// A `[ship]` key: machine tier only, since a project config must not send data off the machine.
const fn ship(key: &'static str, kind: Kind, default: Default, doc: &'static str) -> KeySpec {
    KeySpec {
        key,
        kind,
        default,
        tiers: Tiers::MachineOnly,
        policy: true,
        doc,
    }
}

/// Every key, in template order.
pub const KEYS: &[KeySpec] = &[
    k(
        "mode",
        Kind::Str,
        Default::Str("solo"),
        "Operator posture: paired, solo or focus (`tlc mode` overrides it).",
    ),
    k(
        "grind.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Run the lint and test gates after each completed agent turn.",
    ),
    k(
        "grind.lintCommand",
        Kind::StrList,
        Default::List(&[]),
        "The lint gate's argv (set it with `tlc gate lint-command`).",
    ),
    k(
        "grind.testCommand",
        Kind::StrList,
        Default::List(&[]),
        "The test gate's argv (set it with `tlc gate test-command`).",
    ),
    k(
        "grind.codePaths",
        Kind::StrList,
        Default::List(&["src/"]),
        "Path prefixes whose changes trigger the lint and test gates.",
    ),
    k(
        "grind.testPaths",
        Kind::StrList,
        Default::List(&[
            "tests/",
            "test/",
            "spec/",
            "**/__tests__/",
            "**/*_test.*",
            "**/*.test.*",
            "**/*.spec.*",
            "**/test_*.*",
        ]),
        "Paths (prefixes or globs) of test files: a change there triggers the test gate.",
    ),
    k(
        "grind.appendFiles",
        Kind::Enum(APPEND_FILES),
        Default::Str("auto"),
        "Append the changed files to the gate argv: auto, always or never.",
    ),
    k(
        "grind.maxLoops",
        Kind::Int { min: 1 },
        Default::Int(5),
        "Follow-ups sent for a failing gate before the turn may end.",
    ),
    k(
        "grind.gateTimeoutSeconds",
        Kind::Int { min: 1 },
        Default::Int(300),
        "A gate command running longer than this is killed with its process group (category timeout).",
    ),
    k(
        "shipGate.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Challenge a HARNESS_SHIP_CLAIM that has no recent passing evidence.",
    ),
    k(
        "shipGate.claimWindowMinutes",
        Kind::Int { min: 1 },
        Default::Int(10),
        "How long a ship claim counts as recent, in minutes.",
    ),
    k(
        "shipGate.runtimePathPrefixes",
        Kind::StrList,
        Default::List(&["src/"]),
        "Changed paths that make a ship claim need evidence.",
    ),
    k(
        "shipGate.runtimePathExcludes",
        Kind::StrList,
        Default::List(&[".tlc/", "**/node_modules/", "**/.git/"]),
        "Paths never counted as runtime changes.",
    ),
    k(
        "shipGate.evidenceDir",
        Kind::Str,
        Default::Str(".tlc/harness/evidence"),
        "Where */90-verdict.txt evidence files are looked for.",
    ),
    k(
        "shipGate.emptyDiffAntiShip",
        Kind::Bool,
        Default::Bool(false),
        "Block a recent ship claim that changed no file.",
    ),
    k(
        "shipGate.evidenceMaxAgeHours",
        Kind::Int { min: 1 },
        Default::Int(48),
        "A PASS verdict older than this many hours is not evidence.",
    ),
    k(
        "docs.command",
        Kind::StrList,
        Default::List(&[]),
        "The docs staleness tool's argv, run at stop when the turn changed files (empty: no docs gate).",
    ),
    k(
        "docs.severity",
        Kind::Enum(DOCS_SEVERITY),
        Default::Str("warn"),
        "warn lets the stop through with the tool's output; deny blocks like a failing gate.",
    ),
    k(
        "comments.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Block a stop whose turn added comments the mode refuses.",
    ),
    k(
        "comments.mode",
        Kind::Enum(COMMENT_MODES),
        Default::Str("declared"),
        "declared (why:, hazard: or invariant:), resolvable (declared and checkable at HEAD) or strict (none).",
    ),
    k(
        "comments.onViolation",
        Kind::Enum(COMMENT_VIOLATION),
        Default::Str("followup"),
        "followup also warns (HEADS UP) right after an edit adds such a comment; stop checks only at stop.",
    ),
    k(
        "duplication.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Block a stop whose turn added a run of lines that already exists elsewhere in the project.",
    ),
    k(
        "duplication.minRun",
        Kind::Int { min: 2 },
        Default::Int(6),
        "Lines a copied run needs to count as duplication.",
    ),
    k(
        "supplyChain.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Block a stop whose turn added a dependency with no version or without moving its lockfile.",
    ),
    k(
        "obs.globalSpool",
        Kind::Bool,
        Default::Bool(false),
        "Also write every record to the home database's cross-repository spool.",
    ),
    k(
        "obs.includePayloads",
        Kind::Bool,
        Default::Bool(false),
        "Keep tool inputs and outputs in event attributes instead of stripping them.",
    ),
    k(
        "obs.maxAttrChars",
        Kind::Int { min: 16 },
        Default::Int(2000),
        "Each event attribute value is truncated to this many characters.",
    ),
    k(
        "obs.sessionCostAlertUsd",
        Kind::FloatOrOff,
        Default::Float(5.0),
        "Record one cost.session_alert when a session's estimated cost crosses this (false: off).",
    ),
    k(
        "obs.retentionDays",
        Kind::Int { min: 1 },
        Default::Int(30),
        "`tlc obs prune` drops records older than this many days.",
    ),
    k(
        "obs.debug",
        Kind::Bool,
        Default::Bool(false),
        "Put happy-path tool and shell events on the debug plane (else only the audit plane keeps them).",
    ),
    k(
        "secrets.redactOutput",
        Kind::Bool,
        Default::Bool(true),
        "Replace secrets with [REDACTED:<kind>:<hash>] before anything is stored.",
    ),
    k(
        "shell.catastrophicAsk",
        Kind::Bool,
        Default::Bool(true),
        "Ask before shell commands that can destroy data the floor does not already refuse.",
    ),
    k(
        "shell.stallDetection",
        Kind::Bool,
        Default::Bool(false),
        "Deny a shell command repeated stallRepeatThreshold times in a row.",
    ),
    k(
        "shell.stallRepeatThreshold",
        Kind::Int { min: 2 },
        Default::Int(3),
        "Repeats of one shell command that count as a stall.",
    ),
    k(
        "subagents.enforceAllowlist",
        Kind::Bool,
        Default::Bool(false),
        "Deny subagent spawns whose model is not on allowedModels.",
    ),
    k(
        "subagents.allowedModels",
        Kind::StrList,
        Default::List(&[]),
        "Models a subagent may use when the allowlist is enforced.",
    ),
    k(
        "subagents.blockParentFast",
        Kind::Bool,
        Default::Bool(false),
        "Deny subagent spawns while the parent model is a fast variant.",
    ),
    k(
        "intelligence.gapFeedback",
        Kind::Bool,
        Default::Bool(true),
        "Gate failures carry PREVIOUS_GAPS and a NEXT suggestion.",
    ),
    k(
        "intelligence.failureClassification",
        Kind::Bool,
        Default::Bool(true),
        "The handoff stores a failure category (verification, config, ...).",
    ),
    k(
        "intelligence.progressiveHandoff",
        Kind::Bool,
        Default::Bool(true),
        "Session start reads back the gaps the previous session ended with.",
    ),
    k(
        "intelligence.progressiveContext",
        Kind::Bool,
        Default::Bool(true),
        "Each stop retry escalates the context it sends.",
    ),
    k(
        "intelligence.autopilot",
        Kind::Bool,
        Default::Bool(true),
        "Follow-ups carry runtime-ordered AUTOPILOT steps and a NEXT_ACTION.",
    ),
    k(
        "intelligence.budgetContinue",
        Kind::Bool,
        Default::Bool(true),
        "Under loop pressure with open work, the follow-up says keep working.",
    ),
    k(
        "intelligence.idleTurnGate",
        Kind::Bool,
        Default::Bool(false),
        "Block a turn that ends with open work and no recorded tool call or change.",
    ),
    k(
        "intelligence.lessons.enabled",
        Kind::Bool,
        Default::Bool(true),
        "Keep durable lessons and inject them at session start and stop retries.",
    ),
    k(
        "intelligence.lessons.decayLambda",
        Kind::Float { min: 0.0 },
        Default::Float(0.05),
        "Daily decay rate of a lesson's weight.",
    ),
    k(
        "intelligence.lessons.maxInjected",
        Kind::Int { min: 0 },
        Default::Int(5),
        "Most lessons injected at once.",
    ),
    k(
        "intelligence.lessons.promoteAfter",
        Kind::Int { min: 1 },
        Default::Int(2),
        "Repeats of a gate failure before a candidate lesson is proposed.",
    ),
    KeySpec {
        key: "project.owner",
        kind: Kind::Str,
        default: Default::Str(""),
        tiers: Tiers::Both,
        policy: false,
        doc: "The repository owner (from the origin remote when it is a plain GitHub name).",
    },
    KeySpec {
        key: "project.repo",
        kind: Kind::Str,
        default: Default::Str(""),
        tiers: Tiers::Both,
        policy: false,
        doc: "The repository name (from the origin remote when it is a plain GitHub name).",
    },
    KeySpec {
        key: "guest.paths",
        kind: Kind::StrList,
        default: Default::List(&[]),
        tiers: Tiers::MachineOnly,
        policy: true,
        doc: "Repositories tlc never writes into (machine tier only).",
    },
    KeySpec {
        key: "guest.remotes",
        kind: Kind::StrList,
        default: Default::List(&[]),
        tiers: Tiers::MachineOnly,
        policy: true,
        doc: "Remote URL patterns (* matches anything) of repositories tlc never writes into (machine tier only).",
    },
    ship(
        "ship.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Allow `tlc obs ship` to send the record to an OpenTelemetry collector (machine tier only).",
    ),
    ship(
        "ship.endpoint",
        Kind::Str,
        Default::Str(""),
        "The collector's OTLP/HTTP base URL; empty: OTEL_EXPORTER_OTLP_ENDPOINT (machine tier only).",
    ),
    ship(
        "ship.headers",
        Kind::StrList,
        Default::List(&[]),
        "Request headers as \"name=value\" (an API key); empty: OTEL_EXPORTER_OTLP_HEADERS (machine tier only).",
    ),
    ship(
        "ship.timeoutMs",
        Kind::Int { min: 1 },
        Default::Int(10000),
        "How long one request may take, in milliseconds; unset: OTEL_EXPORTER_OTLP_TIMEOUT (machine tier only).",
    ),
    ship(
        "ship.protocol",
        Kind::Enum(SHIP_PROTOCOLS),
        Default::Str("http/protobuf"),
        "http/protobuf or http/json; unset: OTEL_EXPORTER_OTLP_PROTOCOL (machine tier only).",
    ),
    ship(
        "ship.includePayloads",
        Kind::Bool,
        Default::Bool(false),
        "Also send payload texts: prompts, commands, paths, reasons, gate output (machine tier only).",
    ),
    ship(
        "ship.includeLocalPaths",
        Kind::Bool,
        Default::Bool(false),
        "Also send the repository's local path as tlc.repository.path (machine tier only).",
    ),
    ship(
        "ship.user",
        Kind::Str,
        Default::Str(""),
        "The user.name sent with every record; empty: the login name (machine tier only).",
    ),
    ship(
        "ship.resourceAttributes",
        Kind::StrList,
        Default::List(&[]),
        "More resource attributes as \"name=value\" (team=payments) (machine tier only).",
    ),
    ship(
        "ship.maxBatchRecords",
        Kind::Int { min: 1 },
        Default::Int(512),
        "Most records in one request (machine tier only).",
    ),
    ship(
        "ship.maxBatchBytes",
        Kind::Int { min: 1024 },
        Default::Int(1048576),
        "Most bytes in one request body (machine tier only).",
    ),
    ship(
        "ship.retries",
        Kind::Int { min: 0 },
        Default::Int(5),
        "Retries of a request answered 429, 502, 503 or 504 (machine tier only).",
    ),
];

/// Tables whose entries are named by the operator (`[stable.<name>]`), with the tiers that may
/// declare them.
pub const NAMED_TABLES: &[(&str, Tiers)] = &[
    ("stable", Tiers::MachineOnly),
    ("adapter", Tiers::MachineOnly),
    ("channel", Tiers::MachineOnly),
    ("webhook", Tiers::MachineOnly),
    ("harness", Tiers::Both),
];

/// The spec of `key`, if tlc knows it.
pub fn spec(key: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|s| s.key == key)
}

/// True when `prefix` is a table that holds known keys (`grind`, `intelligence.lessons`).
pub fn is_section(prefix: &str) -> bool {
    KEYS.iter()
        .any(|s| s.key.len() > prefix.len() && s.key.starts_with(prefix) && s.key.as_bytes()[prefix.len()] == b'.')
}
