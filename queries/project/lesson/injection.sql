-- One lesson injected into a session.
INSERT INTO lesson_injections (at, provider, session_id, lesson_id, tier, mode, gate, after_run)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
