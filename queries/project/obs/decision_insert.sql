INSERT INTO decisions (event_id, ts, provider, session_id, subject, permission, posture, rule, reason, detail)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
