-- The collector at ?1 acknowledged ?4 records of stream ?2 up to row ?3 at ?5: the cursor moves
-- there (never backward).
INSERT INTO ship_cursor (target, stream, last_id, sent_at, sent_records) VALUES (?1, ?2, ?3, ?5, ?4)
ON CONFLICT (target, stream) DO UPDATE SET last_id = max(last_id, excluded.last_id),
    sent_at = excluded.sent_at, sent_records = excluded.sent_records
