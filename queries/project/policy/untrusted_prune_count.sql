-- How many untrusted-content rows `tlc obs prune` would drop at ?1.
SELECT count(*) FROM untrusted_content WHERE updated_at < ?1
