-- One API response; a dedup_key already stored makes this a no-op (imports are idempotent). The
-- key is looked up by its tail in `usage_key`, then compared whole.
INSERT INTO usage (dedup_key, source, project, repo_path, session_id, provider, ts, model,
                   input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
                   cost_usd, cost_source, cost_pool, cache_write_1h_tokens)
SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16
WHERE NOT EXISTS (SELECT 1 FROM usage_key k JOIN usage u ON u.id = k.id
                  WHERE k.tail = substr(?1, -16) AND u.dedup_key = ?1)
