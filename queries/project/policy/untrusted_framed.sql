-- Whether a session's current turn was framed (?3: 1 framed, 0 cleared at a prompt).
INSERT INTO untrusted_content (provider, session_id, framed, updated_at) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (provider, session_id) DO UPDATE SET framed = excluded.framed, updated_at = excluded.updated_at
