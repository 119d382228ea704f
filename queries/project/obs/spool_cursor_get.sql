-- The id of the last event row the home spool is known to hold (0 before any).
SELECT coalesce((SELECT CAST(value AS INTEGER) FROM tlc_meta WHERE key = 'spool.through'), 0)
