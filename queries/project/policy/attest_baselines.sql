-- The policy in force for a session: each source's baselined hash.
SELECT source, hash, recorded_at, reason FROM policy_baselines
WHERE provider = ?1 AND session_id = ?2 ORDER BY recorded_at, source
