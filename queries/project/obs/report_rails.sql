-- The rails that decided something in a session: the hooks' decisions (rule other than `none`)
-- and the stops' outcomes (the stop rails: a block, a capped or deferred stop, advice).
SELECT rule, permission, count(*) FROM decision_log
WHERE session_id = ?1 AND provider = ?2 AND rule <> 'none'
GROUP BY rule, permission
UNION ALL
SELECT rule, outcome, count(*) FROM stop_outcomes
WHERE session_id = ?1 AND provider = ?2 AND rule NOT IN ('none', 'passed')
GROUP BY rule, outcome
ORDER BY 3 DESC, 1
