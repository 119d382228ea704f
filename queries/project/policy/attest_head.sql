-- The chain's last record: its seq and hash.
SELECT seq, hash FROM attestations ORDER BY seq DESC LIMIT 1
