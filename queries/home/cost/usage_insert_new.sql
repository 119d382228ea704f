-- Responses the caller has checked are not stored yet (the bulk import, under its write lock,
-- against the keys it read), with the ids it chose: nothing here checks the key again, and the
-- caller adds their `usage_key` rows itself (usage_key_insert_new.sql) with the key trigger set
-- aside. OR ROLLBACK ends the whole import's transaction on any constraint error, which spares
-- SQLite a statement journal for each many-row statement (11% faster inserts). The writer repeats
-- the VALUES row to insert many responses per statement.
INSERT OR ROLLBACK INTO usage (id, dedup_key, source, project, repo_path, session_id, provider, ts, model,
                   input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
                   cost_usd, cost_source, cost_pool, cache_write_1h_tokens)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
