SELECT count(*) FROM file_claims WHERE provider = ?1 AND session_id = ?2 AND event_id > ?3
