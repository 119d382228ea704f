-- Adds the sums of newly inserted usage rows to their (hour, at_hour, project_id, model_id) row: ?1 the
-- hour (2026112009, or an odd time's first 13 characters), ?3 and ?4 the project's and model's
-- usage_names ids, ?13 and ?14 the first and last response (milliseconds into the hour, or texts; see
-- migrations/home/V8__usage_hourly_numbered.sql).
-- Plain `?` parameters and OR ROLLBACK: the writer repeats the VALUES row to add many groups per
-- statement (UsageWriter::flush); a constraint error ends the import's transaction (no statement journal).
INSERT OR ROLLBACK INTO usage_hourly (hour, at_hour, project_id, model_id, responses, priced, input_tokens,
                          output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
                          cost_usd, first_ms, last_ms)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (hour, at_hour, project_id, model_id) DO UPDATE SET
    responses             = responses + excluded.responses,
    priced                = priced + excluded.priced,
    input_tokens          = input_tokens + excluded.input_tokens,
    output_tokens         = output_tokens + excluded.output_tokens,
    cache_read_tokens     = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens    = cache_write_tokens + excluded.cache_write_tokens,
    cache_write_1h_tokens = cache_write_1h_tokens + excluded.cache_write_1h_tokens,
    cost_usd              = cost_usd + excluded.cost_usd,
    first_ms              = min(first_ms, excluded.first_ms),
    last_ms               = max(last_ms, excluded.last_ms)
