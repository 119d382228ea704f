-- Adds the sums of newly inserted usage rows to their (session, day, project, model) rollup row.
-- Plain `?` parameters and OR ROLLBACK: the writer repeats the VALUES row to add many groups per
-- statement (UsageWriter::flush); a constraint error ends the import's transaction (no statement journal).
INSERT OR ROLLBACK INTO usage_rollup (day, project, session_id, model, responses, priced, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd, last_ts)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
