-- After a prune: the cursor may not stay above the highest id kept, or ids SQLite hands out
-- again after the newest rows were dropped would never be spooled.
UPDATE tlc_meta SET value = min(CAST(value AS INTEGER), (SELECT coalesce(max(id), 0) FROM events))
WHERE key = 'spool.through'
