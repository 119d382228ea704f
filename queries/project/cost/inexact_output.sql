-- `tlc obs cost --here`: how many generations have inexact output tokens (their `cost_source` carries
-- `+inexact-output`, see cost::rates::INEXACT_OUTPUT_MARK); ?1 first time, ?2 end time (exclusive; UTC
-- stamps, NULL = open), ?3 project (always NULL here: one repository).
SELECT count(*)
FROM events
WHERE kind = 'generation.end' AND instr(cost_source, '+inexact-output') > 0
  AND (?1 IS NULL OR ts >= ?1) AND (?2 IS NULL OR ts < ?2) AND (?3 IS NULL OR ?3 = '')
