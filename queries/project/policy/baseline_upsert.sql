-- Records the hash and bytes of one policy source for one session (?1 provider, ?2 session, ?3 source, ?4 hash, ?5 recorded_at, ?6 reason, ?7 content).
INSERT INTO policy_baselines (provider, session_id, source, hash, recorded_at, reason, content)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT (provider, session_id, source) DO UPDATE SET
    hash = excluded.hash,
    recorded_at = excluded.recorded_at,
    reason = excluded.reason,
    content = excluded.content
