-- `tlc obs cost --here --timezone`: single generations (cost_rows holds one row each) in the shape of
-- report_hourly.sql's rows, for the UTC hours a local midnight splits; ?1 first UTC hour, ?2 last UTC
-- hour (inclusive, `YYYY-MM-DDTHH`), ?3 project (NULL = no filter). The caller keeps those of the split
-- rows.
SELECT substr(last_ts, 1, 13) AS hour, substr(last_ts, 15) = '00:00.000Z' AS at_hour, project, model, responses,
       priced, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd,
       last_ts AS first_ts, last_ts
FROM cost_rows
WHERE last_ts >= ?1 AND last_ts < ?2 || 'T99' AND (?3 IS NULL OR project = ?3)
ORDER BY last_ts
