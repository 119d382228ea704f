-- A partial success: the collector at ?1 took a request of stream ?2 but rejected ?4 of its
-- records for good (at ?3, saying ?5).
INSERT INTO ship_cursor (target, stream, partial_at, rejected, partial) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (target, stream) DO UPDATE SET partial_at = excluded.partial_at,
    rejected = rejected + excluded.rejected, partial = excluded.partial
