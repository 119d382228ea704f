SELECT id, ts, config_file, table_name, source, outcome, detail FROM agent_resolutions
WHERE ?1 IS NULL OR table_name = ?1 ORDER BY id
