INSERT INTO agent_references (config_file, table_name, source, seen_at) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (config_file, table_name) DO UPDATE SET source = excluded.source, seen_at = excluded.seen_at
