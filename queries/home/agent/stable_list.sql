SELECT name, remote, added_at, last_fetch, head, fetch_error FROM agent_stables ORDER BY name
