-- Operator commands recorded between ?1 and ?2 (they belong to no agent session); never a line
-- `tlc obs import jsonl` stored (its dedup key starts `jsonl:`): imported records are history.
SELECT ts, attrs FROM events
WHERE kind = 'operator.command' AND ts >= ?1 AND ts <= ?2
  AND (dedup_key IS NULL OR dedup_key NOT LIKE 'jsonl:%')
ORDER BY id
