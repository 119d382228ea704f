-- The project database: what tlc observed while agents worked in this repository.
-- Timestamps are UTC RFC 3339 text with milliseconds (2026-11-29T13:56:42.123Z) everywhere.

CREATE TABLE tlc_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per provider session.
CREATE TABLE sessions (
    id              INTEGER PRIMARY KEY,
    provider        TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    first_seen      TEXT NOT NULL,
    last_seen       TEXT NOT NULL,
    model           TEXT,
    cwd             TEXT,
    transcript_path TEXT,
    ended_at        TEXT,
    UNIQUE (provider, session_id)
);
CREATE INDEX sessions_last_seen ON sessions (last_seen);

-- One row per neutral event, on exactly one plane.
CREATE TABLE events (
    id                 INTEGER PRIMARY KEY,
    ts                 TEXT NOT NULL,
    provider           TEXT NOT NULL,
    kind               TEXT NOT NULL,
    plane              TEXT NOT NULL CHECK (plane IN ('signal', 'debug', 'audit')),
    session_id         TEXT,
    trace_id           TEXT,
    span_id            TEXT,
    parent_span_id     TEXT,
    model              TEXT,
    tool               TEXT,
    phase              TEXT CHECK (phase IN ('start', 'end', 'fail')),
    attrs              TEXT NOT NULL DEFAULT '{}',
    payload            TEXT,
    duration_ms        INTEGER,
    input_tokens       INTEGER,
    output_tokens      INTEGER,
    cache_read_tokens  INTEGER,
    cache_write_tokens INTEGER,
    cost_usd           REAL,
    cost_source        TEXT,
    cost_pool          TEXT,
    dedup_key          TEXT UNIQUE
);
CREATE INDEX events_session ON events (session_id, kind, provider);
CREATE INDEX events_ts ON events (ts);
CREATE INDEX events_plane ON events (plane, id);

-- Every permission a hook answered, with the posture and the rule that decided it.
CREATE TABLE decisions (
    id         INTEGER PRIMARY KEY,
    event_id   INTEGER REFERENCES events (id) ON DELETE CASCADE,
    ts         TEXT NOT NULL,
    provider   TEXT NOT NULL,
    session_id TEXT,
    subject    TEXT NOT NULL,
    permission TEXT NOT NULL CHECK (permission IN ('allow', 'ask', 'deny')),
    posture    TEXT NOT NULL,
    rule       TEXT NOT NULL,
    reason     TEXT,
    detail     TEXT
);
CREATE INDEX decisions_session ON decisions (session_id);
CREATE INDEX decisions_event ON decisions (event_id);
CREATE INDEX decisions_ts ON decisions (ts);

-- Tool starts waiting for their end, so the end can carry the duration.
CREATE TABLE open_spans (
    provider   TEXT NOT NULL,
    session_id TEXT NOT NULL,
    pair_key   TEXT NOT NULL,
    span_id    TEXT NOT NULL,
    started_at TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    PRIMARY KEY (provider, session_id, pair_key, span_id)
);

-- How far each session transcript has been read for usage.
CREATE TABLE transcripts (
    path            TEXT PRIMARY KEY,
    provider        TEXT,
    session_id      TEXT,
    file_id         TEXT,
    head_hash       TEXT,
    offset          INTEGER NOT NULL DEFAULT 0,
    malformed_lines INTEGER NOT NULL DEFAULT 0,
    generations     INTEGER NOT NULL DEFAULT 0,
    updated_at      TEXT NOT NULL
);

-- Small operator state set by tlc commands: the posture (`mode`), paused stop checks.
CREATE TABLE state (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Policy integrity: the hash of every policy source when a session started.
CREATE TABLE policy_baselines (
    provider    TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    source      TEXT NOT NULL,
    hash        TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    reason      TEXT NOT NULL,
    PRIMARY KEY (provider, session_id, source)
);

CREATE TABLE policy_divergences (
    id            INTEGER PRIMARY KEY,
    provider      TEXT NOT NULL,
    session_id    TEXT NOT NULL,
    source        TEXT NOT NULL,
    baseline_hash TEXT NOT NULL,
    current_hash  TEXT NOT NULL,
    detected_at   TEXT NOT NULL,
    accepted_at   TEXT,
    UNIQUE (provider, session_id, source, current_hash)
);

-- Gates (grind lint/test/docs): one row per invocation; `gate show` prints harness.gate.v1.
CREATE TABLE gate_runs (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT,
    gate        TEXT NOT NULL,
    command     TEXT NOT NULL,
    files       TEXT NOT NULL DEFAULT '[]',
    exit_code   INTEGER,
    verdict     TEXT NOT NULL CHECK (verdict IN ('pass', 'fail', 'config', 'skipped')),
    category    TEXT,
    reused      INTEGER NOT NULL DEFAULT 0,
    inputs_hash TEXT,
    output_tail TEXT,
    findings    TEXT NOT NULL DEFAULT '[]',
    started_at  TEXT NOT NULL,
    duration_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX gate_runs_session ON gate_runs (session_id);
CREATE INDEX gate_runs_started ON gate_runs (started_at);

-- The gate lock: at most one holder.
CREATE TABLE gate_lock (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    session_id  TEXT,
    pid         INTEGER NOT NULL,
    host        TEXT NOT NULL,
    acquired_at TEXT NOT NULL
);

CREATE TABLE ship_ledger (
    id         INTEGER PRIMARY KEY,
    ts         TEXT NOT NULL,
    session_id TEXT,
    provider   TEXT,
    outcome    TEXT NOT NULL CHECK (outcome IN ('claim', 'challenge', 'pass')),
    summary    TEXT,
    detail     TEXT,
    dedup_key  TEXT UNIQUE
);
CREATE INDEX ship_ledger_ts ON ship_ledger (ts);

-- Project lessons.
CREATE TABLE lessons (
    id          TEXT PRIMARY KEY,
    instruction TEXT NOT NULL,
    gate        TEXT,
    tokens      TEXT NOT NULL DEFAULT '[]',
    avoid       TEXT,
    ref         TEXT,
    until       TEXT,
    source      TEXT NOT NULL,
    category    TEXT,
    status      TEXT NOT NULL DEFAULT 'active',
    weight      REAL NOT NULL DEFAULT 1.0,
    hits        INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
