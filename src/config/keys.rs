//! Every config key tlc knows, declared once: its name (the seeds' names), its type, its shipped
//! default, the tiers that may set it, one line on what it does (the template's comment) and,
//! where the reference says more, the text of its row in docs/config.md.
//!
//! Everything else about a key is generated from this table (`keygen.rs`, run by `build.rs`):
//! the typed `Settings` struct and its serde mapping, the shipped default config and its docs copy
//! (`docs/config-template.toml`), and the key table of docs/config.md. Adding a key is one entry
//! here (docs/ARCHITECTURE.md, "Adding a config key").
//!
//! This file uses nothing but `std`: `build.rs` compiles it too.

/// The type of a key's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// `true` or `false`.
    Bool,
    /// An integer no smaller than `min`.
    Int {
        /// The smallest value accepted.
        min: i64,
    },
    /// A number (integer or float) no smaller than `min`.
    Float {
        /// The smallest value accepted.
        min: f64,
    },
    /// A number no smaller than 0, or `false` for "off".
    FloatOrOff,
    /// Any string.
    Str,
    /// A string from a closed list.
    Enum(&'static [&'static str]),
    /// An array of strings.
    StrList,
}

impl Kind {
    /// The type in words, as docs/config.md and the errors say it ("an integer >= 1").
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
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
    /// `false`: off (a [`Kind::FloatOrOff`] key).
    Off,
    /// A string.
    Str(&'static str),
    /// An array of strings.
    List(&'static [&'static str]),
}

/// Which tiers may set a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tiers {
    /// The machine and the project tier.
    Both,
    /// The machine tier only (`$TLC_HOME/config.toml`).
    MachineOnly,
}

/// One key.
#[derive(Debug, Clone, Copy)]
pub struct KeySpec {
    /// The dotted key (`grind.maxLoops`).
    pub key: &'static str,
    /// The type of its value.
    pub kind: Kind,
    /// Its shipped default.
    pub default: Default,
    /// Which tiers may set it.
    pub tiers: Tiers,
    /// Whether the key is policy (a project restating it stops tracking the machine tier);
    /// identity keys such as `project.owner` are not.
    pub policy: bool,
    /// One line on what it does: its comment in the shipped default config.
    pub doc: &'static str,
    /// The "what it does" cell of the key's row in docs/config.md, when it says more than `doc`
    /// (links, code spans, caveats); empty: `doc` itself.
    pub docs: &'static str,
}

impl KeySpec {
    /// The key with a longer text for docs/config.md than its template comment.
    pub(crate) const fn docs(self, docs: &'static str) -> KeySpec {
        KeySpec { docs, ..self }
    }
}

const fn k(key: &'static str, kind: Kind, default: Default, doc: &'static str) -> KeySpec {
    KeySpec {
        key,
        kind,
        default,
        tiers: Tiers::Both,
        policy: true,
        doc,
        docs: "",
    }
}

pub(crate) const APPEND_FILES: &[&str] = &["auto", "always", "never"];
pub(crate) const UNTRUSTED_MODES: &[&str] = &["frame", "enforce"];
pub(crate) const DOCS_SEVERITY: &[&str] = &["warn", "deny"];
pub(crate) const COMMENT_MODES: &[&str] = &["declared", "resolvable", "strict"];
pub(crate) const COMMENT_VIOLATION: &[&str] = &["followup", "stop"];
pub(crate) const SUBAGENT_EFFORTS: &[&str] = &["off", "low", "medium", "high", "max"];
pub(crate) const SUBAGENT_BLOCK_MODES: &[&str] = &["deny", "ask"];

/// The OTLP encodings `tlc obs ship` speaks (OTLP/HTTP; gRPC is not offered).
pub(crate) const SHIP_PROTOCOLS: &[&str] = &["http/protobuf", "http/json"];

/// A `[ship]` key: machine tier only, since a project config must not send data off the machine.
const fn ship(key: &'static str, kind: Kind, default: Default, doc: &'static str) -> KeySpec {
    KeySpec {
        key,
        kind,
        default,
        tiers: Tiers::MachineOnly,
        policy: true,
        doc,
        docs: "",
    }
}

/// Every key, in template order.
/// Keys renamed since they first shipped: (old name, new name). A config naming the old key still
/// loads, its value read as the new key's, and `tlc doctor` names the new key.
pub(crate) const RENAMED: &[(&str, &str)] = &[
    ("intelligence.lessons.maxInjected", "intelligence.lessons.maxInjectSession"),
    ("intelligence.lessons.promoteAfter", "intelligence.lessons.promoteHitCount"),
];

/// Every configuration key, in the order of the shipped default config.
pub const KEYS: &[KeySpec] = &[
    k(
        "mode",
        Kind::Str,
        Default::Str("solo"),
        "Operator posture: paired, solo or focus (`tlc mode` overrides it).",
    )
    .docs("Operator posture: `paired`, `solo` or `focus` (`tlc mode` overrides it). Any other word is ignored at use and the posture falls back to `solo`."),
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
    )
    .docs("Path prefixes whose changes trigger the lint and test gates ([gate.md](gate.md#which-gates-run))."),
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
        "Give a stop's gate the changed files: auto (only the runners of the table in docs/gate.md), always or never.",
    ),
    k(
        "grind.maxLoops",
        Kind::Int { min: 1 },
        Default::Int(5),
        "Follow-ups sent for a failing gate before the turn may end.",
    )
    .docs("Follow-ups sent for a failing gate before the turn may end. Keep it under 8: Claude Code ends a turn itself after 8 consecutive Stop blocks (`tlc doctor` warns)."),
    k(
        "grind.gateTimeoutSeconds",
        Kind::Int { min: 1 },
        Default::Int(300),
        "A gate command running longer than this is killed with its process group (category timeout).",
    )
    .docs("A gate command running longer than this is killed with its process group (category `timeout`)."),
    k(
        "shipGate.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Challenge a HARNESS_SHIP_CLAIM that has no recent passing evidence.",
    )
    .docs("Challenge a `HARNESS_SHIP_CLAIM` that has no recent passing evidence."),
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
    )
    .docs("Where `*/90-verdict.txt` evidence files are looked for."),
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
    )
    .docs("A `PASS` verdict older than this many hours is not evidence."),
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
    )
    .docs("`warn` lets the stop through with the tool's output; `deny` blocks like a failing gate."),
    k(
        "planGate.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Block a stop whose turn changed files outside its declared HARNESS_PLAN with no deviation that gives a reason.",
    )
    .docs("Block a stop whose turn changed files outside its declared `HARNESS_PLAN:` paths that no `HARNESS_PLAN_DEVIATION:` with a reason justifies ([gate.md](gate.md#plan-gate)). A turn that declares no plan is not gated."),
    k(
        "planGate.windowMinutes",
        Kind::Int { min: 1 },
        Default::Int(120),
        "How long a declared plan and its deviations count, in minutes.",
    ),
    k(
        "rules.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Enforce the operator's rule files ($TLC_HOME/rules/*.md, .tlc/harness/rules/*.md): a trigger, the proofs tlc observed, a verdict.",
    )
    .docs("Enforce the operator's rule files: `$TLC_HOME/rules/*.md` (this machine) and `.tlc/harness/rules/*.md` (the project, which wins by file name). Each names a trigger, the proofs tlc must have observed and a verdict ([policy.md](policy.md#operator-rules)); `tlc rules` lists them. On with no rule file enforces nothing, and `tlc doctor` says so."),
    k(
        "untrustedContent.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Frame content read from outside the repository (MCP results, web fetches, gh/curl/wget output) as data, once per turn.",
    )
    .docs("Frame content read from outside the repository (every MCP result, the provider's web tools, `gh pr view`/`curl`/`wget`… output) as data, once per turn ([policy.md](policy.md#untrusted-content))."),
    k(
        "untrustedContent.mode",
        Kind::Enum(UNTRUSTED_MODES),
        Default::Str("frame"),
        "frame only frames; enforce also asks before a shell command found verbatim in what was read.",
    )
    .docs("`frame` only frames; `enforce` also keeps up to 64,000 characters of the session's untrusted output (each read's head and tail and its command-looking lines) and asks (`untrusted-command`) before a shell command of 12 characters or more found verbatim in it."),
    k(
        "untrustedContent.extraTools",
        Kind::StrList,
        Default::List(&[]),
        "More tool names whose results are untrusted, beside MCP tools and the provider's web tools.",
    ),
    k(
        "untrustedContent.extraCommandPatterns",
        Kind::StrList,
        Default::List(&[]),
        "More command starts whose output is untrusted (words, such as aws s3 cp), beside gh, curl and wget.",
    )
    .docs("More command starts whose output is untrusted (words, as in `\"aws s3 cp\"`), beside `gh pr view|diff|list`, `gh issue view|list`, `gh api`, `curl` and `wget`; matched at the start of a simple command."),
    k(
        "comments.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Block a stop whose turn added comments the mode refuses.",
    )
    .docs("Block a stop whose turn added comments the mode refuses ([gate.md](gate.md#comments))."),
    k(
        "comments.mode",
        Kind::Enum(COMMENT_MODES),
        Default::Str("declared"),
        "declared (why:, hazard: or invariant:), resolvable (declared and checkable at HEAD) or strict (none).",
    )
    .docs("`declared` (why:, hazard: or invariant:), `resolvable` (declared and checkable at HEAD) or `strict` (none)."),
    k(
        "comments.onViolation",
        Kind::Enum(COMMENT_VIOLATION),
        Default::Str("followup"),
        "followup also warns (HEADS UP) right after an edit adds such a comment; stop checks only at stop.",
    )
    .docs("`followup` also warns (HEADS UP) right after an edit adds such a comment; `stop` checks only at stop."),
    k(
        "duplication.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Block a stop whose turn added a run of lines that already exists elsewhere in the project.",
    )
    .docs("Block a stop whose turn added a run of lines that already exists elsewhere in the project ([gate.md](gate.md#duplication))."),
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
    )
    .docs("Block a stop whose turn added a dependency with no version or without moving its lockfile ([gate.md](gate.md#supply-chain))."),
    k(
        "observe.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Observation mode: run the checker of each rail in observe.rails that is off and record what it reads.",
    )
    .docs("Observation mode: at the stop that ends a turn, run the checker of each rail named in `observe.rails` that is switched off, and record its reading as an `observe.reading` event — never a decision, never a block ([gate.md](gate.md#observation-mode))."),
    k(
        "observe.rails",
        Kind::StrList,
        Default::List(&["comments"]),
        "The rails observation mode measures; only comments has a checker.",
    )
    .docs("The rails observation mode measures while they are off. Only `comments` has a checker; any other name records nothing and `tlc doctor` names it. An enforcing rail is not observed."),
    k(
        "obs.globalSpool",
        Kind::Bool,
        Default::Bool(false),
        "Also write every record to the home database's cross-repository spool.",
    )
    .docs("Also write every record to the home database's cross-repository spool ([hook.md](hook.md#the-global-spool))."),
    k(
        "obs.includePayloads",
        Kind::Bool,
        Default::Bool(false),
        "Keep tool inputs and outputs in event attributes instead of stripping them.",
    )
    .docs("Keep tool inputs and outputs in event attributes instead of stripping them ([hook.md](hook.md#attributes))."),
    k(
        "obs.maxAttrChars",
        Kind::Int { min: 16 },
        Default::Int(2000),
        "Each event attribute value is truncated to this many characters.",
    )
    .docs("Each event attribute value is truncated to this many characters ([hook.md](hook.md#attributes))."),
    k(
        "obs.sessionCostAlertUsd",
        Kind::FloatOrOff,
        Default::Float(5.0),
        "Record one cost.session_alert when a session's estimated cost crosses this (false: off).",
    )
    .docs("Record one `cost.session_alert` when a session's estimated cost crosses this (`false`: off)."),
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
    )
    .docs("Put happy-path tool and shell events on the debug plane (else only the audit plane keeps them) ([hook.md](hook.md#planes))."),
    k(
        "secrets.redactOutput",
        Kind::Bool,
        Default::Bool(true),
        "Replace secrets with [REDACTED:<kind>:<hash>] before anything is stored.",
    )
    .docs("Replace secrets with `[REDACTED:<kind>:<hash>]` before anything is stored, cut each payload string at 1 MiB, and replace a tool output that held a secret for the model where the provider allows it, or tell the model not to repeat it where it does not ([hook.md](hook.md#secret-redaction))."),
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
    )
    .docs("Deny a shell command repeated `stallRepeatThreshold` times in a row."),
    k(
        "shell.stallRepeatThreshold",
        Kind::Int { min: 2 },
        Default::Int(3),
        "Repeats of one shell command that count as a stall.",
    ),
    k(
        "subagents.blockedPatterns",
        Kind::StrList,
        Default::List(&[]),
        "Model patterns (* matches anything, any case) no subagent may use, added to the built-in fast shapes.",
    )
    .docs("Model patterns (`*` matches anything, any case) no subagent may use. Always on: they are added to the built-in `*-fast` shapes and Cursor's fast composer model, never replace them ([policy.md](policy.md#subagent-rails))."),
    k(
        "subagents.requireModel",
        Kind::Bool,
        Default::Bool(false),
        "Deny a subagent spawn that names no model.",
    ),
    k(
        "subagents.enforceAllowlist",
        Kind::Bool,
        Default::Bool(false),
        "Deny subagent spawns whose model is not on allowedModels.",
    )
    .docs("Deny subagent spawns whose model is not on `allowedModels`."),
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
        "subagents.minEffort",
        Kind::Enum(SUBAGENT_EFFORTS),
        Default::Str("off"),
        "Deny a subagent spawn whose stated effort is below this: off, low, medium, high or max.",
    )
    .docs("Deny a subagent spawn whose stated effort (the payload's `effort`, or the model's `-low`/`-medium`/`-high`/`-max` suffix or `[effort=…]`) is below this: `off`, `low`, `medium`, `high` or `max`. A spawn that states none runs at its parent's and is not judged."),
    k(
        "subagents.readOnlyTypes",
        Kind::StrList,
        Default::List(&["explore"]),
        "Subagent types (any case) whose tool calls may not write files or run writing commands.",
    ),
    k(
        "subagents.blockMode",
        Kind::Enum(SUBAGENT_BLOCK_MODES),
        Default::Str("deny"),
        "How a subagent rail refuses: deny, or ask the operator where the provider can.",
    )
    .docs("How a subagent rail refuses: `deny`, or `ask` the operator where the provider can (elsewhere an ask is a deny that says so)."),
    k(
        "intelligence.gapFeedback",
        Kind::Bool,
        Default::Bool(true),
        "Gate failures carry PREVIOUS_GAPS and a NEXT suggestion.",
    )
    .docs("Gate failures carry `PREVIOUS_GAPS` and a `NEXT` suggestion."),
    k(
        "intelligence.failureClassification",
        Kind::Bool,
        Default::Bool(true),
        "The turn row keeps the last failure's category (verification, config, timeout, stagnation, ...); tlc handoff shows it.",
    )
    .docs("The turn row keeps the category of the failure its last stop left open (`verification`, `config`, `timeout`, `stagnation`, `ship-evidence`, `comments`, `duplication`, `supply-chain`, `idle-turn`); `tlc handoff` and the next session's handoff show it. Off: none is stored or shown."),
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
        "Follow-ups carry runtime-ordered AUTOPILOT steps.",
    )
    .docs("Follow-ups carry runtime-ordered `AUTOPILOT` steps."),
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
        Default::Bool(false),
        "Keep durable lessons from repeated gate failures and inject them at session start and stop retries.",
    )
    .docs("Keep durable lessons from repeated gate failures and inject them at session start and in a blocked stop's follow-up (opt-in; [lessons.md](lessons.md)).")
    ,
    k(
        "intelligence.lessons.decayLambda",
        Kind::Float { min: 0.0 },
        Default::Float(0.02),
        "Hourly decay rate of a lesson's confidence (per hour since issue 32; it was per day).",
    ),
    k(
        "intelligence.lessons.maxInjectSession",
        Kind::Int { min: 0 },
        Default::Int(5),
        "Most lessons a session start carries (formerly maxInjected).",
    ),
    k(
        "intelligence.lessons.maxCharsSession",
        Kind::Int { min: 0 },
        Default::Int(900),
        "Most characters of lessons a session start carries (resent with every request).",
    ),
    k(
        "intelligence.lessons.maxInjectRetry",
        Kind::Int { min: 0 },
        Default::Int(8),
        "Most lessons a blocked stop's follow-up carries.",
    ),
    k(
        "intelligence.lessons.maxCharsRetry",
        Kind::Int { min: 0 },
        Default::Int(1400),
        "Most characters of lessons a blocked stop's follow-up carries.",
    ),
    k(
        "intelligence.lessons.promoteHitCount",
        Kind::Int { min: 1 },
        Default::Int(2),
        "Distinct sessions a mined candidate is seen in before the garden makes it active (formerly promoteAfter).",
    ),
    k(
        "intelligence.lessons.projectBoost",
        Kind::Float { min: 0.0 },
        Default::Float(1.5),
        "Ranking factor of project lessons over global and core ones.",
    ),
    k(
        "intelligence.lessons.gardenOnSessionEnd",
        Kind::Bool,
        Default::Bool(true),
        "Garden the project's lessons when a session ends.",
    ),
    KeySpec {
        key: "project.owner",
        kind: Kind::Str,
        default: Default::Str(""),
        tiers: Tiers::Both,
        policy: false,
        doc: "The repository owner (from the origin remote when it is a plain GitHub name).",
        docs: "The repository owner (from the origin remote when it is a plain GitHub name). Identity, not policy.",
    },
    KeySpec {
        key: "project.repo",
        kind: Kind::Str,
        default: Default::Str(""),
        tiers: Tiers::Both,
        policy: false,
        doc: "The repository name (from the origin remote when it is a plain GitHub name).",
        docs: "The repository name (from the origin remote when it is a plain GitHub name). Identity, not policy.",
    },
    KeySpec {
        key: "guest.paths",
        kind: Kind::StrList,
        default: Default::List(&[]),
        tiers: Tiers::MachineOnly,
        policy: true,
        doc: "Repositories tlc never writes into (machine tier only).",
        docs: "Repositories tlc never writes into (machine tier only). A leading `~/` is expanded; paths are compared after resolving symlinks.",
    },
    KeySpec {
        key: "guest.remotes",
        kind: Kind::StrList,
        default: Default::List(&[]),
        tiers: Tiers::MachineOnly,
        policy: true,
        doc: "Remote URL patterns (* matches anything) of repositories tlc never writes into (machine tier only).",
        docs: "Remote URL patterns (`*` matches anything) of repositories tlc never writes into (machine tier only); matched against the `origin` URL in the repository's git config.",
    },
    ship(
        "ship.enabled",
        Kind::Bool,
        Default::Bool(false),
        "Allow `tlc obs ship` to send the record to an OpenTelemetry collector (machine tier only).",
    )
    .docs("Allow `tlc obs ship` to send the record to an OpenTelemetry collector (machine tier only: a project config cannot send data off the machine) ([ship.md](ship.md))."),
    ship(
        "ship.endpoint",
        Kind::Str,
        Default::Str(""),
        "The collector's OTLP/HTTP base URL; empty: OTEL_EXPORTER_OTLP_ENDPOINT (machine tier only).",
    )
    .docs("The collector's OTLP/HTTP base URL (`/v1/traces`, `/v1/logs`, `/v1/metrics` are appended); empty: `OTEL_EXPORTER_OTLP_ENDPOINT` and the per-signal variables (machine tier only)."),
    ship(
        "ship.headers",
        Kind::StrList,
        Default::List(&[]),
        "Request headers as \"name=value\" (an API key); empty: OTEL_EXPORTER_OTLP_HEADERS (machine tier only).",
    )
    .docs("Request headers as `\"name=value\"` (an API key); empty: `OTEL_EXPORTER_OTLP_HEADERS` (machine tier only)."),
    ship(
        "ship.timeoutMs",
        Kind::Int { min: 1 },
        Default::Int(10000),
        "How long one request may take, in milliseconds; unset: OTEL_EXPORTER_OTLP_TIMEOUT (machine tier only).",
    )
    .docs("How long one request may take, in milliseconds; unset: `OTEL_EXPORTER_OTLP_TIMEOUT` (machine tier only)."),
    ship(
        "ship.protocol",
        Kind::Enum(SHIP_PROTOCOLS),
        Default::Str("http/protobuf"),
        "http/protobuf or http/json; unset: OTEL_EXPORTER_OTLP_PROTOCOL (machine tier only).",
    )
    .docs("`http/protobuf` or `http/json`; unset: `OTEL_EXPORTER_OTLP_PROTOCOL` (machine tier only)."),
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
    )
    .docs("Also send the repository's local path as `tlc.repository.path` (machine tier only)."),
    ship(
        "ship.user",
        Kind::Str,
        Default::Str(""),
        "The user.name sent with every record; empty: the login name (machine tier only).",
    )
    .docs("The `user.name` sent with every record; empty: the login name (machine tier only)."),
    ship(
        "ship.resourceAttributes",
        Kind::StrList,
        Default::List(&[]),
        "More resource attributes as \"name=value\" (team=payments) (machine tier only).",
    )
    .docs("More resource attributes as `\"name=value\"` (`team=payments`) (machine tier only)."),
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
