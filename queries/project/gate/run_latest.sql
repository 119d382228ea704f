-- The latest gate run, optionally of one gate (?1 gate or NULL) and one session (?2 or NULL).
SELECT id, session_id, gate, command, files, exit_code, verdict, category, reused, inputs_hash, output_tail, findings, started_at, duration_ms,
       provider, attempt, finished_at, fingerprint, reused_from, deferred_to, file_hashes
FROM gate_runs WHERE (?1 IS NULL OR gate = ?1) AND (?2 IS NULL OR session_id = ?2) ORDER BY id DESC LIMIT 1
