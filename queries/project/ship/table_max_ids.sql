-- The highest id each table a stream reads holds (0 when empty), one row per table.
SELECT 'events', coalesce(max(id), 0) FROM events
UNION ALL SELECT 'decisions', coalesce(max(id), 0) FROM decisions
UNION ALL SELECT 'gate_runs', coalesce(max(id), 0) FROM gate_runs
UNION ALL SELECT 'ship_ledger', coalesce(max(id), 0) FROM ship_ledger
UNION ALL SELECT 'stop_outcomes', coalesce(max(id), 0) FROM stop_outcomes
UNION ALL SELECT 'attestations', coalesce(max(seq), 0) FROM attestations
