-- ?4 is the model the event states for the session; ?8 a model for a session that has none yet
-- (a main-thread response's); ?9 is 1 on a session start, which makes an ended session live again
-- (Claude Code resumes a session under its id). first_seen is the session's earliest event.
INSERT INTO sessions (provider, session_id, first_seen, last_seen, model, cwd, transcript_path, ended_at)
VALUES (?1, ?2, ?3, ?3, coalesce(?4, ?8), ?5, ?6, ?7)
ON CONFLICT (provider, session_id) DO UPDATE SET
    first_seen      = min(first_seen, excluded.first_seen),
    last_seen       = max(last_seen, excluded.last_seen),
    model           = coalesce(?4, model, ?8),
    cwd             = coalesce(excluded.cwd, cwd),
    transcript_path = coalesce(excluded.transcript_path, transcript_path),
    ended_at        = CASE WHEN ?9 THEN NULL ELSE coalesce(excluded.ended_at, ended_at) END
