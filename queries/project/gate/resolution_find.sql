-- The newest resolution of failure fingerprint ?1.
SELECT files, resolved_at FROM gate_resolutions WHERE fingerprint = ?1 ORDER BY id DESC LIMIT 1
