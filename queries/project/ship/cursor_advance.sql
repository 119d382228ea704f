-- Moves a stream's cursor forward after the collector acknowledged a batch (never backward).
INSERT INTO ship_cursor (target, stream, last_id, updated_at) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (target, stream) DO UPDATE SET last_id = max(last_id, excluded.last_id), updated_at = excluded.updated_at
