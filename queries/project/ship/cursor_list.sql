-- Every cursor and what happened to its stream last, for `tlc obs ship --status`.
SELECT target, stream, last_id, sent_at, sent_records, error_at, error, partial_at, partial, rejected
FROM ship_cursor
ORDER BY target, stream
