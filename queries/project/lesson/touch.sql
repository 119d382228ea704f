-- A lesson was injected: when it was last read.
UPDATE lessons SET last_accessed = ?2 WHERE id = ?1
