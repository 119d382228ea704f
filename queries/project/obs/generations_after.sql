-- Generation rows after an id, oldest first: what the home `usage` table has not been given yet
-- (issue 52: cost without an import).
SELECT id, ts, provider, kind, plane, session_id, trace_id, span_id, parent_span_id, model, tool, duration_ms, attrs,
       input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, cost_source, cost_pool, dedup_key,
       cache_write_1h_tokens
FROM events
WHERE id > ?1 AND kind = 'generation.end'
ORDER BY id
LIMIT ?2
