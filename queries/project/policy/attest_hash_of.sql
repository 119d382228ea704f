-- The hash of one record of the chain (?1 seq).
SELECT hash FROM attestations WHERE seq = ?1
