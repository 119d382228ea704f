SELECT id, ts, provider, kind, plane, session_id, tool, duration_ms, model, attrs,
       input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd
FROM events
WHERE id > ?1 AND plane = 'signal'
ORDER BY id
LIMIT 500
