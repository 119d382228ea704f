-- Untrusted-content rows of sessions nothing touched since ?1 (`tlc obs prune`).
DELETE FROM untrusted_content WHERE updated_at < ?1
