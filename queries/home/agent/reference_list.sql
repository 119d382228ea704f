SELECT config_file, table_name, source FROM agent_references ORDER BY config_file, table_name
