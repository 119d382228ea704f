-- A garden transition: the lesson's new status and confidence.
UPDATE lessons SET status = ?2, confidence = ?3, updated_at = ?4 WHERE id = ?1
