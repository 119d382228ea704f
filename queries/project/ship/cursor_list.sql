-- Every cursor, for `tlc obs ship --status`.
SELECT target, stream, last_id, updated_at FROM ship_cursor ORDER BY target, stream
