-- How far one transcript file has been imported (totals, not increments).
INSERT INTO transcript_files (path, project, file_id, head_hash, offset, malformed_lines, generations, imported_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
ON CONFLICT (path) DO UPDATE SET
    project = excluded.project, file_id = excluded.file_id, head_hash = excluded.head_hash,
    offset = excluded.offset, malformed_lines = excluded.malformed_lines,
    generations = excluded.generations, imported_at = excluded.imported_at
