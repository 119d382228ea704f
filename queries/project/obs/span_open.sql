INSERT OR REPLACE INTO open_spans (provider, session_id, pair_key, span_id, started_at, started_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
