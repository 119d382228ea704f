-- Drops the injections before ?1 (`tlc obs prune`).
DELETE FROM lesson_injections WHERE at < ?1
