-- A partial success: the collector took the batch but rejected ?3 of its records for good.
INSERT INTO ship_target (target, last_partial_at, last_partial, rejected_total) VALUES (?1, ?2, ?4, ?3)
ON CONFLICT (target) DO UPDATE SET last_partial_at = excluded.last_partial_at,
    last_partial = excluded.last_partial, rejected_total = rejected_total + excluded.rejected_total
