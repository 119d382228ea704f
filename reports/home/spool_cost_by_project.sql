-- Spooled generation records only (what hooks in every repository recorded), keyed by project.
-- Columns: key (the project), day, project, model, responses, priced, the four token counts,
-- cache_write_1h_tokens, cost_usd (NULL when the record had no price).
CREATE VIEW spool_cost_by_project AS
SELECT project AS key, CAST(substr(ts, 1, 10) AS TEXT) AS day, project, CAST(coalesce(model, '') AS TEXT) AS model, CAST(1 AS INTEGER) AS responses,
       CAST(cost_usd IS NOT NULL AS INTEGER) AS priced, CAST(coalesce(input_tokens, 0) AS INTEGER) AS input_tokens,
       CAST(coalesce(output_tokens, 0) AS INTEGER) AS output_tokens, CAST(coalesce(cache_read_tokens, 0) AS INTEGER) AS cache_read_tokens,
       CAST(coalesce(cache_write_tokens, 0) AS INTEGER) AS cache_write_tokens,
       CAST(coalesce(cache_write_1h_tokens, 0) AS INTEGER) AS cache_write_1h_tokens, cost_usd
FROM spool
WHERE kind = 'generation.end'
