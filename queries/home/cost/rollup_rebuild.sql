-- Rebuilds usage_rollup from usage (after `rollup_clear`): the repair path, and the reference the
-- incremental sums are tested against.
INSERT INTO usage_rollup (day, project, session_id, model, responses, priced, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, cost_usd, cache_write_1h_tokens, last_ts)
SELECT substr(ts, 1, 10), project, session_id, model, count(*), count(cost_usd), CAST(total(input_tokens) AS INTEGER),
       CAST(total(output_tokens) AS INTEGER), CAST(total(cache_read_tokens) AS INTEGER), CAST(total(cache_write_tokens) AS INTEGER), coalesce(sum(cost_usd), 0.0),
       CAST(total(cache_write_1h_tokens) AS INTEGER), max(ts)
FROM usage
GROUP BY 1, 2, 3, 4
