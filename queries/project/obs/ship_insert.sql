INSERT INTO ship_ledger (ts, session_id, provider, outcome, summary, detail, dedup_key)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT (dedup_key) DO NOTHING
