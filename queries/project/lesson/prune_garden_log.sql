-- Drops the garden log before ?1 (`tlc obs prune`).
DELETE FROM lesson_garden_log WHERE at < ?1
