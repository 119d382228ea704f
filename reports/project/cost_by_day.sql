-- Cost rows keyed by the UTC day (YYYY-MM-DD); re-aggregated by `tlc obs cost --by day` after filtering on day and project.
-- Columns: key, day, project, model, responses, priced, input_tokens, output_tokens, cache_read_tokens,
-- cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none of the row's responses had a price).
CREATE VIEW cost_by_day AS
SELECT day AS key, day, project, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd
FROM cost_rows
