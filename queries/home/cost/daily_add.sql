-- Adds the sums of newly inserted usage rows to their (day, project, model) row.
-- Plain `?` parameters and OR ROLLBACK: the writer repeats the VALUES row to add many groups per
-- statement (UsageWriter::flush); a constraint error ends the import's transaction (no statement journal).
INSERT OR ROLLBACK INTO usage_daily (day, project, model, responses, priced, input_tokens, output_tokens,
                         cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (day, project, model) DO UPDATE SET
    responses             = responses + excluded.responses,
    priced                = priced + excluded.priced,
    input_tokens          = input_tokens + excluded.input_tokens,
    output_tokens         = output_tokens + excluded.output_tokens,
    cache_read_tokens     = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens    = cache_write_tokens + excluded.cache_write_tokens,
    cache_write_1h_tokens = cache_write_1h_tokens + excluded.cache_write_1h_tokens,
    cost_usd              = cost_usd + excluded.cost_usd
