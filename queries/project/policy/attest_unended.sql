-- Sessions that never ended and were last seen before ?1, other than (?2, ?3), the chain covers and
-- no record covers up to their last event yet: attested at the next session's start, oldest first.
SELECT s.provider, s.session_id
FROM sessions s
WHERE s.id > coalesce((SELECT CAST(value AS INTEGER) FROM tlc_meta WHERE key = 'attest.after_session'), 0)
  AND s.ended_at IS NULL
  AND s.last_seen < ?1
  AND NOT (s.provider = ?2 AND s.session_id = ?3)
  AND NOT EXISTS (SELECT 1 FROM attestations a
                  WHERE a.provider = s.provider AND a.session_id = s.session_id AND a.covered_through >= s.last_seen)
ORDER BY s.id
LIMIT ?4
