-- Every lesson of this tier, pinned, then most confident and newest first.
SELECT id, instruction, gate, tokens, avoid, prefer, "check", refs, until, source, category, status, confidence, hits, sessions, priority, pinned, valid_from, fingerprint, first_seen, last_seen, last_accessed, created_at, updated_at, origin, promoted_at
FROM lessons ORDER BY pinned DESC, confidence DESC, updated_at DESC, id
