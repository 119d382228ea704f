-- Rebuilds usage_hourly from usage (after `hourly_clear`).
INSERT INTO usage_hourly (hour, at_hour, project, model, responses, priced, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd, first_ts, last_ts)
SELECT substr(ts, 1, 13), substr(ts, 15) = '00:00.000Z', project, model, count(*), count(cost_usd),
       sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens),
       sum(cache_write_1h_tokens), coalesce(sum(cost_usd), 0.0), min(ts), max(ts)
FROM usage
GROUP BY 1, 2, 3, 4
