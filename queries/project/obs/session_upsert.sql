INSERT INTO sessions (provider, session_id, first_seen, last_seen, model, cwd, transcript_path, ended_at)
VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT (provider, session_id) DO UPDATE SET
    last_seen       = max(last_seen, excluded.last_seen),
    model           = coalesce(excluded.model, model),
    cwd             = coalesce(excluded.cwd, cwd),
    transcript_path = coalesce(excluded.transcript_path, transcript_path),
    ended_at        = coalesce(excluded.ended_at, ended_at)
