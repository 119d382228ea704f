SELECT file_id, head_hash, offset, malformed_lines, generations, oversize_lines FROM transcripts WHERE path = ?1
