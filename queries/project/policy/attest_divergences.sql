-- Policy sources that changed during a session, and whether the operator accepted the change.
SELECT source, baseline_hash, current_hash, detected_at, accepted_at FROM policy_divergences
WHERE provider = ?1 AND session_id = ?2 ORDER BY id
