INSERT INTO prices (plane, model_key, provider, display_name, input, output, cache_read, cache_write,
                    input_above_200k, output_above_200k, cache_read_above_200k, cache_write_above_200k,
                    context_window, pool, billing, cache_write_1h, cache_write_1h_above_200k)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
