-- Moves a stream's cursor forward (never backward) without a send: rows that made no record.
INSERT INTO ship_cursor (target, stream, last_id) VALUES (?1, ?2, ?3)
ON CONFLICT (target, stream) DO UPDATE SET last_id = max(last_id, excluded.last_id)
