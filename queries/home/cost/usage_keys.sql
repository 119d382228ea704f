-- Every stored dedup key, read once by the bulk import under its write lock.
SELECT dedup_key FROM usage
