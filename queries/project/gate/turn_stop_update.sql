-- What a stop decided, on the session's turn row (created when no prompt was seen); ?10 is the
-- failure category (NULL when it passed or `intelligence.failureClassification` is off).
INSERT INTO turns (provider, session_id, turn, base_head, base_at, base_source, attempt, last_fingerprint, last_result,
                   last_rule, open_gaps, next_action, updated_at, last_category)
VALUES (?1, ?2, 1, NULL, ?9, 'stop', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
ON CONFLICT (provider, session_id) DO UPDATE SET
    attempt = excluded.attempt, last_fingerprint = excluded.last_fingerprint, last_result = excluded.last_result,
    last_rule = excluded.last_rule, open_gaps = excluded.open_gaps, next_action = excluded.next_action,
    updated_at = excluded.updated_at, last_category = excluded.last_category
