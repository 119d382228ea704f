-- Adds a hand-written lesson (active, confidence 0.8), or updates the one with the same id: writing
-- it again is a sighting, and never unpins it. ?13 is who wrote it (`operator` or `agent`). An
-- agent's lesson has an id of its own (`agent-…`), so its text never names an operator's; and the
-- guard below makes the store itself refuse what an agent may not do even so: an agent rewrites only
-- a lesson an agent wrote that the operator has not pinned (no row changes otherwise, and the
-- caller says why).
INSERT INTO lessons (id, instruction, gate, tokens, avoid, prefer, "check", refs, until, source, category, status,
                     confidence, hits, sessions, pinned, valid_from, first_seen, last_seen, created_at, updated_at, origin)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'manual', ?10, 'active', 0.8, 0, 0, ?11, ?12, ?12, ?12, ?12, ?12, ?13)
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
    updated_at = excluded.updated_at,
    origin = excluded.origin
WHERE excluded.origin = 'operator' OR (lessons.origin = 'agent' AND lessons.pinned = 0)
