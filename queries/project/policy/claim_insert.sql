INSERT INTO file_claims (event_id, ts, provider, session_id, path, tool) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
