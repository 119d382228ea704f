DELETE FROM decisions WHERE ts < ?1
