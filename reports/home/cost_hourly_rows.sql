-- The same responses per UTC hour, project and model, from usage_hourly: what `tlc obs cost --by block`,
-- `--timezone` and `tlc statusline` read. at_hour is 1 for the responses stamped exactly on the hour
-- (HH:00:00.000), kept apart so that no 5-hour billing block boundary falls inside a row.
-- Columns: hour (UTC YYYY-MM-DDTHH), at_hour, project, model, responses, priced, input_tokens,
-- output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none
-- was priced), first_ts, last_ts (the row's first and last response, UTC).
CREATE VIEW cost_hourly_rows AS
SELECT hour, at_hour, project, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
       CAST(CASE WHEN priced > 0 THEN cost_usd END AS REAL) AS cost_usd, first_ts, last_ts
FROM usage_hourly
