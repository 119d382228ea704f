SELECT provider, session_id FROM sessions ORDER BY last_seen DESC, id DESC LIMIT 1
