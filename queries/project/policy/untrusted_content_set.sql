-- The untrusted content a session keeps (enforce mode): ?3 the text, ?4 its sources (JSON).
INSERT INTO untrusted_content (provider, session_id, content, sources, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (provider, session_id) DO UPDATE SET content = excluded.content, sources = excluded.sources,
    updated_at = excluded.updated_at
