-- The whole chain, in order.
SELECT seq, provider, session_id, covered_through, record, prev_hash, hash FROM attestations ORDER BY seq
