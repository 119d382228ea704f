-- Rebuilds usage_hourly from usage (after `hourly_clear` and `names_rebuild`). A time of the stored form
-- is summed under its hour as a number, its first and last response as milliseconds into the hour;
-- any other under its first 13 characters, with their texts (migrations/home/V8__usage_hourly_numbered.sql).
INSERT INTO usage_hourly (hour, at_hour, project_id, model_id, responses, priced, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd, first_ms, last_ms)
SELECT k.hour, k.at_hour, p.id, m.id, count(*), count(k.cost_usd), CAST(total(k.input_tokens) AS INTEGER), CAST(total(k.output_tokens) AS INTEGER),
       CAST(total(k.cache_read_tokens) AS INTEGER), CAST(total(k.cache_write_tokens) AS INTEGER), CAST(total(k.cache_write_1h_tokens) AS INTEGER),
       coalesce(sum(k.cost_usd), 0.0), min(k.ms), max(k.ms)
FROM (SELECT CASE WHEN stored THEN CAST(substr(ts, 1, 4) || substr(ts, 6, 2) || substr(ts, 9, 2) || substr(ts, 12, 2) AS INTEGER)
                  ELSE substr(ts, 1, 13) END AS hour,
             substr(ts, 15) = '00:00.000Z' AS at_hour,
             CASE WHEN stored THEN substr(ts, 15, 2) * 60000 + substr(ts, 18, 2) * 1000 + substr(ts, 21, 3)
                  ELSE ts END AS ms,
             project, model, cost_usd, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
             cache_write_1h_tokens
      FROM (SELECT *, length(CAST(ts AS BLOB)) = 24 AND ts GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z' AS stored
            FROM usage)) AS k
JOIN usage_names AS p ON p.name = k.project
JOIN usage_names AS m ON m.name = k.model
GROUP BY 1, 2, 3, 4
