-- One gate run by id.
SELECT id, session_id, gate, command, files, exit_code, verdict, category, reused, inputs_hash, output_tail, findings, started_at, duration_ms,
       provider, attempt, finished_at, fingerprint, reused_from, deferred_to, file_hashes
FROM gate_runs WHERE id = ?1
