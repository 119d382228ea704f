-- Every recorded divergence, newest first.
SELECT id, provider, session_id, source, baseline_hash, current_hash, detected_at, accepted_at
FROM policy_divergences ORDER BY id DESC
