-- The main transcripts of provider ?2's live sessions (no session.end yet) seen since ?4, other than
-- ?1, the most recently seen first (at most ?3): any hook reads what they gained since, so a session
-- that ends without a SessionEnd still gets its last responses. `+provider` keeps the walk on the
-- last_seen index (newest first, stopping at the limit) rather than on all of the provider's sessions.
SELECT t.path, t.session_id, t.file_id, t.head_hash, t.offset, t.malformed_lines, t.generations, t.oversize_lines
FROM sessions s
JOIN transcripts t ON t.path = s.transcript_path
WHERE s.last_seen > ?4 AND s.ended_at IS NULL AND +s.provider = ?2 AND t.path <> ?1
ORDER BY s.last_seen DESC
LIMIT ?3
