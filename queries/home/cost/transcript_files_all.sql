-- Every transcript file's import state.
SELECT path, file_id, head_hash, offset, malformed_lines, generations FROM transcript_files
