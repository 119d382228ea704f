-- Adds a hand-written lesson (active, confidence 0.8), or updates the one with the same id (a
-- hash of its instruction): writing it again is a sighting, and never unpins it.
INSERT INTO lessons (id, instruction, gate, tokens, avoid, prefer, "check", refs, until, source, category, status,
                     confidence, hits, sessions, pinned, valid_from, first_seen, last_seen, created_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'manual', ?10, 'active', 0.8, 0, 0, ?11, ?12, ?12, ?12, ?12, ?12)
ON CONFLICT (id) DO UPDATE SET
    gate = excluded.gate,
    tokens = excluded.tokens,
    avoid = excluded.avoid,
    prefer = excluded.prefer,
    "check" = excluded."check",
    refs = excluded.refs,
    until = excluded.until,
    source = 'manual',
    category = excluded.category,
    status = 'active',
    confidence = max(confidence, 0.8),
    pinned = max(pinned, excluded.pinned),
    last_seen = excluded.last_seen,
    updated_at = excluded.updated_at
