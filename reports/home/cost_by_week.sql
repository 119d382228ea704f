-- Cost rows keyed by the ISO week (YYYY-Www); re-aggregated by `tlc obs cost --by week` after filtering on day and project.
-- Columns: key, day, project, model, responses, priced, input_tokens, output_tokens, cache_read_tokens,
-- cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when none of the row's responses had a price).
CREATE VIEW cost_by_week AS
-- The ISO week is the year and week of the Thursday of the day's week (Monday to Sunday), with
-- functions every SQLite since 3.31 has (`%G`/`%V` need 3.46).
SELECT CAST(strftime('%Y', day, '-3 days', 'weekday 4') || '-W' ||
       printf('%02d', (CAST(strftime('%j', day, '-3 days', 'weekday 4') AS INTEGER) - 1) / 7 + 1) AS TEXT) AS key,
       day, day, project, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd
FROM cost_daily_rows
