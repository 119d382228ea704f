-- Sessions the chain covers that no record covers up to their last event yet.
SELECT count(*) FROM sessions s
WHERE s.id > coalesce((SELECT CAST(value AS INTEGER) FROM tlc_meta WHERE key = 'attest.after_session'), 0)
  AND NOT EXISTS (SELECT 1 FROM attestations a
                  WHERE a.provider = s.provider AND a.session_id = s.session_id AND a.covered_through >= s.last_seen)
