-- A session's floor denials by rule (kept out of the interruption rate).
SELECT rule, count(*) FROM floor_denials
WHERE session_id = ?1 AND provider = ?2
GROUP BY rule
ORDER BY count(*) DESC, rule
