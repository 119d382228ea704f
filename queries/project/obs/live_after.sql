SELECT id, ts, provider, kind, plane, session_id, tool, duration_ms, model, attrs
FROM events
WHERE id > ?1 AND plane = 'signal'
ORDER BY id
LIMIT 500
