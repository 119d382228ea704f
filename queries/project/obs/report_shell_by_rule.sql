SELECT rule, permission, count(*) FROM decision_log
WHERE session_id = ?1 AND provider = ?2 AND subject = 'shell'
GROUP BY rule, permission
ORDER BY rule, permission
