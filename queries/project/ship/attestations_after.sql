-- The `attestations` log stream: each session's attestation record (docs/policy.md#attestation),
-- after seq ?1, oldest first, at most ?2 (columns as in events_after.sql). The record travels whole,
-- with its place in the chain and both hashes, so a collector can re-check the chain.
SELECT seq, json_extract(record, '$.attested_at'), provider, session_id, NULL, 'attestation', NULL,
       json_extract(record, '$.closed_by'), 'INFO',
       json_object(
           'tlc.attestation.seq', seq,
           'tlc.attestation.record', record,
           'tlc.attestation.prev_hash', prev_hash,
           'tlc.attestation.hash', hash),
       json_object()
FROM attestations
WHERE seq > ?1
ORDER BY seq
LIMIT ?2
