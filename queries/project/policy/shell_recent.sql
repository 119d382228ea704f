-- The session's most recent shell commands, newest first.
SELECT event_id, detail FROM decisions
WHERE provider = ?1 AND session_id = ?2 AND subject = 'shell' AND event_id IS NOT NULL
ORDER BY id DESC
LIMIT ?3
