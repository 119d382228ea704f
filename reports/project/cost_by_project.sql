-- Cost rows keyed by the project (the folder name under projects/, or the repository's name); re-aggregated by `tlc obs cost --by project` after filtering on day and project.
-- Columns: key, day, project, model, responses, priced, input_tokens, output_tokens, cache_read_tokens,
-- cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none of the row's responses had a price).
CREATE VIEW cost_by_project AS
SELECT project AS key, day, project, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd
FROM cost_rows
