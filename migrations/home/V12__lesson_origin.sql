-- Issue 53 (lessons keep their provenance): the global lessons get the project's `origin` and
-- `promoted_at` (see the project database's V15__lesson_origin.sql). A global lesson an agent
-- wrote before this migration (`lessons add --global` from inside a session, allowed then) has
-- `origin = 'agent'` and no `promoted_at`: no repository is given it until the operator promotes
-- it (`tlc lessons promote <id>`).
ALTER TABLE lessons ADD COLUMN origin TEXT NOT NULL DEFAULT 'operator' CHECK (origin IN ('operator', 'agent', 'tlc'));
ALTER TABLE lessons ADD COLUMN promoted_at TEXT;
UPDATE lessons SET origin = 'agent' WHERE category = 'agent-session';
UPDATE lessons SET origin = 'tlc' WHERE source = 'mined';
