-- Mirrors one anchored value of a project (?1 project state folder, ?2 kind, ?3 key).
INSERT INTO anchors (project, kind, key, hash, content, seq, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT (project, kind, key) DO UPDATE SET hash = excluded.hash, content = excluded.content,
    seq = excluded.seq, updated_at = excluded.updated_at
