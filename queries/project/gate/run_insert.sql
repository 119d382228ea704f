-- One gate invocation (harness.gate.v1 fields and the gate session's own).
INSERT INTO gate_runs (session_id, gate, command, files, exit_code, verdict, category, reused, inputs_hash, output_tail,
                       findings, started_at, duration_ms, provider, attempt, finished_at, fingerprint, reused_from,
                       deferred_to, file_hashes)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
