INSERT INTO agent_stables (name, remote, added_at, last_fetch, head, fetch_error)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (name) DO UPDATE SET remote = excluded.remote, last_fetch = excluded.last_fetch,
    head = excluded.head, fetch_error = excluded.fetch_error
