SELECT value FROM state WHERE key = ?1
