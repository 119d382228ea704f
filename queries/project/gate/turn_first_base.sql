-- The first turn's base at session start, unless the session already has a turn.
INSERT INTO turns (provider, session_id, turn, base_head, base_at, base_source, attempt, updated_at, base_wall_ms)
VALUES (?1, ?2, 0, ?3, ?4, ?5, 0, ?4, ?6)
ON CONFLICT (provider, session_id) DO NOTHING
