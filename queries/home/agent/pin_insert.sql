INSERT OR IGNORE INTO agent_pins (stable, package, sha, manifest, installed_at) VALUES (?1, ?2, ?3, ?4, ?5)
