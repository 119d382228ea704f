-- Every attestation record checked in SQL, with the sqlite3 shell's built-in sha3() (tlc registers
-- the same function on its own connections): a row is ok when its hash is the SHA3-256 of its
-- prev_hash and record, and its prev_hash is the previous row's hash (64 zeros for the first).
CREATE VIEW attestation_chain AS
SELECT seq, session_id,
       CAST((hash = lower(hex(sha3(prev_hash || record, 256))))
            AND prev_hash = coalesce(lag(hash) OVER (ORDER BY seq), '0000000000000000000000000000000000000000000000000000000000000000')
            AS INTEGER) AS ok
FROM attestations
