-- This repository's generations (events of kind 'generation.end'), one row each, in the shape of the
-- home database's cost_rows: day, project ('' here: one repository), session_id, model, responses (1),
-- priced, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
-- cost_usd (NULL when it had no price), last_ts (its time, UTC).
CREATE VIEW cost_rows AS
SELECT CAST(substr(ts, 1, 10) AS TEXT) AS day, CAST('' AS TEXT) AS project, CAST(coalesce(session_id, '') AS TEXT) AS session_id,
       CAST(coalesce(model, '') AS TEXT) AS model, CAST(1 AS INTEGER) AS responses, CAST(cost_usd IS NOT NULL AS INTEGER) AS priced,
       CAST(coalesce(input_tokens, 0) AS INTEGER) AS input_tokens, CAST(coalesce(output_tokens, 0) AS INTEGER) AS output_tokens,
       CAST(coalesce(cache_read_tokens, 0) AS INTEGER) AS cache_read_tokens, CAST(coalesce(cache_write_tokens, 0) AS INTEGER) AS cache_write_tokens,
       CAST(coalesce(cache_write_1h_tokens, 0) AS INTEGER) AS cache_write_1h_tokens, cost_usd, ts AS last_ts
FROM events
WHERE kind = 'generation.end'
