INSERT INTO agent_resolutions (ts, config_file, table_name, source, outcome, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
