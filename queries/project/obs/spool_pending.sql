-- For doctor: event rows in all, and how many lie past the spool cursor.
SELECT count(*),
       count(*) FILTER (WHERE id > coalesce((SELECT CAST(value AS INTEGER) FROM tlc_meta WHERE key = 'spool.through'), 0))
FROM events
