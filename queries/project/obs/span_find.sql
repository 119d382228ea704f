SELECT span_id, started_ms FROM open_spans
WHERE provider = ?1 AND session_id = ?2 AND pair_key = ?3
ORDER BY started_ms DESC
LIMIT 1
