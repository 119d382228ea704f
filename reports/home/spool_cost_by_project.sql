-- Spooled generation records only (what hooks in every repository recorded), keyed by project.
-- Columns: key (the project), day, project, model, responses, priced, the four token counts,
-- cache_write_1h_tokens, cost_usd (NULL when the record had no price).
CREATE VIEW spool_cost_by_project AS
SELECT project AS key, substr(ts, 1, 10) AS day, project, coalesce(model, '') AS model, 1 AS responses,
       cost_usd IS NOT NULL AS priced, coalesce(input_tokens, 0) AS input_tokens,
       coalesce(output_tokens, 0) AS output_tokens, coalesce(cache_read_tokens, 0) AS cache_read_tokens,
       coalesce(cache_write_tokens, 0) AS cache_write_tokens,
       coalesce(cache_write_1h_tokens, 0) AS cache_write_1h_tokens, cost_usd
FROM spool
WHERE kind = 'generation.end'
