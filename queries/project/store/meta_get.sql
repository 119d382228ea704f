SELECT value FROM tlc_meta WHERE key = ?1
