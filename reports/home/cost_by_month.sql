-- Cost rows keyed by the month (YYYY-MM); re-aggregated by `tlc obs cost --by month` after filtering on day and project.
-- Columns: key, day, project, model, responses, priced, input_tokens, output_tokens, cache_read_tokens,
-- cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none of the row's responses had a price).
CREATE VIEW cost_by_month AS
SELECT CAST(substr(day, 1, 7) AS TEXT) AS key, day, project, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd
FROM cost_daily_rows
