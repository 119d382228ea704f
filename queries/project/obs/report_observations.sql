-- Observation mode's readings in one session (issue 33): rail, reading, turns read so.
SELECT json_extract(attrs, '$.rail') AS rail, json_extract(attrs, '$.reading') AS reading, count(*) AS count
FROM events
WHERE session_id = ?1 AND provider = ?2 AND kind = 'observe.reading'
GROUP BY 1, 2 ORDER BY 1, 2
