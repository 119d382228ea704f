-- Adds the sums of newly inserted usage rows to their (hour, at_hour, project, model) row.
INSERT INTO usage_hourly (hour, at_hour, project, model, responses, priced, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd,
                          first_ts, last_ts)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
ON CONFLICT (hour, at_hour, project, model) DO UPDATE SET
    responses             = responses + excluded.responses,
    priced                = priced + excluded.priced,
    input_tokens          = input_tokens + excluded.input_tokens,
    output_tokens         = output_tokens + excluded.output_tokens,
    cache_read_tokens     = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens    = cache_write_tokens + excluded.cache_write_tokens,
    cache_write_1h_tokens = cache_write_1h_tokens + excluded.cache_write_1h_tokens,
    cost_usd              = cost_usd + excluded.cost_usd,
    first_ts              = min(first_ts, excluded.first_ts),
    last_ts               = max(last_ts, excluded.last_ts)
