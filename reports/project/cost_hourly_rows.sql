-- This repository's generations per UTC hour and model, in the shape of the home database's
-- cost_hourly_rows (project '' here): what `tlc obs cost --here --by block` and `--timezone` read.
-- Columns: hour, at_hour, project, model, responses, priced, input_tokens, output_tokens,
-- cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none was priced),
-- first_ts, last_ts.
CREATE VIEW cost_hourly_rows AS
SELECT CAST(substr(ts, 1, 13) AS TEXT) AS hour, CAST(substr(ts, 15) = '00:00.000Z' AS INTEGER) AS at_hour, CAST('' AS TEXT) AS project,
       CAST(coalesce(model, '') AS TEXT) AS model, CAST(count(*) AS INTEGER) AS responses, CAST(count(cost_usd) AS INTEGER) AS priced,
       CAST(total(input_tokens) AS INTEGER) AS input_tokens, CAST(total(output_tokens) AS INTEGER) AS output_tokens,
       CAST(total(cache_read_tokens) AS INTEGER) AS cache_read_tokens,
       CAST(total(cache_write_tokens) AS INTEGER) AS cache_write_tokens,
       CAST(total(cache_write_1h_tokens) AS INTEGER) AS cache_write_1h_tokens, CAST(sum(cost_usd) AS REAL) AS cost_usd,
       CAST(min(ts) AS TEXT) AS first_ts, CAST(max(ts) AS TEXT) AS last_ts
FROM events
WHERE kind = 'generation.end'
GROUP BY 1, 2, 4
