-- The `gate_runs` log stream: every gate invocation, after row ?1, oldest first, at most ?2
-- (columns as in events_after.sql). The rule is the gate, the verdict its verdict. A run at a
-- stop names its provider and the turn's attempt; a failure its fingerprint (the same failure
-- twice has the same one), a reused run the run whose verdict it repeats, a deferred one the
-- lock holder it gave way to.
SELECT id, started_at, provider, session_id, NULL, 'gate_run', gate, verdict,
       CASE verdict WHEN 'pass' THEN 'INFO' WHEN 'skipped' THEN 'INFO' ELSE 'WARN' END,
       json_object(
           'tlc.gate.exit_code', exit_code,
           'tlc.gate.category', category,
           'tlc.gate.reused', reused,
           'tlc.gate.reused_from', reused_from,
           'tlc.gate.attempt', attempt,
           'tlc.gate.fingerprint', fingerprint,
           'tlc.gate.deferred_to', deferred_to,
           'tlc.duration_ms', duration_ms),
       json_object(
           'tlc.gate.command', command,
           'tlc.gate.files', files,
           'tlc.gate.output_tail', output_tail,
           'tlc.gate.findings', findings)
FROM gate_runs
WHERE id > ?1
ORDER BY id
LIMIT ?2
