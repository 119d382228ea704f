-- Whether a source has a divergence not yet accepted in one session (?1 provider, ?2 session, ?3 source).
SELECT count(*) FROM policy_divergences WHERE provider = ?1 AND session_id = ?2 AND source = ?3 AND accepted_at IS NULL
