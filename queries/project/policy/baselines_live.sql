-- The baselines of every live session (one not ended).
SELECT b.provider, b.session_id, b.source, b.hash, b.recorded_at, b.reason
FROM policy_baselines b
JOIN sessions s ON s.provider = b.provider AND s.session_id = b.session_id
WHERE s.ended_at IS NULL
ORDER BY b.provider, b.session_id, b.source
