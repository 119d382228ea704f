-- The session an attestation is about, and whether the chain covers it (first seen after the
-- migration that began the chain).
SELECT first_seen, last_seen, ended_at, model,
       id > coalesce((SELECT CAST(value AS INTEGER) FROM tlc_meta WHERE key = 'attest.after_session'), 0)
FROM sessions WHERE provider = ?1 AND session_id = ?2
