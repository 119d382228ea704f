INSERT INTO agent_installs (ts, action, stable, package, harness_name, config_file, version_asked, sha,
    previous_sha, scan_version, findings, forced, confirmations, defaults_written, defaults_skipped)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
