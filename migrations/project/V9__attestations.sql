-- Issue 35: the attestation chain. Each session appends one record when it ends (SessionEnd, or a
-- later session's start for one that never ended): what tlc observed of it, canonical JSON, chained
-- by SHA3-256 (`hash` = lower-case hex of sha3_256(prev_hash || record); the first row's prev_hash
-- is 64 zeros). Rows are only ever appended.
CREATE TABLE attestations (
    seq             INTEGER PRIMARY KEY,
    provider        TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    covered_through TEXT NOT NULL,
    record          TEXT NOT NULL,
    prev_hash       TEXT NOT NULL,
    hash            TEXT NOT NULL
);
CREATE INDEX attestations_session ON attestations (provider, session_id);

-- The chain begins with the sessions first seen after this migration: a database that already
-- holds sessions does not attest its history (what tlc observed of it is not all there).
INSERT OR REPLACE INTO tlc_meta (key, value) VALUES ('attest.after_session', (SELECT coalesce(max(id), 0) FROM sessions));
