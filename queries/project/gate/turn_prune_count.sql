-- Stop outcomes and turn rows older than ?1 (`tlc obs prune`).
SELECT
    (SELECT count(*) FROM stop_outcomes WHERE ts < ?1),
    (SELECT count(*) FROM turns WHERE updated_at < ?1)
