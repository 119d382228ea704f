-- Every stored dedup key in index order, for the bulk import's merge with its sorted batch.
SELECT dedup_key FROM usage ORDER BY dedup_key
