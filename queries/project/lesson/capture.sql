-- A mined lesson from a stagnating gate: a new candidate, or another hit of the same failure
-- (same gate and fingerprint, so the same id).
INSERT INTO lessons (id, instruction, gate, tokens, avoid, prefer, "check", refs, until, source, category, status,
                     confidence, hits, sessions, fingerprint, valid_from, first_seen, last_seen, created_at, updated_at, origin)
VALUES (?1, ?2, ?3, ?4, NULL, NULL, ?5, '[]', NULL, 'mined', ?6, 'candidate', 0.4, 1, 0, ?7, ?8, ?8, ?8, ?8, ?8, 'tlc')
ON CONFLICT (id) DO UPDATE SET
    "check" = CASE WHEN source = 'mined' THEN excluded."check" ELSE "check" END,
    hits = hits + 1,
    confidence = min(0.95, confidence + 0.1),
    last_seen = excluded.last_seen,
    updated_at = excluded.updated_at
