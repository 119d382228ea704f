SELECT coalesce(sum(cost_usd), 0.0),
       (SELECT count(*) FROM events WHERE session_id = ?1 AND provider = ?2 AND kind = 'cost.session_alert')
FROM events
WHERE session_id = ?1 AND provider = ?2 AND kind = 'generation.end'
