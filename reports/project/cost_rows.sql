-- This repository's generations (events of kind 'generation.end'), one row each, in the shape of the
-- home database's cost_rows: day, project ('' here: one repository), session_id, model, responses (1),
-- priced, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
-- cost_usd (NULL when it had no price), last_ts (its time, UTC).
CREATE VIEW cost_rows AS
SELECT substr(ts, 1, 10) AS day, '' AS project, coalesce(session_id, '') AS session_id,
       coalesce(model, '') AS model, 1 AS responses, cost_usd IS NOT NULL AS priced,
       coalesce(input_tokens, 0) AS input_tokens, coalesce(output_tokens, 0) AS output_tokens,
       coalesce(cache_read_tokens, 0) AS cache_read_tokens, coalesce(cache_write_tokens, 0) AS cache_write_tokens,
       coalesce(cache_write_1h_tokens, 0) AS cache_write_1h_tokens, cost_usd, ts AS last_ts
FROM events
WHERE kind = 'generation.end'
