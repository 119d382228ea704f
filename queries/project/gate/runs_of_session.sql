-- A session's last ?3 gate runs (?1 provider, ?2 session; a run recorded without a provider counts
-- as the session's), oldest first, in the shape of run_latest.sql: `tlc serve`'s session timeline.
SELECT id, session_id, gate, command, files, exit_code, verdict, category, reused, inputs_hash, output_tail, findings, started_at, duration_ms,
       provider, attempt, finished_at, fingerprint, reused_from, deferred_to, file_hashes
FROM (
    SELECT * FROM gate_runs WHERE session_id = ?2 AND (provider IS NULL OR provider = ?1) ORDER BY id DESC LIMIT ?3
)
ORDER BY id
