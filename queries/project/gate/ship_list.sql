-- The ship ledger, oldest first, optionally of one session (?1 or NULL).
SELECT id, ts, session_id, provider, outcome, summary, detail, files, evidence_dir
FROM ship_ledger WHERE ?1 IS NULL OR session_id = ?1 ORDER BY id
