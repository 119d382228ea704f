-- A session's turn row.
SELECT provider, session_id, turn, base_head, base_at, base_source, attempt, last_fingerprint, last_result, last_rule,
       open_gaps, next_action, claim, claim_at, updated_at, last_category, base_wall_ms, deleted_seen
FROM turns WHERE provider = ?1 AND session_id = ?2
