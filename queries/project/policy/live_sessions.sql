-- Sessions not ended, newest first.
SELECT provider, session_id, first_seen, last_seen, model FROM sessions WHERE ended_at IS NULL ORDER BY last_seen DESC
