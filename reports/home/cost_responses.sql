-- Every response the home database knows, one row each (from usage): what `tlc obs cost --timezone`
-- reads for the hours that a zone's local midnight splits (a zone whose offset has minutes, such as
-- Asia/Kolkata's +05:30), where the hourly sums cannot say which responses fall on which local day.
-- Columns: ts (UTC), project, session_id, model, priced (1 when it had a price), input_tokens,
-- output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd (NULL when it
-- had no price).
CREATE VIEW cost_responses AS
SELECT ts, project, session_id, model, CAST(cost_usd IS NOT NULL AS INTEGER) AS priced, input_tokens,
       output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, CAST(cost_usd AS REAL) AS cost_usd
FROM usage
