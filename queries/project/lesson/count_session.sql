-- One more distinct session saw the lesson.
UPDATE lessons SET sessions = sessions + 1 WHERE id = ?1
