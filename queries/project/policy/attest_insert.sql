INSERT INTO attestations (provider, session_id, covered_through, record, prev_hash, hash)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
