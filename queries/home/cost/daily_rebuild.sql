-- Rebuilds usage_daily from usage_rollup (after `daily_clear` and `rollup_rebuild`).
INSERT INTO usage_daily (day, project, model, responses, priced, input_tokens, output_tokens,
                         cache_read_tokens, cache_write_tokens, cost_usd, cache_write_1h_tokens)
SELECT day, project, model, sum(responses), sum(priced), CAST(total(input_tokens) AS INTEGER), CAST(total(output_tokens) AS INTEGER),
       CAST(total(cache_read_tokens) AS INTEGER), CAST(total(cache_write_tokens) AS INTEGER), sum(cost_usd), CAST(total(cache_write_1h_tokens) AS INTEGER)
FROM usage_rollup
GROUP BY day, project, model
