DELETE FROM prices WHERE plane = ?1
