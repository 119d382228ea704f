-- Every API response the home database knows, at the grain (day, project, session, model): imported
-- transcripts (source 'transcript') and the generations hooks spooled from every repository (source
-- 'spool'; the spool writes each generation into `usage` too, so it is counted once here).
-- Read from usage_rollup (kept in step with `usage`, see migrations/home/V2__cost.sql); the by-session report reads it.
-- Columns: day (UTC YYYY-MM-DD), project, session_id, model, responses, priced (responses with a price),
-- input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd (sum of the priced ones).
CREATE VIEW cost_rows AS
SELECT day, project, session_id, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cost_usd
FROM usage_rollup
