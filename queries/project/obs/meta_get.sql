-- One fact of `tlc_meta` (null when it was never set).
SELECT value FROM tlc_meta WHERE key = ?1
