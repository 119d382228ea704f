DELETE FROM open_spans WHERE started_at < ?1
