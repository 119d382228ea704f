INSERT INTO usage (dedup_key, source, project, repo_path, session_id, provider, ts, model, input_tokens, output_tokens,
                   cache_read_tokens, cache_write_tokens, cost_usd, cost_source, cost_pool)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
ON CONFLICT (dedup_key) DO NOTHING
