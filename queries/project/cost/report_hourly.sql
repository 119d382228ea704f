-- `tlc obs cost --by block`, `--timezone` and `tlc statusline`: the responses per UTC hour, project
-- and model (cost_hourly_rows), in time order; ?1 first UTC day, ?2 last UTC day (inclusive), ?3
-- project (NULL = no filter). The caller widens the days by one either side for a local day. The day
-- bounds are written so that the hour's key range is searched, not the whole table scanned (the
-- statusline reads the last hours of a large table on every prompt).
SELECT hour, at_hour, project, model, responses, priced, input_tokens, output_tokens, cache_read_tokens,
       cache_write_tokens, cache_write_1h_tokens, cost_usd, first_ts, last_ts
FROM cost_hourly_rows
WHERE hour >= coalesce(?1, '') AND hour <= coalesce(?2, '9999-12-31') || 'T99' AND (?3 IS NULL OR project = ?3)
ORDER BY hour, at_hour DESC, project, model
