-- Cost rows keyed by the session id; re-aggregated by `tlc obs cost --by session` after filtering on day and project.
-- Columns: key, day, project, model, responses, priced, input_tokens, output_tokens, cache_read_tokens,
-- cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none of the row's responses had a price), last_ts (the row's latest response).
CREATE VIEW cost_by_session AS
SELECT session_id AS key, day, project, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd, last_ts
FROM cost_rows
