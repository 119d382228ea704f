SELECT id, ts, provider, session_id, subject, permission, posture, rule, reason, detail
FROM (SELECT * FROM decision_log WHERE (?2 IS NULL OR session_id = ?2) ORDER BY id DESC LIMIT ?1)
ORDER BY id
