INSERT OR IGNORE INTO agent_pin_files (stable, package, sha, path, sha256, size) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
