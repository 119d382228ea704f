SELECT stable, package, sha, installed_at FROM agent_pins ORDER BY stable, package, installed_at
