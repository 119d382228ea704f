-- Hook faults recorded since ?1: how many, the latest time, and the latest fault's text.
SELECT count(*), max(ts),
       (SELECT json_extract(attrs, '$.fault') FROM events WHERE kind = 'hook.fault' AND ts >= ?1 ORDER BY id DESC LIMIT 1)
FROM events WHERE kind = 'hook.fault' AND ts >= ?1
