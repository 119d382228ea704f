SELECT rule, subject, sum(asks), sum(denials), sum(interruptions)
FROM interruptions_by_rule
WHERE session_id = ?1 AND provider = ?2
GROUP BY rule, subject
ORDER BY sum(interruptions) DESC, rule
