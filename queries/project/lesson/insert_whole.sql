-- A whole lesson as it stood in another tier (`lessons promote`, which sets `promoted_at`):
-- replaces one of the same id.
INSERT INTO lessons (id, instruction, gate, tokens, avoid, prefer, "check", refs, until, source, category, status, confidence, hits, sessions, priority, pinned, valid_from, fingerprint, first_seen, last_seen, last_accessed, created_at, updated_at, origin, promoted_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)
ON CONFLICT (id) DO UPDATE SET
    instruction = excluded.instruction, gate = excluded.gate, tokens = excluded.tokens, avoid = excluded.avoid,
    prefer = excluded.prefer, "check" = excluded."check", refs = excluded.refs, until = excluded.until,
    source = excluded.source, category = excluded.category, status = excluded.status,
    confidence = excluded.confidence, hits = excluded.hits, sessions = excluded.sessions,
    priority = excluded.priority, pinned = excluded.pinned, valid_from = excluded.valid_from,
    fingerprint = excluded.fingerprint, first_seen = excluded.first_seen, last_seen = excluded.last_seen,
    last_accessed = excluded.last_accessed, created_at = excluded.created_at, updated_at = excluded.updated_at,
    origin = excluded.origin, promoted_at = excluded.promoted_at
