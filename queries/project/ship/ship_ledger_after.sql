-- The `ship_ledger` log stream: ship claims, challenges and passes, after row ?1, oldest first,
-- at most ?2 (columns as in events_after.sql). The rule is the ship gate, the verdict the outcome.
SELECT id, ts, provider, session_id, NULL, 'ship_ledger', 'ship_gate', outcome,
       CASE outcome WHEN 'challenge' THEN 'WARN' ELSE 'INFO' END,
       json_object(),
       json_object(
           'tlc.ship.summary', summary,
           'tlc.ship.detail', detail,
           'tlc.ship.files', files,
           'tlc.ship.evidence_dir', evidence_dir)
FROM ship_ledger
WHERE id > ?1
ORDER BY id
LIMIT ?2
