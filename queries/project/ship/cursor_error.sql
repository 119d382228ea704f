-- A request of stream ?2 to ?1 failed at ?3 with ?4; the cursor stays.
INSERT INTO ship_cursor (target, stream, error_at, error) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (target, stream) DO UPDATE SET error_at = excluded.error_at, error = excluded.error
