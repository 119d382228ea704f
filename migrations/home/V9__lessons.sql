-- Issue 32: the global tier's lessons get the project tier's new columns (see the project
-- database's V8__lessons.sql), and a garden log of their own.
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

CREATE TABLE lesson_garden_log (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    lesson_id   TEXT NOT NULL,
    from_status TEXT NOT NULL,
    to_status   TEXT NOT NULL,
    reason      TEXT NOT NULL
);
