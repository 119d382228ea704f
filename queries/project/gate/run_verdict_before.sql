-- The latest run of gate ?1 before run ?2 that has a verdict of its own (not deferred, not reused).
SELECT id, session_id, gate, command, files, exit_code, verdict, category, reused, inputs_hash, output_tail, findings, started_at, duration_ms,
       provider, attempt, finished_at, fingerprint, reused_from, deferred_to, file_hashes
FROM gate_runs WHERE gate = ?1 AND id < ?2 AND verdict <> 'skipped' AND reused = 0 ORDER BY id DESC LIMIT 1
