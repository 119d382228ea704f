-- Responses the caller has checked are not stored yet (the bulk import, under its write lock): a
-- stored key here is an error, not a no-op: OR ROLLBACK ends the whole import's transaction on it,
-- which also spares SQLite a statement journal for each many-row statement (11% faster inserts).
-- The writer repeats the VALUES row to insert many responses per statement.
INSERT OR ROLLBACK INTO usage (dedup_key, source, project, repo_path, session_id, provider, ts, model,
                   input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
                   cost_usd, cost_source, cost_pool)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
