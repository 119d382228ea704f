-- A session's stop outcomes, counted by outcome and rule.
SELECT outcome, rule, count(*) FROM stop_outcomes
WHERE provider = ?1 AND session_id = ?2
GROUP BY outcome, rule ORDER BY outcome, rule
