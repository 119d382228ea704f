-- `tlc obs cost`: how many responses have inexact output tokens (their `cost_source` carries
-- `+inexact-output`: the transcript line was written before the response ended, see
-- cost::rates::INEXACT_OUTPUT_MARK); ?1 first time, ?2 end time (exclusive; UTC stamps, NULL = open),
-- ?3 project (NULL = no filter). The rollups do not keep `cost_source`, so this reads `usage`, through
-- the partial index `usage_inexact` (V10), which holds only those responses: the first condition below
-- is the index's own WHERE term, word for word, which is what lets SQLite use it. Only `obs cost` and
-- the serve pages ask it (not the statusline).
SELECT count(*)
FROM usage
WHERE instr(cost_source, '+inexact-output') > 0
  AND (?1 IS NULL OR ts >= ?1) AND (?2 IS NULL OR ts < ?2) AND (?3 IS NULL OR project = ?3)
