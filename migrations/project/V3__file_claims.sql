-- Edit collision (issue 18): one row per file edit an agent session made (a read claims nothing),
-- so a second live session about to edit the same path within ten minutes is asked first. The
-- stall rail also reads it: an edit between identical shell commands is a change of approach.
CREATE TABLE file_claims (
    id         INTEGER PRIMARY KEY,
    event_id   INTEGER REFERENCES events (id) ON DELETE CASCADE,
    ts         TEXT NOT NULL,
    provider   TEXT NOT NULL,
    session_id TEXT NOT NULL,
    path       TEXT NOT NULL,
    tool       TEXT
);
CREATE INDEX file_claims_path ON file_claims (path, ts);
CREATE INDEX file_claims_session ON file_claims (provider, session_id, event_id);
