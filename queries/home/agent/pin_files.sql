SELECT path, sha256, size FROM agent_pin_files WHERE stable = ?1 AND package = ?2 AND sha = ?3 ORDER BY path
