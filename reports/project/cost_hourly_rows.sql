-- This repository's generations per UTC hour and model, in the shape of the home database's
-- cost_hourly_rows (project '' here): what `tlc obs cost --here --by block` and `--timezone` read.
-- Columns: hour, at_hour, project, model, responses, priced, input_tokens, output_tokens,
-- cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none was priced),
-- first_ts, last_ts.
CREATE VIEW cost_hourly_rows AS
SELECT substr(ts, 1, 13) AS hour, substr(ts, 15) = '00:00.000Z' AS at_hour, '' AS project,
       coalesce(model, '') AS model, count(*) AS responses, count(cost_usd) AS priced,
       sum(coalesce(input_tokens, 0)) AS input_tokens, sum(coalesce(output_tokens, 0)) AS output_tokens,
       sum(coalesce(cache_read_tokens, 0)) AS cache_read_tokens,
       sum(coalesce(cache_write_tokens, 0)) AS cache_write_tokens,
       sum(coalesce(cache_write_1h_tokens, 0)) AS cache_write_1h_tokens, sum(cost_usd) AS cost_usd,
       min(ts) AS first_ts, max(ts) AS last_ts
FROM events
WHERE kind = 'generation.end'
GROUP BY 1, 2, 4
