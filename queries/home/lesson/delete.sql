-- Forgets a lesson (`lessons forget`, `promote`'s move, the garden's prune).
DELETE FROM lessons WHERE id = ?1
