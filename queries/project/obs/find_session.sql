SELECT provider, session_id FROM sessions WHERE session_id = ?1 OR session_id LIKE ?1 || '%' ORDER BY last_seen DESC LIMIT 2
