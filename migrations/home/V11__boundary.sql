-- Issue 51 (the boundary in the kernel). Three tables the agent's commands cannot write: the home
-- database is under `$TLC_HOME`, which `tlc install --claude` puts in the protected set of Claude
-- Code's sandbox and which every gate command tlc runs sees read-only.
--
-- `client_wiring`: every value tlc added to a client's settings file beside its hook entries (the
-- sandbox keys, an item of a deny list), with what the key held before, so that `tlc uninstall`
-- takes back exactly what tlc added and nothing the operator wrote. `item` is the JSON text of a
-- list element ('' for a key); `previous` the key's JSON text before tlc set it (NULL: absent);
-- `written` what tlc wrote; `container` 1 for an object or list tlc created to hold its values.
CREATE TABLE client_wiring (
    provider   TEXT NOT NULL,
    file       TEXT NOT NULL,
    pointer    TEXT NOT NULL,
    item       TEXT NOT NULL DEFAULT '',
    previous   TEXT,
    written    TEXT NOT NULL,
    container  INTEGER NOT NULL DEFAULT 0,
    added_at   TEXT NOT NULL,
    PRIMARY KEY (provider, file, pointer, item)
) WITHOUT ROWID;

-- `anchors`: what the project database holds of the policy, mirrored where the agent cannot
-- reach, and compared where it is read (docs/policy.md, "Anchors"): a session's policy baselines
-- (kind 'baseline', key `<provider> <session> <source>` joined by U+001F) and the head of the
-- attestation chain (kind 'attest-head', key ''). `project` is the project's state folder.
CREATE TABLE anchors (
    project    TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('baseline', 'attest-head')),
    key        TEXT NOT NULL,
    hash       TEXT NOT NULL,
    content    BLOB,
    seq        INTEGER,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (project, kind, key)
) WITHOUT ROWID;

-- `machine_facts`: what an operator command recorded of the machine for tlc's own children: the
-- operator's `PATH` at `tlc install` (name 'operator-path'), which gate commands and tlc's git run
-- with instead of the environment of whoever started tlc.
CREATE TABLE machine_facts (
    name        TEXT PRIMARY KEY,
    value       TEXT NOT NULL,
    recorded_at TEXT NOT NULL
) WITHOUT ROWID;
