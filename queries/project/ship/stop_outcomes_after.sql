-- The `stop_outcomes` log stream: every stop a hook answered and the rule that decided it, after
-- row ?1, oldest first, at most ?2 (columns as in events_after.sql). The rule is that rule, the
-- verdict the outcome; a block, and a stop let through because the turn spent its loop budget,
-- are warnings. The detail (a block's headline, the lock holder a stop deferred to) is payload text.
SELECT id, ts, provider, session_id, NULL, 'stop_outcome', rule, outcome,
       CASE outcome WHEN 'block' THEN 'WARN' WHEN 'capped' THEN 'WARN' ELSE 'INFO' END,
       json_object(
           'tlc.stop.turn', turn,
           'tlc.stop.attempt', attempt,
           'tlc.gate.fingerprint', fingerprint),
       json_object('tlc.stop.detail', detail)
FROM stop_outcomes
WHERE id > ?1
ORDER BY id
LIMIT ?2
