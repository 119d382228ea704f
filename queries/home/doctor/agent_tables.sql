-- The agent-package tables this home database has (stables, pins, installs).
SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE '%stable%' OR name LIKE '%pin%' OR name LIKE '%install%') ORDER BY name
