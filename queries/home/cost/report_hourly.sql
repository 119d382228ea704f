-- `tlc obs cost --by block`, `--timezone` and `tlc statusline`: the responses per UTC hour, project
-- and model (cost_hourly_rows), in time order; ?1 first UTC day, ?2 last UTC day (inclusive), ?3
-- project (NULL = no filter). The caller widens the days by one either side for a local day.
SELECT hour, at_hour, project, model, responses, priced, input_tokens, output_tokens, cache_read_tokens,
       cache_write_tokens, cache_write_1h_tokens, cost_usd, first_ts, last_ts
FROM cost_hourly_rows
WHERE (?1 IS NULL OR hour >= ?1) AND (?2 IS NULL OR substr(hour, 1, 10) <= ?2) AND (?3 IS NULL OR project = ?3)
ORDER BY hour, at_hour DESC, project, model
