-- The posture contracts a session's starts carried (issue 33): posture, times sent, characters in all.
SELECT json_extract(attrs, '$.posture_contract') AS posture, count(*) AS sent,
       coalesce(sum(json_extract(attrs, '$.posture_contract_chars')), 0) AS chars
FROM events
WHERE session_id = ?1 AND provider = ?2 AND kind = 'session.start'
  AND json_extract(attrs, '$.posture_contract') IS NOT NULL
GROUP BY 1 ORDER BY 1
