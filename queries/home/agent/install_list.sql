SELECT id, ts, action, stable, package, harness_name, config_file, version_asked, sha, previous_sha,
    scan_version, findings, forced, confirmations, defaults_written, defaults_skipped
FROM agent_installs WHERE ?1 IS NULL OR harness_name = ?1 ORDER BY id
