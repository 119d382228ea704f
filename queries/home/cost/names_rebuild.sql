-- Numbers every project and model of usage not numbered yet (before `hourly_rebuild`).
INSERT OR IGNORE INTO usage_names (name) SELECT project FROM usage UNION SELECT model FROM usage
