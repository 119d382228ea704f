SELECT count(*) FROM usage
