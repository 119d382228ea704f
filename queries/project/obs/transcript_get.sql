SELECT file_id, head_hash, offset, malformed_lines, generations FROM transcripts WHERE path = ?1
