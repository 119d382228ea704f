-- A spooled or imported generation; a dedup_key already stored (the same response imported from its
-- transcript, or spooled before) makes this a no-op. See queries/home/cost/usage_insert.sql.
INSERT INTO usage (dedup_key, source, project, repo_path, session_id, provider, ts, model, input_tokens, output_tokens,
                   cache_read_tokens, cache_write_tokens, cost_usd, cost_source, cost_pool)
SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15
WHERE NOT EXISTS (SELECT 1 FROM usage_key k JOIN usage u ON u.id = k.id
                  WHERE k.tail = substr(?1, -16) AND u.dedup_key = ?1)
