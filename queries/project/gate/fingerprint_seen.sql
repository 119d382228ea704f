-- Whether a run before ?2 already failed with fingerprint ?1 (and so was already reported).
SELECT EXISTS (SELECT 1 FROM gate_runs WHERE fingerprint = ?1 AND id < ?2)
