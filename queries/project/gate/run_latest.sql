-- The latest gate run, optionally of one gate (?1 gate or NULL).
SELECT id, session_id, gate, command, files, exit_code, verdict, category, reused, inputs_hash, output_tail, findings, started_at, duration_ms
FROM gate_runs WHERE ?1 IS NULL OR gate = ?1 ORDER BY id DESC LIMIT 1
