SELECT rule, permission, count(*) FROM decision_log
WHERE session_id = ?1 AND provider = ?2 AND rule <> 'none'
GROUP BY rule, permission
ORDER BY count(*) DESC, rule
