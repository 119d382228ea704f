-- `obs import transcripts --rescan`: a stored response read again from its transcript gets the
-- 1-hour part of its cache writes and its cost priced again with today's catalog (?2 tokens, ?3
-- cost, ?4 source), found by its key (?1) as the insert finds it, whichever way it arrived (a hook's
-- spooled copy has the same key). Only rows whose split or price differs change.
UPDATE usage SET cache_write_1h_tokens = ?2, cost_usd = ?3, cost_source = ?4
WHERE id IN (SELECT u.id FROM usage_key k JOIN usage u ON u.id = k.id
             WHERE k.tail = substr(?1, -16) AND u.dedup_key = ?1)
  AND (cache_write_1h_tokens <> ?2 OR cost_usd IS NOT ?3 OR cost_source IS NOT ?4)
