DELETE FROM state WHERE key = ?1
