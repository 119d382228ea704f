-- One ship ledger row: claim, challenge or pass (?7 dedup key, ?8 files as JSON, ?9 evidence folder).
INSERT INTO ship_ledger (ts, session_id, provider, outcome, summary, detail, dedup_key, files, evidence_dir)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
ON CONFLICT (dedup_key) DO NOTHING
