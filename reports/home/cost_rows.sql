-- Every priced-or-not API response the home database knows, at the grain (day, project, session, model):
-- imported transcripts (the trigger-kept usage_rollup) and spooled generation records of every
-- repository (`spool.kind = 'generation.end'`) that are not already in `usage` under the same dedup key.
-- Columns: day (UTC YYYY-MM-DD), project, session_id, model, responses, priced (responses with a price),
-- input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd (sum of the priced ones),
-- origin ('usage' or 'spool').
CREATE VIEW cost_rows AS
SELECT day, project, session_id, model, responses, priced, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cost_usd, 'usage' AS origin
FROM usage_rollup
UNION ALL
SELECT substr(s.ts, 1, 10), s.project, coalesce(s.session_id, ''), coalesce(s.model, ''), 1,
       s.cost_usd IS NOT NULL, coalesce(s.input_tokens, 0), coalesce(s.output_tokens, 0),
       coalesce(s.cache_read_tokens, 0), coalesce(s.cache_write_tokens, 0), coalesce(s.cost_usd, 0.0), 'spool'
FROM spool s
WHERE s.kind = 'generation.end'
  AND (s.dedup_key IS NULL OR NOT EXISTS (SELECT 1 FROM usage u WHERE u.dedup_key = s.dedup_key))
