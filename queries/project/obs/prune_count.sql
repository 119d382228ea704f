SELECT
    (SELECT count(*) FROM events WHERE ts < ?1),
    (SELECT count(*) FROM decisions WHERE ts < ?1),
    (SELECT count(*) FROM sessions WHERE last_seen < ?1),
    (SELECT count(*) FROM ship_ledger WHERE ts < ?1),
    (SELECT count(*) FROM open_spans WHERE started_at < ?1)
