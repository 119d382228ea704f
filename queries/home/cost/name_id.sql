-- The number usage_names gives a project or model (?1).
SELECT id FROM usage_names WHERE name = ?1
