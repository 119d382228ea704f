SELECT provider, session_id, session_id = ?1 AS exact FROM sessions
WHERE session_id = ?1 OR session_id LIKE ?1 || '%'
ORDER BY exact DESC, last_seen DESC
LIMIT 2
