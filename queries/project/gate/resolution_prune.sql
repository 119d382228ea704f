-- Keeps the newest ?1 resolutions.
DELETE FROM gate_resolutions WHERE id NOT IN (SELECT id FROM gate_resolutions ORDER BY id DESC LIMIT ?1)
