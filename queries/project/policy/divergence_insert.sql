-- A policy source that changed during a session without a tlc command (once per changed hash).
INSERT OR IGNORE INTO policy_divergences (provider, session_id, source, baseline_hash, current_hash, detected_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
