-- The same responses per UTC hour, project and model, from usage_hourly: what `tlc obs cost --by block`,
-- `--timezone` and `tlc statusline` read. at_hour is 1 for the responses stamped exactly on the hour
-- (HH:00:00.000), kept apart so that no 5-hour billing block boundary falls inside a row.
-- Columns: hour (UTC YYYY-MM-DDTHH), at_hour, project, model, responses, priced, input_tokens,
-- output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none
-- was priced), first_ts, last_ts (the row's first and last response, UTC).
-- usage_hourly keeps an hour as a number (2026112009) and the first and last response as milliseconds
-- into it, or for a time not of the stored form their texts (migrations/home/V8__usage_hourly_numbered.sql).
CREATE VIEW cost_hourly_rows AS
SELECT CAST(CASE WHEN typeof(h.hour) = 'integer'
                 THEN printf('%04d-%02d-%02dT%02d', h.hour / 1000000, h.hour / 10000 % 100, h.hour / 100 % 100, h.hour % 100)
                 ELSE h.hour END AS TEXT) AS hour,
       h.at_hour, p.name AS project, m.name AS model, h.responses, h.priced, h.input_tokens, h.output_tokens,
       h.cache_read_tokens, h.cache_write_tokens, h.cache_write_1h_tokens,
       CAST(CASE WHEN h.priced > 0 THEN h.cost_usd END AS REAL) AS cost_usd,
       CAST(CASE WHEN typeof(h.hour) = 'integer'
                 THEN printf('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', h.hour / 1000000, h.hour / 10000 % 100, h.hour / 100 % 100,
                             h.hour % 100, h.first_ms / 60000, h.first_ms / 1000 % 60, h.first_ms % 1000)
                 ELSE h.first_ms END AS TEXT) AS first_ts,
       CAST(CASE WHEN typeof(h.hour) = 'integer'
                 THEN printf('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', h.hour / 1000000, h.hour / 10000 % 100, h.hour / 100 % 100,
                             h.hour % 100, h.last_ms / 60000, h.last_ms / 1000 % 60, h.last_ms % 1000)
                 ELSE h.last_ms END AS TEXT) AS last_ts
FROM usage_hourly AS h
JOIN usage_names AS p ON p.id = h.project_id
JOIN usage_names AS m ON m.id = h.model_id
