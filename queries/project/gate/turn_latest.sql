-- The most recently updated turn row, optionally of one session (?1 or NULL).
SELECT provider, session_id, turn, base_head, base_at, base_source, attempt, last_fingerprint, last_result, last_rule,
       open_gaps, next_action, claim, claim_at, updated_at, last_category, base_wall_ms, deleted_seen
FROM turns WHERE ?1 IS NULL OR session_id = ?1 ORDER BY updated_at DESC LIMIT 1
