-- Other live sessions that edited ?1 at or after ?4 (provider ?2, session ?3 is the asking one).
SELECT c.provider, c.session_id, max(c.ts)
FROM file_claims c
JOIN sessions s ON s.provider = c.provider AND s.session_id = c.session_id
WHERE c.path = ?1 AND NOT (c.provider = ?2 AND c.session_id = ?3) AND c.ts >= ?4 AND s.ended_at IS NULL
GROUP BY c.provider, c.session_id
ORDER BY max(c.ts) DESC
