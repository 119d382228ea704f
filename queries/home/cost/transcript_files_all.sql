-- Every transcript file's import state.
SELECT path, file_id, head_hash, offset, malformed_lines, generations, project FROM transcript_files
