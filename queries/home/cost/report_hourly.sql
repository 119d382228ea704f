-- `tlc obs cost --by block`, `--timezone` and `tlc statusline`: the responses per UTC hour, project
-- and model, as usage_hourly keeps them (the rows of cost_hourly_rows before their hour and times are
-- written out as text: the reader does that, see `cost::usage::stored_time`); ?1 first UTC day, ?2 last
-- UTC day (inclusive), ?3 project (NULL = no filter). The caller widens the days by one either side for
-- a local day. The day bounds are written so that the hour's key range is searched, not the whole table
-- scanned (the statusline reads the last hours of a large table on every prompt): once as numbers
-- (2026112000 to 2026112099), once as texts for the rows of times not of the stored form (SQLite orders
-- every number before every text, so neither range holds the other's rows). The two ranges are two
-- selects joined by UNION ALL, each read in the primary key's order: an OR of them made SQLite gather both
-- into a temporary table to drop duplicates there cannot be, and an ORDER BY sorted what the reader
-- sorts anyway (`CostReports::hour_rows`: by hour text, at_hour 1 first, project and model names).
-- Over 31 days of the serve bench's home set, in the sqlite3 shell: 20 ms before, 5 ms after.
SELECT h.hour, h.at_hour, p.name, m.name, h.responses, h.priced, h.input_tokens, h.output_tokens,
       h.cache_read_tokens, h.cache_write_tokens, h.cache_write_1h_tokens,
       CASE WHEN h.priced > 0 THEN h.cost_usd END, h.first_ms, h.last_ms
FROM usage_hourly AS h
JOIN usage_names AS p ON p.id = h.project_id
JOIN usage_names AS m ON m.id = h.model_id
WHERE h.hour >= coalesce(CAST(replace(?1, '-', '') AS INTEGER) * 100, -1)
  AND h.hour <= coalesce(CAST(replace(?2, '-', '') AS INTEGER) * 100 + 99, 99999999999)
  AND (?3 IS NULL OR p.name = ?3)
UNION ALL
SELECT h.hour, h.at_hour, p.name, m.name, h.responses, h.priced, h.input_tokens, h.output_tokens,
       h.cache_read_tokens, h.cache_write_tokens, h.cache_write_1h_tokens,
       CASE WHEN h.priced > 0 THEN h.cost_usd END, h.first_ms, h.last_ms
FROM usage_hourly AS h
JOIN usage_names AS p ON p.id = h.project_id
JOIN usage_names AS m ON m.id = h.model_id
WHERE h.hour >= coalesce(?1, '') AND h.hour <= coalesce(?2, '9999-12-31') || 'T99'
  AND (?3 IS NULL OR p.name = ?3)
