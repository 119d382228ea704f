-- A session's stop outcomes by the rule that decided them (the stop rails: `plan-gate`, `ship-gate`, …).
SELECT rule, outcome, count(*) FROM stop_outcomes
WHERE session_id = ?1 AND provider = ?2
GROUP BY rule, outcome
ORDER BY count(*) DESC, rule, outcome
