-- Rebuilds usage_daily from usage_rollup (after `daily_clear` and `rollup_rebuild`).
INSERT INTO usage_daily (day, project, model, responses, priced, input_tokens, output_tokens,
                         cache_read_tokens, cache_write_tokens, cost_usd, cache_write_1h_tokens)
SELECT day, project, model, sum(responses), sum(priced), sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd), sum(cache_write_1h_tokens)
FROM usage_rollup
GROUP BY day, project, model
