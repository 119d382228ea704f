DELETE FROM agent_stables WHERE name = ?1
