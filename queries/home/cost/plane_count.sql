SELECT count(*) FROM prices WHERE plane = ?1
