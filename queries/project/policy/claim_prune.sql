DELETE FROM file_claims WHERE ts < ?1
