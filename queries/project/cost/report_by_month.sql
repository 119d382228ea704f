-- `tlc obs cost --by month`: one row per key and model (the report sums a key's models, and lists them
-- under it with --breakdown); ?1 since day, ?2 until day (inclusive, UTC), ?3 project (NULL = no filter).
-- Columns: key, model, responses, priced, the five token sums, cost_usd (NULL when none was priced),
-- the projects (comma separated), the latest activity.
SELECT key, model, sum(responses), sum(priced), CAST(total(input_tokens) AS INTEGER), CAST(total(output_tokens) AS INTEGER),
       CAST(total(cache_read_tokens) AS INTEGER), CAST(total(cache_write_tokens) AS INTEGER), CAST(total(cache_write_1h_tokens) AS INTEGER), sum(cost_usd),
       group_concat(DISTINCT project), max(day)
FROM cost_by_month
WHERE (?1 IS NULL OR day >= ?1) AND (?2 IS NULL OR day <= ?2) AND (?3 IS NULL OR project = ?3)
GROUP BY key, model
ORDER BY key, model
