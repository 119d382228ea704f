-- The baseline of every policy source of one session (?1 provider, ?2 session): source, hash, content.
SELECT source, hash, content FROM policy_baselines WHERE provider = ?1 AND session_id = ?2 ORDER BY source
