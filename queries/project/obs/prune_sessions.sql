DELETE FROM sessions WHERE last_seen < ?1
