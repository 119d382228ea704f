-- A new turn: its base (?3 head, ?4 time, ?5 source); the attempt and the claim start over, and
-- the handoff fields stay until a stop replaces them. When the last stop was deferred (running
-- subagents, or another holder of the gate lock), nothing judged what that turn changed, so the
-- new turn keeps its base: the next judged stop judges both turns' changes (issue 53).
INSERT INTO turns (provider, session_id, turn, base_head, base_at, base_source, attempt, updated_at, base_wall_ms)
VALUES (?1, ?2, 1, ?3, ?4, ?5, 0, ?4, ?6)
ON CONFLICT (provider, session_id) DO UPDATE SET
    turn = turns.turn + 1,
    base_head = CASE WHEN turns.last_result = 'deferred' THEN turns.base_head ELSE excluded.base_head END,
    base_at = CASE WHEN turns.last_result = 'deferred' THEN turns.base_at ELSE excluded.base_at END,
    base_source = CASE WHEN turns.last_result = 'deferred' THEN turns.base_source ELSE excluded.base_source END,
    base_wall_ms = CASE WHEN turns.last_result = 'deferred' THEN turns.base_wall_ms ELSE excluded.base_wall_ms END,
    attempt = 0, claim = NULL, claim_at = NULL, updated_at = excluded.updated_at
