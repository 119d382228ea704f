-- The `token_usage` stream: model responses after row ?1, oldest first, at most ?2.
SELECT id, ts, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
FROM events
WHERE id > ?1 AND kind = 'generation.end'
ORDER BY id
LIMIT ?2
