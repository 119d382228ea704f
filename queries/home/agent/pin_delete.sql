DELETE FROM agent_pins WHERE stable = ?1 AND package = ?2 AND sha = ?3
