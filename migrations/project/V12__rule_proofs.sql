-- Operator rules (issue 34, item 3): what tlc observed that a rule's `require:` can name, stamped
-- with HEAD as it was read when it was observed. Only tlc writes here (the floor refuses an agent
-- the project's state folder), and only what it saw: a subagent of a declared type that finished
-- (`subagent`), a shell command that ran and did not fail (`command`, as redacted), one of tlc's
-- own gates passing (`gate`: lint, test, docs), a file a write tool wrote (`file`, relative to the
-- project root when inside it). `head` is the commit (or `unborn`), null outside a git checkout or
-- where HEAD could not be read from the repository's files.
CREATE TABLE rule_proofs (
    id         INTEGER PRIMARY KEY,
    ts         TEXT NOT NULL,
    provider   TEXT NOT NULL,
    session_id TEXT,
    kind       TEXT NOT NULL CHECK (kind IN ('subagent', 'command', 'gate', 'file')),
    value      TEXT NOT NULL,
    head       TEXT
);
CREATE INDEX rule_proofs_kind ON rule_proofs (kind, id);
CREATE INDEX rule_proofs_ts ON rule_proofs (ts);
