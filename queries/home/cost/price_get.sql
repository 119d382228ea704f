-- One price entry of one plane by its exact key.
SELECT model_key, provider, display_name, input, output, cache_read, cache_write,
       input_above_200k, output_above_200k, cache_read_above_200k, cache_write_above_200k,
       context_window, pool, billing, cache_write_1h, cache_write_1h_above_200k
FROM prices
WHERE plane = ?1 AND model_key = ?2
