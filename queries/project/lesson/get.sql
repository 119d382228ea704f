-- One lesson by id.
SELECT id, instruction, gate, tokens, avoid, prefer, "check", refs, until, source, category, status, confidence, hits, sessions, priority, pinned, valid_from, fingerprint, first_seen, last_seen, last_accessed, created_at, updated_at, origin, promoted_at
FROM lessons WHERE id = ?1
