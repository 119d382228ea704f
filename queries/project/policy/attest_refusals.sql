-- A session's refusals and questions, counted by rule.
SELECT rule, permission, count(*) FROM decisions
WHERE provider = ?1 AND session_id = ?2 AND permission <> 'allow'
GROUP BY rule, permission ORDER BY rule, permission
