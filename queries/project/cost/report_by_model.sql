-- `tlc obs cost --by model`: one row per key; ?1 since day, ?2 until day (inclusive), ?3 project (all NULL = no filter).
SELECT key, group_concat(DISTINCT model), sum(responses), sum(priced), sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd)
FROM cost_by_model
WHERE (?1 IS NULL OR day >= ?1) AND (?2 IS NULL OR day <= ?2) AND (?3 IS NULL OR project = ?3)
GROUP BY key
ORDER BY key
