-- Operator commands recorded between ?1 and ?2 (they belong to no agent session).
SELECT ts, attrs FROM events
WHERE kind = 'operator.command' AND ts >= ?1 AND ts <= ?2
ORDER BY id
