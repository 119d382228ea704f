-- The id up to which every generation row is known to be in the home `usage` table (0 before any).
SELECT coalesce((SELECT CAST(value AS INTEGER) FROM tlc_meta WHERE key = 'usage.through'), 0)
