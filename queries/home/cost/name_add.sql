-- Numbers a project or model usage_hourly sums (?1), unless it is numbered already.
INSERT OR IGNORE INTO usage_names (name) VALUES (?1)
