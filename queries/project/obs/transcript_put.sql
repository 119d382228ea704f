INSERT INTO transcripts (path, provider, session_id, file_id, head_hash, offset, malformed_lines, generations, updated_at,
                         oversize_lines)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
ON CONFLICT (path) DO UPDATE SET
    provider        = excluded.provider,
    session_id      = excluded.session_id,
    file_id         = excluded.file_id,
    head_hash       = excluded.head_hash,
    offset          = excluded.offset,
    malformed_lines = excluded.malformed_lines,
    generations     = excluded.generations,
    updated_at      = excluded.updated_at,
    oversize_lines  = excluded.oversize_lines
