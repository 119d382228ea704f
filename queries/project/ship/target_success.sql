-- A run (or a batch) the collector acknowledged: how many records it took.
INSERT INTO ship_target (target, last_success_at, last_success_records) VALUES (?1, ?2, ?3)
ON CONFLICT (target) DO UPDATE SET last_success_at = excluded.last_success_at,
    last_success_records = excluded.last_success_records
