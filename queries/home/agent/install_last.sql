SELECT defaults_skipped FROM agent_installs
WHERE harness_name = ?1 AND config_file = ?2 ORDER BY id DESC LIMIT 1
