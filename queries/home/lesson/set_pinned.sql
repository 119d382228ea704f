-- Pins (1) or unpins (0) a lesson.
UPDATE lessons SET pinned = ?2, updated_at = ?3 WHERE id = ?1
