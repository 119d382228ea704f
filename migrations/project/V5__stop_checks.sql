-- Stop checks (issues 17 and 18): gate sessions, turns and their handoff, stop outcomes, the
-- ship ledger's evidence, and resolution history.

-- A gate run as a gate session: who ran it, on which attempt, how it ended and why.
ALTER TABLE gate_runs ADD COLUMN provider TEXT;
ALTER TABLE gate_runs ADD COLUMN attempt INTEGER;
ALTER TABLE gate_runs ADD COLUMN finished_at TEXT;
ALTER TABLE gate_runs ADD COLUMN fingerprint TEXT;
-- The run whose verdict a reused row repeats.
ALTER TABLE gate_runs ADD COLUMN reused_from INTEGER;
-- A deferred (skipped) run: who held the gate lock (provider, session, pid).
ALTER TABLE gate_runs ADD COLUMN deferred_to TEXT;
-- Each changed path's size:sha256 when the run started (JSON object).
ALTER TABLE gate_runs ADD COLUMN file_hashes TEXT NOT NULL DEFAULT '{}';
CREATE INDEX gate_runs_gate ON gate_runs (gate, id);
CREATE INDEX gate_runs_fingerprint ON gate_runs (fingerprint);

ALTER TABLE gate_lock ADD COLUMN provider TEXT;

ALTER TABLE ship_ledger ADD COLUMN files TEXT NOT NULL DEFAULT '[]';
ALTER TABLE ship_ledger ADD COLUMN evidence_dir TEXT;
CREATE INDEX ship_ledger_session ON ship_ledger (session_id);

-- One row per provider session: the current turn's base and attempt, and what the last stop
-- left open (the handoff).
CREATE TABLE turns (
    provider         TEXT NOT NULL,
    session_id       TEXT NOT NULL,
    turn             INTEGER NOT NULL DEFAULT 0,
    base_head        TEXT,
    base_at          TEXT NOT NULL,
    base_source      TEXT NOT NULL,
    attempt          INTEGER NOT NULL DEFAULT 0,
    last_fingerprint TEXT,
    last_result      TEXT,
    last_rule        TEXT,
    open_gaps        TEXT NOT NULL DEFAULT '[]',
    next_action      TEXT,
    claim            TEXT,
    claim_at         TEXT,
    updated_at       TEXT NOT NULL,
    PRIMARY KEY (provider, session_id)
);
CREATE INDEX turns_updated ON turns (updated_at);

-- Every stop and what decided it.
CREATE TABLE stop_outcomes (
    id          INTEGER PRIMARY KEY,
    ts          TEXT NOT NULL,
    provider    TEXT NOT NULL,
    session_id  TEXT,
    turn        INTEGER,
    attempt     INTEGER NOT NULL DEFAULT 0,
    outcome     TEXT NOT NULL CHECK (outcome IN ('allow', 'block', 'advisory', 'capped', 'paused', 'deferred')),
    rule        TEXT NOT NULL,
    fingerprint TEXT,
    detail      TEXT
);
-- No secondary index: a row is written on every stop, and each index would add pages to that
-- hook's commit; the readers (`tlc handoff`, `tlc obs prune`, the view) are commands, not hooks.

-- Files that changed between a failing gate run and the run that passed after it, against the
-- failure's fingerprint (at most 200 kept, oldest pruned).
CREATE TABLE gate_resolutions (
    id           INTEGER PRIMARY KEY,
    fingerprint  TEXT NOT NULL,
    gate         TEXT NOT NULL,
    files        TEXT NOT NULL,
    failing_run  INTEGER,
    passing_run  INTEGER,
    resolved_at  TEXT NOT NULL
);
CREATE INDEX gate_resolutions_fingerprint ON gate_resolutions (fingerprint);
