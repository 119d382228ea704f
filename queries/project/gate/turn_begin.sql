-- A new turn: its base (?3 head, ?4 time, ?5 source); the attempt and the claim start over, and
-- the handoff fields stay until a stop replaces them.
INSERT INTO turns (provider, session_id, turn, base_head, base_at, base_source, attempt, updated_at, base_wall_ms)
VALUES (?1, ?2, 1, ?3, ?4, ?5, 0, ?4, ?6)
ON CONFLICT (provider, session_id) DO UPDATE SET
    turn = turns.turn + 1, base_head = excluded.base_head, base_at = excluded.base_at,
    base_source = excluded.base_source, attempt = 0, claim = NULL, claim_at = NULL, updated_at = excluded.updated_at,
    base_wall_ms = excluded.base_wall_ms
