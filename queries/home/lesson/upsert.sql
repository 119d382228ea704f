-- Adds a lesson, or updates the one with the same id (a hash of its instruction).
INSERT INTO lessons (id, instruction, gate, tokens, avoid, ref, until, source, category, status, created_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'active', ?10, ?10)
ON CONFLICT (id) DO UPDATE SET
    gate = excluded.gate,
    tokens = excluded.tokens,
    avoid = excluded.avoid,
    ref = excluded.ref,
    until = excluded.until,
    source = excluded.source,
    category = excluded.category,
    status = 'active',
    updated_at = excluded.updated_at
