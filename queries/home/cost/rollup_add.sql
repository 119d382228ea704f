-- Adds the sums of newly inserted usage rows to their (session, day, project, model) rollup row.
INSERT INTO usage_rollup (day, project, session_id, model, responses, priced, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, cost_usd, cache_write_1h_tokens, last_ts)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
ON CONFLICT (session_id, day, project, model) DO UPDATE SET
    responses             = responses + excluded.responses,
    priced                = priced + excluded.priced,
    input_tokens          = input_tokens + excluded.input_tokens,
    output_tokens         = output_tokens + excluded.output_tokens,
    cache_read_tokens     = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens    = cache_write_tokens + excluded.cache_write_tokens,
    cache_write_1h_tokens = cache_write_1h_tokens + excluded.cache_write_1h_tokens,
    cost_usd              = cost_usd + excluded.cost_usd,
    last_ts               = max(last_ts, excluded.last_ts)
