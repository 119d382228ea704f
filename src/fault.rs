//! What the hook could not do as asked. Each fault becomes a `hook.fault` event (its text, and
//! its source as `attrs.source`), or a line of the home's fault log when nothing is writable. A
//! fault never changes the hook's answer: the provider still gets a valid response.

/// One fault, by where it arose; its text says what happened and names the file, key or path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The payload did not arrive whole or could not be used (stdin, JSON).
    Input(String),
    /// The payload was repaired before it was parsed: the repairs made.
    Repaired(Vec<String>),
    /// The hook's folders could not be worked out (no `HOME`, no working directory).
    Paths(String),
    /// A config tier did not load (its key and message already redacted).
    Config(String),
    /// Locating or adopting the project: a git file that could not be read.
    Project(String),
    /// A transcript that could not be read, or not all of it.
    Transcript(String),
    /// A response priced from the built-in snapshot instead of the catalog.
    Pricing(String),
    /// The session's baselined policy could not be used.
    Baseline(String),
    /// The stop checks failed (the stop was let through), or the handoff was not read.
    Stop(String),
    /// Events kept by a locked-out hook could not be recorded.
    Pending(String),
    /// The project database could not be written: the event was not recorded.
    NotRecorded(String),
    /// A session's attestation record could not be appended (the event itself was recorded).
    Attest(String),
    /// The boundary (issue 51): the client's sandbox could not be given the repository, or an
    /// anchor in the home database could not be written or read.
    Boundary(String),
}

impl Fault {
    /// The source, as `hook.fault` events record it (`attrs.source`).
    pub(crate) fn source(&self) -> &'static str {
        match self {
            Fault::Input(_) => "input",
            Fault::Repaired(_) => "input",
            Fault::Paths(_) => "paths",
            Fault::Config(_) => "config",
            Fault::Project(_) => "project",
            Fault::Transcript(_) => "transcript",
            Fault::Pricing(_) => "pricing",
            Fault::Baseline(_) => "baseline",
            Fault::Stop(_) => "stop",
            Fault::Pending(_) => "pending",
            Fault::NotRecorded(_) => "database",
            Fault::Attest(_) => "attest",
            Fault::Boundary(_) => "boundary",
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Repaired(repairs) => write!(f, "payload repaired before parsing: {}", repairs.join("; ")),
            Fault::Input(t)
            | Fault::Paths(t)
            | Fault::Config(t)
            | Fault::Project(t)
            | Fault::Transcript(t)
            | Fault::Pricing(t)
            | Fault::Baseline(t)
            | Fault::Stop(t)
            | Fault::Pending(t)
            | Fault::NotRecorded(t)
            | Fault::Attest(t)
            | Fault::Boundary(t) => f.write_str(t),
        }
    }
}

/// The faults one hook met, in the order it met them.
pub(crate) type Faults = Vec<Fault>;
