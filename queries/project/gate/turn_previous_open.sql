-- The latest other session (not provider ?1's session ?2) that ended a turn with open gaps.
SELECT provider, session_id, turn, base_head, base_at, base_source, attempt, last_fingerprint, last_result, last_rule,
       open_gaps, next_action, claim, claim_at, updated_at, last_category, base_wall_ms, deleted_seen
FROM turns WHERE NOT (provider = ?1 AND session_id = ?2) ORDER BY updated_at DESC LIMIT 1
