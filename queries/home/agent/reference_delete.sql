DELETE FROM agent_references WHERE config_file = ?1 AND table_name = ?2
