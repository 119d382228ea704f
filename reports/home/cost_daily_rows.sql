-- The same responses as cost_rows at the coarser grain (day, project, model), from usage_daily: what
-- the reports by day, week, month, model and project read (a few thousand rows for a million responses).
-- Columns: day, project, model, responses, priced, input_tokens, output_tokens, cache_read_tokens,
-- cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none of the row's responses had a price).
CREATE VIEW cost_daily_rows AS
SELECT day, project, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
       CAST(CASE WHEN priced > 0 THEN cost_usd END AS REAL) AS cost_usd
FROM usage_daily
