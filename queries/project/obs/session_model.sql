-- The model a session's events and main-thread responses recorded for it (a spawn's parent).
SELECT model FROM sessions WHERE provider = ?1 AND session_id = ?2
