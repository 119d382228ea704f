-- Issue 32: lessons with tiers, capture, a garden, staleness, injection and effectiveness.
-- `weight` becomes `confidence`; `ref` becomes the first entry of `refs` (a JSON list of `path` or
-- `path:symbol`); the new columns carry what the garden and the ranking read.
ALTER TABLE lessons RENAME COLUMN weight TO confidence;
ALTER TABLE lessons ADD COLUMN prefer TEXT;
ALTER TABLE lessons ADD COLUMN "check" TEXT;
ALTER TABLE lessons ADD COLUMN sessions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lessons ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lessons ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lessons ADD COLUMN refs TEXT NOT NULL DEFAULT '[]';
ALTER TABLE lessons ADD COLUMN valid_from TEXT;
ALTER TABLE lessons ADD COLUMN fingerprint TEXT;
ALTER TABLE lessons ADD COLUMN first_seen TEXT;
ALTER TABLE lessons ADD COLUMN last_seen TEXT;
ALTER TABLE lessons ADD COLUMN last_accessed TEXT;
UPDATE lessons SET refs = json_array(ref) WHERE ref IS NOT NULL AND ref <> '';
UPDATE lessons SET valid_from = created_at, first_seen = created_at, last_seen = updated_at;
ALTER TABLE lessons DROP COLUMN ref;

-- The distinct sessions a mined lesson was seen in (its `sessions` count).
CREATE TABLE lesson_sightings (
    lesson_id  TEXT NOT NULL,
    session_id TEXT NOT NULL,
    first_at   TEXT NOT NULL,
    PRIMARY KEY (lesson_id, session_id)
) WITHOUT ROWID;

-- Every transition the garden made: a status change, or a prune (`to_status` 'pruned').
CREATE TABLE lesson_garden_log (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    lesson_id   TEXT NOT NULL,
    from_status TEXT NOT NULL,
    to_status   TEXT NOT NULL,
    reason      TEXT NOT NULL
);

-- Every lesson injected into a session: at its start, or in a blocked stop's follow-up. A retry
-- injection is graded by the session's next run of `gate` after `after_run`.
CREATE TABLE lesson_injections (
    id         INTEGER PRIMARY KEY,
    at         TEXT NOT NULL,
    provider   TEXT,
    session_id TEXT NOT NULL,
    lesson_id  TEXT NOT NULL,
    tier       TEXT NOT NULL CHECK (tier IN ('core', 'global', 'project')),
    mode       TEXT NOT NULL CHECK (mode IN ('session', 'retry')),
    gate       TEXT,
    after_run  INTEGER
);
CREATE INDEX lesson_injections_lesson ON lesson_injections (lesson_id);
