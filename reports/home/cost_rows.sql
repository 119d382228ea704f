-- Every API response the home database knows, at the grain (day, project, session, model): imported
-- transcripts (source 'transcript') and the generations hooks spooled from every repository (source
-- 'spool'; the spool writes each generation into `usage` too, so it is counted once here).
-- Read from usage_rollup (kept in step with `usage`, see migrations/home/V2__cost.sql); the by-session report reads it.
-- Columns: day (UTC YYYY-MM-DD), project, session_id, model, responses, priced (responses with a price),
-- input_tokens, output_tokens, cache_read_tokens, cache_write_tokens (all cache writes),
-- cache_write_1h_tokens (the part written for an hour), cost_usd (sum of the priced ones; NULL when none
-- was priced, so that a sum() never counts unknown as free), last_ts (the latest response, UTC).
CREATE VIEW cost_rows AS
SELECT day, project, session_id, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
       CAST(CASE WHEN priced > 0 THEN cost_usd END AS REAL) AS cost_usd, last_ts
FROM usage_rollup
