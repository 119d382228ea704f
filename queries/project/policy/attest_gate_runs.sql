-- A session's gate runs, counted by gate and verdict (and how many reused an earlier verdict).
SELECT gate, verdict, count(*), coalesce(sum(reused), 0) FROM gate_runs
WHERE provider = ?1 AND session_id = ?2
GROUP BY gate, verdict ORDER BY gate, verdict
