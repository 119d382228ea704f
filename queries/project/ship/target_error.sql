-- A send that failed: when and why.
INSERT INTO ship_target (target, last_error_at, last_error) VALUES (?1, ?2, ?3)
ON CONFLICT (target) DO UPDATE SET last_error_at = excluded.last_error_at, last_error = excluded.last_error
