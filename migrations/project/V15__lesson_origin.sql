-- Issue 53 (lessons keep their provenance): who wrote a lesson, and whether the operator promoted
-- it. `origin` is `operator` (hand-written outside any agent session), `agent` (written from
-- inside one, or by a process an agent started) or `tlc` (mined from a stagnating gate): an
-- agent's lesson is injected with its origin shown, and reaches other repositories only once
-- `promoted_at` says the operator moved it there (`tlc lessons promote`). Rows written before
-- this migration say who wrote them only in `category` (`agent-session` for an agent's).
ALTER TABLE lessons ADD COLUMN origin TEXT NOT NULL DEFAULT 'operator' CHECK (origin IN ('operator', 'agent', 'tlc'));
ALTER TABLE lessons ADD COLUMN promoted_at TEXT;
UPDATE lessons SET origin = 'agent' WHERE category = 'agent-session';
UPDATE lessons SET origin = 'tlc' WHERE source = 'mined';
