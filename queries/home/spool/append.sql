INSERT INTO spool (ts, repo_path, project, stream, kind, provider, session_id, model, duration_ms, input_tokens,
                   output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, record, dedup_key, cache_write_1h_tokens)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
ON CONFLICT (dedup_key) DO NOTHING
