-- The chain's last hash.
SELECT hash FROM attestations ORDER BY seq DESC LIMIT 1
