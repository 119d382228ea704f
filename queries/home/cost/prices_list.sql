-- Stored entries, filtered by plane-or-provider (?1) and a case-insensitive key substring (?2).
SELECT plane, model_key, provider, display_name, input, output, cache_read, cache_write,
       input_above_200k, output_above_200k, cache_read_above_200k, cache_write_above_200k,
       context_window, pool, billing, cache_write_1h, cache_write_1h_above_200k
FROM prices
WHERE (?1 IS NULL OR plane = ?1 OR provider = ?1)
  AND (?2 IS NULL OR instr(lower(model_key), lower(?2)) > 0)
ORDER BY CASE plane WHEN 'override' THEN 0 WHEN 'litellm' THEN 2 ELSE 1 END, plane, model_key
