-- The dedup keys of the rows after an id, read by the bulk import under its write lock: every
-- stored key when it starts, then the keys hooks stored between its two transactions.
SELECT dedup_key FROM usage WHERE id > ?1
