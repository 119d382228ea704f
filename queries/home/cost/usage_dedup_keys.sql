SELECT dedup_key FROM usage
