-- The files the session's latest stop found deleted (?3, a JSON list).
UPDATE turns SET deleted_seen = ?3 WHERE provider = ?1 AND session_id = ?2
